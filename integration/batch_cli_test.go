//go:build integration

package integration

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/nntp"
)

// The batch CLI tests (issue 17) give `fetch -i` a mixed list of several
// hundred URLs over HTTP (nginx), FTP (vsftpd, pyftpdlib), Gopher
// (pygopherd, gophernicus) and NNTP (INN), missing ones among them, and
// check every file against what the server holds, the per-host cap at the
// server, and a batch killed midway then resumed from its log.

// batchEntry is one URL of the list and the SHA-256 its file must have;
// "" for a URL that does not exist (it must fail, exit 6).
type batchEntry struct {
	url, sha string
}

// activeRelay forwards TCP connections on loopback to target and records
// the most it had open at once, as the server sees them: a connection
// counts from its accept until the server's side of it ends.
type activeRelay struct {
	ln          net.Listener
	active, max atomic.Int32
	total       atomic.Int32
	wg          sync.WaitGroup
	mu          sync.Mutex
	conns       []net.Conn
}

func newActiveRelay(t *testing.T, target string) *activeRelay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &activeRelay{ln: ln}
	r.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			r.total.Add(1)
			n := r.active.Add(1)
			for m := r.max.Load(); n > m && !r.max.CompareAndSwap(m, n); m = r.max.Load() {
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				r.active.Add(-1)
				c.Close()
				continue
			}
			r.mu.Lock()
			r.conns = append(r.conns, c, up)
			r.mu.Unlock()
			// A connection ends when either side ends it, counted before
			// the end is passed on: the count never lags behind the side
			// that sees it.
			var once sync.Once
			end := func() { once.Do(func() { r.active.Add(-1) }) }
			r.wg.Go(func() {
				io.Copy(up, c)
				end()
				up.(*net.TCPConn).CloseWrite()
			})
			r.wg.Go(func() {
				io.Copy(c, up)
				end()
				c.(*net.TCPConn).CloseWrite()
			})
		}
	})
	t.Cleanup(func() {
		ln.Close()
		r.mu.Lock()
		for _, c := range r.conns {
			c.Close()
		}
		r.mu.Unlock()
		r.wg.Wait()
	})
	return r
}

func (r *activeRelay) addr() string { return r.ln.Addr().String() }

// batchList builds the mixed list. HTTP and pygopherd go through relays
// counting connections at once.
func batchList(t *testing.T, httpRelay, gopherRelay string) []batchEntry {
	t.Helper()
	var list []batchEntry
	files := contentManifest(t)
	var batchFiles []contentFile
	for _, f := range files {
		if f.Path == "100m.bin" {
			continue
		}
		list = append(list, batchEntry{"http://" + httpRelay + "/" + escapePath(f.Path), f.SHA256})
		if strings.HasPrefix(f.Path, "batch/") {
			batchFiles = append(batchFiles, f)
		}
	}
	if len(batchFiles) < 100 {
		t.Fatalf("the content manifest has %d batch/ files, want 200", len(batchFiles))
	}
	for i := range 10 {
		list = append(list, batchEntry{fmt.Sprintf("http://%s/no-such-%d.txt", httpRelay, i), ""})
	}
	for _, s := range ftpServers {
		addr := serverAddr(t, s.env)
		login := ""
		if s.name == "pyftpdlib" {
			login = ftpUserinfo(t)
		}
		for _, f := range batchFiles[:100] {
			list = append(list, batchEntry{"ftp://" + login + addr + "/" + f.Path, f.SHA256})
		}
		for i := range 5 {
			list = append(list, batchEntry{fmt.Sprintf("ftp://%s%s/batch/no-such-%d.txt", login, addr, i), ""})
		}
	}
	for _, h := range gopherHoles {
		addr := serverAddr(t, h.env)
		if h.server == "pygopherd" {
			addr = gopherRelay
		}
		for _, sel := range []string{"/about.txt", "/doc.txt", "/menu/nested.txt", "/menu/deeper/leaf.txt"} {
			b, ok := h.expected(t, '0', sel)
			if !ok {
				continue
			}
			list = append(list, batchEntry{"gopher://" + addr + "/0" + sel, sum(b)})
		}
		if h.server == "pygopherd" {
			// gophernicus answers a missing type-0 selector with a text
			// page (Gopher has no error status for a document); pygopherd
			// with an error item.
			for i := range 3 {
				list = append(list, batchEntry{fmt.Sprintf("gopher://%s/0/no-such-%d.txt", addr, i), ""})
			}
		}
	}
	c := newsClient(t, nntp.Config{}, fetch.Options{})
	defer c.Close()
	for _, id := range []string{"alpha-1@fetch.test", "alpha-2-dots@fetch.test", "alpha-3-large@fetch.test", "alpha-4-utf8@fetch.test", "cross-1@fetch.test"} {
		list = append(list, batchEntry{"news:" + id, fetchSHA(t, c, "news:"+id)})
	}
	list = append(list, batchEntry{"news:no-such-1@fetch.test", ""}, batchEntry{"news:no-such-2@fetch.test", ""})
	return list
}

type batchLogLine struct {
	URL      string `json:"url"`
	Outcome  string `json:"outcome"`
	Error    string `json:"error"`
	Exit     int    `json:"exit"`
	Bytes    int64  `json:"bytes"`
	SHA256   string `json:"sha256"`
	Attempts int    `json:"attempts"`
	File     string `json:"file"`
}

// readBatchLog reads a --log file; a last line cut by a kill is skipped.
func readBatchLog(t *testing.T, name string) []batchLogLine {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []batchLogLine
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var l batchLogLine
		if json.Unmarshal(sc.Bytes(), &l) == nil {
			out = append(out, l)
		}
	}
	return out
}

// checkBatch checks the log against the list: each existing URL exactly
// once ok, its file whole (SHA-256 as the server holds it), each missing
// URL failed with exit 6 and never ok; and no temporary file anywhere.
func checkBatch(t *testing.T, list []batchEntry, lines []batchLogLine, outDir string) {
	t.Helper()
	ok := map[string]int{}
	last := map[string]batchLogLine{}
	for _, l := range lines {
		if l.Outcome == "ok" {
			ok[l.URL]++
		}
		last[l.URL] = l
	}
	for _, e := range list {
		key := e.url
		if u, err := fetch.Parse(e.url); err == nil {
			key = u.Redacted() // the log never holds a password
		}
		l, seen := last[key]
		switch {
		case !seen:
			t.Errorf("%s: not in the log", e.url)
		case e.sha == "":
			if ok[key] != 0 || l.Outcome != "failed" || l.Exit != 6 || l.Attempts != 1 {
				t.Errorf("%s (missing): %+v", e.url, l)
			}
		case ok[key] != 1:
			t.Errorf("%s: %d ok lines, want exactly 1 (last %+v)", key, ok[key], l)
		default:
			f, err := os.Open(l.File)
			if err != nil {
				t.Errorf("%s: %v", e.url, err)
				continue
			}
			got, n, err := sha256Of(f)
			f.Close()
			if err != nil || got != e.sha || l.SHA256 != e.sha || n != l.Bytes {
				t.Errorf("%s: file %s has sha256 %s (%d bytes, log says %s, %d bytes), want %s", e.url, l.File, got, n, l.SHA256, l.Bytes, e.sha)
			}
			if rel, err := filepath.Rel(outDir, l.File); err != nil || !filepath.IsLocal(rel) {
				t.Errorf("%s: %s is outside %s", e.url, l.File, outDir)
			}
		}
	}
	filepath.WalkDir(outDir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".fetch-part.") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
}

func batchServers(t *testing.T) {
	for _, s := range []string{"nginx", "vsftpd", "pyftpdlib", "pygopherd", "gophernicus", "inn"} {
		wantServer(t, s)
	}
}

// TestBatchCLI: the whole list with -j 8 and the default per-host cap of
// 2: every file checked, no server ever has more than 2 of our
// connections at once, and pygopherd (one request at a time) gives no
// error but the missing selectors.
func TestBatchCLI(t *testing.T) {
	batchServers(t)
	httpRelay := newActiveRelay(t, serverAddr(t, "FETCH_HTTP_ADDR"))
	gopherRelay := newActiveRelay(t, serverAddr(t, "FETCH_GOPHER_PYGOPHERD_ADDR"))
	list := batchList(t, httpRelay.addr(), gopherRelay.addr())
	if len(list) < 300 {
		t.Fatalf("%d URLs, want several hundred", len(list))
	}
	dir := t.TempDir()
	listFile := filepath.Join(dir, "list")
	var b strings.Builder
	b.WriteString("# the mixed list\n\n")
	for _, e := range list {
		b.WriteString(e.url + "\n")
	}
	os.WriteFile(listFile, []byte(b.String()), 0o666)
	out, logName := filepath.Join(dir, "out"), filepath.Join(dir, "log")
	t.Setenv("NNTPSERVER", serverAddr(t, "FETCH_NNTP_ADDR"))
	code, stdout, stderr := runCLI(t, "", "-i", listFile, "-j", "8", "-o", "{scheme}/{host}_{port}/{path}",
		"--output-dir", out, "--log", logName, "--retry", "2", "--json")
	if code != 6 {
		t.Errorf("exit %d, want 6 (missing URLs); stderr:\n%s", code, stderr)
	}
	lines := readBatchLog(t, logName)
	if len(lines) != len(list) {
		t.Errorf("%d log lines for %d URLs", len(lines), len(list))
	}
	if n := strings.Count(string(stdout), "\n"); n != len(list) {
		t.Errorf("--json: %d lines on stdout for %d URLs", n, len(list))
	}
	checkBatch(t, list, lines, out)
	want := fmt.Sprintf("fetch: %d URLs: %d ok, %d failed", len(list), len(list)-countMissing(list), countMissing(list))
	if !strings.Contains(stderr, want) {
		t.Errorf("summary: want %q in\n%s", want, stderr)
	}
	for name, r := range map[string]*activeRelay{"nginx": httpRelay, "pygopherd": gopherRelay} {
		if m := r.max.Load(); m > 2 || m < 1 {
			t.Errorf("%s had %d of our connections at once (%d in all), cap 2", name, m, r.total.Load())
		}
		t.Logf("%s: at most %d connections at once, %d in all", name, r.max.Load(), r.total.Load())
	}
}

func countMissing(list []batchEntry) int {
	n := 0
	for _, e := range list {
		if e.sha == "" {
			n++
		}
	}
	return n
}

// TestBatchCLIKillResume: a batch SIGKILLed midway and rerun with the same
// log ends with every URL exactly once and no temporary file left.
func TestBatchCLIKillResume(t *testing.T) {
	batchServers(t)
	httpRelay := newActiveRelay(t, serverAddr(t, "FETCH_HTTP_ADDR"))
	gopherRelay := newActiveRelay(t, serverAddr(t, "FETCH_GOPHER_PYGOPHERD_ADDR"))
	list := batchList(t, httpRelay.addr(), gopherRelay.addr())
	dir := t.TempDir()
	listFile := filepath.Join(dir, "list")
	var b strings.Builder
	for _, e := range list {
		b.WriteString(e.url + "\n")
	}
	os.WriteFile(listFile, []byte(b.String()), 0o666)
	out, logName := filepath.Join(dir, "out"), filepath.Join(dir, "log")
	args := []string{"-i", listFile, "-j", "4", "-o", "{scheme}/{host}_{port}/{path}", "--output-dir", out, "--log", logName, "-q"}
	t.Setenv("NNTPSERVER", serverAddr(t, "FETCH_NNTP_ADDR"))

	cmd := exec.Command(fetchBinary(t), args...)
	cmd.Env = append(os.Environ(), "FETCH_CONFIG=/dev/null")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	// Kill it once a tenth of the list is logged: a bound in URLs, not in
	// time, so a slow machine kills it as midway as a fast one.
	killed := false
	deadline := time.After(5 * time.Minute)
wait:
	for {
		select {
		case <-exited:
			break wait
		case <-deadline:
			cmd.Process.Kill()
			<-exited
			t.Fatal("the first run neither logged a tenth of the list nor ended in 5 minutes")
		case <-time.After(2 * time.Millisecond):
			if fi, err := os.Stat(logName); err == nil && fi.Size() > 0 {
				if n := countLines(logName); n >= len(list)/10 {
					cmd.Process.Signal(syscall.SIGKILL)
					<-exited
					killed = true
					break wait
				}
			}
		}
	}
	first := readBatchLog(t, logName)
	t.Logf("first run: %d of %d URLs logged when killed (killed %v)", len(first), len(list), killed)
	if killed && len(first) >= len(list) {
		t.Logf("the first run had finished when the kill came")
	}
	code, _, stderr := runCLI(t, "", args...)
	if code != 6 {
		t.Errorf("rerun: exit %d, want 6; stderr:\n%s", code, stderr)
	}
	all := readBatchLog(t, logName)
	checkBatch(t, list, all, out)
	doneBefore := 0
	for _, l := range first {
		if l.Outcome == "ok" {
			doneBefore++
		}
	}
	if want := fmt.Sprintf("%d already done", doneBefore); doneBefore > 0 && !strings.Contains(stderr, want) {
		t.Errorf("rerun summary: want %q in %s", want, stderr)
	}
}

func countLines(name string) int {
	b, _ := os.ReadFile(name)
	return strings.Count(string(b), "\n")
}

// TestBatchHTTPPipelined: nginx answers a batch whose GETs are pipelined
// (--pipeline 4): eight transfers at once go over two connections, and
// every file arrives whole. Under /keepalive3/ (the same files) nginx
// closes each connection after its third answer with requests sent behind
// it unanswered; those are sent again, and every file still arrives once.
func TestBatchHTTPPipelined(t *testing.T) {
	wantServer(t, "nginx")
	for _, prefix := range []string{"batch", "keepalive3"} {
		t.Run(prefix, func(t *testing.T) {
			relay := newActiveRelay(t, serverAddr(t, "FETCH_HTTP_ADDR"))
			var urls []string
			for i := range batchFiles {
				urls = append(urls, fmt.Sprintf("http://%s/%s/f%03d.txt", relay.addr(), prefix, i))
			}
			dir := t.TempDir()
			args := append([]string{"-q", "-j", "8", "--per-host", "8", "--pipeline", "4", "-O", "--output-dir", dir}, urls...)
			code, _, stderr := runCLI(t, "", args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s", code, stderr)
			}
			for i := range batchFiles {
				name := fmt.Sprintf("f%03d.txt", i)
				if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != fmt.Sprintf("batch file %03d\n", i) {
					t.Errorf("%s: %q, %v", name, b, err)
				}
			}
			most, total := relay.max.Load(), relay.total.Load()
			t.Logf("at most %d connections at once, %d in all", most, total)
			switch {
			case prefix == "batch" && most > 2:
				t.Errorf("%d connections at once for 8 transfers, 4 on each", most)
			case prefix == "keepalive3" && most > 8:
				// (connections that nginx is closing overlap the new
				// ones, within --per-host)
				t.Errorf("%d connections at once, --per-host 8", most)
			case prefix == "keepalive3" && total < batchFiles/3:
				t.Errorf("%d connections for %d requests at 3 a connection", total, batchFiles)
			}
		})
	}
}
