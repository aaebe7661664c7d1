package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestInfoHidesControls: --info prints metadata a server chose (an
// article's Subject and From) as the command's own text; like a listing's
// names, its control characters must not reach the terminal.
func TestInfoHidesControls(t *testing.T) {
	addr := nntpServer(t, func(w *bufio.Writer, cmd string) bool {
		if !strings.HasPrefix(cmd, "ARTICLE") {
			return false
		}
		w.WriteString("220 1 <x@fetch.test>\r\n")
		w.WriteString("Subject: hi \x1b]0;owned\x07 \u009b2J there\r\n")
		w.WriteString("From: =?utf-8?q?evil=1B[31m?= <e@fetch.test>\r\n")
		w.WriteString("Message-ID: <x@fetch.test>\r\n\r\nbody\r\n.\r\n")
		return false
	})
	code, out, stderr := runFetch(t, "", "--info", "nntp://"+addr+"/alt.test/1")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if strings.ContainsAny(out, controls) {
		t.Errorf("control characters reach the terminal: %q", out)
	}
	if !strings.Contains(out, "subject:") {
		t.Errorf("no subject shown: %q", out)
	}
}

// TestInfoOnMailtoSendsNothing: --info and -C cannot apply to a
// mailto: URL (it gives no document); refused as usage errors, they must be
// refused before the message is sent, not after.
func TestInfoOnMailtoSendsNothing(t *testing.T) {
	for _, flag := range [][]string{{"--info"}, {"-C", "5"}} {
		var sent atomic.Int32
		addr := smtpCounting(t, "", "queued", &sent)
		args := append(flag, "--smtp-server", addr, "--from", "me@fetch.test", "--data", "x", "mailto:a@fetch.test")
		code, _, stderr := runFetch(t, "", args...)
		if code != 2 || sent.Load() != 0 {
			t.Errorf("%v: exit %d, %d messages sent (want 2, none): %s", flag, code, sent.Load(), stderr)
		}
	}
}

// runFetchConfig runs fetch with --config naming a file that holds
// config.
func runFetchConfig(t *testing.T, config string, args ...string) (int, string, string) {
	t.Helper()
	cfg := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(cfg, []byte(config), 0o644); err != nil {
		t.Fatal(err)
	}
	return runFetch(t, "", append([]string{"--config", cfg}, args...)...)
}

// TestConfigOutputFlagsYield: a configuration file's remote-name
// (or output) is a default; an explicit -o (or -O) replaces it, rather than
// making the run a usage error ("-o and -O cannot be used together").
func TestConfigOutputFlagsYield(t *testing.T) {
	src := filepath.Join(t.TempDir(), "s.txt")
	os.WriteFile(src, []byte("x"), 0o644)
	dir := t.TempDir()
	t.Chdir(dir)
	out := filepath.Join(dir, "explicit")
	if code, _, e := runFetchConfig(t, "remote-name = yes\n", "-o", out, "file://"+src); code != 0 {
		t.Errorf("remote-name in the file, -o given: exit %d: %s", code, e)
	} else if _, err := os.Stat(out); err != nil {
		t.Errorf("-o ignored: %v", err)
	}
	other := filepath.Join(t.TempDir(), "from-config")
	if code, _, e := runFetchConfig(t, "output = "+other+"\n", "-O", "file://"+src); code != 0 {
		t.Errorf("output in the file, -O given: exit %d: %s", code, e)
	} else if _, err := os.Stat(filepath.Join(dir, "s.txt")); err != nil {
		t.Errorf("-O ignored: %v", err)
	}
}

// TestConfigNoProgressYieldsToFlag: "no-progress = yes" in the
// configuration file is a default; --progress on the command line forces
// the bar, as it does without the file.
func TestConfigNoProgressYieldsToFlag(t *testing.T) {
	big := strings.Repeat("x", 2<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(big))
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "big")
	code, _, stderr := runFetchConfig(t, "no-progress = yes\n", "--progress", "-o", out, srv.URL+"/big")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if !strings.Contains(stderr, "2.0 MiB") {
		t.Errorf("--progress on the command line lost to the file's no-progress: stderr %q", stderr)
	}
}

// TestConfigDefaultsDoNotBreakParse: the file's defaults for a
// fetch (remote-name, continue-at) do not make --parse or --base, which
// fetch nothing, usage errors.
func TestConfigDefaultsDoNotBreakParse(t *testing.T) {
	if code, _, e := runFetchConfig(t, "remote-name = yes\n", "--parse", "http://h/x"); code != 0 {
		t.Errorf("--parse with remote-name in the file: exit %d: %s", code, e)
	}
	if code, _, e := runFetchConfig(t, "C = -\n", "--base", "http://h/x", "y"); code != 0 {
		t.Errorf("--base with C in the file: exit %d: %s", code, e)
	}
	if code, _, _ := runFetch(t, "", "--parse", "-O", "http://h/x"); code != 2 {
		t.Errorf("--parse -O on the command line: exit %d, want 2", code)
	}
}

// TestGopherAttributesHideControls: a Gopher+ attribute block shown
// rendered (its name, admin fields, abstract) is the command's own text, as
// a menu's listing is; the server's control characters must not reach the
// terminal (--raw or -o keep the bytes).
func TestGopherAttributesHideControls(t *testing.T) {
	port, _ := serveGopher(t, func(port int) map[string]string {
		return map[string]string{
			"/doc\t!": fmt.Sprintf("+-2\r\n+INFO: 0Doc \x1b]0;owned\x07\t/doc\t127.0.0.1\t%d\t+\r\n+ADMIN:\r\n Admin: Evil \x1b[31m <e@x>\r\n+ABSTRACT:\r\n hi \u009b2J there\r\n+VIEWS:\r\n text/plain: <1k>\r\n.\r\n", port),
		}
	})
	code, out, e := runFetch(t, "", fmt.Sprintf("gopher://127.0.0.1:%d/0/doc%%09%%09!", port))
	if code != 0 || !strings.Contains(out, "Abstract:") {
		t.Fatalf("exit %d, out %q: %s", code, out, e)
	}
	if strings.ContainsAny(out, controls) {
		t.Errorf("control characters reach the terminal: %q", out)
	}
}

// TestGatewayPortNamed: a gateway (--proxy) on a port the policy
// refuses is refused naming the gateway; the message named only the URL
// fetched, whose port was not at fault.
func TestGatewayPortNamed(t *testing.T) {
	code, _, stderr := runFetch(t, "", "--proxy", "http://u:s3cret@127.0.0.1:25/", "http://127.0.0.1:43117/a.txt")
	if code != 4 {
		t.Fatalf("exit %d, want 4: %s", code, stderr)
	}
	if !strings.Contains(stderr, "gateway http://u:****@127.0.0.1:25/") || strings.Contains(stderr, "s3cret") {
		t.Errorf("the refusal does not name the gateway (or shows its password): %s", stderr)
	}
}

// TestJSONHidesC1Controls: --json lines go to the terminal too, and
// JSON escapes only U+0000-U+001F: a server's U+009B (CSI, a control the
// text output replaces) reached the terminal raw in a listing's names.
// Escaped as \u009b it is the same JSON string.
func TestJSONHidesC1Controls(t *testing.T) {
	port, _ := serveGopher(t, func(port int) map[string]string {
		return map[string]string{
			"": fmt.Sprintf("0Doc \u009b2J\t/doc\t127.0.0.1\t%d\r\n.\r\n", port),
		}
	})
	code, out, e := runFetch(t, "", "--json", fmt.Sprintf("gopher://127.0.0.1:%d/", port))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	if strings.ContainsAny(out, controls) {
		t.Errorf("control characters reach the terminal: %q", out)
	}
	var entry struct{ Name string }
	if err := json.Unmarshal([]byte(strings.TrimSpace(out)), &entry); err != nil || entry.Name != "Doc \u009b2J" {
		t.Errorf("the name is not kept in the JSON: %q (%v)", entry.Name, err)
	}
}

// TestConfigCannotChooseTheRun: settings that say what a run is are
// for the command line (as -i and --recursive are): from the file,
// enqueue or queue-status turned "fetch URL" into a queue operation that
// fetched nothing, and parse every run into one that fetches nothing.
func TestConfigCannotChooseTheRun(t *testing.T) {
	src := filepath.Join(t.TempDir(), "s.txt")
	os.WriteFile(src, []byte("x"), 0o644)
	for _, line := range []string{
		"enqueue = redis://127.0.0.1:1/q",
		"queue-status = redis://127.0.0.1:1/q",
		"queue = redis://127.0.0.1:1/q",
		"parse = yes",
		// metadata instead of the document: from the file, every batch
		// was a usage error ("--info ... do not go with a batch")
		"info = yes",
	} {
		code, out, e := runFetchConfig(t, line+"\n", "file://"+src)
		if code != 2 || !strings.Contains(e, "is for the command line") {
			t.Errorf("%q in the file: exit %d, out %q, stderr %q; want it refused (2)", line, code, out, e)
		}
	}
}

// TestConfigOutputDirSingleURL: "output-dir" in the configuration
// file is the directory for -O (and -o TEMPLATE); a run of one URL on the
// command line wrote to the current directory instead, while the same
// run with -j 1 (a batch) used it.
func TestConfigOutputDirSingleURL(t *testing.T) {
	src := filepath.Join(t.TempDir(), "s.txt")
	os.WriteFile(src, []byte("x"), 0o644)
	t.Chdir(t.TempDir())
	dir := filepath.Join(t.TempDir(), "dl")
	if code, _, e := runFetchConfig(t, "output-dir = "+dir+"\n", "-O", "file://"+src); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	if _, err := os.Stat(filepath.Join(dir, "s.txt")); err != nil {
		t.Errorf("-O ignored the file's output-dir: %v", err)
	}
	if code, _, e := runFetchConfig(t, "output-dir = "+dir+"\n", "-o", "t-{file}", "file://"+src); code != 0 {
		t.Fatalf("template: exit %d: %s", code, e)
	}
	if _, err := os.Stat(filepath.Join(dir, "t-s.txt")); err != nil {
		t.Errorf("-o TEMPLATE ignored the file's output-dir: %v", err)
	}
}

// TestConfigLineTooLong: a configuration line longer than the reader
// takes (a file that is none, such as /dev/zero) is a usage error naming
// the file and the line, not the scanner's bare "token too long" (exit 7).
func TestConfigLineTooLong(t *testing.T) {
	src := filepath.Join(t.TempDir(), "s.txt")
	os.WriteFile(src, []byte("x"), 0o644)
	code, _, e := runFetchConfig(t, "timeout = 5s\n"+strings.Repeat("x", 70000)+"\n", "file://"+src)
	if code != 2 || !strings.Contains(e, ":2: a line longer than") {
		t.Errorf("exit %d, stderr %q; want 2 naming line 2", code, e)
	}
}

// TestRedirectRefusalNamesListedURL: in a batch, the message of a hop
// refused for the password in its URL (exit 3) or for its port (exit 4)
// begins with the URL of the list it belongs to, the hop after it with
// its password masked: it began with the hop alone, which no line of the
// list held.
func TestRedirectRefusalNamesListedURL(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/userredir":
			http.Redirect(w, r, "http://user:s3cret@127.0.0.1:18080/hello.txt", http.StatusFound)
		case "/portredir":
			http.Redirect(w, r, "http://127.0.0.1:25/mail", http.StatusFound)
		}
	}))
	defer srv.Close()
	user, port := srv.URL+"/userredir", srv.URL+"/portredir"
	code, _, stderr := runFetch(t, user+"\n"+port+"\n", "-i", "-", "-O", "--output-dir", t.TempDir(), "-q")
	if code != 4 {
		t.Errorf("exit %d, want 4 (the worse of 3 and 4): %s", code, stderr)
	}
	for _, want := range []string{
		"fetch: " + user + ": redirect to http://user:****@127.0.0.1:18080/hello.txt: user: ",
		"fetch: " + port + ": redirect to http://127.0.0.1:25/mail: port policy: ",
	} {
		if !strings.Contains(stderr, "\n"+want) && !strings.HasPrefix(stderr, want) {
			t.Errorf("no line begins %q:\n%s", want, stderr)
		}
	}
	if strings.Contains(stderr, "s3cret") {
		t.Errorf("the hop's password is shown:\n%s", stderr)
	}
}
