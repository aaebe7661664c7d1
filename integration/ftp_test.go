//go:build integration

package integration

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
	"github.com/fetchproject/fetch/schemes/ftp"
)

// ftpServers are the real FTP servers the harness runs: vsftpd answers
// LIST in "ls -l" form, pyftpdlib offers MLSD.
var ftpServers = []struct{ name, env string }{
	{"vsftpd", "FETCH_FTP_VSFTPD_ADDR"},
	{"pyftpdlib", "FETCH_FTP_PYFTPDLIB_ADDR"},
}

// eachFTP runs f as a subtest for every FTP server.
func eachFTP(t *testing.T, f func(t *testing.T, addr string)) {
	eachFTPNamed(t, func(t *testing.T, _, addr string) { f(t, addr) })
}

func eachFTPNamed(t *testing.T, f func(t *testing.T, server, addr string)) {
	for _, s := range ftpServers {
		t.Run(s.name, func(t *testing.T) {
			wantServer(t, s.name)
			f(t, s.name, serverAddr(t, s.env))
		})
	}
}

// unservable reports a name the server cannot serve: pyftpdlib 1.5.7
// decodes names as UTF-8, lists undecodable bytes as "?" and answers 550
// for them (curl fails the same way, exit 78).
func unservable(server, name string) bool {
	return server == "pyftpdlib" && !utf8.ValidString(name)
}

func ftpClient(cfg ftp.Config, opts fetch.Options) *fetch.Client {
	if cfg.AnonymousPassword == "" {
		cfg.AnonymousPassword = "integration@fetch.test"
	}
	return schemes.NewClient(opts, schemes.Config{FTP: cfg})
}

// ftpUserinfo is "fetchuser:fetchpass@" from the harness.
func ftpUserinfo(t *testing.T) string {
	return harnessEnv(t, "FETCH_FTP_USER") + ":" + harnessEnv(t, "FETCH_FTP_PASS") + "@"
}

// TestFTPContent fetches every file of the content tree, anonymously and
// as the named user, and compares SHA-256 with the manifest: names with
// spaces, ";", "%", "#", "?", UTF-8 and Latin-1 bytes included.
func TestFTPContent(t *testing.T) {
	eachFTPNamed(t, func(t *testing.T, server, addr string) {
		files := contentManifest(t)
		for _, login := range []string{"", ftpUserinfo(t)} {
			c := ftpClient(ftp.Config{}, fetch.Options{})
			for _, f := range files {
				if login != "" && f.Path == "100m.bin" {
					continue // once is enough for the large file
				}
				u := "ftp://" + login + addr + "/" + escapePath(f.Path)
				if unservable(server, f.Path) {
					_, err := c.Fetch(context.Background(), u)
					if !errors.Is(err, fetch.ErrNotFound) {
						t.Errorf("%s: %v, want pyftpdlib's 550", u, err)
					}
					continue
				}
				if got := fetchSHA(t, c, u); got != f.SHA256 {
					t.Errorf("%s: sha256 %s, want %s", u, got, f.SHA256)
				}
			}
		}
	})
}

// TestFTPSizeOnce: vsftpd ends RETR's 150 reply with the file's byte
// count, so a reused session sends SIZE before its first file only and
// checks the others against the 150's count; pyftpdlib's 150 has no count
// and gets SIZE every time. Every file's SHA-256 is checked, and its size
// against the one announced (fetchSHA).
func TestFTPSizeOnce(t *testing.T) {
	want := map[string]int{"vsftpd": 1, "pyftpdlib": 3}
	eachFTPNamed(t, func(t *testing.T, server, addr string) {
		var files []contentFile
		for _, f := range contentManifest(t) {
			if f.Path != "100m.bin" && !unservable(server, f.Path) && len(files) < 3 {
				files = append(files, f)
			}
		}
		if len(files) < 3 {
			t.Fatalf("%d files in the manifest", len(files))
		}
		sizes := 0
		c := ftpClient(ftp.Config{}, fetch.Options{Tracer: fetch.TracerFunc(func(d fetch.Direction, l string) {
			if d == fetch.DirSent && strings.HasPrefix(l, "SIZE ") {
				sizes++
			}
		})})
		defer c.Close()
		for _, f := range files {
			u := "ftp://" + addr + "/" + escapePath(f.Path)
			if got := fetchSHA(t, c, u); got != f.SHA256 {
				t.Errorf("%s: sha256 %s, want %s", u, got, f.SHA256)
			}
		}
		if sizes != want[server] {
			t.Errorf("%d SIZE commands for %d files, want %d", sizes, len(files), want[server])
		}
	})
}

// contentDirs lists every directory of the content tree ("" is the root),
// with the files each holds according to the manifest.
func contentDirs(t *testing.T) map[string]map[string]string {
	root := harnessEnv(t, "FETCH_CONTENT_DIR")
	dirs := map[string]map[string]string{}
	err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			rel, _ := filepath.Rel(root, p)
			if rel == "." {
				rel = ""
			}
			dirs[filepath.ToSlash(rel)] = map[string]string{}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range contentManifest(t) {
		d := path.Dir(f.Path)
		if d == "." {
			d = ""
		}
		dirs[d][path.Base(f.Path)] = f.SHA256
	}
	return dirs
}

// TestFTPListings lists every directory and fetches every file entry by
// the URL the listing gave it: the URLs must be absolute and lead back to
// the same bytes.
func TestFTPListings(t *testing.T) {
	eachFTPNamed(t, func(t *testing.T, server, addr string) {
		c := ftpClient(ftp.Config{}, fetch.Options{})
		for dir, files := range contentDirs(t) {
			u := "ftp://" + addr + "/"
			if dir != "" {
				u += escapePath(dir) + "/"
			}
			res, err := c.Fetch(context.Background(), u)
			if err == nil {
				err = res.Listing.ReadAll() // a listing streams
			}
			if err != nil {
				t.Errorf("%s: %v", u, err)
				continue
			}
			if res.Kind != fetch.KindListing {
				t.Errorf("%s: a %s, want a listing", u, res.Kind)
				res.Close()
				continue
			}
			seen := map[string]bool{}
			for _, e := range res.Listing.Entries {
				if e.Kind == fetch.EntryRaw {
					t.Errorf("%s: unparsed line %q", u, e.Raw)
					continue
				}
				if e.Kind == fetch.EntryText {
					continue
				}
				seen[e.Name] = true
				if !strings.HasPrefix(e.URL, u) {
					t.Errorf("%s: entry %q has URL %s", u, e.Name, e.URL)
				}
				if e.Kind == fetch.EntryDir && !strings.HasSuffix(e.URL, "/") {
					t.Errorf("%s: directory URL %s lacks its /", u, e.URL)
				}
				if sum, ok := files[e.Name]; ok && e.Kind == fetch.EntryFile && e.Name != "100m.bin" {
					if got := fetchSHA(t, c, e.URL); got != sum {
						t.Errorf("%s: sha256 %s, want %s", e.URL, got, sum)
					}
				}
			}
			for name := range files {
				if unservable(server, name) {
					name = strings.ToValidUTF8(name, "?")
				}
				if !seen[name] {
					t.Errorf("%s: %q missing from the listing", u, name)
				}
			}
		}
	})
}

// TestFTPDirectoryWithoutSlash: RETR of a directory fails with 550, CWD
// works, so it is listed and the canonical URL gains its "/".
func TestFTPDirectoryWithoutSlash(t *testing.T) {
	eachFTP(t, func(t *testing.T, addr string) {
		c := ftpClient(ftp.Config{}, fetch.Options{})
		res, err := c.Fetch(context.Background(), "ftp://"+addr+"/dir%20with%20spaces")
		if err == nil {
			err = res.Listing.ReadAll() // it streams
		}
		if err != nil {
			t.Fatal(err)
		}
		if res.Kind != fetch.KindListing || res.URL.String() != "ftp://"+addr+"/dir%20with%20spaces/" {
			t.Fatalf("kind %s, URL %s", res.Kind, res.URL)
		}
		if len(res.Listing.Entries) != 1 || res.Listing.Entries[0].Name != "file.txt" {
			t.Errorf("entries %+v", res.Listing.Entries)
		}
	})
}

// TestFTPTypeD: ;type=d is NLST of the name.
func TestFTPTypeD(t *testing.T) {
	eachFTP(t, func(t *testing.T, addr string) {
		c := ftpClient(ftp.Config{}, fetch.Options{})
		res, err := c.Fetch(context.Background(), "ftp://"+addr+"/pub;type=d")
		if err == nil {
			err = res.Listing.ReadAll() // it streams
		}
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range res.Listing.Entries {
			names = append(names, e.Name)
			if e.URL != "ftp://"+addr+"/pub/"+fetch.Escape(e.Name, "") {
				t.Errorf("entry %q: URL %s", e.Name, e.URL)
			}
		}
		sort.Strings(names)
		want := []string{"README", "data.bin", "empty-dir", "hello-link.txt"}
		if strings.Join(names, ",") != strings.Join(want, ",") {
			t.Errorf("NLST names %q, want %q", names, want)
		}
	})
}

// TestFTPTypeA: with ;type=a both servers send CR LF line ends and the
// client turns them into "\n"; --raw shows the wire form.
func TestFTPTypeA(t *testing.T) {
	eachFTP(t, func(t *testing.T, addr string) {
		u := "ftp://" + addr + "/crlf-lf.txt;type=a"
		res, err := doWith(context.Background(), ftpClient(ftp.Config{}, fetch.Options{}), u, func(r *fetch.Request) { r.Raw = true })
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		wire, err := io.ReadAll(res.Document.Body)
		res.Close()
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if !bytes.Contains(wire, []byte("line 3 ends with LF\r\nline 4")) {
			t.Errorf("the server did not convert to CR LF: %q", wire)
		}
		got := ftpBody(t, ftpClient(ftp.Config{}, fetch.Options{}), u)
		want := "line 1 ends with CRLF\nline 2 ends with CRLF\nline 3 ends with LF\nline 4 ends with LF\nline 5 has a lone CR\nhere\nlast line has no end of line"
		if string(got) != want {
			t.Errorf("type=a gave %q, want %q", got, want)
		}
		// Asked from byte 10, an ASCII document still comes whole: the
		// servers count REST in stored bytes (vsftpd) or refuse it
		// (pyftpdlib), neither in the local copy's.
		res, err = doWith(context.Background(), ftpClient(ftp.Config{}, fetch.Options{}), u, func(r *fetch.Request) { r.Offset = 10 })
		if err != nil {
			t.Fatalf("%s from byte 10: %v", u, err)
		}
		whole, err := io.ReadAll(res.Document.Body)
		res.Close()
		if err != nil || string(whole) != want || res.Document.Offset != 0 {
			t.Errorf("from byte 10: %q, Offset %d, %v; want the whole document", whole, res.Document.Offset, err)
		}
		bin := ftpBody(t, ftpClient(ftp.Config{}, fetch.Options{}), "ftp://"+addr+"/crlf-lf.txt;type=i")
		orig, _ := os.ReadFile(filepath.Join(harnessEnv(t, "FETCH_CONTENT_DIR"), "crlf-lf.txt"))
		if !bytes.Equal(bin, orig) {
			t.Errorf("type=i changed the bytes: %q", bin)
		}
	})
}

func ftpBody(t *testing.T, c *fetch.Client, u string) []byte {
	t.Helper()
	res, err := c.Fetch(context.Background(), u)
	if err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	defer res.Close()
	b, err := io.ReadAll(res.Document.Body)
	if err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	return b
}

// TestFTPResume: REST from an offset gives the rest of the file.
func TestFTPResume(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join(harnessEnv(t, "FETCH_CONTENT_DIR"), "1m.bin"))
	if err != nil {
		t.Fatal(err)
	}
	eachFTP(t, func(t *testing.T, addr string) {
		for _, off := range []int64{1, 12345, int64(len(orig)) - 1, int64(len(orig))} {
			c := ftpClient(ftp.Config{}, fetch.Options{})
			res, err := doWith(context.Background(), c, "ftp://"+addr+"/1m.bin", func(r *fetch.Request) { r.Offset = off })
			if err != nil {
				t.Fatalf("offset %d: %v", off, err)
			}
			b, err := io.ReadAll(res.Document.Body)
			res.Close()
			if err != nil {
				t.Fatalf("offset %d: %v", off, err)
			}
			if res.Document.Offset != off || res.Document.Size != int64(len(orig)) || !bytes.Equal(b, orig[off:]) {
				t.Errorf("offset %d: Offset %d Size %d, %d bytes", off, res.Document.Offset, res.Document.Size, len(b))
			}
		}
	})
}

// TestFTPLogin: named login with the password in the URL or from the
// prompter; a wrong password is exit 6; a bot without a prompter gets the
// prompt error.
func TestFTPLogin(t *testing.T) {
	eachFTP(t, func(t *testing.T, addr string) {
		user, pass := harnessEnv(t, "FETCH_FTP_USER"), harnessEnv(t, "FETCH_FTP_PASS")
		hello := "Hello from the fetch test content tree.\n"
		if b := ftpBody(t, ftpClient(ftp.Config{}, fetch.Options{}), "ftp://"+user+":"+pass+"@"+addr+"/hello.txt"); string(b) != hello {
			t.Errorf("named login: %q", b)
		}
		prompted := ftpClient(ftp.Config{}, fetch.Options{Prompter: fetch.Answers{"password": pass}})
		if b := ftpBody(t, prompted, "ftp://"+user+"@"+addr+"/hello.txt"); string(b) != hello {
			t.Errorf("prompted login: %q", b)
		}
		_, err := ftpClient(ftp.Config{}, fetch.Options{}).Fetch(context.Background(), "ftp://"+user+"@"+addr+"/hello.txt")
		if !errors.Is(err, fetch.ErrNoAnswer) {
			t.Errorf("no prompter: %v", err)
		}
		_, err = ftpClient(ftp.Config{}, fetch.Options{}).Fetch(context.Background(), "ftp://"+user+":wrong@"+addr+"/hello.txt")
		if !errors.Is(err, fetch.ErrAuth) || fetch.KindOf(err).ExitCode() != 6 || strings.Contains(err.Error(), "wrong") {
			t.Errorf("wrong password: %v", err)
		}
		_, err = ftpClient(ftp.Config{}, fetch.Options{}).Fetch(context.Background(), "ftp://"+addr+"/no-such-file")
		if !errors.Is(err, fetch.ErrNotFound) || fetch.KindOf(err).ExitCode() != 6 {
			t.Errorf("missing file: %v", err)
		}
	})
}

// TestFTPModes runs the same fetch through every CWD method and data
// connection mode.
func TestFTPModes(t *testing.T) {
	const leaf = "deep/d1/d2/d3/d4/d5/d6/d7/d8/leaf.txt"
	eachFTP(t, func(t *testing.T, addr string) {
		for _, cfg := range []ftp.Config{
			{Method: ftp.MethodMultiCWD},
			{Method: ftp.MethodSingleCWD},
			{Method: ftp.MethodNoCWD},
			{DisableEPSV: true},
			{Active: true},
			{Active: true, DisableEPSV: true},
			{Active: true, ActiveAddr: "127.0.0.1"},
		} {
			if b := ftpBody(t, ftpClient(cfg, fetch.Options{}), "ftp://"+addr+"/"+leaf); string(b) != "eight levels down\n" {
				t.Errorf("%+v: %q", cfg, b)
			}
			res, err := ftpClient(cfg, fetch.Options{}).Fetch(context.Background(), "ftp://"+addr+"/deep/d1/")
			if err == nil {
				err = res.Listing.ReadAll() // it streams
			}
			if err != nil || len(res.Listing.Entries) != 1 || res.Listing.Entries[0].URL != "ftp://"+addr+"/deep/d1/d2/" {
				t.Errorf("%+v: listing %v %+v", cfg, err, res)
			}
		}
		// RFC 1738 §3.2.2: %2F makes one absolute CWD; vsftpd and
		// pyftpdlib root the session at the content tree.
		if b := ftpBody(t, ftpClient(ftp.Config{}, fetch.Options{}), "ftp://"+addr+"/%2Fdeep/d1/d2/d3/d4/d5/d6/d7/d8/leaf.txt"); string(b) != "eight levels down\n" {
			t.Errorf("%%2F path: %q", b)
		}
	})
}

// TestCLIFTP runs the fetch command: the bytes on stdout are those curl
// gets for the same URL, -v shows the command sequence with the password
// masked, and a wrong password exits 6.
func TestCLIFTP(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Fatal("curl is needed to compare downloads")
	}
	eachFTP(t, func(t *testing.T, addr string) {
		for _, p := range []string{"1m.bin", "hello.txt", "name%20with%20spaces.txt", "semi%3Bcolon.txt", "100%25.txt", "crlf-lf.txt;type=a", "pub/"} {
			u := "ftp://" + addr + "/" + p
			code, out, stderr := runCLI(t, "", "-q", u)
			if code != 0 {
				t.Errorf("%s: exit %d: %s", u, code, stderr)
				continue
			}
			if strings.HasSuffix(p, "/") {
				continue // fetch prints its own listing form
			}
			want, err := exec.Command(curl, "-sS", u).Output()
			if err != nil {
				t.Fatalf("curl %s: %v", u, err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("%s: fetch gave %d bytes, curl %d", u, len(out), len(want))
			}
		}
		user, pass := harnessEnv(t, "FETCH_FTP_USER"), harnessEnv(t, "FETCH_FTP_PASS")
		code, _, stderr := runCLI(t, "", "-v", "ftp://"+user+":"+pass+"@"+addr+"/%2Fpub/README")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		for _, want := range []string{"> USER " + user, "> PASS ****", "> CWD /pub", "> TYPE I", "> RETR README", "< 226 "} {
			if !strings.Contains(stderr, want) {
				t.Errorf("-v lacks %q:\n%s", want, stderr)
			}
		}
		if strings.Contains(stderr, pass) {
			t.Errorf("-v shows the password:\n%s", stderr)
		}
		code, _, stderr = runCLI(t, "", "ftp://"+user+":wrong@"+addr+"/hello.txt")
		if code != 6 {
			t.Errorf("wrong password: exit %d: %s", code, stderr)
		}
	})
}
