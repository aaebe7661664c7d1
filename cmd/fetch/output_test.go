package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// body is what the fake server serves for the -o tests.
const body = "the document's bytes\n"

func bodyServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/doc"
}

// TestTelnetOutputFile: -o writes a telnet session's output to the file,
// and --max-size caps an endless one: a policy error, no file left
// looking complete (issue #12, finding 3).
func TestTelnetOutputFile(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "session.txt")
	u := telnetServer(t, func(c net.Conn) { io.WriteString(c, "hello from the host\r\n") })
	code, stdout, stderr := runFetch(t, "", "-o", out, u)
	if code != 0 || stdout != "" {
		t.Fatalf("exit %d, stdout %q, stderr %s", code, stdout, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != "hello from the host\r\n" {
		t.Errorf("the file holds %q", b)
	}

	endless := telnetServer(t, func(c net.Conn) {
		line := []byte(strings.Repeat("z", 78) + "\r\n")
		for range 100000 { // 8 MB, far past the cap
			if _, err := c.Write(line); err != nil {
				return
			}
		}
	})
	capped := filepath.Join(dir, "capped.txt")
	code, stdout, stderr = runFetch(t, "", "--max-size", "64k", "-o", capped, endless)
	if code != 4 || !strings.Contains(stderr, "65536 bytes") {
		t.Errorf("endless session: exit %d, stderr %q; want 4 naming the cap", code, stderr)
	}
	if stdout != "" {
		t.Errorf("%d bytes went to standard output", len(stdout))
	}
	if _, err := os.Stat(capped); err == nil {
		t.Error("a capped session left its file as if complete")
	}
	leftovers(t, dir, 1)

	// Without -o, --max-size caps standard output the same way.
	code, stdout, _ = runFetch(t, "", "--max-size", "64k", endless)
	if code != 4 || len(stdout) != 64<<10 {
		t.Errorf("to standard output: exit %d after %d bytes; want 4 after 65536", code, len(stdout))
	}
}

// TestOutputOptionsRefused: an output option with no meaning for what the
// URL gave is a usage error, not silently ignored.
func TestOutputOptionsRefused(t *testing.T) {
	u := telnetServer(t, func(c net.Conn) { io.WriteString(c, "hi\r\n") })
	for _, args := range [][]string{{"--info", u}, {"--json", u}, {"-C", "10", u}} {
		if code, _, stderr := runFetch(t, "", args...); code != 2 || !strings.Contains(stderr, "does not apply") {
			t.Errorf("fetch %q: exit %d, stderr %q; want 2", args, code, stderr)
		}
	}
	dir := t.TempDir()
	if code, _, stderr := runFetch(t, "", "--info", "file://"+dir+"/"); code != 2 {
		t.Errorf("--info on a listing: exit %d, stderr %q; want 2", code, stderr)
	}
}

// standInPrograms puts stand-in-rlogin and stand-in-3270 on PATH: each
// prints "session output" and creates the file it returns, in dir, to
// show that it ran.
func standInPrograms(t *testing.T, dir string) (ran string) {
	t.Helper()
	bin := t.TempDir()
	ran = filepath.Join(dir, "ran")
	script := "#!/bin/sh\necho session output\n: > " + ran + "\n"
	for _, name := range []string{"stand-in-rlogin", "stand-in-3270"} {
		if err := os.WriteFile(filepath.Join(bin, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	return ran
}

// TestOutputFileRefusedForHandoff: rlogin and tn3270 sessions run the
// user's program on the terminal, so -o and -O have nowhere to put its
// output; they are refused before the program runs, not ignored.
func TestOutputFileRefusedForHandoff(t *testing.T) {
	dir := t.TempDir()
	ran := standInPrograms(t, dir)
	t.Chdir(dir)
	out := filepath.Join(dir, "out.txt")
	for _, args := range [][]string{
		{"--rlogin-program", "stand-in-rlogin", "-o", out, "rlogin://guest@127.0.0.1:2513/"},
		{"--tn3270-program", "stand-in-3270", "-o", out, "tn3270://127.0.0.1:2323/"},
		{"--tn3270-program", "stand-in-3270", "-o", "{scheme}-{host}.txt", "tn3270://127.0.0.1:2323/"},
		{"--rlogin-program", "stand-in-rlogin", "-O", "rlogin://guest@127.0.0.1:2513/"},
		{"--tn3270-program", "stand-in-3270", "-O", "tn3270://127.0.0.1:2323/"},
	} {
		code, stdout, stderr := runFetch(t, "", args...)
		// -O is refused as -o is, not for want of a file name with a
		// hint to use -o FILE, which is refused too.
		if code != 2 || stdout != "" || !strings.Contains(stderr, "-o does not apply") && !strings.Contains(stderr, "-O does not apply") || strings.Contains(stderr, "use -o") {
			t.Errorf("fetch %q: exit %d, stdout %q, stderr %q; want 2, refused", args, code, stdout, stderr)
		}
		if _, err := os.Stat(ran); err == nil {
			t.Errorf("fetch %q ran the program", args)
			os.Remove(ran)
		}
	}
	if names, _ := os.ReadDir(dir); len(names) != 0 {
		t.Errorf("files left in %s: %v", dir, names)
	}

	// -o - is standard output, where the program writes anyway.
	code, stdout, stderr := runFetch(t, "", "--rlogin-program", "stand-in-rlogin", "-o", "-", "rlogin://guest@127.0.0.1:2513/")
	if code != 0 || stdout != "session output\n" {
		t.Errorf("-o -: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
}

// TestMaxSizeRefusedForHandoff: an rlogin or tn3270 session's output goes
// from the user's program to the terminal, never through fetch, so
// --max-size cannot cap it (issue #12: every output option applies or is
// refused); given on the command line it is refused before the program
// runs, while a max-size from the configuration file, meant for
// documents, leaves the session alone.
func TestMaxSizeRefusedForHandoff(t *testing.T) {
	dir := t.TempDir()
	ran := standInPrograms(t, dir)
	for _, args := range [][]string{
		{"--rlogin-program", "stand-in-rlogin", "--max-size", "10", "rlogin://guest@127.0.0.1:2513/"},
		{"--tn3270-program", "stand-in-3270", "--max-size", "1K", "tn3270://127.0.0.1:2323/"},
	} {
		code, stdout, stderr := runFetch(t, "", args...)
		if code != 2 || stdout != "" || !strings.Contains(stderr, "--max-size does not apply") {
			t.Errorf("fetch %q: exit %d, stdout %q, stderr %q; want 2, refused", args, code, stdout, stderr)
		}
		if _, err := os.Stat(ran); err == nil {
			t.Errorf("fetch %q ran the program", args)
			os.Remove(ran)
		}
	}
	cfg := filepath.Join(dir, "config")
	if err := os.WriteFile(cfg, []byte("max-size = 10\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runFetch(t, "", "--config", cfg, "--rlogin-program", "stand-in-rlogin", "rlogin://guest@127.0.0.1:2513/")
	if code != 0 || stdout != "session output\n" {
		t.Errorf("max-size from the config file: exit %d, stdout %q, stderr %q; want the session", code, stdout, stderr)
	}
}

// TestResumeToStandardOutput: -C N to standard output is how a partial
// copy is appended to ("fetch -C N URL >> part"); a scheme that cannot
// start at byte N (gopher) is an error there, never the document from
// byte 0. A file server that can, can.
func TestResumeToStandardOutput(t *testing.T) {
	addr := serveTCP(t, func(c net.Conn) {
		bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, "0123456789")
	})
	code, out, stderr := runFetch(t, "", "-C", "5", "gopher://"+addr+"/0/doc.txt")
	if code != 6 || out != "" || !strings.Contains(stderr, "cannot resume") {
		t.Errorf("gopher: exit %d, stdout %q, stderr %q; want 6 and nothing written", code, out, stderr)
	}
	src := filepath.Join(t.TempDir(), "f")
	os.WriteFile(src, []byte("0123456789"), 0o644)
	if code, out, stderr := runFetch(t, "", "-C", "5", "file://"+src); code != 0 || out != "56789" {
		t.Errorf("file: exit %d, stdout %q, stderr %q", code, out, stderr)
	}
}

// TestOutputIsDirectory: -o naming a directory fails before the
// transfer, saying so, not after it with the temporary file's name and
// "file exists".
func TestOutputIsDirectory(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		io.WriteString(w, "doc")
	}))
	defer srv.Close()
	dir := t.TempDir()
	for _, dest := range []string{dir, dir + string(filepath.Separator)} {
		code, _, e := runFetch(t, "", "-o", dest, srv.URL+"/doc")
		if code != 7 || !strings.Contains(e, "is a directory") || strings.Contains(e, ".part") {
			t.Errorf("-o %s: exit %d, %q", dest, code, e)
		}
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("%d requests made for a directory", n)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("left in the directory: %v", entries)
	}
}

// TestOutputNamedTwice: outside a batch, a URL whose -O name or -o
// template names the file an earlier URL of the run saved is refused
// (exit 2, naming both), not saved over it; the same URL twice is the
// same document and is fetched again.
func TestOutputNamedTwice(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "doc "+r.URL.Path)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name string
		args []string
		file string // where the first document stays
		code int
	}{
		{"-O", []string{"-O", srv.URL + "/a/y", srv.URL + "/b/y"}, "y", 2},
		{"template", []string{"-o", "out/{file}", srv.URL + "/a/y", srv.URL + "/b/y"}, "out/y", 2},
		{"-o twice", []string{"-o", "z", srv.URL + "/a/y", "-o", "z", srv.URL + "/b/y"}, "z", 2},
		{"same URL", []string{"-O", srv.URL + "/a/y", srv.URL + "/a/y"}, "y", 0},
		{"a device", []string{"-o", "y", srv.URL + "/a/y", "-o", os.DevNull, srv.URL + "/b/y", "-o", os.DevNull, srv.URL + "/c/y"}, "y", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			code, _, e := runFetch(t, "", tc.args...)
			if code != tc.code {
				t.Fatalf("exit %d, want %d: %s", code, tc.code, e)
			}
			if b, err := os.ReadFile(tc.file); err != nil || string(b) != "doc /a/y" {
				t.Errorf("%s holds %q (%v), want the first URL's document", tc.file, b, err)
			}
			if tc.code != 0 && (!strings.Contains(e, srv.URL+"/b/y") || !strings.Contains(e, "saved earlier in this run")) {
				t.Errorf("stderr does not name the refused URL and why: %s", e)
			}
		})
	}
}

// TestOutputNameInTheWay: outside a batch, a name -O or a template makes
// that is a directory, or a template's name whose directory is a file
// (an earlier URL's: /a, then /a/b), is refused before the transfer as a
// name an earlier URL took is, saying what is in the way and how to name
// the file apart; nothing on disk changes. The errors said "is a
// directory" or "not a directory" alone, or named the wrong path.
func TestOutputNameInTheWay(t *testing.T) {
	var asked atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		asked.Add(1)
		io.WriteString(w, "doc "+r.URL.Path)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name  string
		mkdir string // a directory there before
		args  []string
		want  []string // in the error
		asked int32    // requests: none for the refused URL
		files map[string]string
	}{
		{"-O", "y", []string{"-O", srv.URL + "/a/y"},
			[]string{"create y: is a directory", "-o FILE", "run a batch"}, 0, map[string]string{"y/mine": "mine"}},
		{"template, a directory", "", []string{"-o", "out/{path}", srv.URL + "/a/b", srv.URL + "/a"},
			[]string{"create out/a: is a directory", "run a batch"}, 1, map[string]string{"out/a/b": "doc /a/b"}},
		{"template, a file", "", []string{"-o", "out/{path}", srv.URL + "/a", srv.URL + "/a/b/c"},
			[]string{"out/a is a file, not a directory", "run a batch"}, 1, map[string]string{"out/a": "doc /a"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			if tc.mkdir != "" {
				os.Mkdir(tc.mkdir, 0o777)
				os.WriteFile(filepath.Join(tc.mkdir, "mine"), []byte("mine"), 0o666)
			}
			asked.Store(0)
			code, _, e := runFetch(t, "", tc.args...)
			if code != 7 {
				t.Errorf("exit %d, want 7: %s", code, e)
			}
			for _, w := range tc.want {
				if !strings.Contains(e, filepath.FromSlash(w)) {
					t.Errorf("stderr %q does not say %q", e, w)
				}
			}
			if n := asked.Load(); n != tc.asked {
				t.Errorf("%d requests, want %d: the refused URL was fetched", n, tc.asked)
			}
			if got := treeFiles("."); fmt.Sprint(got) != fmt.Sprint(tc.files) {
				t.Errorf("files %v, want %v", got, tc.files)
			}
		})
	}
}

// TestRemoteNameCut: -O cuts a name longer than a directory entry holds
// as a batch cuts it, at 200 bytes, never inside a character: the same
// URL gets the same name with --output-dir. Such a last segment failed
// with "file name too long" (exit 7).
func TestRemoteNameCut(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "doc")
	}))
	defer srv.Close()
	seg := "a" + strings.Repeat("é", 150) // 301 bytes; byte 200 is inside an "é"
	u := srv.URL + "/dir/" + url.PathEscape(seg)
	want := "a" + strings.Repeat("é", 99) + "_"
	t.Chdir(t.TempDir())
	if code, _, e := runFetch(t, "", "-O", u); code != 0 {
		t.Fatalf("-O: exit %d: %s", code, e)
	}
	if got := names(t, "."); len(got) != 1 || got[0] != want {
		t.Errorf("-O saved %q, want %q", got, want)
	}
	if code, _, e := runFetch(t, "", "-O", "--output-dir", "batch", u); code != 0 {
		t.Fatalf("a batch's -O: exit %d: %s", code, e)
	}
	if got := names(t, "batch"); len(got) != 1 || got[0] != want {
		t.Errorf("a batch's -O saved %q, want %q", got, want)
	}
}

// TestOutputUnknownField: an -o value with a "{word}" that is no
// placeholder (in a template, or a placeholder's name in capitals or one
// slip from it) is a usage error naming it, with the placeholder meant where one is near,
// before anything is fetched; it stood in the names as written.
func TestOutputUnknownField(t *testing.T) {
	src := filepath.Join(t.TempDir(), "s.txt")
	os.WriteFile(src, []byte("x"), 0o644)
	for _, tc := range []struct{ out, want string }{
		{"mirror/{Host}/{path}", "did you mean {host}?"},
		{"{FILE}", "did you mean {file}?"},
		{"{hots}/{path}", "{hots} is no placeholder"},
		{"{fiel}", "did you mean {file}?"},
		{"copy-{nmae}.txt", "did you mean {name}?"},
	} {
		t.Chdir(t.TempDir())
		code, _, e := runFetch(t, "", "-o", tc.out, "file://"+src)
		if code != 2 || !strings.Contains(e, tc.want) {
			t.Errorf("-o %s: exit %d, stderr %q; want 2 and %q", tc.out, code, e, tc.want)
		}
		if entries, _ := os.ReadDir("."); len(entries) != 0 {
			t.Errorf("-o %s: left %v", tc.out, entries)
		}
	}
	// braces that name no placeholder's letters stay a plain name
	t.Chdir(t.TempDir())
	for _, name := range []string{"x{1}", "{theme}", "{data}"} {
		if code, _, e := runFetch(t, "", "-o", name, "file://"+src); code != 0 {
			t.Errorf("-o %s: exit %d: %s", name, code, e)
		}
	}
}

// TestRemoteNameUnknownScheme: -O on a URL of a scheme no driver has is
// an unknown scheme (exit 3, the nearest named), as without -O, not a URL
// with no file name (exit 2).
func TestRemoteNameUnknownScheme(t *testing.T) {
	for _, batch := range []bool{false, true} {
		args := []string{"-O", "htp://example.test/"}
		if batch {
			args = append(args, "--output-dir", t.TempDir())
		}
		code, out, e := runFetch(t, "", args...)
		if code != 3 || !strings.Contains(out+e, "did you mean http:?") {
			t.Errorf("%v: exit %d, %q %q", args, code, out, e)
		}
	}
}

// TestEmptyOutputName: -o "" (an unset shell variable) is a usage error,
// as in a batch; it wrote the document to standard output.
func TestEmptyOutputName(t *testing.T) {
	u := fileURL(t, "doc.txt", "doc\n")
	code, out, e := runFetch(t, "", "-o", "", u)
	if code != 2 || out != "" || !strings.Contains(e, `-o ""`) {
		t.Errorf("exit %d, out %q, stderr %q", code, out, e)
	}
}

// TestJSONMetaErrorNamesFlag: a --json-meta file that cannot be written
// is named as --json-meta's.
func TestJSONMetaErrorNamesFlag(t *testing.T) {
	u := fileURL(t, "doc.txt", "doc\n")
	code, _, e := runFetch(t, "", "--json-meta", t.TempDir(), u)
	if code != 7 || !strings.Contains(e, "--json-meta: create ") {
		t.Errorf("exit %d, %q", code, e)
	}
}

// TestInfoToFile: --info with -o writes the metadata to the file, as -o
// takes a listing; it went to standard output and -o was ignored.
func TestInfoToFile(t *testing.T) {
	u := fileURL(t, "doc.txt", "doc\n")
	dest := filepath.Join(t.TempDir(), "meta")
	code, out, e := runFetch(t, "", "--info", "-o", dest, u)
	b, err := os.ReadFile(dest)
	if code != 0 || out != "" || err != nil || !strings.Contains(string(b), "size: 4\n") {
		t.Errorf("exit %d, out %q, stderr %q, file %q (%v)", code, out, e, b, err)
	}
}

// leftovers fails t unless dir holds exactly n entries (no temporary
// file left beside the output).
func leftovers(t *testing.T, dir string, n int) {
	t.Helper()
	es, _ := os.ReadDir(dir)
	if len(es) != n {
		var names []string
		for _, e := range es {
			names = append(names, e.Name())
		}
		t.Errorf("%s holds %q, want %d entries", dir, names, n)
	}
}

// telnetServer serves each connection with serve, on loopback.
func telnetServer(t *testing.T, serve func(c net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.SetDeadline(time.Now().Add(time.Minute))
			serve(c)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return "telnet://" + ln.Addr().String() + "/"
}

// TestOutputNameIsOwnFile: a file named after its URL (-O, a template) that
// is the run's --warc file, a part of a rotating one, or its --json-meta
// file is refused (exit 2) as an -o naming one is, and so is an -o naming
// a rotating WARC's part. The check of the command line saw only -o's
// literal value: the document replaced the archive (whose records went on
// into a file no name reached), or the metadata replaced the document,
// with exit 0.
func TestOutputNameIsOwnFile(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "doc "+r.URL.Path)
	}))
	defer srv.Close()
	for _, tc := range []struct {
		name string
		args []string
		own  string // the own file that must stay
		flag string
	}{
		{"-O is the warc", []string{"--warc", "x.warc", "-O", srv.URL + "/x.warc"}, "x.warc", "-O"},
		{"template is the warc", []string{"--warc", "out/x.warc", "-o", "out/{file}", srv.URL + "/a", srv.URL + "/x.warc"}, "out/x.warc", "-o"},
		{"-O is a rotating part", []string{"--warc", "r.warc", "--warc-max-size", "1M", "-O", srv.URL + "/r-00000.warc"}, "r-00000.warc", "-O"},
		{"-o is a rotating part", []string{"--warc", "r.warc", "--warc-max-size", "1M", "-o", "r-00000.warc", srv.URL + "/a"}, "r-00000.warc", "-o"},
		{"-O is the metadata", []string{"--json-meta", "m.json", "-O", srv.URL + "/m.json"}, "", "-O"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			os.Mkdir("out", 0o777)
			code, _, e := runFetch(t, "", tc.args...)
			if code != 2 || !strings.Contains(e, tc.flag+": ") || !strings.Contains(e, "each needs a file of its own") {
				t.Errorf("exit %d, %q; want 2 naming %s", code, e, tc.flag)
			}
			if tc.own != "" {
				if b, err := os.ReadFile(tc.own); err != nil || !strings.HasPrefix(string(b), "WARC/1.1\r\n") {
					t.Errorf("the WARC %s holds %.40q (%v)", tc.own, b, err)
				}
			}
			if b, err := os.ReadFile("m.json"); err == nil && strings.HasPrefix(string(b), "doc ") {
				t.Errorf("m.json holds the document: %q", b)
			}
		})
	}
}

// TestOutputLongName: a name that fits in a directory entry (at most 255
// bytes) is saved whole (a longer -O name is cut: TestRemoteNameCut).
// The temporary file written beside it was named
// ".NAME.part-PID-RANDOM", some 20 bytes longer than NAME, so -O of a URL
// whose last segment is 240 bytes, or -o naming such a file, failed with
// "file name too long" (exit 7).
func TestOutputLongName(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "doc "+r.URL.Path)
	}))
	defer srv.Close()
	long := strings.Repeat("L", 240)
	for _, args := range [][]string{{"-O", srv.URL + "/" + long}, {"-o", long, srv.URL + "/" + long}} {
		t.Chdir(t.TempDir())
		if code, _, e := runFetch(t, "", args...); code != 0 {
			t.Errorf("%s: exit %d: %s", args[0], code, e)
		}
		if b, err := os.ReadFile(long); err != nil || string(b) != "doc /"+long {
			t.Errorf("%s: the file holds %.40q (%v)", args[0], b, err)
		}
	}
}

// TestOutputNamedTwiceFolded: where names differing only in case are one
// file (Windows, macOS), a second URL's -O name that differs from the
// first's only in case is refused, as the same name is: the single-URL
// check compared paths as written, so "readme" was saved over "README"
// there with exit 0, where a batch (claim) gives it a name of its own.
func TestOutputNamedTwiceFolded(t *testing.T) {
	defer func(old bool) { foldNames = old }(foldNames)
	foldNames = true
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "doc "+r.URL.Path)
	}))
	defer srv.Close()
	t.Chdir(t.TempDir())
	code, _, e := runFetch(t, "", "-O", srv.URL+"/a/README", srv.URL+"/b/readme")
	if code != 2 || !strings.Contains(e, srv.URL+"/b/readme") || !strings.Contains(e, "saved earlier in this run") {
		t.Errorf("exit %d, %q; want 2 refusing the second URL", code, e)
	}
	if b, err := os.ReadFile("README"); err != nil || string(b) != "doc /a/README" {
		t.Errorf("README holds %q (%v), want the first URL's document", b, err)
	}
	if _, err := os.Stat("readme"); err == nil {
		t.Errorf("readme was saved")
	}
}
