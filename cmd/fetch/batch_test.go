package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	"github.com/fetchproject/fetch/fetch/frontier"
)

// fastRetries makes the backoff short for a test (the Retry-After a
// server sends is still honoured as it says).
func fastRetries(t *testing.T) {
	old := retryBase
	retryBase = 10 * time.Millisecond
	t.Cleanup(func() { retryBase = old })
}

// readLog reads a --log file's lines by URL (the last line of each).
func readLog(t *testing.T, name string) (map[string]logLine, []logLine) {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	by := map[string]logLine{}
	var all []logLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l logLine
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Errorf("log line %q: %v", sc.Text(), err) // a cut line is removed on the next run
			continue
		}
		by[l.URL] = l
		all = append(all, l)
	}
	return by, all
}

// resetFirst is a listener that resets its first connection at once (as
// a server that drops a connection before answering).
type resetFirst struct {
	net.Listener
	n atomic.Int32
}

func (l *resetFirst) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil || l.n.Add(1) > 1 {
			return c, err
		}
		c.(*net.TCPConn).SetLinger(0)
		c.Close()
	}
}

func sum(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }

// TestBatchRetriesTransientFailures: a flaky server (the first connection
// reset, a 503 with Retry-After, a body cut short) is fetched whole with
// --retry; a 404 is asked exactly once.
func TestBatchRetriesTransientFailures(t *testing.T) {
	fastRetries(t)
	body := bytes.Repeat([]byte("0123456789"), 100)
	var mu sync.Mutex
	hits := map[string]int{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		n := hits[r.URL.Path]
		mu.Unlock()
		switch {
		case r.URL.Path == "/missing":
			http.NotFound(w, r)
		case r.URL.Path == "/busy" && n == 1:
			w.Header().Set("Retry-After", "1")
			w.WriteHeader(http.StatusServiceUnavailable)
		case r.URL.Path == "/drop" && n == 1:
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.Write(body[:900])
			w.(http.Flusher).Flush()
			c, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				c.Close()
			}
		default:
			w.Write(body)
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(h)
	srv.Listener = &resetFirst{Listener: ln}
	srv.Start()
	defer srv.Close()

	dir := t.TempDir()
	list := filepath.Join(dir, "list")
	urls := []string{srv.URL + "/first", srv.URL + "/busy", srv.URL + "/drop", srv.URL + "/missing"}
	os.WriteFile(list, []byte(strings.Join(urls, "\n")+"\n"), 0o666)
	logName := filepath.Join(dir, "log")
	start := time.Now()
	code, _, stderr := runFetch(t, "", "-i", list, "-o", "{path}", "--output-dir", filepath.Join(dir, "out"),
		"--retry", "3", "--log", logName, "-q")
	if code != 6 {
		t.Errorf("exit %d, want 6 (the 404); stderr %q", code, stderr)
	}
	by, _ := readLog(t, logName)
	for _, p := range []string{"first", "busy", "drop"} {
		l := by[srv.URL+"/"+p]
		got, err := os.ReadFile(filepath.Join(dir, "out", p))
		if l.Outcome != "ok" || err != nil || !bytes.Equal(got, body) || l.SHA256 != sum(body) || l.Bytes != int64(len(body)) {
			t.Errorf("%s: log %+v, file %d bytes, %v", p, l, len(got), err)
		}
		if l.Attempts < 2 {
			t.Errorf("%s: %d attempts, want a retry", p, l.Attempts)
		}
	}
	if d := time.Since(start); d < time.Second {
		t.Errorf("the batch took %v: Retry-After: 1 was not waited for", d)
	}
	if l := by[srv.URL+"/missing"]; l.Outcome != "failed" || l.Attempts != 1 || l.Exit != 6 {
		t.Errorf("404: %+v", l)
	}
	// The summary counts the three documents, not the 900 bytes of the
	// attempt that was cut short.
	if want := "; " + sizeText(3*int64(len(body))) + " in "; !strings.Contains(stderr, want) {
		t.Errorf("summary without %q: %q", want, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if hits["/missing"] != 1 {
		t.Errorf("the 404 was asked %d times", hits["/missing"])
	}
}

// TestBatchRefusedIsRetried: a refused connection is temporary (tried
// 1+N times); a policy refusal is not.
func TestBatchRefusedIsRetried(t *testing.T) {
	fastRetries(t)
	addr := fetchtest.RefusedAddr(t)
	dir := t.TempDir()
	logName := filepath.Join(dir, "log")
	code, _, stderr := runFetch(t, "", "-O", "--output-dir", dir, "--retry", "2", "--log", logName, "-q",
		"http://"+addr+"/f", "http://127.0.0.1:25/f")
	if code != 5 {
		t.Errorf("exit %d, want 5; stderr %q", code, stderr)
	}
	by, _ := readLog(t, logName)
	if l := by["http://"+addr+"/f"]; l.Attempts != 3 || l.Exit != 5 {
		t.Errorf("refused: %+v", l)
	}
	if l := by["http://127.0.0.1:25/f"]; l.Attempts != 1 || l.Exit != 4 {
		t.Errorf("policy: %+v", l)
	}
	if !strings.Contains(stderr, "2 URLs: 0 ok, 2 failed") {
		t.Errorf("summary: %q", stderr)
	}
}

// TestBatchPerHostCap: with -j 8 and --per-host 2 the server never has
// more than two requests, nor two connections, at once.
func TestBatchPerHostCap(t *testing.T) {
	var active, maxActive, conns, maxConns atomic.Int32
	raise := func(v *atomic.Int32, n int32) {
		for m := v.Load(); n > m && !v.CompareAndSwap(m, n); m = v.Load() {
		}
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raise(&maxActive, active.Add(1))
		time.Sleep(20 * time.Millisecond)
		active.Add(-1)
		io.WriteString(w, r.URL.Path)
	}))
	srv.Config.ConnState = func(c net.Conn, s http.ConnState) {
		switch s {
		case http.StateNew:
			raise(&maxConns, conns.Add(1))
		case http.StateClosed, http.StateHijacked:
			conns.Add(-1)
		}
	}
	srv.Start()
	defer srv.Close()
	var list strings.Builder
	for i := range 40 {
		fmt.Fprintf(&list, "%s/f%d\n", srv.URL, i)
	}
	dir := t.TempDir()
	code, _, stderr := runFetch(t, list.String(), "-i", "-", "-j", "8", "--per-host", "2", "-O", "--output-dir", dir, "-q")
	if code != 0 {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	if m := maxActive.Load(); m > 2 || m < 1 {
		t.Errorf("%d requests at once, cap 2", m)
	}
	if m := maxConns.Load(); m > 2 {
		t.Errorf("%d connections at once, cap 2", m)
	}
	for i := range 40 {
		if b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("f%d", i))); err != nil || string(b) != fmt.Sprintf("/f%d", i) {
			t.Errorf("f%d: %q %v", i, b, err)
		}
	}
}

// TestBatchPerHostAfterRedirect: --per-host counts the host a transfer
// is redirected to: URLs of four hosts that all redirect to a fifth never
// send it more than the cap at once.
func TestBatchPerHostAfterRedirect(t *testing.T) {
	var active, maxActive atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := active.Add(1)
		for m := maxActive.Load(); n > m && !maxActive.CompareAndSwap(m, n); m = maxActive.Load() {
		}
		time.Sleep(30 * time.Millisecond)
		active.Add(-1)
		io.WriteString(w, r.URL.Path)
	}))
	defer target.Close()
	var list strings.Builder
	for h := range 4 {
		from := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, target.URL+r.URL.Path, http.StatusFound)
		}))
		defer from.Close()
		for i := range 4 {
			fmt.Fprintf(&list, "%s/h%df%d\n", from.URL, h, i)
		}
	}
	dir := t.TempDir()
	code, _, stderr := runFetch(t, list.String(), "-i", "-", "-j", "8", "--per-host", "1", "-O", "--output-dir", dir, "-q")
	if code != 0 {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	if m := maxActive.Load(); m != 1 {
		t.Errorf("%d requests at once to the redirects' host, cap 1", m)
	}
	for h := range 4 {
		for i := range 4 {
			name := fmt.Sprintf("h%df%d", h, i)
			if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != "/"+name {
				t.Errorf("%s: %q %v", name, b, err)
			}
		}
	}
}

// pathServer answers each request with its path, after delay, and counts
// the connections it accepts.
func pathServer(t *testing.T, delay time.Duration) (*httptest.Server, *atomic.Int32) {
	conns := new(atomic.Int32)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		time.Sleep(delay)
		io.WriteString(w, r.URL.Path)
	}))
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, conns
}

// TestBatchPipeline: with --pipeline 4, -j 8 --per-host 8 sends its
// requests on two connections, four on each (eight, one a connection,
// without it), and every file is whole; --pipeline out of its range is a
// usage error naming it.
func TestBatchPipeline(t *testing.T) {
	srv, conns := pathServer(t, 5*time.Millisecond) // the requests pile up behind one another
	var list strings.Builder
	for i := range 80 {
		fmt.Fprintf(&list, "%s/f%d\n", srv.URL, i)
	}
	dir := t.TempDir()
	code, _, stderr := runFetch(t, list.String(), "-i", "-", "-j", "8", "--per-host", "8", "--pipeline", "4", "-O", "--output-dir", dir, "-q")
	if code != 0 {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	if n := conns.Load(); n > 2 {
		t.Errorf("%d connections for 8 transfers at once, 4 on each", n)
	}
	for i := range 80 {
		if b, err := os.ReadFile(filepath.Join(dir, fmt.Sprintf("f%d", i))); err != nil || string(b) != fmt.Sprintf("/f%d", i) {
			t.Errorf("f%d: %q %v", i, b, err)
		}
	}
	for _, n := range []string{"0", "65", "-1"} {
		code, _, stderr := runFetch(t, "", "--pipeline", n, srv.URL+"/x")
		if code != 2 || !strings.Contains(stderr, "--pipeline") {
			t.Errorf("--pipeline %s: exit %d, %q", n, code, stderr)
		}
	}
}

// TestBatchResume: a rerun with the same log asks only for what failed,
// removes a killed run's temporary files, and copes with a last log line
// cut short.
func TestBatchResume(t *testing.T) {
	var mu sync.Mutex
	hits := map[string]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		hits[r.URL.Path]++
		n := hits[r.URL.Path]
		mu.Unlock()
		if r.URL.Path == "/later" && n == 1 {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "doc "+r.URL.Path)
	}))
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	os.MkdirAll(filepath.Join(out, "127.0.0.1"), 0o777)
	stale := filepath.Join(out, "127.0.0.1", tempPrefix+"999999999.0000abcd.a")
	os.WriteFile(stale, []byte("half"), 0o666)
	// a killed run that had this run's process id (PID 1 in a container,
	// both times)
	staleSelf := filepath.Join(out, "127.0.0.1", fmt.Sprintf("%s%d.0000abce.b", tempPrefix, os.Getpid()))
	os.WriteFile(staleSelf, []byte("half"), 0o666)
	list := filepath.Join(dir, "list")
	os.WriteFile(list, []byte("# three\n"+srv.URL+"/a\n\n"+srv.URL+"/b\n"+srv.URL+"/later\n"), 0o666)
	logName := filepath.Join(dir, "log")
	args := []string{"-i", list, "-j", "2", "-o", "{host}/{file}", "--output-dir", out, "--log", logName, "-q"}
	if code, _, stderr := runFetch(t, "", args...); code != 6 {
		t.Fatalf("first run: exit %d, %q", code, stderr)
	}
	// A kill in mid-write leaves a line without its end, which the rerun
	// removes (readLog fails on a line that is not JSON).
	f, _ := os.OpenFile(logName, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"url":"` + srv.URL + `/b","outcome":"o`)
	f.Close()
	if code, _, stderr := runFetch(t, "", args...); code != 0 {
		t.Fatalf("rerun: exit %d, %q", code, stderr)
	}
	mu.Lock()
	if hits["/a"] != 1 || hits["/b"] != 1 || hits["/later"] != 2 {
		t.Errorf("requests: %v", hits)
	}
	mu.Unlock()
	for _, name := range []string{stale, staleSelf} {
		if _, err := os.Stat(name); !os.IsNotExist(err) {
			t.Errorf("stale temporary file %s left: %v", filepath.Base(name), err)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(out, "127.0.0.1"))
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if strings.Join(names, " ") != "a b later" {
		t.Errorf("output files: %v", names)
	}
	by, all := readLog(t, logName)
	if l := by[srv.URL+"/later"]; l.Outcome != "ok" || l.File != filepath.Join(out, "127.0.0.1", "later") {
		t.Errorf("later: %+v", l)
	}
	if len(all) != 4 {
		t.Errorf("%d log lines, want 4 (3 + the failed one)", len(all))
	}
}

// TestBatchInterrupt: Ctrl-C cancels the transfers in flight, leaves no
// temporary file, logs nothing for them and exits 130.
func TestBatchInterrupt(t *testing.T) {
	u := stallingServer(t)
	dir := t.TempDir()
	logName := filepath.Join(dir, "log")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	t.Setenv("FETCH_CONFIG", "")
	var o, e bytes.Buffer
	code := run(ctx, []string{"-j", "2", "-o", "{file}{port}", "--output-dir", dir, "--log", logName, u, u + "2"},
		stdio{in: strings.NewReader(""), out: &o, err: &e})
	if code != 130 || !strings.Contains(e.String(), "interrupted") {
		t.Errorf("exit %d, stderr %q", code, e.String())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 || entries[0].Name() != "log" {
		t.Errorf("left behind: %v", entries)
	}
	if b, _ := os.ReadFile(logName); len(b) != 0 {
		t.Errorf("log: %q", b)
	}
}

// TestBatchInterruptWhileReading: Ctrl-C ends a batch whose list is still
// open (a terminal, a pipe with no more lines yet) without waiting for
// the next line.
func TestBatchInterruptWhileReading(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") }))
	defer srv.Close()
	dir := t.TempDir()
	pr, pw := io.Pipe()
	defer pw.Close() // frees the reader the command left behind
	go io.WriteString(pw, srv.URL+"/a\n")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	t.Setenv("FETCH_CONFIG", "")
	done := make(chan int, 1)
	var o, e bytes.Buffer
	go func() {
		done <- run(ctx, []string{"-i", "-", "-O", "--output-dir", dir, "-q"}, stdio{in: pr, out: &o, err: &e})
	}()
	// Once the first URL's file is there, the batch waits for more input.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if _, err := os.Stat(filepath.Join(dir, "a")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the first URL was never fetched")
		}
	}
	cancel()
	select {
	case code := <-done:
		// Without --log, the summary does not send the user to one.
		if code != 130 || !strings.Contains(e.String(), "interrupted (with --log FILE") {
			t.Errorf("exit %d, stderr %q", code, e.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("still waiting for input 30 s after Ctrl-C")
	}
}

// TestBatchFileAndDirectory: a name that is a file for one URL and a
// directory for another ("/sub" and "/sub/plain"), in either order, gives
// both URLs a file; a rerun with the log puts more of the directory's
// files where the first run put them.
func TestBatchFileAndDirectory(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) }))
	defer srv.Close()
	suffix := suffixOf
	for _, tt := range []struct {
		name  string
		paths []string
		want  map[string]string
	}{
		{"file first", []string{"/sub", "/sub/plain"}, map[string]string{
			"sub":                            "/sub",
			"sub" + suffix("sub") + "/plain": "/sub/plain",
		}},
		{"directory first", []string{"/sub/plain", "/sub"}, map[string]string{
			"sub/plain":                    "/sub/plain",
			"sub" + suffix(srv.URL+"/sub"): "/sub",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			logName := filepath.Join(dir, "log")
			var list string
			for _, p := range tt.paths {
				list += srv.URL + p + "\n"
			}
			code, _, stderr := runFetch(t, list, "-i", "-", "-o", "{path}", "--output-dir", dir, "--log", logName)
			if code != 0 {
				t.Fatalf("exit %d, %q", code, stderr)
			}
			if got := treeFiles(dir); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("files %v, want %v", got, tt.want)
			}
			// A rerun adds /sub/more: into the directory the first run
			// used for /sub/plain.
			code, _, stderr = runFetch(t, list+srv.URL+"/sub/more\n", "-i", "-", "-o", "{path}", "--output-dir", dir, "--log", logName)
			if code != 0 {
				t.Fatalf("rerun: exit %d, %q", code, stderr)
			}
			at := map[string]string{} // document → its file
			got := treeFiles(dir)
			for k, v := range got {
				at[v] = k
			}
			if path.Dir(at["/sub/more"]) != path.Dir(at["/sub/plain"]) {
				t.Errorf("the rerun put /sub/more apart from /sub/plain: %v", got)
			}
			if len(got) != 3 {
				t.Errorf("after the rerun: %v", got)
			}
		})
	}
}

// treeFiles is every file under dir (but a file named "log") by its path
// there, with its content.
func treeFiles(dir string) map[string]string {
	got := map[string]string{}
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() != "log" {
			b, _ := os.ReadFile(p)
			rel, _ := filepath.Rel(dir, p)
			got[filepath.ToSlash(rel)] = string(b)
		}
		return nil
	})
	return got
}

// TestBatchNameOnDisk: what is on disk but not in the batch's names (an
// earlier run's output without its log, the user's own) is kept as the
// run's own would be: a directory that has a document's name, or a file
// that has the name of a directory a document needs, sends the document
// to the name a run fetching both URLs gives it, and the log says which.
// Each failed with exit 7 ("file exists", "not a directory").
func TestBatchNameOnDisk(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) }))
	defer srv.Close()
	for _, tt := range []struct {
		name   string
		before map[string]string // on disk: a file and its content; "" a directory
		flag   string            // -O, or the -o template
		paths  []string
		want   map[string]string
	}{
		{"directory", map[string]string{"sub": "", "sub/mine": "mine"}, "{path}", []string{"/sub", "/sub/more"}, map[string]string{
			"sub/mine":                       "mine",
			"sub" + suffixOf(srv.URL+"/sub"): "/sub",
			"sub/more":                       "/sub/more",
		}},
		{"file", map[string]string{"sub": "mine"}, "{path}", []string{"/sub/plain"}, map[string]string{
			"sub":                              "mine",
			"sub" + suffixOf("sub") + "/plain": "/sub/plain",
		}},
		{"file, then its own URL", map[string]string{"sub": "mine"}, "{path}", []string{"/sub/plain", "/sub"}, map[string]string{
			"sub":                              "/sub", // as any earlier file of its name
			"sub" + suffixOf("sub") + "/plain": "/sub/plain",
		}},
		{"file deeper", map[string]string{"a": "", "a/sub": "mine"}, "{path}", []string{"/a/sub/x/y"}, map[string]string{
			"a/sub":                              "mine",
			"a/sub" + suffixOf("a/sub") + "/x/y": "/a/sub/x/y",
		}},
		{"-O", map[string]string{"y": "", "y/mine": "mine"}, "-O", []string{"/a/y"}, map[string]string{
			"y/mine":                       "mine",
			"y" + suffixOf(srv.URL+"/a/y"): "/a/y",
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			for p, content := range tt.before {
				p = filepath.Join(dir, p)
				if content == "" {
					os.MkdirAll(p, 0o777)
					continue
				}
				os.MkdirAll(filepath.Dir(p), 0o777)
				if err := os.WriteFile(p, []byte(content), 0o666); err != nil {
					t.Fatal(err)
				}
			}
			logName := filepath.Join(dir, "log")
			args := []string{"-q", "-o", tt.flag, "--output-dir", dir, "--log", logName}
			if tt.flag == "-O" {
				args = []string{"-q", "-O", "--output-dir", dir, "--log", logName}
			}
			for _, p := range tt.paths {
				args = append(args, srv.URL+p)
			}
			code, _, stderr := runFetch(t, "", args...)
			if code != 0 {
				t.Fatalf("exit %d, %q", code, stderr)
			}
			if got := treeFiles(dir); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("files %v, want %v", got, tt.want)
			}
			by, _ := readLog(t, logName)
			for _, p := range tt.paths {
				if b, err := os.ReadFile(by[srv.URL+p].File); err != nil || string(b) != p {
					t.Errorf("the log gives %s the file %s, holding %q (%v)", p, by[srv.URL+p].File, b, err)
				}
			}
		})
	}
}

// TestBatchKeepsItsOwnFiles: a document whose name is the batch's log,
// list or WARC in the output directory never replaces it.
func TestBatchKeepsItsOwnFiles(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "doc "+r.URL.Path) }))
	defer srv.Close()
	dir := t.TempDir()
	list := filepath.Join(dir, "list")
	os.WriteFile(list, []byte(srv.URL+"/run.log\n"+srv.URL+"/list\n"+srv.URL+"/a.warc\n"), 0o666)
	logName := filepath.Join(dir, "run.log")
	code, _, stderr := runFetch(t, "", "-i", list, "-O", "--output-dir", dir, "--log", logName, "--warc", filepath.Join(dir, "a.warc"))
	if code != 0 {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	_, all := readLog(t, logName) // fails on a line that is not the log's
	if len(all) != 3 {
		t.Fatalf("log: %+v", all)
	}
	for _, l := range all {
		b, err := os.ReadFile(l.File)
		if base := path.Base(l.URL); err != nil || string(b) != "doc /"+base || !strings.HasPrefix(filepath.Base(l.File), base+"~") {
			t.Errorf("%s went to %s: %q, %v", l.URL, l.File, b, err)
		}
	}
	if b, _ := os.ReadFile(list); !strings.HasPrefix(string(b), srv.URL) {
		t.Errorf("the list became %q", b)
	}
	// Named through a link to the output directory, they are seen in it.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runFetch(t, "", "-O", "--output-dir", link, "--log", filepath.Join(dir, "run.log"), srv.URL+"/run.log")
	if code != 0 {
		t.Fatalf("through a link: exit %d, %q", code, stderr)
	}
	readLog(t, logName) // still the log's lines only
	// A rotating WARC's files, which come as the run goes, are kept too.
	code, _, stderr = runFetch(t, "", "-O", "--output-dir", dir, "--warc", filepath.Join(dir, "r.warc.gz"), "--warc-max-size", "1M", srv.URL+"/r-00000.warc.gz")
	if code != 0 {
		t.Fatalf("rotating WARC: exit %d, %q", code, stderr)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "r-00000.warc.gz")); err != nil || strings.HasPrefix(string(b), "doc ") {
		t.Errorf("the WARC became %q, %v", b, err)
	}
}

// TestBatchExitSeverity: the batch's status is its most severe failure's.
func TestBatchExitSeverity(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	dir := t.TempDir()
	for _, tt := range []struct {
		urls []string
		code int
	}{
		{[]string{srv.URL + "/a", "http://h:99999/"}, 6},
		{[]string{"http://h:99999/", "http://127.0.0.1:25/x"}, 4},
		{[]string{"http://127.0.0.1:25/x", srv.URL + "/a"}, 4},
	} {
		args := append([]string{"-O", "--output-dir", dir, "-q"}, tt.urls...)
		if code, _, stderr := runFetch(t, "", args...); code != tt.code {
			t.Errorf("%v: exit %d, want %d (%q)", tt.urls, code, tt.code, stderr)
		}
	}
	// A URL its scheme's grammar refuses is malformed (3) under a
	// template as under -O, not a usage error of the template (2).
	for _, out := range [][]string{{"-O"}, {"-o", "{path}"}} {
		for _, u := range []string{"gopher://u:p@127.0.0.1:7070/0/x", "ftp:/u@127.0.0.1/x"} {
			args := append(append(out, "--output-dir", dir, "-q"), u)
			if code, _, stderr := runFetch(t, "", args...); code != 3 {
				t.Errorf("%v %s: exit %d, want 3 (%q)", out, u, code, stderr)
			}
			// and one URL on its own, outside the batch engine
			args = append(append(out[:len(out):len(out)], "-q"), u)
			if code, _, stderr := runFetch(t, "", args...); code != 3 {
				t.Errorf("%v %s alone: exit %d, want 3 (%q)", out, u, code, stderr)
			}
		}
	}
	// Through a proxy the URL is the proxy's to judge, under -O as under
	// -o: both reach the proxy (here refused by the port policy, 4).
	for _, out := range [][]string{{"-O"}, {"-o", filepath.Join(dir, "f")}} {
		args := append(append(out, "-q", "--proxy", "http://127.0.0.1:1"), "ftp://h.invalid/x;type=z")
		if code, _, stderr := runFetch(t, "", args...); code != 4 {
			t.Errorf("%v through a proxy: exit %d, want 4 (%q)", out, code, stderr)
		}
	}
	if !moreSevere(7, 5) || !moreSevere(5, 6) || !moreSevere(6, 3) || moreSevere(3, 2) {
		t.Error("severity order")
	}
}

// TestBatchUsage: a batch refuses what cannot work before fetching.
func TestBatchUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-i", "-"},                                 // no -O, no -o
		{"-i", "-", "-o", "plain"},                  // a template without a field
		{"-i", "-", "-o", "/abs/{path}"},            // outside the output dir
		{"-i", "-", "-O", "-o", "{path}"},           // both
		{"-i", "-", "-O", "-j", "0"},                // no worker
		{"-i", "-", "-O", "-j", "100000000"},        // past maxJobs
		{"-i", "-", "-o", "{hots}/{path}"},          // an unknown field
		{"-i", "-", "-O", "-C", "-"},                // resume is per URL
		{"-j", "2", "-O"},                           // no URL at all
		{"-i", "-", "-o", "{path}", "-o", "{host}"}, // two templates
	} {
		if code, _, stderr := runFetch(t, "http://127.0.0.1:1/x\n", args...); code != 2 || !strings.HasPrefix(stderr, "fetch: ") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	// A flag that makes one URL a batch is named: --retry alone does,
	// and a batch writes files.
	for flag, args := range map[string][]string{
		"--retry":      {"--retry", "1", "http://127.0.0.1:1/x"},
		"--output-dir": {"--output-dir", t.TempDir(), "http://127.0.0.1:1/x"},
		"-i":           {"-i", "-"},
	} {
		if code, _, stderr := runFetch(t, "http://127.0.0.1:1/x\n", args...); code != 2 || !strings.HasPrefix(stderr, "fetch: "+flag+" makes this a batch") {
			t.Errorf("%v: exit %d, %q", args, code, stderr)
		}
	}
	// A negative count names its own flag.
	for _, flag := range []string{"--per-host", "--retry"} {
		if code, _, stderr := runFetch(t, "http://127.0.0.1:1/x\n", "-i", "-", "-O", flag, "-1"); code != 2 || !strings.HasPrefix(stderr, "fetch: "+flag+" -1: at least 0") {
			t.Errorf("%s -1: exit %d, %q", flag, code, stderr)
		}
	}
}

// TestTemplateNames: every name the template gives stays inside the
// output directory and carries no control character, "..", or Gopher
// search or Gopher+ string.
func TestTemplateNames(t *testing.T) {
	for _, tt := range []struct{ tmpl, url, want string }{
		{"{host}/{path}", "http://example.org/a/b.txt", "example.org/a/b.txt"},
		{"{host}/{path}", "http://example.org/", "example.org/index"},
		{"{host}/{path}", "http://example.org/dir/", "example.org/dir/index"},
		{"{host}/{path}", "http://example.org/%2e%2e/%2e%2e/etc/passwd", "example.org/_/_/etc/passwd"},
		{"{host}/{path}", "http://example.org/a%2F..%2F..%2Fb", "example.org/a/_/_/b"},
		{"{host}/{path}", "http://example.org/x%0Ay%1B", "example.org/x_y_"},
		{"{host}/{path}", "http://example.org/q?a=../b", "example.org/q"},
		{"{host}_{port}/{path}", "ftp://127.0.0.1/pub/f;type=a", "127.0.0.1_21/pub/f"},
		{"{host}/{path}", "gopher://127.0.0.1:7070/0/doc.txt%09words%09+", "127.0.0.1/doc.txt"},
		{"{host}/{path}", "gopher://127.0.0.1:7070/7/search%09x", "127.0.0.1/search"},
		{"{host}/{file}", "gopher://127.0.0.1:7070/1", "127.0.0.1/index"},
		{"{host}/{name}", "http://h/a/b.txt", "h/b.txt"}, // {name}, as the command line's template spells {file}
		{"{scheme}/{host}/{path}", "news:<a/b@example>", "news/news/<a_b@example>"},
		{"{host}/{path}", "nntp://127.0.0.1/local.test/3", "127.0.0.1/local.test/3"},
		{"{host}/{path}", "http://[::1]:8080/f", "__1/f"},
		{"{host}/{path}", "file:///etc/passwd", "localhost/etc/passwd"},
		{"{host}", "file:///etc/passwd", "localhost"},
		{"../../{file}", "http://h/f", "_/_/f"},
		{"{path}/../../x", "http://h/f", "f/_/_/x"},
		{"{file}", "http://h/" + tempPrefix + "1.2.x", "_fetch-part.1.2.x"}, // never taken for a killed run's file
	} {
		u, err := fetch.Parse(tt.url)
		if err != nil {
			t.Fatalf("%s: %v", tt.url, err)
		}
		got, err := templateName(tt.tmpl, u)
		if tt.want == "" {
			if err == nil {
				t.Errorf("%s %s: %q, want an error", tt.tmpl, tt.url, got)
			}
			continue
		}
		if err != nil || got != filepath.FromSlash(tt.want) {
			t.Errorf("%s %s: %q, %v; want %q", tt.tmpl, tt.url, got, err, tt.want)
		}
		if !filepath.IsLocal(got) {
			t.Errorf("%s %s: %q is not inside the output directory", tt.tmpl, tt.url, got)
		}
	}
}

// TestEachLineBounded: a list is read line by line; a line past the
// limit is an error, not a buffer grown without end.
func TestEachLineBounded(t *testing.T) {
	var got []string
	none := func(n int, start string) bool { t.Errorf("line %d too long: %q", n, start); return true }
	err := eachLine(strings.NewReader("a\r\n  # c\n\n b \nc"), func(s string) bool { got = append(got, s); return true }, none)
	if err != nil || strings.Join(got, ",") != "a,b,c" {
		t.Errorf("%q, %v", got, err)
	}
	// A line too long is reported and skipped, a comment too long only
	// skipped; the lines after them are read.
	got = nil
	var long []string
	list := "x\n" + strings.Repeat("y", 200<<10) + "\n  #" + strings.Repeat("c", 100<<10) + "\nz\n"
	err = eachLine(strings.NewReader(list), func(s string) bool { got = append(got, s); return true },
		func(n int, start string) bool { long = append(long, fmt.Sprint(n, " ", len(start))); return true })
	if err != nil || strings.Join(got, ",") != "x,z" || strings.Join(long, ",") != "2 200" {
		t.Errorf("long lines: %q, %q, %v", got, long, err)
	}
}

// TestLinePreview: the start of a line too long to take shows no part of
// a password, whether its "@" is in the part read or further on.
func TestLinePreview(t *testing.T) {
	secret := strings.Repeat("S", 300)
	for _, start := range []string{"https://", "ftp:/", "http:", "gopher:///"} {
		for _, line := range []string{
			start + "oauth2:" + secret + "@host/" + strings.Repeat("p", 70000),
			start + "oauth2:" + secret + strings.Repeat("S", 70000),
		} {
			got := linePreview(line[:maxLine])
			if strings.Contains(got, "SSS") || len(got) > 200 || !strings.HasPrefix(got, start) {
				t.Errorf("preview %q", got)
			}
		}
	}
	// Nothing to mask: the line's start as it is.
	long := "http://host/" + strings.Repeat("p", 70000)
	if got := linePreview(long[:maxLine]); got != long[:200] {
		t.Errorf("preview %q, want the line's first 200 bytes", got)
	}
	// A line of blanks longer than any URL is no URL: skipped as a
	// blank line is.
	err := eachLine(strings.NewReader(strings.Repeat(" ", 2*maxLine)+"\nhttp://h/x\n"),
		func(s string) bool { return true },
		func(n int, _ string) bool { t.Errorf("line %d of blanks taken for a URL too long", n); return true })
	if err != nil {
		t.Fatal(err)
	}
	// A line of exactly maxLine bytes is still a URL.
	exact := "http://h/" + strings.Repeat("x", maxLine-len("http://h/"))
	var got []string
	err = eachLine(strings.NewReader(exact+"\r\n"), func(s string) bool { got = append(got, s); return true },
		func(n int, _ string) bool { t.Errorf("line %d taken for too long", n); return true })
	if err != nil || len(got) != 1 || got[0] != exact {
		t.Errorf("a %d-byte line: %d lines, %v", maxLine, len(got), err)
	}
	// One byte more, ended by LF alone (which fits the buffer that holds
	// a CR LF), is too long.
	got, overAt := nil, 0
	err = eachLine(strings.NewReader(exact+"x\nhttp://h/y\n"), func(s string) bool { got = append(got, s); return true },
		func(n int, _ string) bool { overAt = n; return true })
	if err != nil || overAt != 1 || len(got) != 1 || got[0] != "http://h/y" {
		t.Errorf("a %d-byte line: too long at line %d, then %d lines (%v)", maxLine+1, overAt, len(got), err)
	}
}

// TestBatchLongLine: a list's line too long for a URL is logged as failed
// (exit 3) and the batch goes on with the next line.
func TestBatchLongLine(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") }))
	defer srv.Close()
	dir := t.TempDir()
	logName := filepath.Join(dir, "log")
	list := srv.URL + "/" + strings.Repeat("y", 100<<10) + "\n" + srv.URL + "/after\n"
	code, _, stderr := runFetch(t, list, "-i", "-", "-O", "--output-dir", dir, "--log", logName, "-q")
	if code != 3 || !strings.Contains(stderr, "line 1 is longer than") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "after")); err != nil {
		t.Errorf("the URL after the long line: %v", err)
	}
	_, all := readLog(t, logName)
	if len(all) != 2 || all[0].Outcome != "failed" || all[0].Exit != 3 || len(all[0].URL) > 300 {
		t.Errorf("log: %+v", all)
	}
}

// TestBatchProgressAndJSON: --json puts the log lines on standard output;
// the status line (forced with --progress) ends with the final counts; -q
// prints nothing when all went well.
func TestBatchProgressAndJSON(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x") }))
	defer srv.Close()
	dir := t.TempDir()
	urls := []string{srv.URL + "/a", srv.URL + "/b", srv.URL + "/c"}
	code, stdout, stderr := runFetch(t, strings.Join(urls, "\n"), "-i", "-", "-j", "2", "-O", "--output-dir", dir, "--json", "--progress")
	if code != 0 {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) != 3 {
		t.Fatalf("stdout: %q", stdout)
	}
	for _, l := range lines {
		var ll logLine
		if err := json.Unmarshal([]byte(l), &ll); err != nil || ll.Outcome != "ok" || ll.Bytes != 1 || ll.SHA256 != sum([]byte("x")) || ll.Attempts != 1 {
			t.Errorf("line %q: %v", l, err)
		}
	}
	if !strings.Contains(stderr, "queued 0  active 0  done 3  failed 0  3 B") || !strings.Contains(stderr, "fetch: 3 URLs: 3 ok, 0 failed") {
		t.Errorf("stderr: %q", stderr)
	}
	code, stdout, stderr = runFetch(t, strings.Join(urls, "\n"), "-i", "-", "-o", "{file}.2", "--output-dir", dir, "-q")
	if code != 0 || stdout != "" || stderr != "" {
		t.Errorf("-q: exit %d, %q, %q", code, stdout, stderr)
	}
}

// TestBatchMasksMalformedPasswords: a line that does not parse may still
// hold a password, which neither the log, nor --json, nor stderr, nor the
// WARC's record of the command line repeats.
func TestBatchMasksMalformedPasswords(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "list")
	logName := filepath.Join(dir, "log")
	bad := []string{
		"ftp://joe:sekrit@127.0.0.1:99999/x",
		"ftp://joe:sekrit@[::1/x",
		"ftp://joe:sekrit@127.0.0.1:18021:21/x",
		"http://joe:sekrit@127.0.0.1/x\ty",
		"ftp:/joe:sekrit@127.0.0.1/x",   // parsed by the generic grammar, without a host
		"ftp:///joe:sekrit@127.0.0.1/x", // an empty host
	}
	os.WriteFile(list, []byte(strings.Join(bad, "\n")+"\n"), 0o666)
	code, stdout, stderr := runFetch(t, "", "-i", list, "-O", "--output-dir", dir, "--log", logName, "--json")
	if code == 0 {
		t.Fatalf("exit 0 for malformed URLs")
	}
	logged, _ := os.ReadFile(logName)
	for name, text := range map[string]string{"log": string(logged), "stdout": stdout, "stderr": stderr} {
		if strings.Contains(text, "sekrit") {
			t.Errorf("the password is in %s: %q", name, text)
		}
	}
	if _, all := readLog(t, logName); len(all) != len(bad) {
		t.Errorf("%d log lines, want %d", len(all), len(bad))
	}
	if got := maskedCommandLine(bad); strings.Contains(got, "sekrit") {
		t.Errorf("WARC command line: %q", got)
	}
}

// TestBatchWithoutDigests: with neither --log nor --json nor a progress
// line, documents go into their files without the copy that digests and
// counts them; the files are whole and the summary still counts every
// byte.
func TestBatchWithoutDigests(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "hello"+r.URL.Path)
	}))
	defer srv.Close()
	dir := t.TempDir()
	urls := []string{srv.URL + "/a", srv.URL + "/bb", srv.URL + "/missing"}
	code, _, stderr := runFetch(t, strings.Join(urls, "\n"), "-i", "-", "-j", "2", "-O", "--output-dir", dir)
	if code == 0 {
		t.Fatalf("exit 0 with a missing URL; stderr %q", stderr)
	}
	for _, name := range []string{"a", "bb"} {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != "hello/"+name {
			t.Errorf("%s: %q, %v", name, b, err)
		}
	}
	if !strings.Contains(stderr, "3 URLs: 2 ok, 1 failed") || !strings.Contains(stderr, "; 15 B in ") {
		t.Errorf("summary: %q", stderr)
	}
}

// TestBatchDelay: --delay spaces the requests to one host, whatever -j.
func TestBatchDelay(t *testing.T) {
	var mu sync.Mutex
	var starts []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		starts = append(starts, time.Now())
		mu.Unlock()
		io.WriteString(w, "x")
	}))
	defer srv.Close()
	dir := t.TempDir()
	code, _, stderr := runFetch(t, srv.URL+"/a\n"+srv.URL+"/b\n"+srv.URL+"/c\n", "-i", "-", "-j", "3", "--delay", "0.5", "-O", "--output-dir", dir, "-q")
	if code != 0 {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(starts) != 3 {
		t.Fatalf("%d requests", len(starts))
	}
	for i := 1; i < len(starts); i++ {
		if d := starts[i].Sub(starts[i-1]); d < 250*time.Millisecond { // half the delay: slack for the network
			t.Errorf("request %d came %v after the one before, --delay 0.5", i+1, d)
		}
	}
}

// TestBatchKeepsSessionsPerJob: with -j 8 to one server, the 8 transfers'
// connections are kept for the next URLs, not closed because the pool
// keeps fewer idle than -j (it kept 2, and 200 URLs opened ~100).
func TestBatchKeepsSessionsPerJob(t *testing.T) {
	srv, conns := pathServer(t, 0)
	var urls []string
	for i := range 200 {
		urls = append(urls, fmt.Sprintf("%s/d%03d", srv.URL, i))
	}
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	args := append([]string{"-q", "-j", "8", "--per-host", "8", "--allow-port", strconv.Itoa(port), "-O", "--output-dir", t.TempDir()}, urls...)
	if code, _, stderr := runFetch(t, "", args...); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	// net/http hands a finished connection back to its pool on another
	// goroutine, and a request that finds the pool empty in that instant
	// dials; on a busy machine that happens a few times. Twice -j still
	// tells a kept pool from one that closes most connections (~100).
	if n := conns.Load(); n > 16 {
		t.Errorf("%d connections for 200 URLs with -j 8, want at most 16", n)
	}
}

// TestHostLimiterReleaseOnce: a transfer gives its host's place back when
// its response is read and again when its attempt ends; the second call
// must not free a place that another transfer holds.
func TestHostLimiterReleaseOnce(t *testing.T) {
	h := newHostLimiter(2, 0)
	ctx := context.Background()
	acquire := func() func() {
		t.Helper()
		r, err := h.acquire(ctx, "h:70")
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	r1, r2 := acquire(), acquire()
	r1()
	r1()
	r3 := acquire()
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	if r, err := h.acquire(short, "h:70"); err == nil {
		r()
		t.Fatal("a third place with --per-host 2 after a release called twice")
	}
	r2()
	r3()
	r3()
	if len(h.hosts) != 0 {
		t.Errorf("%d hosts kept after every release", len(h.hosts))
	}
}

// TestHostLimiterForgetsDelayedHosts: with --delay, a host whose
// transfer ended within its delay stayed in the limiter until it was used
// again, so a list of many hosts kept every one (10,000 here; 20 MiB for
// 100,000). Hosts neither in use nor within their delay are swept as new
// ones come.
func TestHostLimiterForgetsDelayedHosts(t *testing.T) {
	const delay = 200 * time.Millisecond
	h := newHostLimiter(2, delay)
	ctx := context.Background()
	for i := range 10000 {
		r, err := h.acquire(ctx, fmt.Sprintf("h%d:80", i))
		if err != nil {
			t.Fatal(err)
		}
		r()
	}
	time.Sleep(2 * delay)
	for i := range 100 { // new hosts after every delay has passed
		r, err := h.acquire(ctx, fmt.Sprintf("new%d:80", i))
		if err != nil {
			t.Fatal(err)
		}
		r()
	}
	if n := len(h.hosts); n > 1000 {
		t.Errorf("%d hosts kept, all of them done and past their delay", n)
	}
	// a host within its delay is kept, and spaces its next start
	r, _ := h.acquire(ctx, "again:80")
	r()
	for i := range 200 {
		r, _ := h.acquire(ctx, fmt.Sprintf("more%d:80", i))
		r()
	}
	start := time.Now()
	r, _ = h.acquire(ctx, "again:80")
	r()
	if waited := time.Since(start); waited < delay/2 {
		t.Errorf("a host within its delay started again after %v, want about %v", waited, delay)
	}
}

// lateFrontier hands out one task only once its Next's context has ended,
// as frontier.Memory can when a task and the cancellation come together.
type lateFrontier struct{ served bool }

type lateLease struct{ t frontier.Task }

func (l *lateLease) Task() frontier.Task                         { return l.t }
func (l *lateLease) Done(context.Context, []frontier.Task) error { return nil }

func (f *lateFrontier) Next(ctx context.Context) (frontier.Lease, error) {
	<-ctx.Done()
	time.Sleep(50 * time.Millisecond) // the dispatcher sees the cancellation first
	if !f.served {
		f.served = true
		return &lateLease{frontier.Task{URL: "http://127.0.0.1:1/x"}}, nil
	}
	return nil, ctx.Err()
}

func (f *lateFrontier) Close() error { return nil }

// endlessFrontier hands out tasks for url without end, counting them.
type endlessFrontier struct {
	url    string
	leased atomic.Int64
}

func (f *endlessFrontier) Next(ctx context.Context) (frontier.Lease, error) {
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	f.leased.Add(1)
	return &lateLease{frontier.Task{URL: f.url}}, nil
}

func (f *endlessFrontier) Close() error { return nil }

// TestDispatchBacklogBytes: the tasks the dispatcher sets aside while
// their host is at its --per-host cap are bounded by their URLs' bytes
// too, not only by their count.
func TestDispatchBacklogBytes(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() { // accepts and never answers: the one transfer holds the host
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	url := "http://" + ln.Addr().String() + "/" + strings.Repeat("a", 60<<10)
	o, s, _, c := commandClient(t, "-O", "-j", "1", "--per-host", "1", url)
	const room = 10
	fr := &endlessFrontier{url: url}
	b := &batch{o: o, s: s, c: c, root: t.TempDir(), fr: fr, backlog: 100_000, backlogLen: room * int64(len(url))}
	b.log, b.done, b.names, _ = openLog("", nil, nil)
	b.hosts = newHostLimiter(1, 0)
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	done := make(chan struct{})
	go func() { b.dispatch(ctx); close(done) }()
	// one in transfer, room set aside, and the one whose URL crossed
	// the bound
	if n := settledCount(fr.leased.Load, 2*room); n > room+2 {
		t.Errorf("%d tasks of %d KiB leased: the backlog of %d KiB was not kept", n, len(url)>>10, room*len(url)>>10)
	} else if n < room {
		t.Errorf("only %d tasks leased", n)
	}
	cancel()
	endsWithin(t, done, "dispatch")
}

// settledCount is count once it has passed past, or after 2 s: the count
// a bound allows is reached at once, and more is given a chance.
func settledCount(count func() int64, past int64) int64 {
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) && count() <= past {
		time.Sleep(10 * time.Millisecond)
	}
	return count()
}

// endsWithin fails the test unless done is closed within 30 s of the
// cancellation of what.
func endsWithin(t *testing.T, done <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(30 * time.Second):
		t.Fatalf("%s still running 30 s after the cancellation", what)
	}
}

// TestListBacklogBytes: a plain list is read ahead of the workers by at
// most the backlog's bytes of URLs, not only its count.
func TestListBacklogBytes(t *testing.T) {
	stem := "http://127.0.0.1:1/" + strings.Repeat("a", 60<<10)
	url := stem + "000" // as long as each line's URL
	var list strings.Builder
	for i := range 100 {
		fmt.Fprintf(&list, "%s%03d\n", stem, i) // each once: a list's copies are skipped
	}
	o, s, _, c := commandClient(t, "-O", "-i", "-")
	const room = 10
	b := &batch{o: o, s: s, c: c, root: t.TempDir()}
	if err := b.openFrontier(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if b.backlogLen != backlogBytes {
		t.Fatalf("backlogLen %d, want %d", b.backlogLen, backlogBytes)
	}
	b.backlogLen = room * int64(len(url))
	b.log, b.done, b.names, _ = openLog("", nil, nil)
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	done := make(chan struct{})
	go func() {
		b.feed(ctx, []urlList{{name: "-", r: strings.NewReader(list.String())}}, func() {})
		close(done)
	}()
	// nobody takes the tasks: the reader stops at the bound
	if n := settledCount(b.read.Load, 2*room); n > room+1 {
		t.Errorf("%d URLs of %d KiB read ahead: the backlog of %d KiB was not kept", n, len(url)>>10, room*len(url)>>10)
	} else if n < room {
		t.Errorf("only %d URLs read", n)
	}
	cancel()
	endsWithin(t, done, "the list's reader")
}

// commandClient parses args as the command does and makes its client,
// closed when the test ends; standard output and error both go to the
// buffer it returns.
func commandClient(t *testing.T, args ...string) (*options, stdio, *bytes.Buffer, *fetch.Client) {
	t.Helper()
	o, err := parseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	e := new(bytes.Buffer)
	s := stdio{in: strings.NewReader(""), out: e, err: e}
	c, err := newClient(o, s)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return o, s, e, c
}

// TestDispatchEndsAfterCancel: a task the frontier hands out after the
// cancellation does not keep the dispatcher waiting for a pull it will
// never make.
func TestDispatchEndsAfterCancel(t *testing.T) {
	o, s, _, c := commandClient(t, "-O", "-j", "2", "http://127.0.0.1:1/x")
	b := &batch{o: o, s: s, c: c, root: t.TempDir(), fr: &lateFrontier{}, backlog: 10}
	b.log, b.done, b.names, _ = openLog("", nil, nil)
	b.hosts = newHostLimiter(2, 0)
	ctx, cancel := context.WithCancel(context.Background())
	b.cancel = cancel
	done := make(chan struct{})
	go func() { b.dispatch(ctx); close(done) }()
	time.Sleep(100 * time.Millisecond)
	cancel()
	endsWithin(t, done, "dispatch")
}

// TestWindowsNames: with Windows' rules, a name loses what Windows
// forbids or would change, and a device's name is never a file's.
func TestWindowsNames(t *testing.T) {
	defer func(old bool) { windowsNames = old }(windowsNames)
	windowsNames = true
	for in, want := range map[string]string{
		`a<b>c:d"e|f?g*h`: "a_b_c_d_e_f_g_h",
		"trailing.":       "trailing_",
		"space ":          "space_",
		"CON":             "_CON",
		"nul.txt":         "_nul.txt",
		"com1":            "_com1",
		"console":         "console",
		"..":              "..",
		"plain.txt":       "plain.txt",
	} {
		if got := safeName(in); got != want {
			t.Errorf("safeName(%q) = %q, want %q", in, got, want)
		}
	}
	u, _ := fetch.Parse("http://h/q%3Fa%2A/CON")
	if got, err := templateName("{path}", u); err != nil || got != filepath.Join("q_a_", "_CON") {
		t.Errorf("template: %q, %v", got, err)
	}
	windowsNames = false
	if got := safeName(`a:b?`); got != `a:b?` {
		t.Errorf("without Windows' rules: %q", got)
	}
}

// TestClaimFoldsCase: where case does not tell names apart, two URLs
// whose names differ only in case get two files.
func TestClaimFoldsCase(t *testing.T) {
	defer func(old bool) { foldNames = old }(foldNames)
	for _, fold := range []bool{false, true} {
		foldNames = fold
		b := &batch{root: "out", names: map[nameDigest]nameDigest{}}
		first := b.claim(filepath.Join("out", "README"), "http://h/README")
		second := b.claim(filepath.Join("out", "readme"), "http://h/readme")
		if first != filepath.Join("out", "README") || (second == filepath.Join("out", "readme")) == fold {
			t.Errorf("fold %v: %s, %s", fold, first, second)
		}
	}
}

// TestClaimNormalizes: where names differ only in their Unicode normal
// form name one file (macOS), "é" composed and decomposed get two files.
func TestClaimNormalizes(t *testing.T) {
	defer func(old bool) { normNames = old }(normNames)
	for _, norm := range []bool{false, true} {
		normNames = norm
		b := &batch{root: "out", names: map[nameDigest]nameDigest{}}
		first := b.claim(filepath.Join("out", "caf\u00e9"), "http://h/caf%C3%A9")
		second := b.claim(filepath.Join("out", "cafe\u0301"), "http://h/cafe%CC%81")
		if first != filepath.Join("out", "caf\u00e9") || (second == filepath.Join("out", "cafe\u0301")) == norm {
			t.Errorf("normalizing %v: %q, %q", norm, first, second)
		}
	}
}

// TestClaimKeepsWARCParts: no document takes the name of a rotating WARC's
// part, as a file or as a directory (an -o template makes directories):
// the WARC could not write that part next, or the document could not be
// written after it.
func TestClaimKeepsWARCParts(t *testing.T) {
	root := t.TempDir()
	b := &batch{root: root, names: map[nameDigest]nameDigest{}}
	b.warcStem, b.warcExt = filepath.Join(root, "w-"), ".warc"
	part := filepath.Join(root, "w-00001.warc")
	if got := b.claim(part, "http://h/w-00001.warc"); got == part {
		t.Errorf("a document is the file %s, the WARC's next part", got)
	}
	if got := b.claim(filepath.Join(part, "x"), "http://h/w-00001.warc/x"); filepath.Dir(got) == part {
		t.Errorf("a document %s is in the directory %s, the WARC's next part", got, part)
	}
}

// TestBatchResumeNonUTF8: a URL whose text is not UTF-8 (a file: URL with
// a Latin-1 name) is logged with those bytes percent-encoded, not turned
// into U+FFFD by JSON, so a rerun finds it done and fetches nothing again.
func TestBatchResumeNonUTF8(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("a file name that is not UTF-8 needs a file system that takes any bytes")
	}
	src, out := t.TempDir(), t.TempDir()
	name := filepath.Join(src, "caf\xe9")
	if err := os.WriteFile(name, []byte("latin"), 0o644); err != nil {
		t.Fatal(err)
	}
	logName := filepath.Join(t.TempDir(), "log")
	u := "file://" + name
	for run := 1; run <= 2; run++ {
		if code, _, stderr := runFetch(t, u+"\n", "-i", "-", "-O", "--output-dir", out, "--log", logName, "-q"); code != 0 {
			t.Fatalf("run %d: exit %d, %s", run, code, stderr)
		}
	}
	_, all := readLog(t, logName)
	if len(all) != 1 || all[0].URL != "file://"+src+"/caf%E9" {
		t.Errorf("log after two runs: %+v", all)
	}
	if got := names(t, out); len(got) != 1 {
		t.Errorf("output after two runs: %q, want the one file", got)
	}
}

// TestBadLogNamesFlag: a --log that cannot be read or created is named
// as --log's in the error, as -i's are.
func TestBadLogNamesFlag(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc.txt")
	if err := os.WriteFile(doc, []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, log := range []string{dir, filepath.Join(dir, "no", "such", "log")} {
		code, _, e := runFetch(t, "", "-O", "--output-dir", t.TempDir(), "--log", log, "file://"+filepath.ToSlash(doc))
		if code != 7 || !strings.HasPrefix(e, "fetch: --log: ") {
			t.Errorf("--log %s: exit %d, %q", log, code, e)
		}
	}
}

// TestBatchManyLists: -i given several times reads every list, in order,
// after the URLs of the command line, as one batch: one log, which a
// rerun with the same lists resumes. A list that cannot be opened stops
// the run before anything is fetched; standard input is read once.
func TestBatchManyLists(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.URL.Path)
		mu.Unlock()
		io.WriteString(w, "doc "+r.URL.Path)
	}))
	defer srv.Close()
	requests := func() string {
		mu.Lock()
		defer mu.Unlock()
		s := strings.Join(got, " ")
		got = nil
		return s
	}
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.txt"), filepath.Join(dir, "b.txt")
	os.WriteFile(a, []byte(srv.URL+"/a1\n# comment\n"+srv.URL+"/a2"), 0o666) // no final newline
	os.WriteFile(b, []byte(srv.URL+"/b1\n\n"+srv.URL+"/b2\n"), 0o666)
	out, logName := filepath.Join(dir, "out"), filepath.Join(dir, "log")
	args := []string{"-i", a, "--input-file", b, "-i", "-", "-O", "--output-dir", out, "--log", logName, "-q", srv.URL + "/arg"}
	if code, _, stderr := runFetch(t, srv.URL+"/in1\n", args...); code != 0 {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	if r, want := requests(), "/arg /a1 /a2 /b1 /b2 /in1"; r != want {
		t.Errorf("requests %q, want %q", r, want)
	}
	_, all := readLog(t, logName)
	if len(all) != 6 {
		t.Errorf("%d log lines, want 6", len(all))
	}
	for _, name := range []string{"arg", "a1", "a2", "b1", "b2", "in1"} {
		if data, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(data) != "doc /"+name {
			t.Errorf("%s: %q, %v", name, data, err)
		}
	}
	// The rerun skips all that the log holds, from every list.
	os.WriteFile(b, []byte(srv.URL+"/b1\n"+srv.URL+"/b2\n"+srv.URL+"/b3\n"), 0o666)
	if code, _, stderr := runFetch(t, srv.URL+"/in1\n", args...); code != 0 {
		t.Fatalf("rerun: exit %d, %q", code, stderr)
	}
	if r := requests(); r != "/b3" {
		t.Errorf("rerun requests %q, want only /b3", r)
	}

	// A missing list: nothing fetched, exit 7, the list named.
	code, _, stderr := runFetch(t, "", "-i", a, "-i", filepath.Join(dir, "missing.txt"), "-O", "--output-dir", out, "-q")
	if code != 7 || !strings.Contains(stderr, "missing.txt") {
		t.Errorf("a missing list: exit %d, %q", code, stderr)
	}
	if r := requests(); r != "" {
		t.Errorf("a missing list: requests %q, want none", r)
	}
	// A URL given to -i by mistake: its password is not shown, and the
	// message says where a URL goes.
	code, _, stderr = runFetch(t, "", "-i", "ftp://joe:s3cret@127.0.0.1/list", "-O", "--output-dir", out, "-q")
	if code != 7 || strings.Contains(stderr, "s3cret") || !strings.Contains(stderr, "ftp://joe:****@127.0.0.1/list") || !strings.Contains(stderr, "command line") {
		t.Errorf("a URL as a list: exit %d, %q", code, stderr)
	}
	// Standard input twice is a usage error, however -i is spelled.
	for _, second := range []string{"-i", "--input-file"} {
		code, _, stderr = runFetch(t, srv.URL+"/in1\n", "-i", "-", second, "-", "-O", "--output-dir", out, "-q")
		if code != 2 || !strings.Contains(stderr, "standard input is read once") {
			t.Errorf("-i - %s -: exit %d, %q", second, code, stderr)
		}
	}
	if r := requests(); r != "" {
		t.Errorf("-i - -i -: requests %q, want none", r)
	}
	// A line too long is named with its list.
	os.WriteFile(b, []byte(srv.URL+"/"+strings.Repeat("y", 100<<10)+"\n"), 0o666)
	code, _, stderr = runFetch(t, "", "-i", a, "-i", b, "-O", "--output-dir", filepath.Join(dir, "out2"), "-q")
	if code != 3 || !strings.Contains(stderr, "-i "+b+": line 1 is longer than") {
		t.Errorf("a long line in the second list: exit %d, %q", code, stderr)
	}
	requests()
}

// TestEachListLine: the lists are one list, read one after the other (the
// last line of a list without its line end stays a line of its own); a
// stop ends the reading, no further list is read; a line too long names
// its list when there are several. --enqueue reads -i through it too.
func TestEachListLine(t *testing.T) {
	lists := func(texts ...string) []urlList {
		var l []urlList
		for i, s := range texts {
			l = append(l, urlList{name: strconv.Itoa(i), label: strconv.Itoa(i), r: strings.NewReader(s)})
		}
		return l
	}
	var got []string
	collect := func(s string) bool { got = append(got, s); return s != "stop" }
	long := func(list string, n int, start string) bool { got = append(got, list+":"+strconv.Itoa(n)); return true }
	if err := eachListLine(lists("a\n# c\nb", "c\n\nd\n", "", "e"), collect, long); err != nil || strings.Join(got, " ") != "a b c d e" {
		t.Errorf("%q, %v", got, err)
	}
	got = nil
	eachListLine(lists("a\nstop\nx\n", "y\n"), collect, long)
	if strings.Join(got, " ") != "a stop" {
		t.Errorf("after a stop: %q", got)
	}
	got = nil
	eachListLine(lists("a\n", "b\n"+strings.Repeat("z", maxLine+10)+"\nc\n"), collect, long)
	if strings.Join(got, " ") != "a b 1:2 c" {
		t.Errorf("a long line: %q", got)
	}
}

// TestBatchSuffixedNameTaken: the name a colliding URL is given, its
// name and "~" and eight hex digits of its SHA-256, may be taken already
// by another URL whose own name it is (a crawled page can choose one):
// that URL's file is kept and the colliding URL gets a further suffix,
// in the run and in the directory's claim alike.
func TestBatchSuffixedNameTaken(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, r.URL.Path) }))
	defer srv.Close()
	b := srv.URL + "/b/x"
	c := srv.URL + "/c/x" + suffixOf(redactArg(b)) // named as b's file would be after a collision
	out := filepath.Join(t.TempDir(), "out")
	code, _, stderr := runFetch(t, "", "-q", "-O", "--output-dir", out, c, srv.URL+"/a/x", b)
	if code != 0 {
		t.Fatalf("exit %d, %q", code, stderr)
	}
	got := map[string]bool{}
	entries, _ := os.ReadDir(out)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(out, e.Name()))
		got[string(data)] = true
	}
	for _, p := range []string{"/c/x" + suffixOf(redactArg(b)), "/a/x", "/b/x"} {
		if !got[p] {
			t.Errorf("no file holds %s: files %v", p, got)
		}
	}

	// A directory whose suffixed name is a file already goes further.
	root := t.TempDir()
	bt := &batch{root: root, names: map[nameDigest]nameDigest{}}
	taken := bt.claim(filepath.Join(root, "d"+suffixOf(folded("d"))), "file named as d's suffixed directory")
	bt.claim(filepath.Join(root, "d"), "file d")
	in := bt.claim(filepath.Join(root, "d", "f"), "a file in directory d")
	if filepath.Dir(in) == taken || filepath.Dir(in) == filepath.Join(root, "d") {
		t.Errorf("a file in d went to %s, inside a file", in)
	}
}

// TestBatchResumeOutputSpelledOtherwise: a rerun that names the output
// directory another way (relative, then absolute through a symbolic
// link) still finds the files its log gives to URLs: a new URL with the
// same name gets a suffix, never the done URL's file. A byte order mark
// an editor put before the log's first line hides nothing.
func TestBatchResumeOutputSpelledOtherwise(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	if err := os.Symlink("out", "link"); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	a, b, by := resumeSpelledOtherwise(t, []string{"-O", "--output-dir", "out"}, []string{"-O", "--output-dir", filepath.Join(dir, "link")}, func() {
		data, _ := os.ReadFile("log")
		os.WriteFile("log", append([]byte("\ufeff"), data...), 0o666)
	})
	if got, _ := os.ReadFile(filepath.Join("out", "x")); string(got) != "doc /a/x" {
		t.Errorf("out/x holds %q, want /a/x's document", got)
	}
	if l := by[b]; l.File != "" {
		if got, _ := os.ReadFile(l.File); string(got) != "doc /b/x" {
			t.Errorf("%s holds %q", l.File, got)
		}
	}
	if l := by[a]; l.File != filepath.Join("out", "x") {
		t.Errorf("/a/x fetched again: %+v", l)
	}
}

// TestBatchResumeThroughLinkedSubdirectory: a directory of the output
// that is a symbolic link to elsewhere keeps its files' names in the log
// (the output directory spelled otherwise on the rerun).
func TestBatchResumeThroughLinkedSubdirectory(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.Mkdir("elsewhere", 0o777)
	os.Mkdir("out", 0o777)
	if err := os.Symlink(filepath.Join("..", "elsewhere"), filepath.Join("out", "sub")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	resumeSpelledOtherwise(t, []string{"-o", "sub/{file}", "--output-dir", "out"}, []string{"-o", "sub/{file}", "--output-dir", filepath.Join(dir, "out")}, nil)
	if got, _ := os.ReadFile(filepath.Join("elsewhere", "x")); string(got) != "doc /a/x" {
		t.Errorf("out/sub/x holds %q, want /a/x's document", got)
	}
}

// resumeSpelledOtherwise fetches /a/x with the flags first and a log
// ("log", in the current directory), calls between (when not nil), and
// fetches /a/x and /b/x with the flags again and the same log. Both
// documents are named x: /b/x must get a suffixed file of its own. It
// returns the two URLs and the log's lines by URL.
func resumeSpelledOtherwise(t *testing.T, first, again []string, between func()) (a, b string, by map[string]logLine) {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "doc "+r.URL.Path) }))
	t.Cleanup(srv.Close)
	a, b = srv.URL+"/a/x", srv.URL+"/b/x"
	if code, _, stderr := runFetch(t, "", append(append([]string{"-q", "--log", "log"}, first...), a)...); code != 0 {
		t.Fatalf("first run: exit %d, %q", code, stderr)
	}
	if between != nil {
		between()
	}
	if code, _, stderr := runFetch(t, "", append(append([]string{"-q", "--log", "log"}, again...), a, b)...); code != 0 {
		t.Fatalf("rerun: exit %d, %q", code, stderr)
	}
	data, _ := os.ReadFile("log")
	os.WriteFile("log", bytes.TrimPrefix(data, []byte("\ufeff")), 0o666) // for readLog
	by, _ = readLog(t, "log")
	if l := by[b]; l.Outcome != "ok" || filepath.Base(l.File) == "x" {
		t.Errorf("/b/x: %+v, want a suffixed file", l)
	}
	return a, b, by
}

// TestSummaryCountsJournalURLs: a resumed crawl's URLs come from its
// journal, not from what this run read; the summary counted only the
// latter ("0 URLs: 0 ok, 200 failed").
func TestSummaryCountsJournalURLs(t *testing.T) {
	b := &batch{o: &options{}}
	b.failed.Store(200)
	b.skipped.Store(1)
	if got := b.summary(time.Second, false); !strings.HasPrefix(got, "fetch: 201 URLs: 0 ok, 200 failed") {
		t.Errorf("summary %q", got)
	}
	b.read.Store(300) // a list read whole, some not yet handled (interrupted)
	if got := b.summary(time.Second, true); !strings.HasPrefix(got, "fetch: 300 URLs: 0 ok, 200 failed") {
		t.Errorf("summary %q", got)
	}
	// a rerun with its one URL done (README's crawl example)
	one := &batch{o: &options{}}
	one.read.Store(1)
	one.skipped.Store(1)
	if got := one.summary(0, false); got != "fetch: 1 URL: 0 ok, 0 failed, 1 already done; 0 B in 0s" {
		t.Errorf("summary %q", got)
	}
}

// TestSummaryOtherFailures: a failure no URL's (the log's, the WARC's)
// is counted apart from the URLs': the summary read "3 ok, 0 failed [1
// exit 7 (local I/O)]".
func TestSummaryOtherFailures(t *testing.T) {
	b := &batch{o: &options{}, s: stdio{err: io.Discard}}
	b.read.Store(4)
	b.ok.Store(3)
	b.finish(logLine{URL: "gopher://h/0x", Outcome: "failed", Exit: fetch.KindServer.ExitCode()})
	b.noteFailure(fetch.KindLocal.ExitCode())
	b.noteFailure(fetch.KindLocal.ExitCode())
	got := b.summary(time.Second, false)
	if want := "fetch: 4 URLs: 3 ok, 1 failed [1 exit 6 (server refused)], 2 other failures [2 exit 7 (local I/O)];"; !strings.HasPrefix(got, want) {
		t.Errorf("summary %q, want it to start %q", got, want)
	}
	if b.worst.Load() != 7 {
		t.Errorf("worst %d, want 7", b.worst.Load())
	}
}

// TestBatchListedAgain: a URL listed again after its first copy failed
// is not fetched again, and the summary says it was listed again, not
// that it was done.
func TestBatchListedAgain(t *testing.T) {
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.URL.Path == "/missing" {
			http.NotFound(w, r)
			return
		}
		io.WriteString(w, "doc")
	}))
	defer srv.Close()
	list := srv.URL + "/missing\n" + srv.URL + "/x\n" + srv.URL + "/missing\n"
	code, _, stderr := runFetch(t, list, "-O", "--output-dir", t.TempDir(), "-i", "-")
	if code != 6 || !strings.Contains(stderr, "3 URLs: 1 ok, 1 failed [1 exit 6 (server refused)], 1 listed again;") {
		t.Errorf("exit %d, %q", code, stderr)
	}
	if n := hits.Load(); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// TestBatchProgressDropsFailedAttempt: with a progress line, the bytes of
// an attempt cut short leave the count when it fails, so the summary
// counts the document once.
func TestBatchProgressDropsFailedAttempt(t *testing.T) {
	fastRetries(t)
	body := bytes.Repeat([]byte("0123456789"), 1000)
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if hits.Add(1) == 1 {
			w.Header().Set("Content-Length", fmt.Sprint(len(body)))
			w.Write(body[:9000])
			w.(http.Flusher).Flush()
			if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
				c.Close()
			}
			return
		}
		w.Write(body)
	}))
	defer srv.Close()
	dir := t.TempDir()
	code, _, stderr := runFetch(t, "", "--progress", "--retry", "1", "-O", "--output-dir", dir, srv.URL+"/doc")
	if code != 0 || hits.Load() != 2 {
		t.Fatalf("exit %d after %d requests: %q", code, hits.Load(), stderr)
	}
	if want := "; " + sizeText(int64(len(body))) + " in "; !strings.Contains(stderr, want) {
		t.Errorf("summary without %q: %q", want, stderr)
	}
}

// TestPrepareDirKeepsDigests: what a run keeps of each directory it made
// and cleaned is a digest, not the path: a crawl that writes into many
// directories kept every path for the run (with long paths, 300 B a
// directory and more). Each directory is still made and cleaned once.
func TestPrepareDirKeepsDigests(t *testing.T) {
	b := &batch{o: &options{}, root: t.TempDir()}
	const n = 5000
	long := strings.Repeat("d", 240)
	name := func(i int) string { return filepath.Join(b.root, fmt.Sprintf("%s-%05d", long, i)) }
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for i := range n {
		if err := b.prepareDir(name(i)); err != nil { // a fresh string, as a task's
			t.Fatal(err)
		}
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	if per := (int64(after.HeapAlloc) - int64(before.HeapAlloc)) / n; per > 100 {
		t.Errorf("%d bytes kept a directory, want under 100 (a digest, not its %d-byte path)", per, len(name(0)))
	}
	// Made once: a stale temporary file put there now stays, since the
	// directory is not cleaned again.
	stale := filepath.Join(name(7), tempPrefix+"999999999.x")
	if err := os.WriteFile(stale, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := b.prepareDir(name(7)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Errorf("the directory was cleaned twice: %v", err)
	}
	runtime.KeepAlive(b)
}

// startedWithFour makes the in-process command one that main started
// with four processors and set to one (procs), until the test ends.
func startedWithFour(t *testing.T) {
	oldProcs, oldMax := procs, runtime.GOMAXPROCS(1)
	t.Cleanup(func() {
		procs = oldProcs
		runtime.GOMAXPROCS(oldMax)
	})
	procs = 4
}

// TestBatchWidensPastTwoTransfers: a batch stays on one processor while
// at most two of its transfers run at once, and goes to every processor
// the command started with once a third runs beside them.
func TestBatchWidensPastTwoTransfers(t *testing.T) {
	startedWithFour(t)
	for _, tc := range []struct {
		perHost string
		want    int
	}{{"2", 1}, {"3", 4}} {
		runtime.GOMAXPROCS(1)
		var inFlight, peak atomic.Int32
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			n := inFlight.Add(1)
			defer inFlight.Add(-1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			if tc.want > 1 {
				// held until a third transfer runs (or long past
				// any machine's start of one)
				for end := time.Now().Add(10 * time.Second); peak.Load() < 3 && time.Now().Before(end); {
					time.Sleep(time.Millisecond)
				}
			}
			io.WriteString(w, "x")
		}))
		var args []string
		for i := 0; i < 12; i++ {
			args = append(args, fmt.Sprintf("%s/d%d", srv.URL, i))
		}
		code, _, stderr := runFetch(t, "", append([]string{"-q", "-O", "--output-dir", t.TempDir(), "-j", "8", "--per-host", tc.perHost}, args...)...)
		srv.Close()
		if code != 0 {
			t.Fatalf("--per-host %s: exit %d: %s", tc.perHost, code, stderr)
		}
		if got := runtime.GOMAXPROCS(0); got != tc.want {
			t.Errorf("--per-host %s (at most %d at once seen): %d processors, want %d", tc.perHost, peak.Load(), got, tc.want)
		}
	}
}

// TestBatchDelayDoesNotWiden: with --delay, the places held while waiting
// for the host's delay are no transfers: four URLs of one host spaced by
// --delay run one at a time, and the batch stays on one processor.
func TestBatchDelayDoesNotWiden(t *testing.T) {
	startedWithFour(t)
	var inFlight, peak atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		io.WriteString(w, "x")
	}))
	defer srv.Close()
	var args []string
	for i := 0; i < 4; i++ {
		args = append(args, fmt.Sprintf("%s/d%d", srv.URL, i))
	}
	code, _, stderr := runFetch(t, "", append([]string{"-q", "-O", "--output-dir", t.TempDir(), "-j", "8", "--per-host", "4", "--delay", "300ms"}, args...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got := runtime.GOMAXPROCS(0); got != 1 {
		t.Errorf("at most %d transfers at once: %d processors, want 1", peak.Load(), got)
	}
}

// TestDeepNameFolded: a name deeper than a path may be is folded to fit,
// keeping its last segment, the same each time and apart from another.
func TestDeepNameFolded(t *testing.T) {
	seg := strings.Repeat("d", 200)
	deep := func(last string) string {
		return strings.Repeat(seg+"/", 25) + last
	}
	a, err := safeRelative(deep("doc.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if len(a) > maxRelative || filepath.Base(a) == "doc.txt" || !strings.HasSuffix(a, "-doc.txt") || !strings.HasPrefix(a, filepath.Join(seg, seg)) {
		t.Errorf("folded to %d bytes: …%s", len(a), a[max(0, len(a)-60):])
	}
	if again, _ := safeRelative(deep("doc.txt")); again != a {
		t.Error("folded otherwise the second time")
	}
	if other, _ := safeRelative(deep("x/doc.txt")); other == a {
		t.Error("two deep names folded to one")
	}
	short := filepath.Join("a", "b", "c.txt")
	if got, _ := safeRelative("a/b/c.txt"); got != short {
		t.Errorf("a short name changed: %q", got)
	}
	// on disk: the folded name can be made
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(a)), 0o777); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, a), []byte("x"), 0o666); err != nil {
		t.Fatal(err)
	}
}

// TestBatchDocumentSizes: documents of every size about the copy buffer
// (read ahead whole below it, streamed past it) are saved and digested
// whole, with a log and without; one cut short, within the buffer or past
// it, fails and leaves no file.
func TestBatchDocumentSizes(t *testing.T) {
	sizes := []int{0, 1, 1000, copyBufferSize - 1, copyBufferSize, copyBufferSize + 1, 3*copyBufferSize + 7}
	body := func(n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(i*7 + i/251)
		}
		return b
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var n, cut int
		if _, err := fmt.Sscanf(r.URL.Path, "/cut%d-%d", &n, &cut); err == nil {
			// announces n bytes, sends cut of them and drops the connection
			w.Header().Set("Content-Length", strconv.Itoa(n))
			w.Write(body(n)[:cut])
			w.(http.Flusher).Flush()
			c, _, _ := w.(http.Hijacker).Hijack()
			c.(*net.TCPConn).SetLinger(0)
			c.Close()
			return
		}
		fmt.Sscanf(r.URL.Path, "/d%d", &n)
		w.Write(body(n))
	}))
	defer srv.Close()
	var urls []string
	for _, n := range sizes {
		urls = append(urls, fmt.Sprintf("%s/d%d", srv.URL, n))
	}
	cuts := []string{srv.URL + "/cut1000-500", fmt.Sprintf("%s/cut%d-%d", srv.URL, 2*copyBufferSize, copyBufferSize+100)}
	for _, withLog := range []bool{false, true} {
		dir := t.TempDir()
		args := []string{"-i", "-", "-j", "4", "-O", "--output-dir", dir, "-q"}
		logName := filepath.Join(t.TempDir(), "log")
		if withLog {
			args = append(args, "--log", logName)
		}
		code, _, stderr := runFetch(t, strings.Join(append(urls, cuts...), "\n"), args...)
		if code == 0 {
			t.Errorf("log %v: exit 0 with two documents cut short", withLog)
		}
		for _, n := range sizes {
			name := fmt.Sprintf("d%d", n)
			got, err := os.ReadFile(filepath.Join(dir, name))
			if err != nil || !bytes.Equal(got, body(n)) {
				t.Errorf("log %v: %s: %d bytes, %v; want %d (stderr %q)", withLog, name, len(got), err, n, stderr)
			}
		}
		entries, _ := os.ReadDir(dir)
		for _, e := range entries {
			if !strings.HasPrefix(e.Name(), "d") {
				t.Errorf("log %v: %s left in the output directory", withLog, e.Name())
			}
		}
		if !withLog {
			continue
		}
		by, _ := readLog(t, logName)
		for _, n := range sizes {
			u := fmt.Sprintf("%s/d%d", srv.URL, n)
			if l := by[u]; l.Outcome != "ok" || l.Bytes != int64(n) || l.SHA256 != sum(body(n)) {
				t.Errorf("%s logged %+v", u, l)
			}
		}
		for _, u := range cuts {
			if l := by[u]; l.Outcome != "failed" || l.File != "" {
				t.Errorf("%s logged %+v", u, l)
			}
		}
	}
}

// TestRedirectWaitIsNotActive: a transfer redirected to a host whose
// places are all taken waits without counting as active on the status
// line, and counts again once it has one.
func TestRedirectWaitIsNotActive(t *testing.T) {
	hold := make(chan struct{})
	var got atomic.Int32
	target := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if got.Add(1) == 1 {
			<-hold
		}
		io.WriteString(w, r.URL.Path)
	}))
	defer target.Close()
	from := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+r.URL.Path, http.StatusFound)
	}))
	defer from.Close()
	o, s, _, c := commandClient(t, "-O", "-j", "2", "--per-host", "1", target.URL+"/a")
	b := &batch{o: o, s: s, c: c, root: t.TempDir(), backlog: 10}
	b.log, b.done, b.names, _ = openLog("", nil, nil)
	b.hosts = newHostLimiter(1, 0)
	ctx := context.Background()
	lines := make(chan logLine, 2)
	fetchOne := func(raw string) {
		line, _, _ := b.fetchURL(ctx, frontier.Task{URL: raw}, "", nil, func() {})
		lines <- line
	}
	go fetchOne(target.URL + "/a") // holds the target's one place
	for deadline := time.Now().Add(30 * time.Second); got.Load() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the first request never reached the target")
		}
	}
	go fetchOne(from.URL + "/b") // redirected there: waits for that place
	tu, _ := url.Parse(target.URL)
	waiting := func() bool { // the target's place is held and waited for
		b.hosts.mu.Lock()
		defer b.hosts.mu.Unlock()
		s := b.hosts.hosts[tu.Host]
		return s != nil && s.users == 2
	}
	for deadline := time.Now().Add(30 * time.Second); !waiting(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the redirected transfer never waited for the target's place")
		}
	}
	// The redirect's wait shows as one transfer active (the first), not two.
	if n := b.active.Load(); n != 1 {
		t.Errorf("%d transfers active while one waits for a redirect's place; want 1", n)
	}
	close(hold)
	for range 2 {
		select {
		case l := <-lines:
			if l.Outcome != "ok" {
				t.Errorf("%s: %+v", l.URL, l)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a transfer never ended")
		}
	}
	if n := b.active.Load(); n != 0 {
		t.Errorf("%d transfers active after both ended", n)
	}
}

// TestProgressCountsReadAhead: the progress line counts a document's
// bytes as they come, those read ahead before its file is made too (a
// slow document that fits in a copy buffer showed none until it ended).
// A document cut short leaves the count, and one saved is counted once.
func TestProgressCountsReadAhead(t *testing.T) {
	const part, size = 40000, 50000
	hold, stop := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", strconv.Itoa(size))
		w.Write(bytes.Repeat([]byte("x"), part))
		w.(http.Flusher).Flush()
		select {
		case <-hold:
		case <-stop:
			return
		}
		if r.URL.Path == "/cut" {
			c, _, _ := w.(http.Hijacker).Hijack()
			c.Close()
			return
		}
		w.Write(bytes.Repeat([]byte("x"), size-part))
	}))
	defer srv.Close()
	defer close(stop) // before the server closes, which waits for its handlers
	for _, path := range []string{"/doc", "/cut"} {
		o, s, _, c := commandClient(t, "-O", "--progress", srv.URL+path)
		b := &batch{o: o, s: s, c: c, root: t.TempDir(), backlog: 10}
		b.log, b.done, b.names, _ = openLog("", nil, nil)
		b.hosts = newHostLimiter(1, 0)
		lines := make(chan logLine, 1)
		go func() {
			line, _, _ := b.fetchURL(context.Background(), frontier.Task{URL: srv.URL + path}, "", nil, func() {})
			lines <- line
		}()
		for deadline := time.Now().Add(10 * time.Second); b.bytesDone.Load() < part; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("%s: %d bytes counted while the first %d were read", path, b.bytesDone.Load(), part)
			}
		}
		hold <- struct{}{}
		l := <-lines
		want := int64(size)
		if path == "/cut" {
			want = 0
		}
		if (l.Outcome == "ok") != (path == "/doc") || b.bytesDone.Load() != want {
			t.Errorf("%s: %+v, %d bytes counted; want %d", path, l, b.bytesDone.Load(), want)
		}
	}
}
