package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"golang.org/x/term"
)

// file writes content to a new file and returns its file: URL.
func fileURL(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + p
}

func TestOutputDashIsStdout(t *testing.T) {
	t.Chdir(t.TempDir())
	u := fileURL(t, "a.txt", "hello\n")
	code, out, stderr := runFetch(t, "", "-o", "-", u)
	if code != 0 || out != "hello\n" {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if _, err := os.Stat("-"); err == nil {
		t.Error(`-o - created a file named "-"`)
	}
}

func TestSeveralOutputs(t *testing.T) {
	a, b := fileURL(t, "a.txt", "AAA"), fileURL(t, "b.txt", "BBB")
	dir := t.TempDir()
	oa, ob := filepath.Join(dir, "one"), filepath.Join(dir, "two")
	// -o pairs with the URLs in order; a URL without one goes to stdout.
	code, out, stderr := runFetch(t, "", "-o", oa, a, "-o", ob, b, a)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if got, _ := os.ReadFile(oa); string(got) != "AAA" {
		t.Errorf("first -o: %q", got)
	}
	if got, _ := os.ReadFile(ob); string(got) != "BBB" {
		t.Errorf("second -o: %q", got)
	}
	if out != "AAA" {
		t.Errorf("third URL to stdout: %q", out)
	}
	// -O names each file after its URL.
	t.Chdir(t.TempDir())
	if code, _, stderr := runFetch(t, "", "-O", a, b); code != 0 {
		t.Fatalf("-O with two URLs: exit %d: %s", code, stderr)
	}
	for name, want := range map[string]string{"a.txt": "AAA", "b.txt": "BBB"} {
		if got, _ := os.ReadFile(name); string(got) != want {
			t.Errorf("-O %s: %q", name, got)
		}
	}
	// More -o than URLs is a usage error naming the counts.
	if code, _, stderr := runFetch(t, "", "-o", oa, "-o", ob, a); code != 2 || !strings.Contains(stderr, "2 -o files for 1 URL:") {
		t.Errorf("too many -o: exit %d: %s", code, stderr)
	}
}

func TestRemoteName(t *testing.T) {
	tests := map[string]string{
		"gopher://h/0/dir/about.txt%09%09+":         "about.txt",
		"gopher://h/0/about.txt%09%09!":             "about.txt",
		"gopher://h/9/pub/file.bin":                 "file.bin",
		"ftp://h/pub/readme.txt;type=a":             "readme.txt",
		"http://h/a/b%2Fc.txt?q=1":                  "c.txt",
		"http://h/a/bad%1Bname%07.txt":              "bad_name_.txt",
		"gopher://h/0/a%5Cb":                        "a_b",
		"file:///tmp/x/..%2F..%2Fetc%2Fpasswd":      "passwd",
		"gopher://h/0/x/ctl%0D%0Aname%09%09+":       "",          // CR LF refused before naming
		"http://h/..":                               "",          // no name
		"http://h/":                                 "",          // no name
		"gopher://h/1/":                             "",          // a menu's root
		"http://h/%E2%80%AEevil.txt":                "_evil.txt", // a right-to-left override
		"http://h/%C2%9B31m":                        "_31m",      // a C1 control
		"gopher://h/0/dir/..%09%09+":                "",
		"gopher://h/0/odd%09name%09%09+":            "",
		"gopher://h/0/with%20space.txt%09%09+":      "with space.txt",
		"gopher://h/0/dir/noext%09search%09+":       "noext",
		"gopher://h/7/search%09words":               "search",
		"gopher://h/0/%01":                          "",
		"gopher://h/0/sub/%7F.txt":                  "_.txt",
		"gopher://h/0/sub/..":                       "",
		"http://h/sub/%2E%2E":                       "",
		"http://h/%00":                              "",
		"http://h/normal-name_1.2.tar.gz":           "normal-name_1.2.tar.gz",
		"ftp://h/%2Fetc/motd":                       "motd",
		"gopher://h/0/dir%2Fabout.txt%09%09+":       "about.txt",
		"gopher://h/I/pics/cat.gif%09%09+image/gif": "cat.gif",
		"news:1234@example.com":                     "1234@example.com",
		"news:a/b@example.com":                      "a_b@example.com",
		"news:comp.lang.go":                         "comp.lang.go",
		"nntp://h/comp.lang.go/12":                  "12",
	}
	for raw, want := range tests {
		u, err := fetch.Parse(raw)
		if err != nil {
			if want != "" {
				t.Errorf("%s: %v", raw, err)
			}
			continue
		}
		got, err := remoteName(u)
		if want == "" {
			if err == nil && (got == "" || got == "." || got == ".." || strings.ContainsAny(got, "/\\\x00\t\r\n")) {
				t.Errorf("%s: -O name %q", raw, got)
			}
			continue
		}
		if err != nil || got != want {
			t.Errorf("%s: -O name %q, %v; want %q", raw, got, err, want)
		}
	}
}

func TestBinaryRefusedOnTerminal(t *testing.T) {
	saved := outputIsTerminal
	outputIsTerminal = func(io.Writer) bool { return true }
	defer func() { outputIsTerminal = saved }()
	bin := fileURL(t, "x.bin", "GIF89a\x00\x01\x02")
	code, out, stderr := runFetch(t, "", bin)
	if code != 2 || out != "" || !strings.Contains(stderr, "-o FILE") || !strings.Contains(stderr, "-o -") || strings.Count(stderr, bin) != 1 {
		t.Errorf("binary to a terminal: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	if code, out, _ := runFetch(t, "", "-o", "-", bin); code != 0 || out != "GIF89a\x00\x01\x02" {
		t.Errorf("-o - forces it: exit %d, %q", code, out)
	}
	txt := fileURL(t, "x.txt", "plain text\n")
	if code, out, _ := runFetch(t, "", txt); code != 0 || out != "plain text\n" {
		t.Errorf("text to a terminal: exit %d, %q", code, out)
	}
	// Not a terminal: written as asked.
	outputIsTerminal = func(io.Writer) bool { return false }
	if code, out, _ := runFetch(t, "", bin); code != 0 || out != "GIF89a\x00\x01\x02" {
		t.Errorf("binary to a pipe: exit %d, %q", code, out)
	}
}

func TestJSONMetaNeverLost(t *testing.T) {
	u := fileURL(t, "doc.txt", "body\n")
	code, out, stderr := runFetch(t, "", "--json", u)
	if code != 0 || out != "body\n" {
		t.Fatalf("exit %d, stdout %q", code, out)
	}
	var meta map[string]any
	if err := json.Unmarshal([]byte(strings.TrimSpace(stderr)), &meta); err != nil || meta["url"] != u || meta["size"] != float64(5) {
		t.Errorf("metadata on stderr: %q (%v)", stderr, err)
	}
	mf := filepath.Join(t.TempDir(), "meta.json")
	code, out, stderr = runFetch(t, "", "--json-meta", mf, u, u)
	if code != 0 || out != "body\nbody\n" || stderr != "" {
		t.Fatalf("--json-meta: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
	b, _ := os.ReadFile(mf)
	if lines := strings.Split(strings.TrimSpace(string(b)), "\n"); len(lines) != 2 || !strings.Contains(lines[1], `"url":"`+u+`"`) {
		t.Errorf("--json-meta file: %q", b)
	}
}

func TestDurationsAndFlagErrors(t *testing.T) {
	o, err := parseArgs([]string{"--timeout", "3", "--max-time", "2.5", "--connect-timeout", "1m", "x:"})
	if err != nil || o.timeout != 3*time.Second || o.maxTime != 2500*time.Millisecond || o.connTimeout != time.Minute {
		t.Fatalf("%+v, %v", o, err)
	}
	tests := map[string][]string{
		"--timeout: invalid value \"soon\"":                                           {"--timeout", "soon", "x:"},
		"--max-time: invalid value \"-1\"":                                            {"--max-time", "-1", "x:"},
		"unknown flag --timout (did you mean --timeout?)":                             {"--timout", "3", "x:"},
		"unknown flag -L: fetch follows HTTP redirects":                               {"-L", "x:"},
		"unknown flag --silent: fetch's is -q":                                        {"--silent", "x:"},
		"unknown flag -Z: fetch's is -j N":                                            {"-Z", "x:"},
		"unknown flag -R (did you mean -r?)":                                          {"-R", "x:"},
		"unknown flag -m: fetch's is --max-time D for curl's, --recursive for wget's": {"-m", "x:"},
		"-o needs a value":                                                            {"x:", "-o"},
		"-o…: a value goes after a space":                                             {"-ofile.txt", "x:"},
		"-j…: a value goes after a space":                                             {"-j2", "x:"},
		"-C…: a value goes after a space":                                             {"-C-", "x:"},
		"unknown flag --outptu (did you mean --output?)":                              {"-outptu", "x", "x:"},
		"--allow-port: invalid value":                                                 {"--allow-port", "http", "x:"},
		"--max-time: invalid value \"NaN\"":                                           {"--max-time", "NaN", "x:"},
		"--max-size: invalid value \"8589934592G\"":                                   {"--max-size", "8589934592G", "x:"},
		"--max-size: invalid value \"17179869185G\"":                                  {"--max-size", "17179869185G", "x:"},
	}
	for want, args := range tests {
		code, _, stderr := runFetch(t, "", args...)
		if code != 2 || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", args, code, stderr, want)
		}
		if args[0] == "-L" && strings.Contains(stderr, "did you mean") {
			t.Errorf("%v: a one-letter flag offered another letter: %q", args, stderr)
		}
		if strings.Contains(stderr, " -timeout") || strings.Contains(stderr, " -max-time") || strings.Contains(stderr, " -allow-port") {
			t.Errorf("%v: a long flag with one dash: %q", args, stderr)
		}
	}
}

// stallingServer sends the HTTP head and part of the body, then nothing.
func stallingServer(t *testing.T) string {
	t.Helper()
	u, _ := stallingServerStarted(t)
	return u
}

// stallingServerStarted is stallingServer with a channel that receives
// once each request has had its partial body sent.
func stallingServerStarted(t *testing.T) (string, <-chan struct{}) {
	t.Helper()
	release := make(chan struct{})
	started := make(chan struct{}, 16)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "1000")
		io.WriteString(w, "partial")
		w.(http.Flusher).Flush()
		select {
		case started <- struct{}{}:
		default:
		}
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	return srv.URL + "/slow", started
}

func TestMaxTimeAndIdleReportedAsSuch(t *testing.T) {
	u := stallingServer(t)
	code, _, stderr := runFetch(t, "", "--max-time", "0.3", "--timeout", "30", u)
	if code != 5 || !strings.Contains(stderr, "time limit") || !strings.Contains(stderr, "--max-time") || strings.Contains(stderr, "idle") || strings.Count(stderr, u) != 1 {
		t.Errorf("--max-time: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runFetch(t, "", "--timeout", "0.3", u)
	if code != 5 || !strings.Contains(stderr, "idle timeout") || !strings.Contains(stderr, "--timeout") || strings.Contains(stderr, "--max-time") || strings.Count(stderr, u) != 1 {
		t.Errorf("--timeout: exit %d, stderr %q", code, stderr)
	}
}

func TestInterruptExits130(t *testing.T) {
	u, started := stallingServerStarted(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	// Ctrl-C cancels main's context: here once the first transfer is
	// under way, its partial file being written.
	go func() { <-started; cancel() }()
	t.Setenv("FETCH_CONFIG", "")
	var o, e bytes.Buffer
	code := run(ctx, []string{"-o", out, u, u}, stdio{in: strings.NewReader(""), out: &o, err: &e})
	if code != 130 || e.String() != "fetch: "+u+": interrupted\n" {
		t.Errorf("exit %d, stderr %q", code, e.String())
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left behind: %v", entries)
	}
}

func TestURLSuggestions(t *testing.T) {
	local := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(local, []byte("x"), 0o644)
	tests := map[string]string{
		"htp://127.0.0.1/":          "did you mean http:",
		"example.com/path":          "did you mean http://example.com/path?",
		"localhost:18080/hello.txt": "did you mean http://localhost:18080/hello.txt?",
		local:                       "did you mean file://" + local + "?",
	}
	for arg, want := range tests {
		code, _, stderr := runFetch(t, "", arg)
		if code != 3 || !strings.Contains(stderr, want) {
			t.Errorf("%s: exit %d, stderr %q, want %q", arg, code, stderr, want)
		}
	}
	if code, _, stderr := runFetch(t, "", "gopher://127.0.0.1:70000/"); code != 3 || !strings.Contains(stderr, "schemes") && strings.Contains(stderr, "did you mean") {
		t.Errorf("a bad port is not a scheme problem: %d %q", code, stderr)
	}
}

// TestPortOutOfRangeOneExit: a port of 0 or above 65535 is exit 3 wherever
// it comes from: the URL, a redirect.
func TestPortOutOfRangeOneExit(t *testing.T) {
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:0/x", http.StatusFound)
	}))
	defer redirect.Close()
	for _, u := range []string{"http://127.0.0.1:0/", "gopher://127.0.0.1:70000/", "ftp://h:0/", "telnet://h:65536/", redirect.URL + "/r"} {
		if code, _, stderr := runFetch(t, "", u); code != 3 {
			t.Errorf("%s: exit %d, want 3: %s", u, code, stderr)
		}
	}
}

func TestOutputErrorNamesTheFile(t *testing.T) {
	u := fileURL(t, "a.txt", "x")
	code, _, stderr := runFetch(t, "", "-o", "/no/such/dir/out.txt", u)
	if code != 7 || !strings.Contains(stderr, "/no/such/dir/out.txt") || strings.Contains(stderr, ".part") || strings.Count(stderr, u) != 1 {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
	// A failed rename (onto a directory) names the file asked for too,
	// never the temporary file it was written under.
	dir := filepath.Join(t.TempDir(), "out")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	code, _, stderr = runFetch(t, "", "-o", dir, u)
	if code != 7 || !strings.Contains(stderr, dir) || strings.Contains(stderr, ".part") || strings.Count(stderr, u) != 1 {
		t.Errorf("-o onto a directory: exit %d, stderr %q", code, stderr)
	}
	if entries, _ := os.ReadDir(filepath.Dir(dir)); len(entries) != 1 {
		t.Errorf("-o onto a directory left %v", entries)
	}
}

func TestNNTPAuthHint(t *testing.T) {
	addr := serveTCP(t, func(c net.Conn) {
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, "201 fake news server\r\n")
		r := bufio.NewReader(c)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			switch {
			case strings.HasPrefix(line, "QUIT"):
				io.WriteString(c, "205 bye\r\n")
				return
			case strings.HasPrefix(line, "CAPABILITIES"):
				io.WriteString(c, "101 caps\r\nVERSION 2\r\nREADER\r\n.\r\n")
			default:
				io.WriteString(c, "480 authentication required\r\n")
			}
		}
	})
	u := "nntp://" + addr + "/fetch.test/1"
	code, _, stderr := runFetch(t, "", u)
	if code == 0 || !strings.Contains(stderr, "--nntp-user") || strings.Contains(stderr, "--form") || strings.Count(stderr, u) != 1 {
		t.Errorf("480: exit %d, stderr %q", code, stderr)
	}
}

func TestGopherEmptyReply(t *testing.T) {
	addr := serveTCP(t, func(c net.Conn) { bufio.NewReader(c).ReadString('\n') })
	u := "gopher://" + addr + "/0/nothing"
	code, out, stderr := runFetch(t, "", u)
	if code != 0 || out != "" || !strings.Contains(stderr, "warning: "+u+": the server sent nothing") || !strings.Contains(stderr, "--fail-empty") {
		t.Errorf("empty reply: exit %d, stderr %q", code, stderr)
	}
	code, _, stderr = runFetch(t, "", "--fail-empty", u)
	if code != 6 || !strings.Contains(stderr, "sent nothing") {
		t.Errorf("--fail-empty: exit %d, stderr %q", code, stderr)
	}
	// -q silences the warning.
	if _, _, stderr := runFetch(t, "", "-q", u); stderr != "" {
		t.Errorf("-q: %q", stderr)
	}
}

func TestHelpScheme(t *testing.T) {
	for scheme, wants := range map[string][]string{
		"gopher": {"gopher://host[:port]/7<selector>%09<search>", "--query", "fetch gopher://127.0.0.1:18071/"},
		"rlogin": {"rlogin://[user@]host[:port]/", "--rlogin-program"},
		"tn3270": {"tn3270://", "--tn3270-program"},
		"ftp":    {";type=a", "--ftp-method"},
		"https":  {"http://host[:port]/path[?search]"},
		"file":   {"--file-ftp", "--file-special"},
	} {
		code, out, _ := runFetch(t, "", "--help", scheme)
		if code != 0 {
			t.Errorf("--help %s: exit %d", scheme, code)
		}
		for _, w := range wants {
			if !strings.Contains(out, w) {
				t.Errorf("--help %s lacks %q:\n%s", scheme, w, out)
			}
		}
	}
	// Every scheme the client has, has a help page.
	c, err := newClient(&options{set: map[string]bool{}, secrets: map[string]string{}}, stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range c.Schemes() {
		if _, ok := schemeHelp[s]; !ok {
			t.Errorf("no --help %s", s)
		}
	}
	if code, out, stderr := runFetch(t, "", "--help"); code != 0 || !strings.Contains(out, "--help SCHEME") || stderr != "" {
		t.Errorf("--help does not mention --help SCHEME, or says more: %q", stderr)
	}
	// An unknown topic gets the general help, and a line saying so.
	code, out, stderr := runFetch(t, "", "--help", "gophr")
	if code != 0 || !strings.Contains(out, "--help SCHEME") || !strings.Contains(stderr, `no help on "gophr" (did you mean gopher?)`) || !strings.Contains(stderr, "ftp, gopher") {
		t.Errorf("--help gophr: exit %d, stderr %q", code, stderr)
	}
	// --help=SCHEME, as GNU tools spell a flag's value, is --help SCHEME.
	if code, out, stderr := runFetch(t, "", "--help=ftp"); code != 0 || !strings.HasPrefix(out, "ftp: URLs") || stderr != "" {
		t.Errorf("--help=ftp: exit %d, stdout %.40q, stderr %q", code, out, stderr)
	}
	if code, _, stderr := runFetch(t, "", "--help=gophr"); code != 0 || !strings.Contains(stderr, `no help on "gophr" (did you mean gopher?)`) {
		t.Errorf("--help=gophr: exit %d, stderr %q", code, stderr)
	}
	// A URL or a flag after --help is not taken for a topic.
	for _, args := range [][]string{{"--help", "ftp://h/"}, {"-h", "-v"}} {
		if _, _, stderr := runFetch(t, "", args...); stderr != "" {
			t.Errorf("%q: stderr %q", args, stderr)
		}
	}
}

func TestProgressSaysMiB(t *testing.T) {
	u := fileURL(t, "big.bin", strings.Repeat("x", 3<<20))
	code, _, stderr := runFetch(t, "", "--progress", "-o", filepath.Join(t.TempDir(), "out"), u)
	if code != 0 || !strings.Contains(stderr, "MiB") || strings.Contains(stderr, " MB") {
		t.Errorf("exit %d, progress %q", code, stderr)
	}
}

// TestListingProgress: a listing's progress bar counts its entries; it
// shows with --progress (stderr here is no terminal) and never with -q.
func TestListingProgress(t *testing.T) {
	dir := t.TempDir()
	for i := range 5 {
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", i)), []byte("x"), 0o644)
	}
	out := filepath.Join(t.TempDir(), "list")
	code, _, stderr := runFetch(t, "", "--progress", "-o", out, "file://"+dir+"/")
	if code != 0 || !strings.Contains(stderr, "(5/-") || !strings.Contains(stderr, "entries/") {
		t.Errorf("--progress: exit %d, stderr %q", code, stderr)
	}
	if b, _ := os.ReadFile(out); strings.Count(string(b), "\n") != 5 {
		t.Errorf("listing %q", b)
	}
	if code, _, stderr := runFetch(t, "", "-q", "--progress", "-o", out, "file://"+dir+"/"); code != 0 || stderr != "" {
		t.Errorf("-q --progress: exit %d, stderr %q", code, stderr)
	}
}

func TestRloginHandOff(t *testing.T) {
	dir := t.TempDir()
	record := filepath.Join(dir, "argv")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + record + "\n"
	if err := os.WriteFile(filepath.Join(dir, "my-rlogin"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", dir)
	u := "rlogin://guest@127.0.0.1:2513/"
	if code, _, stderr := runFetch(t, "", "--rlogin-program", "my-rlogin", u); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if b, _ := os.ReadFile(record); string(b) != "-l\nguest\n-p\n2513\n127.0.0.1\n" {
		t.Errorf("argv %q", b)
	}
	code, _, stderr := runFetch(t, "", u) // no rlogin on this PATH
	if code != 7 || !strings.Contains(stderr, `"rlogin" is not installed`) || !strings.Contains(stderr, "--rlogin-program") {
		t.Errorf("missing rlogin: exit %d, %q", code, stderr)
	}
	code, _, stderr = runFetch(t, "", "tn3270://127.0.0.1:25/")
	if code != 4 || !strings.Contains(stderr, "--allow-port 25") {
		t.Errorf("tn3270 to port 25: exit %d, %q", code, stderr)
	}
}

// TestHelpListsEveryFlag: each flag appears in --help as it is spelled.
func TestHelpListsEveryFlag(t *testing.T) {
	newFlagSet(&options{}).VisitAll(func(f *flag.Flag) {
		if !strings.Contains(usageText, flagSpelling(f.Name)) {
			t.Errorf("--help does not list %s", flagSpelling(f.Name))
		}
	})
}

// TestOutputTemplate: one -o with {host}, {path}, {name}... names each
// URL's file, inside the template's directory whatever the URL says.
func TestOutputTemplate(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "at "+r.URL.EscapedPath())
	}))
	defer srv.Close()
	dir := t.TempDir()
	tmpl := filepath.Join(dir, "mirror", "{host}_{port}", "{path}")
	code, _, stderr := runFetch(t, "", "-o", tmpl, srv.URL+"/a/b.txt", srv.URL+"/c.txt", srv.URL+"/x/%2E%2E/%2E%2E/%2E%2E/evil%0A.txt", srv.URL+"/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	host := strings.ReplaceAll(strings.TrimPrefix(srv.URL, "http://"), ":", "_")
	for name, want := range map[string]string{
		"a/b.txt":           "at /a/b.txt",
		"c.txt":             "at /c.txt",
		"x/_/_/_/evil_.txt": "at /x/%2E%2E/%2E%2E/%2E%2E/evil%0A.txt",
		"index":             "at /",
	} {
		got, err := os.ReadFile(filepath.Join(dir, "mirror", host, filepath.FromSlash(name)))
		if err != nil || string(got) != want {
			t.Errorf("%s: %q, %v", name, got, err)
		}
	}
	// {name} for a Gopher+ URL, and nothing written outside the directory.
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("written outside mirror/: %v", entries)
	}
	if !isTemplate("{name}") || !isTemplate("{file}") || isTemplate("plain.txt") || isTemplate("{other}") {
		t.Error("isTemplate")
	}
	u, _ := fetch.Parse("gopher://h/0/dir/about.txt%09%09+")
	for _, field := range []string{"{name}", "{file}"} { // one field, two spellings
		got, err := expandTemplate(filepath.Join(dir, "g", "{scheme}-"+field), u)
		if err != nil || got != filepath.Join(dir, "g", "gopher-about.txt") {
			t.Errorf("gopher %s: %q, %v", field, got, err)
		}
	}
}

// The standard files' answers are cached once a run; they must be the
// system's, and a file that is not standard is still asked.
func TestTerminalFdStandardFiles(t *testing.T) {
	for _, f := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
		_, got := terminalFd(f)
		if want := term.IsTerminal(int(f.Fd())); got != want {
			t.Errorf("terminalFd(%s) = %v, the system says %v", f.Name(), got, want)
		}
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, is := terminalFd(w); is {
		t.Error("a pipe is taken for a terminal")
	}
	if _, is := terminalFd(&bytes.Buffer{}); is {
		t.Error("a buffer is taken for a terminal")
	}
}

// TestExpandTemplateIsTheBatchs: the -o template of several URLs on the
// command line names files as a batch's template does, below the
// template's own directory, which is taken as written.
func TestExpandTemplateIsTheBatchs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ tmpl, url, want string }{
		{"{host}/{path}", "http://example.org/dir/", "example.org/dir/index"},
		{"{host}/{path}", "http://example.org/%2e%2e/%2e%2e/etc/passwd", "example.org/_/_/etc/passwd"},
		{"{scheme}/{host}/{path}", "news:<a/b@example>", "news/news/<a_b@example>"},
		{"{host}/{file}", "gopher://127.0.0.1:7070/1", "127.0.0.1/index"},
		{"{host}_{port}/{path}", "ftp://127.0.0.1/pub/f;type=a", "127.0.0.1_21/pub/f"},
		{"{path}/../../x", "http://h/f", "f/_/_/x"},
		{"{host}/{path}", "file:///etc/passwd", "localhost/etc/passwd"},
	} {
		u, err := fetch.Parse(tc.url)
		if err != nil {
			t.Fatal(err)
		}
		want, err := templateName(tc.tmpl, u)
		if err != nil || want != filepath.FromSlash(tc.want) {
			t.Fatalf("templateName %s %s: %q, %v; want %q", tc.tmpl, tc.url, want, err, tc.want)
		}
		got, err := expandTemplate(dir+"/m/"+tc.tmpl, u) // not Join, which would clean it
		if err != nil || got != filepath.Join(dir, "m", want) {
			t.Errorf("%s %s: %q, %v; want %q", tc.tmpl, tc.url, got, err, filepath.Join(dir, "m", want))
		}
	}
	// The literal part of the field's own segment stays with it, and a
	// directory given before the fields is the user's, ".." included.
	u, _ := fetch.Parse("http://h/a/b.txt")
	for tmpl, want := range map[string]string{
		"m/copy-of-{file}":    "m/copy-of-b.txt",
		"m/sub/../{host}.txt": "m/sub/../h.txt",
	} {
		got, err := expandTemplate(dir+"/"+tmpl, u)
		if err != nil || got != filepath.Join(dir, want) {
			t.Errorf("%s: %q, %v; want %q", tmpl, got, err, filepath.Join(dir, want))
		}
	}
}

// TestDoubleDash: "--" ends the flags (what follows is URLs, even "-v"),
// unless it is a flag's value: "-o --" writes to a file named "--" and the
// flags go on.
func TestDoubleDash(t *testing.T) {
	for _, tt := range []struct {
		args    []string
		urls    []string
		output  string
		verbose bool
	}{
		{[]string{"-v", "--", "-x:", "y:"}, []string{"-x:", "y:"}, "", true},
		{[]string{"-o", "--", "x:", "-v"}, []string{"x:"}, "--", true},
		{[]string{"--output=--", "x:", "--", "-v"}, []string{"x:", "-v"}, "--", false},
		{[]string{"-q", "-o", "out", "--", "-v"}, []string{"-v"}, "out", false},
	} {
		o, err := parseArgs(tt.args)
		if err != nil {
			t.Errorf("%q: %v", tt.args, err)
			continue
		}
		if !slices.Equal(o.urls, tt.urls) || o.verbose != tt.verbose || strings.Join(o.outputs, ",") != tt.output {
			t.Errorf("%q: URLs %q, -o %q, -v %v", tt.args, o.urls, o.outputs, o.verbose)
		}
	}
}

// TestHelpSaysWhatZeroIs: a duration or size of 0 is its flag's default
// (the drivers' zero value), never "no time at all" or "no byte": --help
// and the README say so, and --max-size 0 fetches.
func TestHelpSaysWhatZeroIs(t *testing.T) {
	if !strings.Contains(usageText, "A duration or size of 0 is its flag's default") {
		t.Error("--help does not say what 0 means")
	}
	u := fileURL(t, "doc.txt", "doc\n")
	if code, out, e := runFetch(t, "", "--max-size", "0", "--timeout", "0", "--connect-timeout", "0", u); code != 0 || out != "doc\n" {
		t.Errorf("0s: exit %d, %q %q", code, out, e)
	}
	var q queueOptions
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	q.register(fs)
	if err := fs.Parse([]string{"--idle-exit", "0", "--claim-timeout", "0"}); err != nil {
		t.Fatal(err)
	}
	if claim, idle := q.timeouts(); idle != 10*time.Second || claim != time.Minute {
		t.Errorf("--idle-exit 0 is %v, --claim-timeout 0 %v, not their defaults", idle, claim)
	}
}

// TestHabitsAreNotFlags: each flag of curl or wget that habits answers for
// is none of fetch's (its hint would hide the flag), and the flags its
// hint names are fetch's.
func TestHabitsAreNotFlags(t *testing.T) {
	fs := newFlagSet(&options{})
	named := regexp.MustCompile(`(?:^|[ (])(--?[a-zA-Z][a-z-]*)`)
	for k, hint := range habits {
		if fs.Lookup(k) != nil {
			t.Errorf("%s is a fetch flag, yet habits answers for it", flagSpelling(k))
		}
		for _, m := range named.FindAllStringSubmatch(hint, -1) {
			if fs.Lookup(strings.TrimLeft(m[1], "-")) == nil {
				t.Errorf("the hint for %s names %s, which fetch does not have: %q", flagSpelling(k), m[1], hint)
			}
		}
	}
}
