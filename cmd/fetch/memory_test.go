package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// The big-reply cases of issue #12 (findings 1, 4, 5, 6): the command is
// built without -race and run as a child against a fake server, and its
// maximum resident memory is read from the kernel's accounting.

// residentLimit is the bound the issue sets for any single fetch.
const residentLimit = 64 << 20

var (
	buildOnce sync.Once
	builtDir  string
	buildErr  error
)

// binaries builds the command and rsswrap (testdata/rsswrap) once per
// test run, without -race, and returns their directory.
func binaries(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "fetch-memory-test")
		if err != nil {
			buildErr = err
			return
		}
		builtDir = dir
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = fmt.Errorf("the memory tests build the command: %v", err)
			return
		}
		for _, b := range [][2]string{{"fetch", "."}, {"rsswrap", "./testdata/rsswrap"}, {"prosperod", "../../integration/prosperod"}} {
			out, err := exec.Command(goTool, "build", "-o", filepath.Join(dir, b[0]), b[1]).CombinedOutput()
			if err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", b[1], err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtDir
}

func TestMain(m *testing.M) {
	code := m.Run()
	if builtDir != "" {
		os.RemoveAll(builtDir)
	}
	os.Exit(code)
}

// childEnv is the environment of a test's run of the built command:
// no configuration file and no news server of the machine's.
func childEnv(t *testing.T) []string {
	home := t.TempDir()
	return append(os.Environ(), "FETCH_CONFIG=", "HOME="+home, "XDG_CONFIG_HOME="+home, "NNTPSERVER=")
}

// startChild starts the program bin with args in a test's environment
// (childEnv), its standard error into stderr, and returns its standard
// output to read; the process is killed after limit, so that a hang
// fails the test rather than blocking the suite. stop ends that watch.
func startChild(t *testing.T, limit time.Duration, stderr io.Writer, bin string, args ...string) (cmd *exec.Cmd, stdout io.ReadCloser, stop func() bool) {
	t.Helper()
	cmd = exec.Command(bin, args...)
	cmd.Env = childEnv(t)
	cmd.Stderr = stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdout, time.AfterFunc(limit, func() { cmd.Process.Kill() }).Stop
}

// runChild runs the built command with args (through rsswrap), counting
// the lines of its standard output; it returns the exit status, the line
// count, standard error and the command's maximum resident set in bytes.
func runChild(t *testing.T, args ...string) (code int, lines int, stderr string, maxRSS int64) {
	t.Helper()
	dir := binaries(t)
	var errb bytes.Buffer
	cmd, out, stop := startChild(t, 5*time.Minute, &errb, filepath.Join(dir, "rsswrap"), append([]string{filepath.Join(dir, "fetch")}, args...)...)
	defer stop()
	br := bufio.NewReaderSize(out, 64<<10)
	for {
		_, err := br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			break
		}
		lines++
	}
	if werr := cmd.Wait(); werr != nil {
		if _, ok := werr.(*exec.ExitError); !ok {
			t.Fatal(werr)
		}
	}
	stderr = errb.String()
	i := strings.LastIndex(stderr, "rsswrap: maxrss ")
	if i < 0 {
		t.Fatalf("rsswrap reported no figure: %s", stderr)
	}
	if _, err := fmt.Sscanf(stderr[i:], "rsswrap: maxrss %d", &maxRSS); err != nil {
		t.Fatalf("rsswrap: %v in %q", err, stderr[i:])
	}
	return cmd.ProcessState.ExitCode(), lines, stderr[:i], maxRSS
}

// serveTCP serves each connection with serve on loopback and returns the
// address.
func serveTCP(t *testing.T, serve func(c net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Minute))
				serve(c)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	return ln.Addr().String()
}

func checkRSS(t *testing.T, what string, rss int64) {
	t.Helper()
	t.Logf("%s: maximum resident set %.1f MiB", what, float64(rss)/(1<<20))
	if rss >= residentLimit {
		t.Errorf("%s: maximum resident set %.1f MiB, over %d MiB", what, float64(rss)/(1<<20), residentLimit>>20)
	}
}

// TestMemoryGopherMillionItemMenu: a legal menu of 1,000,000 items (27 MB)
// is listed whole in bounded memory (finding 6: it peaked at ~600 MB).
func TestMemoryGopherMillionItemMenu(t *testing.T) {
	const items = 1000000
	menu := make([]byte, 0, 28<<20) // made once: the server's work stays small
	for i := range items {
		n := strconv.AppendInt(nil, int64(10000000+i), 10)[1:]
		menu = append(append(append(append(append(menu, "0item "...), n...), "\t/i"...), n...), "\th\t70\r\n"...)
	}
	menu = append(menu, ".\r\n"...)
	addr := serveTCP(t, func(c net.Conn) {
		bufio.NewReader(c).ReadString('\n')
		c.Write(menu)
	})
	code, lines, stderr, rss := runChild(t, "gopher://"+addr+"/1/")
	if code != 0 || lines != items {
		t.Fatalf("exit %d, %d lines, want 0 and %d: %s", code, lines, items, stderr)
	}
	checkRSS(t, "a 1,000,000-item menu", rss)
}

// TestMemoryGopherAttributeViews: a Gopher+ attribute reply of 3.5 MB,
// one item with 99,990 views, is shown rendered (12 MB of text, a URL
// for each view) and saved with -o in bounded memory. The rendering was
// built whole and copied twice (121-128 MB); the reply's parse alone,
// which -o makes too, took 66 MB.
func TestMemoryGopherAttributeViews(t *testing.T) {
	const views = 99990
	data := []byte("+INFO: 0x\tselselselselselselsel\t127.0.0.1\t70\t+\r\n+VIEWS:\r\n")
	for i := range views {
		data = fmt.Appendf(data, " text/p%05dqqqqqqqqqqqqqqq: <1k>\r\n", i)
	}
	addr := serveTCP(t, func(c net.Conn) {
		bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, "+-1\r\n")
		c.Write(data)
		io.WriteString(c, ".\r\n")
	})
	url := "gopher://" + addr + "/0x%09%09!"
	code, lines, stderr, rss := runChild(t, url)
	if code != 0 || lines != views+3 { // the item, its URL, "Views:"
		t.Fatalf("exit %d, %d lines, want 0 and %d: %s", code, lines, views+3, stderr)
	}
	checkRSS(t, "a reply of 99,990 views, rendered", rss)

	file := filepath.Join(t.TempDir(), "attrs")
	code, _, stderr, rss = runChild(t, "-o", file, url)
	if code != 0 {
		t.Fatalf("-o: exit %d: %s", code, stderr)
	}
	if got, err := os.ReadFile(file); err != nil || !bytes.Equal(got, data) {
		t.Errorf("-o: the file is not the reply's data (%d bytes of %d): %v", len(got), len(data), err)
	}
	checkRSS(t, "a reply of 99,990 views, saved with -o", rss)
}

// TestMemoryCrawlLongMenu: a crawl of a 700,000-item menu queues its
// links as the menu is read, so memory stays bounded when --max-urls
// holds the crawl to a few thousand documents (all the listing's links
// were held until its end).
func TestMemoryCrawlLongMenu(t *testing.T) {
	const items = 700000 // 29 MB, under the 32 MiB a menu may take
	var menu []byte
	var once sync.Once
	addr := serveTCP(t, func(c net.Conn) {
		sel, _ := bufio.NewReader(c).ReadString('\n')
		if strings.TrimRight(sel, "\r\n") != "" {
			io.WriteString(c, "a document\r\n")
			return
		}
		once.Do(func() {
			host, port, _ := net.SplitHostPort(c.LocalAddr().String())
			tail := "\t" + host + "\t" + port + "\r\n"
			menu = make([]byte, 0, 40<<20)
			for i := range items {
				n := strconv.AppendInt(nil, int64(10000000+i), 10)[1:]
				menu = append(append(append(append(append(menu, "0item "...), n...), "\t/i"...), n...), tail...)
			}
			menu = append(menu, ".\r\n"...)
		})
		c.Write(menu)
	})
	_, port, _ := net.SplitHostPort(addr)
	dir := t.TempDir()
	code, _, stderr, rss := runChild(t, "-r", "--max-urls", "2000", "-j", "4", "--per-host", "4", "--allow-port", port,
		"-q", "--output-dir", dir, "--log", filepath.Join(dir, "log"), "gopher://"+addr+"/1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	logData, err := os.ReadFile(filepath.Join(dir, "log"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(logData, []byte("\n")); n != 2000 {
		t.Errorf("%d log lines, want 2000 (--max-urls)", n)
	}
	checkRSS(t, "a crawl of a 700,000-item menu", rss)
}

// nntpServer answers the greeting, CAPABILITIES, MODE READER and GROUP
// like a reader server, and hands LIST ACTIVE and OVER to endless.
func nntpServer(t *testing.T, endless func(w *bufio.Writer, cmd string) bool) string {
	return serveTCP(t, func(c net.Conn) {
		r := bufio.NewReader(c)
		w := bufio.NewWriter(c)
		w.WriteString("200 fake news server\r\n")
		w.Flush()
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			cmd := strings.ToUpper(strings.TrimSpace(line))
			switch {
			case strings.HasPrefix(cmd, "CAPABILITIES"):
				w.WriteString("101 caps\r\nVERSION 2\r\nREADER\r\nOVER\r\nLIST ACTIVE NEWSGROUPS\r\n.\r\n")
			case strings.HasPrefix(cmd, "GROUP"):
				w.WriteString("211 100 1 100 alt.test\r\n")
			case strings.HasPrefix(cmd, "QUIT"):
				w.WriteString("205 bye\r\n")
				w.Flush()
				return
			default:
				if endless(w, cmd) {
					return
				}
				w.WriteString("500 what\r\n")
			}
			if w.Flush() != nil {
				return
			}
		}
	})
}

// TestMemoryEndlessActiveList: news:* against an endless LIST ACTIVE stops
// at its bound in bounded memory (finding 5: it peaked at ~240 MB).
func TestMemoryEndlessActiveList(t *testing.T) {
	addr := nntpServer(t, func(w *bufio.Writer, cmd string) bool {
		if !strings.HasPrefix(cmd, "LIST") {
			return false
		}
		w.WriteString("215 list follows\r\n")
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(w, "alt.group%09d 10 1 y\r\n", i); err != nil {
				return true // the client hung up
			}
		}
	})
	code, _, stderr, rss := runChild(t, "--nntp-server", addr, "news:*")
	if code != 4 || !strings.Contains(stderr, "limited to") {
		t.Fatalf("exit %d, want 4 with the bound named: %s", code, stderr)
	}
	checkRSS(t, "an endless LIST ACTIVE", rss)
}

// TestMemoryProsperoContents: a CONTENTS value of 12 MB (the object's
// text inside the Prospero reply) is refused at the reply bound, in
// bounded memory; with a 64 MiB bound, the reply's packets, their join
// and its tokens had taken 84 MB for it (and 435 MB for 60 MB).
func TestMemoryProsperoContents(t *testing.T) {
	dir := binaries(t)
	content := t.TempDir()
	line := strings.Repeat("x", 99) + "\n"
	if err := os.WriteFile(filepath.Join(content, "hello.txt"), []byte(strings.Repeat(line, 120000)), 0o644); err != nil {
		t.Fatal(err)
	}
	l, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.LocalAddr().String()
	l.Close()
	srv := exec.Command(filepath.Join(dir, "prosperod"), "-listen", addr, "-content", content)
	srv.Stderr = os.Stderr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		srv.Process.Kill()
		srv.Wait()
	}()
	probe := exec.Command(filepath.Join(dir, "prosperod"), "-probe", addr)
	for i := 0; probe.Run() != nil; i++ {
		if i > 100 {
			t.Fatal("prosperod did not answer")
		}
		time.Sleep(100 * time.Millisecond)
		probe = exec.Command(filepath.Join(dir, "prosperod"), "-probe", addr)
	}
	code, _, stderr, rss := runChild(t, "-o", os.DevNull, "prospero://"+addr+"//contents-only.txt")
	checkRSS(t, "a 12 MB Prospero CONTENTS value", rss)
	if code == 0 || !strings.Contains(stderr, "larger than") {
		t.Errorf("exit %d, want a refusal naming the bound: %s", code, stderr)
	}
}

// TestMemoryEndlessOverview: an OVER reply that never ends stops once it
// passes what the range asked for can hold (finding 4: ~600 MB).
func TestMemoryEndlessOverview(t *testing.T) {
	addr := nntpServer(t, func(w *bufio.Writer, cmd string) bool {
		if !strings.HasPrefix(cmd, "OVER") && !strings.HasPrefix(cmd, "XOVER") {
			return false
		}
		w.WriteString("224 overview follows\r\n")
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(w, "%d\tsubject %d\ta@b\t1 Jan 2020 00:00:00 +0000\t<%d@x>\t\t100\t2\r\n", 1+i%100, i, i); err != nil {
				return true // the client hung up
			}
		}
	})
	code, lines, stderr, rss := runChild(t, "--nntp-server", addr, "news:alt.test")
	if code != 4 || !strings.Contains(stderr, "range can hold") {
		t.Fatalf("exit %d, want 4 naming the range: %s", code, stderr)
	}
	if lines > 100 {
		t.Errorf("%d entries listed from a range of 100", lines)
	}
	checkRSS(t, "an endless OVER", rss)
}

// TestMemoryEndlessEHLO: an EHLO reply that never ends is cut at its line
// bound in bounded memory (finding 1: 2 GB in 18 s).
func TestMemoryEndlessEHLO(t *testing.T) {
	addr := serveTCP(t, func(c net.Conn) {
		io.WriteString(c, "220 hi\r\n")
		bufio.NewReader(c).ReadString('\n')
		chunk := []byte(strings.Repeat("250-"+strings.Repeat("x", 1990)+"\r\n", 16))
		for {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	})
	code, _, stderr, rss := runChild(t, "--smtp-server", addr, "--from", "me@fetch.test", "--data", "x", "mailto:a@fetch.test")
	if code != 4 || !strings.Contains(stderr, "4096 lines") {
		t.Fatalf("exit %d, want 4 naming the line bound: %s", code, stderr)
	}
	checkRSS(t, "an endless EHLO reply", rss)
}

// TestMemoryHundredThousandURLs: a list of 100,000 URLs is read as the
// workers go, in bounded memory (issue #17: under 64 MiB), with a log of
// every outcome. The server answers each with a 404 at once, so the run
// measures the batch's own bookkeeping rather than file creation.
func TestMemoryHundredThousandURLs(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	dir := t.TempDir()
	list := filepath.Join(dir, "urls.txt")
	var b strings.Builder
	const n = 100000
	for i := range n {
		fmt.Fprintf(&b, "%s/some/fairly/long/path/to/a/document/number-%06d.txt?query=%d\n", srv.URL, i, i)
	}
	if err := os.WriteFile(list, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	code, lines, stderr, rss := runChild(t, "-j", "8", "--per-host", "8", "--allow-port", strconv.Itoa(port), "--json",
		"-O", "--output-dir", filepath.Join(dir, "out"), "-i", list)
	if code != 6 || lines != n {
		t.Fatalf("exit %d with %d log lines, want 6 and %d: %s", code, lines, n, stderr[max(0, len(stderr)-500):])
	}
	checkRSS(t, "a list of 100,000 URLs", rss)
}
