package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
)

// runFetch runs the command in-process and returns its exit status,
// standard output and standard error.
func runFetch(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	t.Setenv("FETCH_CONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var out, errb bytes.Buffer
	code := run(context.Background(), args, stdio{in: strings.NewReader(stdin), out: &out, err: &errb})
	return code, out.String(), errb.String()
}

func TestExitStatuses(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	defer srv.Close()
	tests := []struct {
		name string
		args []string
		code int
	}{
		{"no URL", nil, 2},
		{"unknown flag", []string{"--no-such-flag", "http://h/"}, 2},
		{"malformed port", []string{"http://host:99999/"}, 3},
		{"bad escape", []string{"http://host/%zz"}, 3},
		{"bad port", []string{"http://127.0.0.1:25/"}, 4},
		{"unknown scheme", []string{"x-none://h/"}, 3},
		{"CR LF in selector", []string{"gopher://127.0.0.1:7070/0a%0D%0AQUIT"}, 4},
		{"discard port", []string{"http://127.0.0.1:9/"}, 4},
		{"no such file", []string{"file:///no/such/file"}, 6},
		{"404", []string{srv.URL + "/missing"}, 6},
		{"write fails", []string{"-o", "/no/such/dir/out", "file:///etc/hostname"}, 7},
		{"help", []string{"--help"}, 0},
	}
	for _, tt := range tests {
		code, _, stderr := runFetch(t, "", tt.args...)
		if code != tt.code {
			t.Errorf("%s: fetch %v exited %d, want %d (stderr %q)", tt.name, tt.args, code, tt.code, stderr)
		}
	}
}

func TestNetworkFailureExit5(t *testing.T) {
	addr := fetchtest.RefusedAddr(t)
	code, _, stderr := runFetch(t, "", "http://"+addr+"/")
	if code != 5 {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestOutputIsAtomic(t *testing.T) {
	addr := serveTCP(t, func(c net.Conn) {
		bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\npartial")
	})
	dir := t.TempDir()
	out := filepath.Join(dir, "out.bin")
	code, _, stderr := runFetch(t, "", "-o", out, "http://"+addr+"/f")
	if code != 5 {
		t.Fatalf("exit %d (%s)", code, stderr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Fatalf("left behind: %v", entries)
	}
}

func TestDocumentToFileAndResume(t *testing.T) {
	src := filepath.Join(t.TempDir(), "src.txt")
	os.WriteFile(src, []byte("0123456789"), 0o644)
	out := filepath.Join(t.TempDir(), "dst.txt")
	if code, _, e := runFetch(t, "", "-o", out, "file://"+src); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	if b, _ := os.ReadFile(out); string(b) != "0123456789" {
		t.Fatalf("got %q", b)
	}
	os.WriteFile(out, []byte("0123"), 0o644)
	if code, _, e := runFetch(t, "", "-C", "-", "-o", out, "file://"+src); code != 0 {
		t.Fatalf("resume exit %d: %s", code, e)
	}
	if b, _ := os.ReadFile(out); string(b) != "0123456789" {
		t.Fatalf("resumed %q", b)
	}
}

func TestListingFormat(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a b.txt"), []byte("abc"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub"), 0o755)
	code, out, e := runFetch(t, "", "file://"+dir+"/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 2 {
		t.Fatalf("listing %q", out)
	}
	for _, l := range lines {
		fields := strings.Split(l, "\t")
		if len(fields) != 2 {
			t.Fatalf("line %q has no tab-separated URL", l)
		}
		// Each URL pastes back into fetch.
		if code, _, e := runFetch(t, "", fields[1]); code != 0 {
			t.Errorf("%s: exit %d %s", fields[1], code, e)
		}
	}
	if !strings.HasPrefix(lines[0], "file ") || !strings.Contains(lines[0], " 3 ") || !strings.HasSuffix(lines[0], "/a%20b.txt") {
		t.Errorf("file line %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "dir ") || !strings.HasSuffix(lines[1], "/sub/") {
		t.Errorf("dir line %q", lines[1])
	}

	code, out, _ = runFetch(t, "", "--json", "file://"+dir+"/")
	if code != 0 {
		t.Fatal(code)
	}
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(l), &e); err != nil || e["url"] == nil || e["kind"] == nil {
			t.Errorf("json line %q: %v", l, err)
		}
	}
}

func TestParseFlag(t *testing.T) {
	code, out, e := runFetch(t, "", "--parse", "ftp://myname@host.dom/%2Fetc/motd")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	var got struct {
		URL struct {
			User string `json:"user"`
			Host string `json:"host"`
		} `json:"url"`
		FTP struct {
			Dirs []string `json:"dirs"`
			Name string   `json:"name"`
		} `json:"ftp"`
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	// RFC 1738 §3.2.2: %2Fetc/motd is one CWD of "/etc", then RETR motd.
	if got.URL.User != "myname" || got.URL.Host != "host.dom" || len(got.FTP.Dirs) != 1 || got.FTP.Dirs[0] != "/etc" || got.FTP.Name != "motd" {
		t.Fatalf("parsed %+v", got)
	}
	if code, _, _ := runFetch(t, "", "--parse", "ftp://h:0/"); code != 3 {
		t.Fatalf("port 0 parsed with exit %d", code)
	}
}

func TestPasswordNeverPrinted(t *testing.T) {
	code, out, e := runFetch(t, "", "--parse", "ftp://user:s3cret@host/")
	if code != 0 || strings.Contains(out+e, "s3cret") {
		t.Fatalf("exit %d, output shows the password: %s %s", code, out, e)
	}
	code, out, e = runFetch(t, "", "ftp://user:s3cret@127.0.0.1:25/")
	if code != 4 || strings.Contains(out+e, "s3cret") {
		t.Fatalf("exit %d, error shows the password: %s %s", code, out, e)
	}
}

func TestBaseFlag(t *testing.T) {
	// RFC 1630's partial forms against magic://a/b/c//d/e/f.
	code, out, e := runFetch(t, "", "--base", "magic://a/b/c//d/e/f", "g", "/g", "//g", "../g")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	want := "magic://a/b/c//d/e/g\nmagic://a/g\nmagic://g\nmagic://a/b/c//d/g\n"
	if out != want {
		t.Fatalf("resolved\n%s\nwant\n%s", out, want)
	}
}

func TestFlagsAfterURL(t *testing.T) {
	src := filepath.Join(t.TempDir(), "s")
	os.WriteFile(src, []byte("x"), 0o644)
	out := filepath.Join(t.TempDir(), "o")
	if code, _, e := runFetch(t, "", "file://"+src, "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatal(err)
	}
}

func TestConfigFile(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config")
	os.WriteFile(cfg, []byte("# defaults\nmax-size = 1K\nno-such-setting = 1\n"), 0o644)
	code, _, e := runFetch(t, "", "--config", cfg, "file:///etc/hostname")
	if code != 2 || !strings.Contains(e, "no-such-setting") {
		t.Fatalf("exit %d: %s", code, e)
	}
	os.WriteFile(cfg, []byte("max-size = 2\n"), 0o644)
	src := filepath.Join(t.TempDir(), "s")
	os.WriteFile(src, []byte("four"), 0o644)
	// A size known over the limit: not a byte goes to standard output.
	if code, out, e := runFetch(t, "", "--config", cfg, "file://"+src); code != 4 || out != "" {
		t.Fatalf("config max-size ignored: exit %d, stdout %q: %s", code, out, e)
	}
	// The command line overrides the file.
	if code, _, e := runFetch(t, "", "--config", cfg, "--max-size", "10", "file://"+src); code != 0 {
		t.Fatalf("flag did not override: exit %d: %s", code, e)
	}
}

func TestInfoMasksPassword(t *testing.T) {
	u, err := fetch.Parse("ftp://me:s3cret@127.0.0.1:2121/pub/f.txt")
	if err != nil {
		t.Fatal(err)
	}
	res := &fetch.Result{Kind: fetch.KindDocument, URL: u, Document: &fetch.Document{Size: 1}}
	var out bytes.Buffer
	if err := printInfo(&out, &options{jsonOut: true}, res); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out.String(), "s3cret") || !strings.Contains(out.String(), "me:****@") {
		t.Fatalf("--info --json shows %s", out.String())
	}
}

func TestOutputModeFollowsUmask(t *testing.T) {
	src := filepath.Join(t.TempDir(), "s")
	os.WriteFile(src, []byte("x"), 0o644)
	out := filepath.Join(t.TempDir(), "o")
	if code, _, e := runFetch(t, "", "-o", out, "file://"+src); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	st, err := os.Stat(out)
	if err != nil {
		t.Fatal(err)
	}
	// 0666 less any umask: group or others can read unless the umask forbids.
	if st.Mode().Perm()&0o600 != 0o600 || st.Mode().Perm() == 0o600 && umaskAllowsRead() {
		t.Fatalf("mode %v", st.Mode().Perm())
	}
	// A resume keeps the existing file's mode.
	os.WriteFile(out, []byte(""), 0o640)
	os.Chmod(out, 0o640)
	if code, _, e := runFetch(t, "", "-C", "-", "-o", out, "file://"+src); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	if st, _ := os.Stat(out); st.Mode().Perm() != 0o640 {
		t.Fatalf("resume changed the mode to %v", st.Mode().Perm())
	}
}

// umaskAllowsRead creates a file to learn whether the umask leaves group
// read permission.
func umaskAllowsRead() bool {
	f, err := os.CreateTemp("", "umask")
	if err != nil {
		return false
	}
	defer os.Remove(f.Name())
	f.Close()
	os.Remove(f.Name())
	g, err := os.OpenFile(f.Name(), os.O_CREATE|os.O_WRONLY, 0o666)
	if err != nil {
		return false
	}
	g.Close()
	st, _ := os.Stat(f.Name())
	return st.Mode().Perm()&0o040 != 0
}

func TestMaxRedirsZeroFollowsNone(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/r" {
			http.Redirect(w, r, "/target", http.StatusFound)
			return
		}
		w.Write([]byte("target"))
	}))
	defer srv.Close()
	if code, out, _ := runFetch(t, "", srv.URL+"/r"); code != 0 || out != "target" {
		t.Fatalf("default: exit %d %q", code, out)
	}
	if code, _, e := runFetch(t, "", "--max-redirs", "0", srv.URL+"/r"); code != 4 {
		t.Fatalf("--max-redirs 0: exit %d %s", code, e)
	}
	// the configuration file's "max-redirs = 0" means the same (it
	// followed 20)
	if code, out, e := runFetchConfig(t, "max-redirs = 0\n", srv.URL+"/r"); code != 4 {
		t.Fatalf("max-redirs = 0 in the file: exit %d %q %s, want 4 as --max-redirs 0", code, out, e)
	}
}

func TestConfigFileDoesNotOverrideShortFlags(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config")
	other := filepath.Join(t.TempDir(), "from-config")
	os.WriteFile(cfg, []byte("output = "+other+"\n"), 0o644)
	src := filepath.Join(t.TempDir(), "s")
	os.WriteFile(src, []byte("x"), 0o644)
	out := filepath.Join(t.TempDir(), "o")
	if code, _, e := runFetch(t, "", "--config", cfg, "-o", out, "file://"+src); code != 0 {
		t.Fatalf("exit %d: %s", code, e)
	}
	if _, err := os.Stat(out); err != nil {
		t.Fatalf("-o ignored: %v", err)
	}
	if _, err := os.Stat(other); err == nil {
		t.Fatal("the configuration file's output won over -o")
	}
}

func TestListingLineHidesControls(t *testing.T) {
	l := listingLine(fetch.Entry{Name: "evil\x1b]0;x\x07\u009b2J", Kind: fetch.EntryFile, Size: -1, URL: "ftp://h/x"})
	if strings.ContainsAny(l, "\x1b\x07\u009b") {
		t.Fatalf("control characters reach the terminal: %q", l)
	}
}

// TestConfigProxyAndEnvironment: the configuration file's gateway gives
// way to a *_proxy variable that fetch reads, not to one it never reads
// (all_proxy, HTTP_PROXY), which would leave no gateway at all.
func TestConfigProxyAndEnvironment(t *testing.T) {
	gateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "file's gateway") }))
	defer gateway.Close()
	envGateway := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "environment's gateway") }))
	defer envGateway.Close()
	direct := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "direct") }))
	defer direct.Close()
	for _, tt := range []struct{ env, value, want string }{
		{"", "", "file's gateway"},
		{"ALL_PROXY", "http://127.0.0.1:1", "file's gateway"},
		{"all_proxy", "http://127.0.0.1:1", "file's gateway"},
		{"HTTP_PROXY", "http://127.0.0.1:1", "file's gateway"},
		{"http_proxy", envGateway.URL, "environment's gateway"},
	} {
		t.Run(tt.env, func(t *testing.T) {
			for _, k := range []string{"ALL_PROXY", "all_proxy", "HTTP_PROXY", "http_proxy"} {
				t.Setenv(k, "")
			}
			if tt.env != "" {
				t.Setenv(tt.env, tt.value)
			}
			cfg := filepath.Join(t.TempDir(), "config")
			os.WriteFile(cfg, []byte("proxy = "+gateway.URL+"\n"), 0o644)
			if code, out, stderr := runFetch(t, "", "--config", cfg, direct.URL+"/x"); code != 0 || out != tt.want {
				t.Errorf("exit %d, %q (stderr %q); want %q", code, out, stderr, tt.want)
			}
		})
	}
}

// TestGatewayRefusedNamesSource: a gateway that refuses the connection
// is named as the gateway, with the variable, flag or file line that set
// it and its password masked, and the exit status of any refused
// connection (5): the message named the address alone, and a forgotten
// gopher_proxy read as a wrong port of the gopher server.
func TestGatewayRefusedNamesSource(t *testing.T) {
	addr := fetchtest.RefusedAddr(t)
	cfg := filepath.Join(t.TempDir(), "config")
	os.WriteFile(cfg, []byte("proxy = http://u:s3cret@"+addr+"/\n"), 0o644)
	const target = "gopher://127.0.0.1:18071/"
	for _, tt := range []struct {
		env, value string
		args       []string
		from       string
	}{
		{"gopher_proxy", "http://u:s3cret@" + addr + "/", nil, "gopher_proxy"},
		{"GOPHER_PROXY", "u:s3cret@" + addr, nil, "GOPHER_PROXY"},
		{"", "", []string{"--proxy", "http://u:s3cret@" + addr + "/"}, "--proxy"},
		{"", "", []string{"--config", cfg}, "proxy in " + cfg},
	} {
		t.Run(tt.from, func(t *testing.T) {
			for _, k := range []string{"gopher_proxy", "GOPHER_PROXY", "no_proxy", "NO_PROXY"} {
				t.Setenv(k, "")
			}
			if tt.env != "" {
				t.Setenv(tt.env, tt.value)
			}
			code, _, stderr := runFetch(t, "", append(tt.args, target)...)
			want := "fetch: " + target + ": gateway http://u:****@" + addr
			if code != 5 || !strings.HasPrefix(stderr, want) || !strings.Contains(stderr, " (from "+tt.from+"): dial "+addr+": ") || strings.Contains(stderr, "s3cret") {
				t.Errorf("exit %d, %q; want 5 and the gateway %s named, from %s", code, stderr, addr, tt.from)
			}
		})
	}
}

// TestSMTPStartTLSSetting: smtp-starttls is yes or no (on/off, true/false
// too); another value is a configuration error, not "no"; and the refusal
// to send a password in the clear names the setting.
func TestSMTPStartTLSSetting(t *testing.T) {
	for value, want := range map[string]string{"yes": "true", "On": "true", "1": "true", "no": "false", "off": "false"} {
		o, err := parseArgs([]string{"x:"})
		if err != nil {
			t.Fatal(err)
		}
		cfg := filepath.Join(t.TempDir(), "config")
		os.WriteFile(cfg, []byte("smtp-starttls = "+value+"\n"), 0o644)
		o.configFile = cfg
		if err := applyConfig(o); err != nil || o.secrets["smtp-starttls"] != want {
			t.Errorf("smtp-starttls = %s: %q, %v; want %s", value, o.secrets["smtp-starttls"], err, want)
		}
	}
	cfg := filepath.Join(t.TempDir(), "config")
	os.WriteFile(cfg, []byte("smtp-starttls = sure\n"), 0o644)
	if code, _, stderr := runFetch(t, "", "--config", cfg, "file:///etc/hostname"); code != 2 || !strings.Contains(stderr, "smtp-starttls is yes or no") {
		t.Errorf("smtp-starttls = sure: exit %d, %q", code, stderr)
	}
	os.WriteFile(cfg, []byte("smtp-user = me\nsmtp-password = pw\n"), 0o644)
	code, _, stderr := runFetch(t, "", "--config", cfg, "--smtp-server", "192.0.2.1:587", "--from", "me@fetch.test", "--data", "x", "mailto:a@fetch.test")
	if code != 4 || !strings.Contains(stderr, "smtp-starttls = yes") {
		t.Errorf("password in the clear: exit %d, %q", code, stderr)
	}
}

// TestJSONUsageError: with --json, a usage error found after the flags
// were read (-o twice for one URL) is a JSON line too.
func TestJSONUsageError(t *testing.T) {
	code, _, stderr := runFetch(t, "", "--json", "-o", "a", "-o", "b", "file:///etc/hostname")
	var line struct {
		Error string `json:"error"`
		Exit  int    `json:"exit"`
	}
	if code != 2 || json.Unmarshal([]byte(stderr), &line) != nil || line.Exit != 2 || !strings.Contains(line.Error, "-o") {
		t.Errorf("exit %d, stderr %q", code, stderr)
	}
}

// TestBadHeaderFlag: a -H that is not "Name: value" is a usage error
// naming -H, found before any request (it was dropped without a word, or
// failed as a network error, exit 5), and its value is never echoed.
func TestBadHeaderFlag(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { asked.Add(1) }))
	defer srv.Close()
	for _, h := range []string{"Authorization Bearer s3cret", "Authorization Bearer s3cret:x", "Bad Name: s3cret", "X-Token: s3cret\r\nX-Injected: 1", ": s3cret"} {
		code, _, e := runFetch(t, "", "-H", h, srv.URL+"/")
		if code != 2 || !strings.Contains(e, "-H") || strings.Contains(e, "s3cret") {
			t.Errorf("-H %q: exit %d, %q", h, code, e)
		}
	}
	// --user-agent is a header value too.
	if code, _, e := runFetch(t, "", "--user-agent", "x\r\nX-Injected: 1", srv.URL+"/"); code != 2 || !strings.Contains(e, "--user-agent") {
		t.Errorf("--user-agent with CR LF: exit %d, %q", code, e)
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("%d requests made with a bad -H", n)
	}
	if code, _, e := runFetch(t, "", "-H", "X-Fine: yes", "-H", "X-Empty:", srv.URL+"/"); code != 0 {
		t.Errorf("good -H: exit %d, %q", code, e)
	}
}

// TestNegativeCounts: a negative --max-redirs, --depth or --max-urls is a
// usage error naming the flag; each was taken without a word (-1
// redirects followed none, where curl's -1 follows any number).
func TestNegativeCounts(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "doc.txt")
	if err := os.WriteFile(doc, []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u := "file://" + filepath.ToSlash(doc)
	for _, args := range [][]string{
		{"--max-redirs", "-1", u},
		{"--max-redirs", "-1", "-O", "--output-dir", t.TempDir(), u},
		{"--depth", "-1", "-r", "--output-dir", t.TempDir(), u},
		{"--max-urls", "-1", "-r", "--output-dir", t.TempDir(), u},
	} {
		code, out, e := runFetch(t, "", args...)
		if code != 2 || out != "" || !strings.Contains(e, args[0]+": -1: ") {
			t.Errorf("%v: exit %d, out %q, stderr %q", args, code, out, e)
		}
	}
}

// TestBadProxyFlag: a --proxy that does not parse is reported as
// --proxy's, not as if the URL fetched were malformed, and its password
// is masked.
func TestBadProxyFlag(t *testing.T) {
	code, _, e := runFetch(t, "", "--proxy", "http://u:s3cret@gw:99999/", "http://example.test/doc")
	if code != 3 || !strings.HasPrefix(e, "fetch: --proxy: http://u:****@gw:99999/: ") || strings.Contains(e, "s3cret") {
		t.Errorf("exit %d, %q", code, e)
	}
	code, _, e = runFetch(t, "", "--proxy", "gw:3128", "http://example.test/doc")
	if code != 2 || !strings.Contains(e, "--proxy") || !strings.Contains(e, "http://gw:3128/") {
		t.Errorf("no scheme: exit %d, %q", code, e)
	}
	// An IP address and port, as curl takes it, is no URL at all (a
	// scheme starts with a letter): the same hint, not "malformed".
	for _, gw := range []string{"127.0.0.1:3128", "[::1]:3128"} {
		code, _, e = runFetch(t, "", "--proxy", gw, "http://example.test/doc")
		if code != 2 || !strings.Contains(e, "--proxy") || !strings.Contains(e, "http://"+gw+"/") {
			t.Errorf("%s: exit %d, %q", gw, code, e)
		}
	}
	// A gateway with no host would be dialled as ":80", this machine.
	for _, gw := range []string{"http://", "http:/gw"} {
		code, _, e = runFetch(t, "", "--proxy", gw, "gopher://example.test/")
		if code != 2 || !strings.Contains(e, "--proxy") || !strings.Contains(e, "names no host") {
			t.Errorf("%s: exit %d, %q", gw, code, e)
		}
	}
	t.Setenv("gopher_proxy", "http://")
	code, _, e = runFetch(t, "", "gopher://example.test/")
	if code == 0 || code == 5 || !strings.Contains(e, "gopher_proxy") || !strings.Contains(e, "names no host") {
		t.Errorf("gopher_proxy=http://: exit %d, %q", code, e)
	}
	os.Unsetenv("gopher_proxy")
	code, _, e = runFetch(t, "", "--proxy", "u:s3cret@gw:3128", "http://example.test/doc")
	if code != 2 || !strings.Contains(e, "http://u:****@gw:3128/") {
		t.Errorf("no scheme, a password: exit %d, %q", code, e)
	}
}

// TestSchemelessPasswordMasked: "user:password@host/path", as curl takes
// it, is no URL here (its scheme would be "user"); the error says so
// without the password, as the batch log does.
func TestSchemelessPasswordMasked(t *testing.T) {
	for _, raw := range []string{"joe:s3cret@example.com/file", "joe:s3cret@example.com:21"} {
		code, out, e := runFetch(t, "", raw)
		if code != 3 || strings.Contains(out+e, "s3cret") || !strings.Contains(e, "joe:****@example.com") {
			t.Errorf("%s: exit %d, %q %q", raw, code, out, e)
		}
		dir := t.TempDir()
		log := filepath.Join(dir, "log")
		code, out, e = runFetch(t, "", "-O", "--output-dir", dir, "--log", log, "--json", raw)
		b, _ := os.ReadFile(log)
		if code == 0 || strings.Contains(out+e+string(b), "s3cret") {
			t.Errorf("%s in a batch: exit %d, %q %q, log %q", raw, code, out, e, b)
		}
	}
	// A message-id's ":" and "@" are no password.
	if got := redactArg("news:a:b@example.com"); got != "news:a:b@example.com" {
		t.Errorf("news: %q", got)
	}
}

// TestConfigFileBooleans: a flag that is on or off reads yes/no in the
// configuration file as smtp-starttls does; a bad value names the
// setting (it was "parse error").
func TestConfigFileBooleans(t *testing.T) {
	u := fileURL(t, "doc.txt", "doc\n")
	cfg := filepath.Join(t.TempDir(), "config")
	for _, v := range []string{"yes", "no", "on", "off", "true", "false"} {
		os.WriteFile(cfg, []byte("insecure = "+v+"\nraw = "+v+"\n"), 0o644)
		if code, out, e := runFetch(t, "", "--config", cfg, u); code != 0 || out != "doc\n" {
			t.Errorf("insecure = %s: exit %d, %q %q", v, code, out, e)
		}
	}
	os.WriteFile(cfg, []byte("insecure = maybe\n"), 0o644)
	code, _, e := runFetch(t, "", "--config", cfg, u)
	if code != 2 || !strings.Contains(e, `insecure is yes or no, not "maybe"`) {
		t.Errorf("insecure = maybe: exit %d, %q", code, e)
	}
	os.WriteFile(cfg, []byte("timeout = soon\n"), 0o644)
	code, _, e = runFetch(t, "", "--config", cfg, u)
	if code != 2 || !strings.Contains(e, `timeout: "soon"`) {
		t.Errorf("timeout = soon: exit %d, %q", code, e)
	}
}

// TestFlagValueErrors: a value the flag package cannot read is said in
// words, with the flag as the help spells it ("parse error" was all).
func TestFlagValueErrors(t *testing.T) {
	for _, tt := range []struct{ args, want string }{
		{"-j x", `-j: invalid value "x": not a whole number`},
		{"--max-redirs 2.5", `--max-redirs: invalid value "2.5": not a whole number`},
		{"--json=maybe", `--json: invalid boolean value "maybe": want true or false`},
	} {
		code, _, e := runFetch(t, "", append(strings.Fields(tt.args), "file:///etc/hostname")...)
		if code != 2 || !strings.Contains(e, tt.want) {
			t.Errorf("%s: exit %d, %q", tt.args, code, e)
		}
	}
}

// TestErrorIsOneLine: an error is one line, "fetch: " first; a missing
// file's was two (errors.Join), the second without the prefix, and its
// batch log line held a newline.
func TestErrorIsOneLine(t *testing.T) {
	missing := "file://" + filepath.ToSlash(filepath.Join(t.TempDir(), "missing.txt"))
	code, _, e := runFetch(t, "", missing)
	if code != 6 || strings.Count(e, "\n") != 1 || !strings.HasPrefix(e, "fetch: ") || !strings.Contains(e, "no such resource") {
		t.Errorf("exit %d, %q", code, e)
	}
	// A path through a file ("a.txt/b") names no file either: exit 6, as
	// for any missing one, not a local I/O error (7).
	file := filepath.Join(t.TempDir(), "a.txt")
	os.WriteFile(file, []byte("a"), 0o644)
	for _, u := range []string{"file://" + filepath.ToSlash(file) + "/", "file://" + filepath.ToSlash(file) + "/b"} {
		if code, _, e := runFetch(t, "", u); code != 6 || !strings.Contains(e, "no such resource") {
			t.Errorf("%s: exit %d, %q", u, code, e)
		}
	}
}

// TestServerFlagsMaskPasswords: a user and password written into
// --nntp-server, NNTPSERVER or --smtp-server ("u:pw@host:port", as in a
// URL) are refused as a usage error that does not echo them; the news
// server's was taken for an IPv6 literal and dialled.
func TestServerFlagsMaskPasswords(t *testing.T) {
	for _, args := range [][]string{
		{"--nntp-server", "u:s3cret@news.example:119", "news:comp.misc"},
		{"--nntp-server", "u:s3cret@news.example", "news:comp.misc"},
		{"--smtp-server", "u:s3cret@mail.example:587", "--data", "hi", "mailto:a@example.org"},
		{"--smtp-server", "u:s3cret@mail.example", "--data", "hi", "mailto:a@example.org"},
	} {
		code, out, e := runFetch(t, "", args...)
		if code != 2 || strings.Contains(out+e, "s3cret") || !strings.Contains(e, "****@") {
			t.Errorf("%v: exit %d, %q %q", args, code, out, e)
		}
	}
	t.Setenv("NNTPSERVER", "u:s3cret@news.example")
	code, out, e := runFetch(t, "", "news:comp.misc")
	if code != 2 || strings.Contains(out+e, "s3cret") {
		t.Errorf("NNTPSERVER: exit %d, %q %q", code, out, e)
	}
}

// TestQueueURLBadPort: a queue URL's bad port is said to be one, not
// only quoted ("port \"99999\"").
func TestQueueURLBadPort(t *testing.T) {
	code, _, e := runFetch(t, "", "--queue-status", "redis://127.0.0.1:99999/q")
	if code != 2 || !strings.Contains(e, `port "99999" is not a number from 1 to 65535`) {
		t.Errorf("exit %d, %q", code, e)
	}
}

// TestParseRefusesOutputFlags: --parse and --base print to standard
// output; -o, -O, --info and -C with them are usage errors (issue #12:
// an output option applies or is refused), not ignored.
func TestParseRefusesOutputFlags(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"--parse", "-o", filepath.Join(dir, "out"), "http://h/x"},
		{"--parse", "-O", "http://h/x"},
		{"--parse", "--info", "http://h/x"},
		{"--base", "http://h/", "-o", filepath.Join(dir, "out"), "x"},
		{"--base", "http://h/", "-C", "5", "x"},
	} {
		code, out, e := runFetch(t, "", args...)
		if code != 2 || out != "" || !strings.Contains(e, "does not apply") {
			t.Errorf("%v: exit %d, %q %q", args, code, out, e)
		}
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("written: %v", entries)
	}
}

// TestCombinedShortFlags: "-vO", as curl takes it, is said to be two
// flags to give apart, not an unknown "--vO".
func TestCombinedShortFlags(t *testing.T) {
	code, _, e := runFetch(t, "", "-vO", "file:///etc/hostname")
	if code != 2 || !strings.Contains(e, "-vO: one-letter flags do not combine: give -v -O") {
		t.Errorf("exit %d, %q", code, e)
	}
}

// TestLineFlagsRefuseCRLF: --ftp-email and --nntp-user go into FTP and
// NNTP command lines; a CR, LF or NUL in them is refused before any
// connection, naming the flag (the FTP password was sent as it was).
func TestLineFlagsRefuseCRLF(t *testing.T) {
	for _, args := range [][]string{
		{"--ftp-email", "a@b\r\nDELE x", "ftp://127.0.0.1:2121/x"},
		{"--nntp-user", "u\r\nPOST", "--nntp-server", "127.0.0.1:1119", "news:a.b"},
	} {
		code, _, e := runFetch(t, "", args...)
		if code != 2 || !strings.Contains(e, args[0]) || strings.Contains(e, "dial") {
			t.Errorf("%v: exit %d, %q", args[:2], code, e)
		}
	}
}

// TestConfigFileRunFlags: settings that choose what a run is (another
// configuration file, --version, a list, a crawl) are refused in the
// configuration file, naming the line; they were read and then ignored
// (or, for a crawl, obeyed only when the command line made a batch).
func TestConfigFileRunFlags(t *testing.T) {
	u := fileURL(t, "doc.txt", "doc\n")
	cfg := filepath.Join(t.TempDir(), "config")
	for _, line := range []string{"config = /x", "version = yes", "i = /x", "input-file = /x", "r = yes", "recursive = yes"} {
		os.WriteFile(cfg, []byte(line+"\n"), 0o644)
		code, out, e := runFetch(t, "", "--config", cfg, u)
		name, _, _ := strings.Cut(line, " ")
		if code != 2 || out != "" || !strings.Contains(e, cfg+":1: "+name+" is for the command line") {
			t.Errorf("%s: exit %d, %q %q", line, code, out, e)
		}
	}
}

// TestLibraryLog: what a library writes through the standard logger
// (net/http's note of a server's stray bytes) reaches the standard error
// only with -v.
func TestLibraryLog(t *testing.T) {
	defer showLibraryLog.Store(showLibraryLog.Load())
	var buf bytes.Buffer
	l := libraryLog{&buf}
	for _, verbose := range []bool{false, true} {
		buf.Reset()
		doc := filepath.Join(t.TempDir(), "doc")
		os.WriteFile(doc, []byte("doc"), 0o666)
		args := []string{"-q", "file://" + filepath.ToSlash(doc)}
		if verbose {
			args = append(args, "-v")
		}
		run(context.Background(), args, stdio{in: strings.NewReader(""), out: io.Discard, err: io.Discard})
		if n, err := l.Write([]byte("Unsolicited response\n")); n != len("Unsolicited response\n") || err != nil {
			t.Fatalf("Write: %d, %v", n, err)
		}
		if got := buf.String() != ""; got != verbose {
			t.Errorf("-v %v: shown %v (%q)", verbose, got, buf.String())
		}
	}
}
