package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestConfigResumeIsADefault: "C = -" in the configuration file is
// a default for a document saved to a file (as the file's max-size is
// for documents): like the file's info before f2c31d9, it must not make
// every batch, every fetch to standard output, or a listing a usage
// error. -C on the command line is still refused where it cannot apply.
func TestConfigResumeIsADefault(t *testing.T) {
	src := t.TempDir()
	a, b := filepath.Join(src, "a.txt"), filepath.Join(src, "b.txt")
	os.WriteFile(a, []byte("aaaa"), 0o644)
	os.WriteFile(b, []byte("bbbb"), 0o644)
	t.Chdir(t.TempDir())

	if code, _, e := runFetchConfig(t, "C = -\n", "-j", "2", "-O", "file://"+a, "file://"+b); code != 0 {
		t.Errorf("a batch with C = - in the file: exit %d: %s", code, e)
	} else if got, _ := os.ReadFile("b.txt"); string(got) != "bbbb" {
		t.Errorf("the batch wrote %q", got)
	}
	if code, out, e := runFetchConfig(t, "C = -\n", "file://"+a); code != 0 || out != "aaaa" {
		t.Errorf("standard output with C = - in the file: exit %d, out %q: %s", code, out, e)
	}
	if code, out, e := runFetchConfig(t, "C = -\n", "-o", "-", "file://"+a); code != 0 || out != "aaaa" {
		t.Errorf("-o - with C = - in the file: exit %d, out %q: %s", code, out, e)
	}
	if code, _, e := runFetchConfig(t, "C = -\n", "-o", "list.txt", "file://"+src+"/"); code != 0 {
		t.Errorf("a listing with C = - in the file: exit %d: %s", code, e)
	}
	// The file's default still resumes a document saved to a file.
	os.WriteFile("part.txt", []byte("aa"), 0o644)
	if code, _, e := runFetchConfig(t, "C = -\n", "-o", "part.txt", "file://"+a); code != 0 {
		t.Errorf("-o with C = - in the file: exit %d: %s", code, e)
	} else if got, _ := os.ReadFile("part.txt"); string(got) != "aaaa" {
		t.Errorf("resumed file holds %q", got)
	}
	// On the command line, -C still says what the run is.
	if code, _, _ := runFetch(t, "", "-j", "2", "-C", "-", "-O", "file://"+a, "file://"+b); code != 2 {
		t.Errorf("-C with a batch on the command line: exit %d, want 2", code)
	}
	if code, _, _ := runFetch(t, "", "-C", "-", "file://"+a); code != 2 {
		t.Errorf("-C - to standard output on the command line: exit %d, want 2", code)
	}
	if code, _, _ := runFetch(t, "", "-C", "-", "-o", "list.txt", "file://"+src+"/"); code != 2 {
		t.Errorf("-C - on a listing on the command line: exit %d, want 2", code)
	}
	// An offset in the file is refused, naming the line: as every
	// fetch's default it kept the first 100 bytes of any file saved and
	// appended the rest of another document.
	os.WriteFile("other.txt", []byte(strings.Repeat("z", 200)), 0o644)
	for _, line := range []string{"C = 100", "continue-at = 3"} {
		code, _, e := runFetchConfig(t, line+"\n", "-o", "other.txt", "file://"+a)
		name, _, _ := strings.Cut(line, " ")
		if code != 2 || !strings.Contains(e, ":1: "+name+" is - ") {
			t.Errorf("%q in the file: exit %d: %s", line, code, e)
		}
	}
	if got, _ := os.ReadFile("other.txt"); len(got) != 200 {
		t.Errorf("other.txt now holds %q", got)
	}
}
