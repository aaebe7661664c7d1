package warc_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/warc"
)

// plainOptions are the options of an uncompressed file for these tests.
func plainOptions(maxSize int64) warc.Options {
	now, id := fixed()
	return warc.Options{MaxSize: maxSize, Uncompressed: true, Software: "fetch/test", CommandLine: "fetch --warc x.warc URL", Now: now, NewID: id}
}

// plainFile writes an uncompressed file of the warcinfo and one fetch of
// each URL (a small FTP document) and returns its bytes.
func plainFile(t *testing.T, path string, urls ...string) []byte {
	t.Helper()
	w, err := warc.Create(path, plainOptions(0))
	if err != nil {
		t.Fatal(err)
	}
	c := fetch.NewClient(fetch.Options{})
	c.Register("ftp", fake(func() io.Reader { return strings.NewReader("document\r\n") }, nil))
	for _, u := range urls {
		if err := recordFetch(t, w, c, u); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func types(t *testing.T, path string) string {
	t.Helper()
	var got []string
	for _, r := range readWARC(t, path) {
		got = append(got, r.fields["WARC-Type"])
	}
	return strings.Join(got, " ")
}

// Uncompressed writes the records as they are: the file is the WARC
// itself, each record its header, its block and CR LF CR LF, with the
// same header and digests as a compressed file's; rotation names the
// files NAME-00000.warc, ….
func TestUncompressed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "p.warc")
	b := plainFile(t, path, "ftp://127.0.0.1/a.txt")
	if !bytes.HasPrefix(b, []byte("WARC/1.1\r\nWARC-Type: warcinfo\r\n")) {
		t.Fatalf("not an uncompressed WARC file: %q", b[:min(len(b), 40)])
	}
	recs := readWARC(t, path) // checks the framing and the digests
	if got := types(t, path); got != "warcinfo resource metadata" {
		t.Errorf("records %s", got)
	}
	if string(recs[1].block) != "document\r\n" || recs[0].fields["WARC-Filename"] != "p.warc" {
		t.Errorf("resource %q, warcinfo's file name %q", recs[1].block, recs[0].fields["WARC-Filename"])
	}

	// The same records compressed hold the same bytes.
	now, id := fixed()
	gz := filepath.Join(dir, "p.warc.gz")
	w, err := warc.Create(gz, warc.Options{Software: "fetch/test", CommandLine: "fetch --warc x.warc URL", Now: now, NewID: id})
	if err != nil {
		t.Fatal(err)
	}
	c := fetch.NewClient(fetch.Options{})
	c.Register("ftp", fake(func() io.Reader { return strings.NewReader("document\r\n") }, nil))
	recordFetch(t, w, c, "ftp://127.0.0.1/a.txt")
	w.Close()
	var all bytes.Buffer
	for _, r := range readWARC(t, gz) {
		fmt.Fprintf(&all, "WARC/1.1\r\n%s\r\n\r\n%s\r\n\r\n", strings.Join(r.head, "\r\n"), r.block)
	}
	if got := strings.Replace(all.String(), "p.warc.gz", "p.warc", 1); got != string(b) {
		t.Errorf("uncompressed:\n%q\nthe compressed file's records:\n%q", b, got)
	}

	rw, err := warc.Create(filepath.Join(dir, "r.warc"), plainOptions(600))
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		recordFetch(t, rw, c, "ftp://127.0.0.1/x")
	}
	rw.Close()
	files := rw.Files()
	if len(files) < 2 {
		t.Fatalf("files %v: no rotation at 600 bytes", files)
	}
	for i, f := range files {
		if want := fmt.Sprintf("r-%05d.warc", i); filepath.Base(f) != want {
			t.Errorf("file %d is %s, want %s", i, filepath.Base(f), want)
		}
		if recs := readWARC(t, f); recs[0].fields["WARC-Type"] != "warcinfo" {
			t.Errorf("%s does not open with its warcinfo", f)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "r.warc")); !os.IsNotExist(err) {
		t.Errorf("r.warc itself was written: %v", err)
	}
}

// A resumed run appends to an uncompressed file as to a compressed one:
// a record a kill cut anywhere (in its header, its block, the CR LF CR LF
// after it) is cut away, the earlier records stay, and KeepTail decides
// which whole transfers at the end stay.
func TestAppendUncompressedAfterKill(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.warc")
	whole := plainFile(t, path, "ftp://127.0.0.1/a.txt")
	withB := plainFile(t, path, "ftp://127.0.0.1/a.txt", "ftp://127.0.0.1/b.txt")
	if !bytes.HasPrefix(withB, whole[:bytes.Index(whole, []byte("WARC-Record-ID"))]) {
		t.Fatal("the files differ before their records")
	}
	// A cut inside one of b's records cuts that record and what follows;
	// a's stay whole.
	bStart := bytes.LastIndex(withB, []byte("WARC/1.1\r\nWARC-Type: resource"))
	metaStart := bytes.LastIndex(withB, []byte("WARC/1.1\r\nWARC-Type: metadata"))
	for _, n := range []int{bStart + 1, bStart + 30, metaStart - 10, metaStart - 1, metaStart + 5, len(withB) - 3, len(withB) - 1} {
		os.WriteFile(path, withB[:n], 0o666)
		w, err := warc.Append(path, plainOptions(0))
		if err != nil {
			t.Errorf("cut after %d bytes of %d: %v", n, len(withB), err)
			continue
		}
		w.Close()
		want := "warcinfo resource metadata warcinfo"
		if n > metaStart {
			want = "warcinfo resource metadata resource warcinfo"
		}
		if got := types(t, path); got != want {
			t.Errorf("cut after %d bytes: records %s, want %s", n, got, want)
		}
	}
	// KeepTail cuts b, whose line the log does not have, and keeps a.
	os.WriteFile(path, withB, 0o666)
	var asked []string
	opts := plainOptions(0)
	opts.KeepTail = func(types []string, task string) bool {
		asked = append(asked, task+" "+strings.Join(types, ","))
		return task == "ftp://127.0.0.1/a.txt"
	}
	w, err := warc.Append(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	c := fetch.NewClient(fetch.Options{})
	c.Register("ftp", fake(func() io.Reader { return strings.NewReader("again\r\n") }, nil))
	recordFetch(t, w, c, "ftp://127.0.0.1/b.txt")
	w.Close()
	if want := "ftp://127.0.0.1/b.txt resource,metadata|ftp://127.0.0.1/a.txt resource,metadata"; strings.Join(asked, "|") != want {
		t.Errorf("KeepTail asked %q, want %q", asked, want)
	}
	recs := readWARC(t, path)
	if got := types(t, path); got != "warcinfo resource metadata warcinfo resource metadata" || string(recs[4].block) != "again\r\n" {
		t.Errorf("records %s, last resource %q", got, recs[len(recs)-2].block)
	}

	// A series: its last file is repaired and the next one started.
	os.WriteFile(filepath.Join(dir, "r-00000.warc"), withB[:len(withB)-2], 0o666)
	rw, err := warc.Append(filepath.Join(dir, "r.warc"), plainOptions(1<<20))
	if err != nil {
		t.Fatal(err)
	}
	rw.Close()
	if got := rw.Files(); len(got) != 1 || filepath.Base(got[0]) != "r-00001.warc" {
		t.Errorf("appended to %v, want r-00001.warc", got)
	}
	if got := types(t, filepath.Join(dir, "r-00000.warc")); got != "warcinfo resource metadata resource" {
		t.Errorf("the series' last file holds %s", got)
	}
}

// A kill while an uncompressed file's warcinfo was written leaves the
// start of it: Append starts the file again. Anything else that does not
// begin with a whole record is refused, and so is a file of the other
// form: Append never makes a mixture of gzip members and plain records.
func TestAppendUncompressedRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.warc")
	w, err := warc.Create(path, plainOptions(0))
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	info, _ := os.ReadFile(path)
	for _, n := range []int{1, 5, 12, 40, len(info) / 2, len(info) - 4, len(info) - 1} {
		os.WriteFile(path, info[:n], 0o666)
		w, err := warc.Append(path, plainOptions(0))
		if err != nil {
			t.Errorf("killed after %d bytes of %d: %v", n, len(info), err)
			continue
		}
		w.Close()
		if got := types(t, path); got != "warcinfo" {
			t.Errorf("killed after %d bytes: records %s", n, got)
		}
	}

	var gz bytes.Buffer
	z := gzip.NewWriter(&gz)
	z.Write(info)
	z.Close()
	resource := strings.Replace(string(info), "warcinfo", "resource", 1)
	badEnd := append(append([]byte(nil), info[:len(info)-4]...), "\r\nXX"...)
	for name, data := range map[string][]byte{
		"not a WARC":          []byte("not a WARC file\n"),
		"torn resource":       []byte(resource[:len(resource)-10]),
		"bad end":             badEnd,
		"no Content-Length":   []byte("WARC/1.1\r\nWARC-Type: warcinfo\r\n\r\n\r\n\r\n"),
		"gzip members":        gz.Bytes(),
		"gzip header cut off": gz.Bytes()[:2],
	} {
		os.WriteFile(path, data, 0o666)
		w, err := warc.Append(path, plainOptions(0))
		if err == nil {
			w.Close()
			t.Errorf("%s: Append took it", name)
		} else if strings.HasPrefix(name, "gzip") && !strings.Contains(err.Error(), "gzip-compressed records") {
			t.Errorf("%s: %v", name, err)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
			t.Errorf("%s: the file was changed", name)
		}
	}
	// The other way: uncompressed records where gzip ones are to go.
	os.WriteFile(path, info, 0o666)
	if w, err := warc.Append(path, warc.Options{}); err == nil || !strings.Contains(err.Error(), "uncompressed records") {
		if w != nil {
			w.Close()
		}
		t.Errorf("gzip records appended to an uncompressed file: %v", err)
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, info) {
		t.Error("the uncompressed file was changed")
	}
}

// FuzzRepairUncompressed: whatever the file holds, RepairUncompressed
// keeps a prefix of it, never panics, and a second repair keeps it all.
func FuzzRepairUncompressed(f *testing.F) {
	rec := func(typ, block string) string {
		return fmt.Sprintf("WARC/1.1\r\nWARC-Type: %s\r\nContent-Length: %d\r\n\r\n%s\r\n\r\n", typ, len(block), block)
	}
	two := rec("warcinfo", "software: x\r\n") + rec("resource", strings.Repeat("y", 300))
	f.Add([]byte(two))
	f.Add([]byte(two[:len(two)-3]))
	f.Add([]byte("WARC/1.1\r\nContent-Length: -1\r\n\r\n"))
	f.Add([]byte("WARC/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "f.warc")
		if err := os.WriteFile(path, data, 0o666); err != nil {
			t.Fatal(err)
		}
		n, err := warc.RepairUncompressed(path)
		if err != nil {
			return
		}
		got, _ := os.ReadFile(path)
		if n > int64(len(data)) || !bytes.Equal(got, data[:n]) {
			t.Fatalf("kept %d of %d bytes, not a prefix", n, len(data))
		}
		n2, err := warc.RepairUncompressed(path)
		if err != nil || n2 != n {
			t.Fatalf("second repair = %d, %v; want %d", n2, err, n)
		}
	})
}
