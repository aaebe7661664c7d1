package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/fetchproject/fetch/fetch/fetchtest"
	"time"
)

// TestBatchErrorsHideControls: a batch's failure lines quote the
// list's text and servers' replies; like a single URL's (report), they
// must not carry terminal escapes (ESC, BEL, CR) to stderr.
func TestBatchErrorsHideControls(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "list")
	os.WriteFile(list, []byte("http://127.0.0.1:1/\x1b]0;owned\x07x\n"), 0o666)
	_, _, stderr := runFetch(t, "", "-i", list, "-O", "--output-dir", dir, "-q")
	if strings.ContainsAny(stderr, "\x1b\x07\r") {
		t.Errorf("stderr carries control characters: %q", stderr)
	}
}

// TestBatchJSONHidesC1Controls: --json log lines on standard output
// escape U+0080-U+009F (a CSI, U+009B, from a list or a server would reach
// the terminal raw: JSON itself escapes only U+0000-U+001F).
func TestBatchJSONHidesC1Controls(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "list")
	os.WriteFile(list, []byte("http://127.0.0.1:1/\u009b2J\n"), 0o666)
	_, stdout, _ := runFetch(t, "", "-i", list, "-O", "--output-dir", dir, "--json")
	if strings.ContainsRune(stdout, '\u009b') || !strings.Contains(stdout, `\u009b`) {
		t.Errorf("--json line %q: want U+009B escaped", stdout)
	}
}

// TestBatchListBOM: a list saved with a UTF-8 byte order mark (Windows
// Notepad, PowerShell 5's Out-File) and CRLF line ends: its first URL is a
// URL, and a first line "# comment" is a comment.
func TestBatchListBOM(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) }))
	defer srv.Close()
	for _, first := range []string{srv.URL + "/a", "# my list"} {
		dir := t.TempDir()
		list := filepath.Join(dir, "list")
		os.WriteFile(list, []byte("\ufeff"+first+"\r\n"+srv.URL+"/b\r\n"), 0o666)
		code, _, stderr := runFetch(t, "", "-i", list, "-O", "--output-dir", dir, "-q")
		if code != 0 {
			t.Errorf("first line %q: exit %d, stderr %q", first, code, stderr)
		}
	}
}

// TestBatchDuplicateURLFetchedOnce: a URL listed twice is fetched once,
// however near its copies are: the list's reader runs ahead of the
// workers, and a second copy read before the first was done was fetched
// again, to the same file.
func TestBatchDuplicateURLFetchedOnce(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		mu.Unlock()
		io.WriteString(w, r.URL.Path)
	}))
	defer srv.Close()
	dir := t.TempDir()
	logName := filepath.Join(dir, "log")
	// /a listed again at once, /z listed again 300 lines later: each is
	// fetched once whatever the timing (the first was fetched twice).
	var list strings.Builder
	list.WriteString(srv.URL + "/z\n" + srv.URL + "/a\n" + srv.URL + "/b\n" + srv.URL + "/a\n")
	for i := range 300 {
		fmt.Fprintf(&list, "%s/f%d\n", srv.URL, i)
	}
	list.WriteString(srv.URL + "/z\n")
	code, _, stderr := runFetch(t, list.String(), "-i", "-", "-j", "2", "-O", "--output-dir", dir, "--log", logName, "-q")
	if code != 0 {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if hits["/a"] != 1 || hits["/z"] != 1 {
		t.Errorf("/a asked %d times, /z %d times", hits["/a"], hits["/z"])
	}
	if _, all := readLog(t, logName); len(all) != 303 {
		t.Errorf("%d log lines, want 303", len(all))
	}
}

// TestBatchLogIsListRefused: --log naming the -i list itself (a slip of
// the fingers) is refused before anything is written. It appended the
// log's lines to the list as it was read: each was read as a URL, failed
// and logged again, without end (157 MB in 5 s), and the list was lost.
func TestBatchLogIsListRefused(t *testing.T) {
	addr := fetchtest.RefusedAddr(t)
	dir := t.TempDir()
	list := filepath.Join(dir, "list")
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "http://%s/f%d\n", addr, i)
	}
	os.WriteFile(list, []byte(b.String()), 0o666)
	t.Setenv("FETCH_CONFIG", "")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	var o, e bytes.Buffer
	code := run(ctx, []string{"-i", list, "--log", list, "-O", "--output-dir", dir, "-q"},
		stdio{in: strings.NewReader(""), out: &o, err: &e})
	after, _ := os.ReadFile(list)
	if code != 2 || string(after) != b.String() {
		t.Errorf("exit %d, the list %d bytes (was %d); stderr %.300q", code, len(after), b.Len(), e.String())
	}
}

// TestBatchLogURLAsGiven: the log's url is the URL as given (#17), so
// that a script can match the log against its list, not as the parser
// prints it again ("~" as "%7E", "é" as "%C3%A9", the scheme and host in
// lower case); a rerun still skips them.
func TestBatchLogURLAsGiven(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); io.WriteString(w, "x") }))
	defer srv.Close()
	dir := t.TempDir()
	logName := filepath.Join(dir, "log")
	given := []string{srv.URL + "/~joe/a", srv.URL + "/caf\u00e9", strings.Replace(srv.URL, "http:", "HTTP:", 1) + "/b|c"}
	code, _, stderr := runFetch(t, strings.Join(given, "\n")+"\n", "-i", "-", "-o", "{path}", "--output-dir", dir, "--log", logName, "-q")
	if code != 0 {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	by, _ := readLog(t, logName)
	for _, g := range given {
		if _, ok := by[g]; !ok {
			t.Errorf("%q not in the log as given; log URLs: %v", g, mapKeys(by))
		}
	}
	// and a rerun still skips them all
	code, _, stderr = runFetch(t, strings.Join(given, "\n")+"\n", "-i", "-", "-o", "{path}", "--output-dir", dir, "--log", logName, "-q")
	if code != 0 || hits.Load() != 3 {
		t.Errorf("rerun: exit %d, %d requests in all (want 3), %q", code, hits.Load(), stderr)
	}
}

func mapKeys[V any](m map[string]V) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

// TestOwnFilesDistinct: two of the command's own files that are one are
// refused before anything is written: a --warc naming the -i list turned
// the list into gzip before it was read, --log and --warc in one file left
// neither readable (exit 0), and a single URL's -o naming its --warc or
// --json-meta file lost one of them.
func TestOwnFilesDistinct(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "doc") }))
	defer srv.Close()
	dir := t.TempDir()
	list := filepath.Join(dir, "list")
	listText := srv.URL + "/a\n"
	link := filepath.Join(dir, "link")
	for _, c := range []struct {
		name string
		args []string
		flag string
	}{
		{"warc is the list", []string{"-i", list, "-O", "--output-dir", dir, "--warc", list}, "--warc"},
		{"warc is the list through a link", []string{"-i", link, "-O", "--output-dir", dir, "--warc", list}, "--warc"},
		{"log is the warc", []string{"-i", list, "-O", "--output-dir", dir, "--log", filepath.Join(dir, "same"), "--warc", filepath.Join(dir, "same")}, "--warc"},
		{"output is the warc", []string{"--warc", filepath.Join(dir, "a.warc.gz"), "-o", filepath.Join(dir, "a.warc.gz"), srv.URL + "/a"}, "-o"},
		{"output is the metadata", []string{"--json-meta", filepath.Join(dir, "m.json"), "-o", filepath.Join(dir, "sub", "..", "m.json"), srv.URL + "/a"}, "-o"},
	} {
		os.WriteFile(list, []byte(listText), 0o666)
		os.Remove(link)
		if err := os.Symlink(list, link); err != nil {
			t.Fatal(err)
		}
		os.Mkdir(filepath.Join(dir, "sub"), 0o777)
		code, _, stderr := runFetch(t, "", c.args...)
		if code != 2 || !strings.Contains(stderr, c.flag+": ") || !strings.Contains(stderr, "each needs a file of its own") {
			t.Errorf("%s: exit %d, %q; want 2 naming %s", c.name, code, stderr, c.flag)
		}
		if b, _ := os.ReadFile(list); string(b) != listText {
			t.Errorf("%s: the list became %q", c.name, b)
		}
		for _, f := range []string{"same", "a.warc.gz", "m.json"} {
			if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
				t.Errorf("%s: %s was written", c.name, f)
			}
		}
	}
	// A batch refused so leaves no output directory behind, nor one
	// whose list cannot be read.
	for _, args := range [][]string{
		{"-i", list, "--warc", list},
		{"-i", filepath.Join(dir, "no-such-list")},
	} {
		out := filepath.Join(dir, "new")
		if code, _, _ := runFetch(t, "", append(args, "-O", "--output-dir", out)...); code == 0 {
			t.Errorf("%q: exit 0", args)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%q: the output directory was made by a run refused", args)
		}
	}
}
