package warc_test

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/warc"
)

// A resumed run appends: the records of the first run stay, a record torn
// by a kill is cut away, and the new part opens with its own warcinfo.
func TestAppendAfterKill(t *testing.T) {
	w := newWriter(t, "a.warc.gz", 0)
	name := w.Files()[0]
	c := fetch.NewClient(fetch.Options{})
	c.Register("ftp", fake(func() io.Reader { return strings.NewReader("first run\r\n") }, nil))
	if err := recordFetch(t, w, c, "ftp://127.0.0.1/a.txt"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	whole, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	// A killed run's last record, half written.
	var torn bytes.Buffer
	z := gzip.NewWriter(&torn)
	z.Write([]byte("WARC/1.1\r\nWARC-Type: resource\r\n" + strings.Repeat("x", 5000)))
	z.Close()
	if err := os.WriteFile(name, append(whole, torn.Bytes()[:torn.Len()/2]...), 0o666); err != nil {
		t.Fatal(err)
	}

	w2, err := warc.Append(name, warc.Options{Software: "fetch/test", CommandLine: "fetch --log l --warc a.warc.gz"})
	if err != nil {
		t.Fatal(err)
	}
	c = fetch.NewClient(fetch.Options{})
	c.Register("ftp", fake(func() io.Reader { return strings.NewReader("second run\r\n") }, nil))
	if err := recordFetch(t, w2, c, "ftp://127.0.0.1/b.txt"); err != nil {
		t.Fatal(err)
	}
	w2.Close()
	recs := readWARC(t, name) // fails on a torn member
	var types, bodies []string
	for _, r := range recs {
		types = append(types, r.fields["WARC-Type"])
		if r.fields["WARC-Type"] == "resource" {
			bodies = append(bodies, string(r.block))
		}
	}
	want := "warcinfo resource metadata warcinfo resource metadata"
	if strings.Join(types, " ") != want {
		t.Errorf("records %v, want %s", types, want)
	}
	if strings.Join(bodies, "|") != "first run\r\n|second run\r\n" {
		t.Errorf("resources %q", bodies)
	}
}

// With rotation, Append continues the series after its last file.
func TestAppendRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.warc.gz")
	opts := warc.Options{MaxSize: 1 << 20, Software: "fetch/test"}
	w, err := warc.Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	w2, err := warc.Append(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
	got := w2.Files()
	if len(got) != 1 || filepath.Base(got[0]) != "r-00001.warc.gz" {
		t.Errorf("appended files %v, want r-00001.warc.gz", got)
	}
	if _, err := os.Stat(filepath.Join(dir, "r-00000.warc.gz")); err != nil {
		t.Errorf("the first file is gone: %v", err)
	}
}

// Append refuses a file that is not a series of gzip members rather than
// cutting it to nothing.
func TestAppendRefusesForeignFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "notes.warc.gz")
	os.WriteFile(path, []byte("not a WARC file\n"), 0o666)
	if _, err := warc.Append(path, warc.Options{}); err == nil {
		t.Fatal("Append to a foreign file succeeded")
	}
	if b, _ := os.ReadFile(path); string(b) != "not a WARC file\n" {
		t.Errorf("the file was changed: %q", b)
	}
}

// FuzzRepair: whatever the file holds, Repair keeps a prefix that is a
// series of whole members, never panics, and a second Repair keeps it all.
func FuzzRepair(f *testing.F) {
	var b bytes.Buffer
	for _, s := range []string{"one", "two", strings.Repeat("three", 1000)} {
		z := gzip.NewWriter(&b)
		z.Write([]byte(s))
		z.Close()
	}
	f.Add(b.Bytes())
	f.Add(b.Bytes()[:b.Len()-3])
	f.Add([]byte{0x1f, 0x8b, 8, 0})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "f.warc.gz")
		if err := os.WriteFile(path, data, 0o666); err != nil {
			t.Fatal(err)
		}
		n, err := warc.Repair(path)
		if err != nil {
			return
		}
		if n > int64(len(data)) {
			t.Fatalf("kept %d of %d bytes", n, len(data))
		}
		n2, err := warc.Repair(path)
		if err != nil || n2 != n {
			t.Fatalf("second Repair = %d, %v; want %d", n2, err, n)
		}
	})
}

// exchange records one HTTP exchange of a transfer: request sent to u
// and a small response received.
func exchange(tr *warc.Transfer, u string) {
	sent, recv := tr.Exchange(u, &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 80})
	io.WriteString(sent, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
	io.WriteString(recv, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
}

// A redirected fetch's records are one group for KeepTail, named by the
// URL asked for, though each hop's records target that hop's URL.
func TestAppendGroupsRedirectByTask(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a.warc.gz")
	w, err := warc.Create(path, warc.Options{Software: "fetch/test"})
	if err != nil {
		t.Fatal(err)
	}
	tr := w.Begin("http", "http://h/a", nil)
	exchange(tr, "http://h/a")
	exchange(tr, "http://h/b")
	if err := tr.End("http://h/b", "text/plain", nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var asked []string
	keep := func(types []string, task string) bool {
		asked = append(asked, task+" "+strings.Join(types, ","))
		return task == "http://h/a" // the log holds the URL asked for
	}
	w2, err := warc.Append(path, warc.Options{Software: "fetch/test", KeepTail: keep})
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
	if want := "http://h/a response,request"; len(asked) != 1 || asked[0] != want {
		t.Errorf("KeepTail asked %q, want once %q", asked, want)
	}
	var got []string
	for _, r := range readWARC(t, path) {
		got = append(got, r.fields["WARC-Type"]+" "+r.fields["WARC-Target-URI"]+" "+r.fields[warc.TaskField])
	}
	want := []string{"warcinfo  ", "response http://h/a http://h/a", "request http://h/a http://h/a",
		"response http://h/b http://h/a", "request http://h/b http://h/a", "warcinfo  "}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("records after resume:\n%q\nwant\n%q", got, want)
	}
}

// A file written before Fetch-Task: its records are grouped by
// WARC-Target-URI as they were.
func TestAppendGroupsOldFileByTarget(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.warc.gz")
	var b bytes.Buffer
	for _, rec := range []string{"warcinfo\r\n", "resource\r\nWARC-Target-URI: ftp://h/x\r\n", "metadata\r\nWARC-Target-URI: ftp://h/x\r\n",
		"resource\r\nWARC-Target-URI: ftp://h/y\r\n", "metadata\r\nWARC-Target-URI: ftp://h/y\r\n"} {
		z := gzip.NewWriter(&b)
		z.Write([]byte("WARC/1.1\r\nWARC-Type: " + rec + "\r\n\r\n\r\n"))
		z.Close()
	}
	os.WriteFile(path, b.Bytes(), 0o666)
	var asked []string
	keep := func(types []string, task string) bool {
		asked = append(asked, task+" "+strings.Join(types, ","))
		return task == "ftp://h/x"
	}
	w, err := warc.Append(path, warc.Options{Software: "fetch/test", KeepTail: keep})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	if want := "ftp://h/y resource,metadata|ftp://h/x resource,metadata"; strings.Join(asked, "|") != want {
		t.Errorf("KeepTail asked %q, want %q", asked, want)
	}
}

// Reading a file back on resume holds a bounded part of it: a file of many
// small members, each naming a long distinct URI (which compresses to
// almost nothing), does not cost memory in proportion to the URIs.
func TestAppendRepairMemoryBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "long.warc.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 60<<10)
	z := gzip.NewWriter(f)
	for i := range 1000 {
		z.Reset(f)
		fmt.Fprintf(z, "WARC/1.1\r\nWARC-Type: metadata\r\nWARC-Target-URI: http://h/%d/%s\r\n\r\n\r\n\r\n", i, long)
		z.Close()
	}
	f.Close()
	var live uint64
	keep := func([]string, string) bool {
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		live = ms.HeapAlloc
		return true
	}
	w, err := warc.Append(path, warc.Options{KeepTail: keep})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	// 1000 URIs of 60 KiB would be 59 MiB.
	if live > 24<<20 {
		t.Errorf("%d MiB live while deciding what to keep", live>>20)
	}
}

// KeepTail is asked about at most the last 64 groups: what comes before
// them stays, whatever it would have answered.
func TestAppendExaminesBoundedTail(t *testing.T) {
	path := filepath.Join(t.TempDir(), "many.warc.gz")
	w, err := warc.Create(path, warc.Options{Software: "fetch/test"})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 70 {
		tr := w.Begin("http", fmt.Sprintf("http://h/%d", i), nil)
		exchange(tr, fmt.Sprintf("http://h/%d", i))
		if err := tr.End("", "text/plain", nil); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	asked := 0
	w2, err := warc.Append(path, warc.Options{KeepTail: func([]string, string) bool { asked++; return false }})
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
	var left []string
	for _, r := range readWARC(t, path) {
		if r.fields["WARC-Type"] == "response" {
			left = append(left, r.fields["WARC-Target-URI"])
		}
	}
	if asked != 64 || len(left) != 6 || left[5] != "http://h/5" {
		t.Errorf("asked %d times, responses left %q; want 64 and http://h/0 to http://h/5", asked, left)
	}
}

// A kill while a file's opening warcinfo is written leaves the start of a
// gzip member; Append starts the file again instead of refusing it.
func TestAppendAfterKillInWarcinfo(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.warc.gz")
	w, err := warc.Create(path, warc.Options{Software: "fetch/test"})
	if err != nil {
		t.Fatal(err)
	}
	w.Close()
	whole, _ := os.ReadFile(path)
	for _, n := range []int{3, 10, len(whole) / 2, len(whole) - 1} {
		os.WriteFile(path, whole[:n], 0o666)
		w, err := warc.Append(path, warc.Options{Software: "fetch/test", KeepTail: func([]string, string) bool { return false }})
		if err != nil {
			t.Errorf("killed after %d bytes of %d: %v", n, len(whole), err)
			continue
		}
		w.Close()
		if recs := readWARC(t, path); len(recs) != 1 || recs[0].fields["WARC-Type"] != "warcinfo" {
			t.Errorf("killed after %d bytes: %d records", n, len(recs))
		}
	}

	// A rotated series: its last file, just opened, is started again
	// under its own name.
	opts := warc.Options{MaxSize: 1 << 20, Software: "fetch/test"}
	rw, err := warc.Create(filepath.Join(dir, "r.warc.gz"), opts)
	if err != nil {
		t.Fatal(err)
	}
	rw.Close()
	os.WriteFile(filepath.Join(dir, "r-00001.warc.gz"), whole[:10], 0o666)
	rw, err = warc.Append(filepath.Join(dir, "r.warc.gz"), opts)
	if err != nil {
		t.Fatal(err)
	}
	rw.Close()
	if got := rw.Files(); len(got) != 1 || filepath.Base(got[0]) != "r-00001.warc.gz" {
		t.Errorf("appended to %v, want r-00001.warc.gz", got)
	}
	readWARC(t, filepath.Join(dir, "r-00001.warc.gz"))

	// Still refused: a torn member that is not a warcinfo, and one that
	// is corrupt rather than cut short.
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	z.Write([]byte("WARC/1.1\r\nWARC-Type: resource\r\n" + strings.Repeat("x", 100)))
	z.Close()
	corrupt := append([]byte(nil), whole...)
	corrupt[len(corrupt)-5] ^= 0xff // the CRC-32
	for name, data := range map[string][]byte{"resource": b.Bytes()[:b.Len()-4], "corrupt": corrupt, "torn header": []byte("\x1f")} {
		os.WriteFile(path, data, 0o666)
		_, err := warc.Append(path, warc.Options{})
		if name == "torn header" {
			if err != nil {
				t.Errorf("a gzip header cut after one byte: %v", err)
			}
			continue
		}
		if err == nil {
			t.Errorf("%s: Append started the file again", name)
		}
		if got, _ := os.ReadFile(path); !bytes.Equal(got, data) {
			t.Errorf("%s: the file was changed", name)
		}
	}
}

// A transfer's records are never split by a rotation: the file they end
// is the one Append repairs, so a killed transfer's response is cut there.
func TestRotationKeepsTransferTogether(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.warc.gz")
	opts := warc.Options{MaxSize: 400, Software: "fetch/test"} // over the warcinfo, under it and a response
	w, err := warc.Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range []string{"http://h/one", "http://h/two"} {
		tr := w.Begin("http", u, nil)
		exchange(tr, u)
		exchange(tr, u+"/moved")
		if err := tr.End("", "text/plain", nil); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	var layout []string
	for _, f := range w.Files() {
		var types []string
		for _, r := range readWARC(t, f) {
			types = append(types, r.fields["WARC-Type"])
		}
		layout = append(layout, strings.Join(types, ","))
	}
	want := "warcinfo,response,request,response,request|warcinfo,response,request,response,request"
	if strings.Join(layout, "|") != want {
		t.Errorf("files hold %q, want %q", layout, want)
	}
	// Killed before "two" was logged: the resume cuts all of it.
	opts.KeepTail = func(_ []string, task string) bool { return task == "http://h/one" }
	w2, err := warc.Append(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
	if recs := readWARC(t, w.Files()[1]); len(recs) != 1 {
		t.Errorf("%d records left in the last file, want its warcinfo", len(recs))
	}
}

// TestAppendRotationGlobMeta: a rotating series under a name (or a
// directory) holding a glob metacharacter is still found by Append: the
// files of the first run must not be truncated by the second.
func TestAppendRotationGlobMeta(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run[1]")
	if err := os.Mkdir(dir, 0o777); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "r.warc.gz")
	opts := rotatingWithOne(t, path)
	first := filepath.Join(dir, "r-00000.warc.gz")
	before, _ := os.ReadFile(first)

	w2, err := warc.Append(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
	if got := w2.Files(); len(got) != 1 || filepath.Base(got[0]) != "r-00001.warc.gz" {
		t.Errorf("appended files %v, want r-00001.warc.gz", got)
	}
	if after, _ := os.ReadFile(first); !bytes.Equal(before, after) {
		t.Errorf("%s was rewritten by Append: %d bytes before, %d after", first, len(before), len(after))
	}
}

// TestAppendRotationSixDigitSerial: the series goes on past NAME-99999
// as NAME-100000 (Writer.name's %05d), and Append finds that file rather
// than start it again over its records.
func TestAppendRotationSixDigitSerial(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.warc.gz")
	opts := rotatingWithOne(t, path)
	whole, _ := os.ReadFile(filepath.Join(dir, "r-00000.warc.gz"))
	// A long series: its files 99999 and 100000, as the writer names them.
	os.Rename(filepath.Join(dir, "r-00000.warc.gz"), filepath.Join(dir, "r-99999.warc.gz"))
	six := filepath.Join(dir, "r-100000.warc.gz")
	os.WriteFile(six, whole, 0o666)

	w2, err := warc.Append(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	w2.Close()
	if got := w2.Files(); len(got) != 1 || filepath.Base(got[0]) != "r-100001.warc.gz" {
		t.Errorf("appended files %v, want r-100001.warc.gz", got)
	}
	if after, _ := os.ReadFile(six); !bytes.Equal(after, whole) {
		t.Errorf("r-100000.warc.gz was rewritten by Append: %d bytes before, %d after", len(whole), len(after))
	}
}

// rotatingWithOne writes a rotating WARC at path (MaxSize 1 MiB) holding
// one recorded fetch, and returns its options.
func rotatingWithOne(t *testing.T, path string) warc.Options {
	t.Helper()
	opts := warc.Options{MaxSize: 1 << 20, Software: "fetch/test"}
	w, err := warc.Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	c := fetch.NewClient(fetch.Options{})
	c.Register("ftp", fake(func() io.Reader { return strings.NewReader("recorded\r\n") }, nil))
	if err := recordFetch(t, w, c, "ftp://127.0.0.1/a.txt"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	return opts
}

// TestAppendRefusesForeignGzip: a whole gzip file that holds no WARC
// record (a log.gz given to --warc by mistake) is refused, not appended
// to.
func TestAppendRefusesForeignGzip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "log.gz")
	var b bytes.Buffer
	z := gzip.NewWriter(&b)
	io.WriteString(z, "2026-11-26 an ordinary log line\n")
	z.Close()
	os.WriteFile(path, b.Bytes(), 0o600)
	if w, err := warc.Append(path, warc.Options{Software: "fetch/test"}); err == nil {
		w.Close()
		t.Fatal("appended to a gzip file that is no WARC")
	}
	if got, _ := os.ReadFile(path); !bytes.Equal(got, b.Bytes()) {
		t.Errorf("the gzip file was changed: %d bytes, was %d", len(got), b.Len())
	}
}
