package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// plainRecords returns each record of an uncompressed WARC file as text
// (as members does for a compressed one), checking the framing: a
// version line, a header with Content-Length, that many bytes and
// CR LF CR LF.
func plainRecords(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for len(b) > 0 {
		head, _, ok := bytes.Cut(b, []byte("\r\n\r\n"))
		if !ok || !bytes.HasPrefix(head, []byte("WARC/1.1\r\n")) {
			t.Fatalf("record %d: no WARC header: %q", len(out), b[:min(len(b), 60)])
		}
		n := -1
		for _, l := range strings.Split(string(head), "\r\n") {
			if v, ok := strings.CutPrefix(l, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		end := len(head) + 4 + n + 4
		if n < 0 || end > len(b) || string(b[end-4:end]) != "\r\n\r\n" {
			t.Fatalf("record %d: Content-Length %d does not frame it", len(out), n)
		}
		out = append(out, string(b[:end]))
		b = b[end:]
	}
	return out
}

// isGzip reports whether a file begins as a gzip member (RFC 1952).
func isGzip(t *testing.T, name string) bool {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.HasPrefix(b, []byte{0x1f, 0x8b})
}

// TestWARCNameChoosesForm: --warc NAME.warc is written uncompressed (it
// was gzip under a name that says otherwise), NAME.warc.gz one gzip
// member a record, and any other name as before, gzip; for one URL, a
// batch and a rotating series alike.
func TestWARCNameChoosesForm(t *testing.T) {
	dir := t.TempDir()
	u := fileURL(t, "doc.txt", "a document\n")
	for _, tt := range []struct {
		name  string
		plain bool
	}{{"one.warc", true}, {"one.warc.gz", false}, {"one.arc", false}, {"one.warc.GZ", false}} {
		out := filepath.Join(dir, tt.name)
		if code, _, stderr := runFetch(t, "", "-q", "--warc", out, "-o", filepath.Join(dir, "copy"), u); code != 0 {
			t.Fatalf("%s: exit %d: %s", tt.name, code, stderr)
		}
		if isGzip(t, out) == tt.plain {
			t.Errorf("%s: gzip %v, want %v", tt.name, tt.plain, !tt.plain)
			continue
		}
		recs := members
		if tt.plain {
			recs = plainRecords
		}
		if all := recs(t, out); len(all) != 3 || !strings.Contains(all[1], "WARC-Type: resource\r\n") || !strings.HasSuffix(all[1], "\r\n\r\na document\n\r\n\r\n") {
			t.Errorf("%s: records %q", tt.name, all)
		}
	}

	// A batch, -j 3, into one uncompressed file.
	var urls []string
	for i := range 5 {
		urls = append(urls, fileURL(t, "d"+strconv.Itoa(i)+".txt", strings.Repeat("document "+strconv.Itoa(i)+"\n", 100)))
	}
	out := filepath.Join(dir, "batch.warc")
	args := append([]string{"-q", "-j", "3", "-O", "--output-dir", filepath.Join(dir, "b"), "--warc", out}, urls...)
	if code, _, stderr := runFetch(t, "", args...); code != 0 {
		t.Fatalf("batch: exit %d: %s", code, stderr)
	}
	resources := 0
	for _, r := range plainRecords(t, out) {
		if strings.Contains(r, "WARC-Type: resource\r\n") {
			resources++
		}
	}
	if resources != 5 {
		t.Errorf("batch: %d resource records, want 5", resources)
	}

	// A rotating series of uncompressed files, NAME-00000.warc, …, which
	// a document of the batch does not overwrite.
	series := filepath.Join(dir, "s")
	os.MkdirAll(series, 0o777)
	taken := fileURL(t, "r-00000.warc", "a document named as a WARC file of the series\n")
	args = append([]string{"-q", "-O", "--output-dir", series, "--warc", filepath.Join(series, "r.warc"), "--warc-max-size", "1K", taken}, urls...)
	if code, _, stderr := runFetch(t, "", args...); code != 0 {
		t.Fatalf("series: exit %d: %s", code, stderr)
	}
	files, _ := filepath.Glob(filepath.Join(series, "r-*.warc"))
	if len(files) < 2 {
		t.Fatalf("series: files %v, want a rotation", files)
	}
	resources = 0
	for _, f := range files {
		all := plainRecords(t, f)
		if !strings.Contains(all[0], "WARC-Type: warcinfo\r\n") {
			t.Errorf("%s does not open with its warcinfo", f)
		}
		for _, r := range all {
			if strings.Contains(r, "WARC-Type: resource\r\n") {
				resources++
			}
		}
	}
	if resources != 6 {
		t.Errorf("series: %d resource records, want 6", resources)
	}
	if moved, _ := filepath.Glob(filepath.Join(series, "r-00000.warc~*")); len(moved) != 1 {
		t.Errorf("the document named r-00000.warc went to %v, want r-00000.warc~HASH", moved)
	}
	if _, err := os.Stat(filepath.Join(series, "r.warc")); !os.IsNotExist(err) {
		t.Errorf("r.warc itself was written: %v", err)
	}
}

// TestWARCResumeUncompressed: a batch killed in mid-record, after a
// transfer's records and before its log line, resumes into the same
// uncompressed file: the torn record and the unlogged transfer's records
// are cut, the URL is fetched again, and every document is in the file
// once. An earlier fetch's gzip file under a .warc name is refused, not
// turned into a mixture.
func TestWARCResumeUncompressed(t *testing.T) {
	dir := t.TempDir()
	doc := func(i int) string { return docURL(t, dir, i) }
	out, logName := filepath.Join(dir, "run.warc"), filepath.Join(dir, "log")
	common := []string{"-q", "-O", "--output-dir", filepath.Join(dir, "out"), "--log", logName, "--warc", out}
	if code, _, stderr := runFetch(t, "", append(common, doc(0), doc(1))...); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	// The kill: doc1's log line never written, a record half written.
	lg, _ := os.ReadFile(logName)
	lines := strings.SplitAfter(strings.TrimSuffix(string(lg), "\n"), "\n")
	if len(lines) != 2 || !strings.Contains(lines[1], "doc1.txt") {
		t.Fatalf("log %q", lg)
	}
	os.WriteFile(logName, []byte(lines[0]), 0o666)
	f, _ := os.OpenFile(out, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString("WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: 500\r\n\r\nonly part of it")
	f.Close()

	if code, _, stderr := runFetch(t, "", append(common, doc(0), doc(1), doc(2))...); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	var types []string
	resources := map[string]int{}
	for _, r := range plainRecords(t, out) {
		_, ty, _ := strings.Cut(r, "WARC-Type: ")
		ty, _, _ = strings.Cut(ty, "\r\n")
		types = append(types, ty)
		if ty == "resource" {
			for i := range 3 {
				if strings.Contains(r, "doc"+strconv.Itoa(i)+".txt\r\n") {
					resources["doc"+strconv.Itoa(i)]++
				}
			}
		}
	}
	want := "warcinfo resource metadata warcinfo resource metadata resource metadata"
	if strings.Join(types, " ") != want || len(resources) != 3 || resources["doc0"]+resources["doc1"]+resources["doc2"] != 3 {
		t.Errorf("records %v, resources %v; want %s, each document once", types, resources, want)
	}

	// A file an earlier fetch wrote compressed under this name.
	old := filepath.Join(dir, "old.warc")
	oldLog := filepath.Join(dir, "old.log")
	gz := filepath.Join(dir, "old.warc.gz")
	if code, _, stderr := runFetch(t, "", "-q", "-O", "--output-dir", filepath.Join(dir, "out2"), "--log", oldLog, "--warc", gz, doc(0)); code != 0 {
		t.Fatalf("old run: exit %d: %s", code, stderr)
	}
	os.Rename(gz, old)
	before, _ := os.ReadFile(old)
	code, _, stderr := runFetch(t, "", "-q", "-O", "--output-dir", filepath.Join(dir, "out2"), "--log", oldLog, "--warc", old, doc(0), doc(1))
	if code != 7 || !strings.Contains(stderr, "--warc") || !strings.Contains(stderr, ".warc.gz") {
		t.Errorf("a gzip file named .warc: exit %d, %q", code, stderr)
	}
	if after, _ := os.ReadFile(old); !bytes.Equal(before, after) {
		t.Error("the gzip file named .warc was changed")
	}
}
