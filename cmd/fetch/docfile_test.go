package main

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"unicode/utf8"
)

// names lists dir, failing the test if it cannot.
func names(t *testing.T, dir string) []string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

// docFileWays are the two ways of writing a document: unnamed where Linux
// allows, a temporary name elsewhere.
var docFileWays = map[string]func(dir, base string) (*docFile, error){
	"temporary name":        createTempDoc,
	"as this system allows": createDoc,
}

// TestDocFile: a document has no name in its directory until it is
// published whole, replaces a file of its name, and leaves nothing when
// discarded; both ways of writing one (unnamed where Linux allows, a
// temporary name elsewhere) are tried.
func TestDocFile(t *testing.T) {
	for way, create := range docFileWays {
		t.Run(way, func(t *testing.T) {
			dir := t.TempDir()
			dest := filepath.Join(dir, "doc.txt")
			d, err := create(dir, "doc.txt")
			if err != nil {
				t.Fatal(err)
			}
			if _, err := d.WriteString("whole"); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(dest); !os.IsNotExist(err) {
				t.Fatalf("%s exists before it is published (%v)", dest, err)
			}
			if err := d.publish(dest); err != nil {
				t.Fatal(err)
			}
			if b, err := os.ReadFile(dest); err != nil || string(b) != "whole" {
				t.Fatalf("published %q, %v", b, err)
			}
			if fi, err := os.Stat(dest); err != nil || runtime.GOOS != "windows" && fi.Mode().Perm()&0o600 != 0o600 {
				t.Errorf("published file mode %v, %v", fi.Mode(), err)
			}

			// a second document of the same name replaces the first
			d, err = create(dir, "doc.txt")
			if err != nil {
				t.Fatal(err)
			}
			d.WriteString("second")
			if err := d.publish(dest); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(dest); string(b) != "second" {
				t.Errorf("after the second publish: %q", b)
			}

			// a discarded document leaves nothing
			d, err = create(dir, "other.txt")
			if err != nil {
				t.Fatal(err)
			}
			d.WriteString("partial")
			d.discard()
			if got := names(t, dir); len(got) != 1 || got[0] != "doc.txt" {
				t.Errorf("directory holds %q, want only doc.txt", got)
			}
		})
	}
}

// TestDocFileNameIsDirectory: a directory that has the document's name
// is kept, and the document, still whole, goes to another name (or is
// discarded, leaving nothing); both ways of writing one are tried. The
// unnamed file was linked under a temporary name and unlinked again, and
// Linux never links such a file a second time.
func TestDocFileNameIsDirectory(t *testing.T) {
	for way, create := range docFileWays {
		t.Run(way, func(t *testing.T) {
			dir := t.TempDir()
			taken := filepath.Join(dir, "doc")
			if err := os.MkdirAll(filepath.Join(taken, "inside"), 0o777); err != nil {
				t.Fatal(err)
			}
			d, err := create(dir, "doc")
			if err != nil {
				t.Fatal(err)
			}
			d.WriteString("whole")
			if err := d.publish(taken); !errors.Is(err, errNameIsDir) {
				t.Fatalf("publish to a directory: %v, want errNameIsDir", err)
			}
			if err := d.publish(taken + "~2"); err != nil {
				t.Fatalf("publish to another name after: %v", err)
			}
			if b, err := os.ReadFile(taken + "~2"); err != nil || string(b) != "whole" {
				t.Errorf("published %q, %v", b, err)
			}
			if got := names(t, taken); len(got) != 1 || got[0] != "inside" {
				t.Errorf("the directory holds %q", got)
			}

			d, err = create(dir, "doc")
			if err != nil {
				t.Fatal(err)
			}
			d.WriteString("dropped")
			if err := d.publish(taken); !errors.Is(err, errNameIsDir) {
				t.Fatalf("publish to a directory: %v, want errNameIsDir", err)
			}
			d.discard()
			if got := names(t, dir); len(got) != 2 || got[0] != "doc" || got[1] != "doc~2" {
				t.Errorf("directory holds %q, want doc and doc~2", got)
			}
		})
	}
}

// TestDocFileUnnamed: on Linux, the document really is without a name
// while it is written, so a killed run leaves nothing.
func TestDocFileUnnamed(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("files without a name are Linux's (O_TMPFILE)")
	}
	dir := t.TempDir()
	d, err := createDoc(dir, "doc.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer d.discard()
	if d.temp != "" {
		t.Fatalf("written under %s: this file system and process should allow unnamed files", d.temp)
	}
	if got := names(t, dir); len(got) != 0 {
		t.Errorf("directory holds %q while the document is written", got)
	}
}

// A temporary name keeps the final name's first 100 bytes, never half a
// character: file systems that take only UTF-8 names would refuse it.
func TestTempNameUTF8(t *testing.T) {
	base := "a" + strings.Repeat("é", 80) // 161 bytes; byte 100 is inside an "é"
	name := filepath.Base(tempName(t.TempDir(), base))
	if !utf8.ValidString(name) || !strings.HasPrefix(name, tempPrefix) || !strings.HasSuffix(name, "a"+strings.Repeat("é", 49)) {
		t.Errorf("temporary name %q", name)
	}
}
