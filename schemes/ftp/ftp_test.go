package ftp

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden from the current client")

// client is a fetch client with only this driver.
func client(cfg Config, opts fetch.Options) *fetch.Client {
	c := fetch.NewClient(opts)
	c.Register("ftp", New(cfg))
	return c
}

// get fetches raw and returns the body or the listing entries' names and
// URLs, one per line.
func get(t *testing.T, c *fetch.Client, raw string) (string, *fetch.Result, error) {
	t.Helper()
	return getAt(t, c, raw, 0)
}

// getAt is get with Request.Offset set to offset.
func getAt(t *testing.T, c *fetch.Client, raw string, offset int64) (string, *fetch.Result, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := fetch.NewRequest(raw)
	if err != nil {
		return "", nil, err
	}
	req.Offset = offset
	res, err := c.Do(ctx, req)
	if err != nil {
		return "", nil, err
	}
	defer res.Close()
	if res.Document != nil {
		b, err := io.ReadAll(res.Document.Body)
		if err != nil {
			return string(b), res, err
		}
		return string(b), res, res.Close()
	}
	// The listing streams: read it all, as a caller printing it would.
	if err := res.Listing.ReadAll(); err != nil {
		return "", res, err
	}
	var b strings.Builder
	for _, e := range res.Listing.Entries {
		b.WriteString(string(e.Kind) + " " + e.Name + " " + e.URL + "\n")
	}
	return b.String(), res, nil
}

// rfcServer holds the files the RFC 1738 examples name.
func rfcServer(t *testing.T) *fakeServer {
	s := newFake(t)
	s.add("/etc/motd", "message of the day\n")
	s.add("/pub/file.txt", "line one\r\nline two\r\n")
	s.add("/pub/data.bin", "\x00\x01\x02\r\n\xff")
	s.mkdir("/pub/sub")
	return s
}

// TestTranscripts pins the exact bytes the client sends for each URL form
// (RFC 1738 §3.2.2's examples, each typecode, each method, resume, active
// mode) in testdata/<name>.golden.
func TestTranscripts(t *testing.T) {
	tests := []struct {
		name    string
		url     string // HOST is replaced by the fake's address
		cfg     Config
		opts    fetch.Options
		offset  int64 // Request.Offset
		fake    func(*fakeServer)
		want    string // body, or listing lines
		wantURL string // Result.URL when not the request's
	}{
		// RFC 1738 §3.2.2: "CWD /etc" and then "RETR motd".
		{name: "rfc-slash-etc-motd", url: "ftp://myname:secret@HOST/%2Fetc/motd", want: "message of the day\n"},
		// "would "CWD etc" and then "RETR motd"".
		{name: "rfc-etc-motd", url: "ftp://myname:secret@HOST/etc/motd", want: "message of the day\n"},
		// ""CWD " with a null argument, then "CWD etc", and then "RETR motd"".
		{name: "rfc-null-cwd", url: "ftp://myname:secret@HOST//etc/motd", want: "message of the day\n"},
		{name: "anonymous", url: "ftp://HOST/pub/data.bin", cfg: Config{AnonymousPassword: "fetch@example.org"}, want: "\x00\x01\x02\r\n\xff"},
		{name: "prompted-password", url: "ftp://myname@HOST/etc/motd", opts: fetch.Options{Prompter: fetch.Answers{"password": "secret"}}, want: "message of the day\n"},
		{name: "empty-user", url: "ftp://@HOST/etc/motd", opts: fetch.Options{Prompter: fetch.Answers{"password": ""}}, want: "message of the day\n"},
		{name: "type-i", url: "ftp://HOST/pub/file.txt;type=i", cfg: Config{AnonymousPassword: "a@b"}, want: "line one\r\nline two\r\n"},
		{name: "type-a", url: "ftp://HOST/pub/file.txt;type=a", cfg: Config{AnonymousPassword: "a@b"}, want: "line one\nline two\n"},
		{name: "type-d", url: "ftp://HOST/pub;type=d", cfg: Config{AnonymousPassword: "a@b"},
			want: "other data.bin ftp://HOST/pub/data.bin\nother file.txt ftp://HOST/pub/file.txt\nother sub ftp://HOST/pub/sub\n"},
		{name: "type-d-root", url: "ftp://HOST/;type=d", cfg: Config{AnonymousPassword: "a@b"},
			want: "other etc ftp://HOST/etc\nother pub ftp://HOST/pub\n"},
		{name: "list-trailing-slash", url: "ftp://HOST/pub/", cfg: Config{AnonymousPassword: "a@b"},
			want: "file data.bin ftp://HOST/pub/data.bin\nfile file.txt ftp://HOST/pub/file.txt\ndir sub ftp://HOST/pub/sub/\n"},
		{name: "list-mlsd", url: "ftp://HOST/pub/", cfg: Config{AnonymousPassword: "a@b"}, fake: func(s *fakeServer) { s.mlsd = true },
			want: "file data.bin ftp://HOST/pub/data.bin\nfile file.txt ftp://HOST/pub/file.txt\ndir sub ftp://HOST/pub/sub/\n"},
		{name: "list-root-no-path", url: "ftp://HOST", cfg: Config{AnonymousPassword: "a@b"},
			want: "dir etc ftp://HOST/etc/\ndir pub ftp://HOST/pub/\n", wantURL: "ftp://HOST/"},
		{name: "directory-detected", url: "ftp://HOST/pub", cfg: Config{AnonymousPassword: "a@b"},
			want: "file data.bin ftp://HOST/pub/data.bin\nfile file.txt ftp://HOST/pub/file.txt\ndir sub ftp://HOST/pub/sub/\n", wantURL: "ftp://HOST/pub/"},
		{name: "singlecwd", url: "ftp://myname:secret@HOST//etc/motd", cfg: Config{Method: "singlecwd"}, want: "message of the day\n"},
		{name: "nocwd", url: "ftp://myname:secret@HOST//etc/motd", cfg: Config{Method: "nocwd"}, want: "message of the day\n"},
		{name: "nocwd-list", url: "ftp://HOST/pub/", cfg: Config{Method: "nocwd", AnonymousPassword: "a@b"},
			want: "file data.bin ftp://HOST/pub/data.bin\nfile file.txt ftp://HOST/pub/file.txt\ndir sub ftp://HOST/pub/sub/\n"},
		{name: "resume", url: "ftp://HOST/etc/motd", cfg: Config{AnonymousPassword: "a@b"}, offset: 8, want: "of the day\n"},
		{name: "disable-epsv", url: "ftp://HOST/etc/motd", cfg: Config{AnonymousPassword: "a@b", DisableEPSV: true}, want: "message of the day\n"},
		{name: "epsv-refused", url: "ftp://HOST/pub/", cfg: Config{AnonymousPassword: "a@b"}, fake: func(s *fakeServer) { s.noEPSV = true },
			want: "file data.bin ftp://HOST/pub/data.bin\nfile file.txt ftp://HOST/pub/file.txt\ndir sub ftp://HOST/pub/sub/\n"},
		{name: "active-eprt", url: "ftp://HOST/etc/motd", cfg: Config{AnonymousPassword: "a@b", Active: true}, want: "message of the day\n"},
		{name: "active-port", url: "ftp://HOST/etc/motd", cfg: Config{AnonymousPassword: "a@b", Active: true, DisableEPSV: true}, want: "message of the day\n"},
		{name: "active-eprt-refused", url: "ftp://HOST/pub/", cfg: Config{AnonymousPassword: "a@b", Active: true}, fake: func(s *fakeServer) { s.noEPSV = true },
			want: "file data.bin ftp://HOST/pub/data.bin\nfile file.txt ftp://HOST/pub/file.txt\ndir sub ftp://HOST/pub/sub/\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := rfcServer(t)
			if tt.fake != nil {
				tt.fake(s)
			}
			host := s.addr()
			raw := strings.ReplaceAll(tt.url, "HOST", host)
			c := client(tt.cfg, tt.opts)
			got, res, err := getAt(t, c, raw, tt.offset)
			if err != nil {
				t.Fatalf("fetch %s: %v", raw, err)
			}
			c.Close() // QUIT on the pooled control connection
			if want := strings.ReplaceAll(tt.want, "HOST", host); got != want {
				t.Errorf("got\n%q\nwant\n%q", got, want)
			}
			if tt.wantURL != "" {
				if want := strings.ReplaceAll(tt.wantURL, "HOST", host); res.URL.String() != want {
					t.Errorf("Result.URL = %s, want %s", res.URL, want)
				}
			}
			golden(t, tt.name, s.transcript())
		})
	}
}

// golden compares got with testdata/name.golden (or rewrites it).
func golden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if got != string(want) {
		t.Errorf("client sent\n%s\nwant (%s)\n%s", got, file, want)
	}
}

// TestTrace checks that -v shows the command sequence with the password
// masked.
func TestTrace(t *testing.T) {
	s := rfcServer(t)
	var lines []string
	tr := fetch.TracerFunc(func(d fetch.Direction, l string) { lines = append(lines, string(d)+" "+l) })
	if _, _, err := get(t, client(Config{}, fetch.Options{Tracer: tr}), "ftp://myname:secret@"+s.addr()+"/%2Fetc/motd"); err != nil {
		t.Fatal(err)
	}
	all := strings.Join(lines, "\n")
	if strings.Contains(all, "secret") {
		t.Errorf("password in trace:\n%s", all)
	}
	for _, want := range []string{"> USER myname", "> PASS ****", "> CWD /etc", "> TYPE I", "> RETR motd", "< 226 Transfer complete."} {
		if !strings.Contains(all, want) {
			t.Errorf("trace lacks %q:\n%s", want, all)
		}
	}
}

// TestRoundTrip fetches every entry of a listing by its URL: names with
// spaces, ";", "%", "#", "?", "/" and bytes outside ASCII must come back
// as the same file.
func TestRoundTrip(t *testing.T) {
	names := []string{"name with spaces.txt", "semi;colon.txt", "100%.txt", "percent%41.txt", "hash#name.txt",
		"question?mark.txt", "caf\u00e9-\u00fcber.txt", "latin1-caf\xe9.txt", "at@sign=eq&amp:colon", "plus+tilde~"}
	for _, mlsd := range []bool{false, true} {
		s := newFake(t)
		s.mlsd = mlsd
		for i, n := range names {
			s.add("/dir with spaces/"+n, strings.Repeat("x", i)+n)
		}
		c := client(Config{AnonymousPassword: "a@b"}, fetch.Options{})
		_, res, err := get(t, c, "ftp://"+s.addr()+"/dir%20with%20spaces/")
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Listing.Entries) != len(names) {
			t.Fatalf("mlsd=%v: %d entries, want %d", mlsd, len(res.Listing.Entries), len(names))
		}
		for _, e := range res.Listing.Entries {
			body, _, err := get(t, c, e.URL)
			if err != nil {
				t.Errorf("fetch %s: %v", e.URL, err)
				continue
			}
			if want := s.files["/dir with spaces/"+e.Name]; body != want {
				t.Errorf("%s: got %q, want %q", e.URL, body, want)
			}
		}
	}
}

func TestDocumentMeta(t *testing.T) {
	s := rfcServer(t)
	c := client(Config{AnonymousPassword: "a@b"}, fetch.Options{})
	res, err := c.Fetch(context.Background(), "ftp://"+s.addr()+"/pub/file.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	d := res.Document
	if d.Size != int64(len(s.files["/pub/file.txt"])) || !d.ModTime.Equal(time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)) || d.MIMEType != "text/plain" {
		t.Errorf("Size %d, ModTime %v, MIME %q", d.Size, d.ModTime, d.MIMEType)
	}
	// The RETR reply is reachable with As (RFC 959 §4.2: 150 or 125).
	var r Reply
	if !d.As(&r) || (r.Code != 150 && r.Code != 125) || len(r.Lines) == 0 {
		t.Errorf("As(*Reply) = %+v", r)
	}
	b, _ := io.ReadAll(d.Body)
	if !bytes.Equal(b, []byte(s.files["/pub/file.txt"])) {
		t.Errorf("body %q: no suffix guess may change the bytes", b)
	}
}

func TestErrors(t *testing.T) {
	tests := []struct {
		name   string
		url    string
		opts   fetch.Options
		offset int64 // Request.Offset
		kind   fetch.Kind
		is     error
		sent   string // the transcript must not contain this
	}{
		{name: "wrong password", url: "ftp://myname:wrong@HOST/etc/motd", kind: fetch.KindServer, is: fetch.ErrAuth},
		{name: "unknown user", url: "ftp://nobody:x@HOST/etc/motd", kind: fetch.KindServer, is: fetch.ErrAuth},
		{name: "no prompter", url: "ftp://myname@HOST/etc/motd", kind: fetch.KindUsage, is: fetch.ErrNoAnswer, sent: "PASS"},
		{name: "missing file", url: "ftp://HOST/etc/nothing", kind: fetch.KindServer, is: fetch.ErrNotFound},
		{name: "missing dir", url: "ftp://HOST/nodir/motd", kind: fetch.KindServer, is: fetch.ErrNotFound},
		{name: "CRLF in cwd", url: "ftp://HOST/etc%0D%0ADELE%20x/motd", kind: fetch.KindPolicy, is: fetch.ErrUnsafeLine, sent: "DELE"},
		{name: "CRLF in name", url: "ftp://HOST/etc/motd%0ADELE%20x", kind: fetch.KindPolicy, is: fetch.ErrUnsafeLine, sent: "DELE"},
		{name: "NUL in password", url: "ftp://myname:a%00b@HOST/etc/motd", kind: fetch.KindPolicy, is: fetch.ErrUnsafeLine, sent: "USER"},
		{name: "resume past end", url: "ftp://HOST/etc/motd", offset: 1000, kind: fetch.KindServer},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := rfcServer(t)
			raw := strings.ReplaceAll(tt.url, "HOST", s.addr())
			_, _, err := getAt(t, client(Config{AnonymousPassword: "a@b"}, tt.opts), raw, tt.offset)
			if err == nil {
				t.Fatal("no error")
			}
			if k := fetch.KindOf(err); k != tt.kind {
				t.Errorf("kind %v, want %v: %v", k, tt.kind, err)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			if strings.Contains(err.Error(), "wrong") || strings.Contains(err.Error(), "secret") {
				t.Errorf("password in error: %v", err)
			}
			if tt.sent != "" && strings.Contains(s.transcript(), tt.sent) {
				t.Errorf("sent %q:\n%s", tt.sent, s.transcript())
			}
		})
	}
}

// TestResumeASCII: a ;type=a document is never resumed (no REST is
// sent); it comes whole, from byte 0, so that the caller starts over
// rather than joining two differently counted halves.
func TestResumeASCII(t *testing.T) {
	for _, raw := range []bool{false, true} {
		s := rfcServer(t)
		c := client(Config{AnonymousPassword: "a@b"}, fetch.Options{})
		req, err := fetch.NewRequest("ftp://" + s.addr() + "/pub/file.txt;type=a")
		if err != nil {
			t.Fatal(err)
		}
		req.Offset, req.Raw = 5, raw
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		res, err := c.Do(ctx, req)
		if err != nil {
			cancel()
			t.Fatalf("raw %v: %v", raw, err)
		}
		b, err := io.ReadAll(res.Document.Body)
		res.Close()
		cancel()
		c.Close()
		want := "line one\nline two\n"
		if raw {
			want = "line one\r\nline two\r\n"
		}
		if err != nil || string(b) != want || res.Document.Offset != 0 {
			t.Errorf("raw %v: %q, Offset %d, %v; want %q from byte 0", raw, b, res.Document.Offset, err, want)
		}
		if tr := s.transcript(); strings.Contains(tr, "REST") {
			t.Errorf("raw %v: REST sent:\n%s", raw, tr)
		}
	}
}

func TestASCIIConversion(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a\r\nb\r\n", "a\nb\n"},
		{"lone\rcr\r\n", "lone\ncr\n"},
		{"ends with cr\r", "ends with cr\n"},
		{"\r\r\n", "\n\n"},
		{"", ""},
	}
	for _, tt := range tests {
		for _, chunk := range []int{1, 2, 7, 1 << 10} {
			a := &asciiBody{}
			var out []byte
			in := []byte(tt.in)
			for len(in) > 0 {
				n := min(chunk, len(in))
				out = a.convert(out, in[:n])
				in = in[n:]
			}
			if a.cr {
				out = append(out, '\n')
			}
			if string(out) != tt.want {
				t.Errorf("%q in chunks of %d: got %q, want %q", tt.in, chunk, out, tt.want)
			}
		}
	}
}

// TestListingDropsPassword: the URLs a listing hands on, and Result.URL,
// keep the user of ftp://user:password@host/ but never the password.
func TestListingDropsPassword(t *testing.T) {
	for _, tt := range []struct {
		name, path string
		mlsd       bool
	}{
		{name: "LIST", path: "/pub/"},
		{name: "MLSD", path: "/pub/", mlsd: true},
		{name: "directory detected", path: "/pub"},
		{name: "NLST", path: "/pub;type=d"},
		{name: "root", path: ""},
		{name: "document", path: "/pub/file.txt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := rfcServer(t)
			s.mlsd = tt.mlsd
			_, res, err := get(t, client(Config{}, fetch.Options{}), "ftp://myname:secret@"+s.addr()+tt.path)
			if err != nil {
				t.Fatal(err)
			}
			if u := res.URL.String(); strings.Contains(u, "secret") || !strings.HasPrefix(u, "ftp://myname@") {
				t.Errorf("Result.URL = %s", u)
			}
			if res.Listing == nil {
				return
			}
			if len(res.Listing.Entries) == 0 {
				t.Fatal("empty listing")
			}
			for _, e := range res.Listing.Entries {
				if strings.Contains(e.URL, "secret") || !strings.HasPrefix(e.URL, "ftp://myname@") {
					t.Errorf("entry %q has URL %s", e.Name, e.URL)
				}
			}
		})
	}
}

// TestListingEntriesFetchWithRememberedPassword: entry URLs drop the
// password, yet the client that listed them fetches them without asking,
// because the driver remembers the password that logged the user in. A
// new client does not know it and must ask.
func TestListingEntriesFetchWithRememberedPassword(t *testing.T) {
	s := rfcServer(t)
	c := client(Config{}, fetch.Options{})
	_, res, err := get(t, c, "ftp://myname:secret@"+s.addr()+"/pub/")
	if err != nil {
		t.Fatal(err)
	}
	var fileURL string
	for _, e := range res.Listing.Entries {
		if e.Name == "file.txt" {
			fileURL = e.URL
		}
	}
	if fileURL == "" || strings.Contains(fileURL, "secret") {
		t.Fatalf("entry URL %q", fileURL)
	}
	body, _, err := get(t, c, fileURL)
	if err != nil || body != "line one\r\nline two\r\n" {
		t.Fatalf("same client: %q, %v", body, err)
	}
	if _, _, err := get(t, client(Config{}, fetch.Options{}), fileURL); !errors.Is(err, fetch.ErrNoAnswer) {
		t.Fatalf("a new client fetched %s without the password: %v", fileURL, err)
	}
}

// TestCWDRefusalNamesSegment: a CWD the server refuses names the <cwd>
// part it came from, as the path at that segment's offset in the URL the
// error shows (password masked): of pub/nodir/more, nodir.
func TestCWDRefusalNamesSegment(t *testing.T) {
	s := rfcServer(t)
	for _, tt := range []struct{ method, url, at string }{
		{"", "ftp://myname:secret@HOST/pub/nodir/more/file.txt", "nodir/more/file.txt"},
		{"", "ftp://HOST/nodir/more/file.txt", "nodir/more/file.txt"},
		{"", "ftp://HOST/pub//x/", "x/"}, // "CWD " goes to the root here, where x is not
		{MethodSingleCWD, "ftp://myname:secret@HOST/pub/nodir/more/file.txt", "pub/nodir/more/file.txt"},
	} {
		raw := strings.ReplaceAll(tt.url, "HOST", s.addr())
		_, _, err := get(t, client(Config{AnonymousPassword: "a@b", Method: tt.method}, fetch.Options{}), raw)
		var fe *fetch.Error
		if !errors.As(err, &fe) || fe.Op != "CWD" || !errors.Is(err, fetch.ErrNotFound) {
			t.Fatalf("%s %s: %v, want a CWD refusal", tt.method, tt.url, err)
		}
		if fe.Part != "path" || fe.Offset < 0 || fe.Offset > len(fe.URL) || fe.URL[fe.Offset:] != tt.at {
			t.Errorf("%s %s: part %q at offset %d of %q, want the path at %q: %v", tt.method, tt.url, fe.Part, fe.Offset, fe.URL, tt.at, err)
		}
		if strings.Contains(err.Error(), "secret") {
			t.Errorf("password in error: %v", err)
		}
	}
}

// TestUnsafeSegmentNamed: a CR, LF or NUL decoded from a <cwd> part or
// the name is refused before connecting, and the error points at the
// escape in the URL it shows, so that of several segments the one at
// fault is known; the first in the URL's order is the one named.
func TestUnsafeSegmentNamed(t *testing.T) {
	for _, tt := range []struct{ url, part, at string }{
		{"ftp://h/pub/a%0D%0ADELE%20x/motd", "path", "%0D%0ADELE%20x/motd"},
		{"ftp://myname:secret@h/pub/ok/motd%0Ax;type=a", "name", "%0Ax;type=a"},
		{"ftp://h//x%00y/", "path", "%00y/"},
		{"ftp://h/a%0D/b%0A", "path", "%0D/b%0A"},
	} {
		_, _, err := get(t, client(Config{AnonymousPassword: "a@b"}, fetch.Options{}), tt.url)
		var fe *fetch.Error
		if !errors.As(err, &fe) || !errors.Is(err, fetch.ErrUnsafeLine) || fetch.KindOf(err) != fetch.KindPolicy {
			t.Fatalf("%s: %v, want a line-safety refusal", tt.url, err)
		}
		if fe.Part != tt.part || fe.Offset < 0 || fe.Offset > len(fe.URL) || fe.URL[fe.Offset:] != tt.at {
			t.Errorf("%s: part %q at offset %d of %q, want %q at %q", tt.url, fe.Part, fe.Offset, fe.URL, tt.part, tt.at)
		}
	}
}

// TestTypedNameNotListed: a name with ";type=i" or ";type=a" is a file to
// retrieve (RFC 1738 §3.2.2); a RETR the server refuses is the answer.
// The fallback for a name that may be a directory (CWD into it, then a
// listing) turned ftp://h/pub;type=i into pub's listing.
func TestTypedNameNotListed(t *testing.T) {
	for _, typ := range []string{"i", "a"} {
		s := rfcServer(t)
		_, res, err := get(t, client(Config{AnonymousPassword: "a@b"}, fetch.Options{}), "ftp://"+s.addr()+"/pub;type="+typ)
		var fe *fetch.Error
		if !errors.As(err, &fe) || fe.Kind != fetch.KindServer || res != nil && res.Listing != nil {
			t.Errorf("type=%s: %v, want the RETR's refusal", typ, err)
		}
		for _, c := range s.controls() {
			if slices.Contains(c, "CWD pub") {
				t.Errorf("type=%s: sent %q", typ, c)
			}
		}
	}
}

// TestCWDRefusalNotThePath: a CWD refused for a reason that is no fault
// of its argument (the command not understood or not implemented, the
// login no longer good, a local error of the server's) does not name the
// path: "CWD: path (at offset 15): ... server said 502" sent the user to
// look for a fault in a segment the server never judged.
func TestCWDRefusalNotThePath(t *testing.T) {
	for _, reply := range []string{"500 Unknown command.", "502 Command not implemented.", "530 Please login with USER and PASS.", "451 Local error."} {
		s := rfcServer(t)
		s.hook = func(c *fakeConn, verb, arg string) bool {
			if verb == "CWD" {
				c.reply("%s", reply)
				return true
			}
			return false
		}
		_, _, err := get(t, client(Config{AnonymousPassword: "a@b"}, fetch.Options{}), "ftp://"+s.addr()+"/pub/file.txt")
		var fe *fetch.Error
		if !errors.As(err, &fe) || fe.Op != "CWD" {
			t.Fatalf("%s: %v, want a CWD refusal", reply, err)
		}
		if fe.Part != "" {
			t.Errorf("%s: part %q at offset %d: %v", reply, fe.Part, fe.Offset, err)
		}
	}
}
