package schemes_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
	"github.com/fetchproject/fetch/schemes/file"
	"github.com/fetchproject/fetch/schemes/ftp"
	"github.com/fetchproject/fetch/schemes/gopher"
	"github.com/fetchproject/fetch/schemes/http"
	"github.com/fetchproject/fetch/schemes/mailto"
	"github.com/fetchproject/fetch/schemes/nntp"
	"github.com/fetchproject/fetch/schemes/prospero"
	"github.com/fetchproject/fetch/schemes/telnet"
	"github.com/fetchproject/fetch/schemes/wais"
)

func mustParse(t *testing.T, s string) *fetch.URL {
	t.Helper()
	u, err := schemes.Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q): %v", s, err)
	}
	return u
}

// The records' ports and grammar: the facts the core's tests assume
// (fetch/registry_test.go's testSchemes) and the port policy relies on.
func TestRecords(t *testing.T) {
	want := map[string]fetch.Scheme{
		"ftp":      {DefaultPort: 21, Grammar: fetch.Grammar{HostRequired: true}},
		"http":     {DefaultPort: 80, LowPorts: true, Grammar: fetch.Grammar{HostRequired: true, QueryEndsHost: true, PlusInQuery: true}},
		"https":    {DefaultPort: 443, LowPorts: true, Grammar: fetch.Grammar{HostRequired: true, QueryEndsHost: true, PlusInQuery: true}},
		"gopher":   {DefaultPort: 70, Grammar: fetch.Grammar{HostRequired: true, EmptyPath: "1"}},
		"nntp":     {DefaultPort: 119, Grammar: fetch.Grammar{HostRequired: true}},
		"news":     {DefaultPort: 119, Grammar: fetch.Grammar{HostRequired: true}},
		"telnet":   {DefaultPort: 23, Grammar: fetch.Grammar{HostRequired: true}, Direct: true},
		"wais":     {DefaultPort: 210, Grammar: fetch.Grammar{HostRequired: true, PlusInQuery: true}},
		"prospero": {DefaultPort: 1525, Grammar: fetch.Grammar{HostRequired: true}},
		"rlogin":   {DefaultPort: 513, Grammar: fetch.Grammar{HostRequired: true}, Direct: true},
		"tn3270":   {DefaultPort: 23, Grammar: fetch.Grammar{HostRequired: true}, Direct: true},
		"file":     {Direct: true},
		"mailto":   {Direct: true},
	}
	reg := schemes.Registry()
	if got := reg.Names(); len(got) != len(want) {
		t.Errorf("registered %v, want the %d schemes of RFC 1738, https, rlogin and tn3270", got, len(want))
	}
	for name, w := range want {
		s, ok := reg.Lookup(name)
		if !ok {
			t.Errorf("%s not registered", name)
			continue
		}
		if s.DefaultPort != w.DefaultPort || s.LowPorts != w.LowPorts || s.Grammar != w.Grammar || s.View == nil || s.Direct != w.Direct {
			t.Errorf("%s: port %d low %v grammar %+v view %v direct %v; want port %d low %v grammar %+v direct %v and a view",
				name, s.DefaultPort, s.LowPorts, s.Grammar, s.View != nil, s.Direct, w.DefaultPort, w.LowPorts, w.Grammar, w.Direct)
		}
		if s.Driver == nil {
			t.Errorf("%s: no driver; every scheme of this module fetches", name)
		}
	}
}

// TestDirectSchemesSkipGateway: with a gateway for every URL (--proxy), a
// file: URL is still read here and a mailto: one still composed, and the
// gateway hears of neither: it would have served its own files, taken a
// GET for a sent message, and learnt a local path or a session password.
func TestDirectSchemesSkipGateway(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var asked atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			asked.Add(1)
			io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\nfrom gateway")
			c.Close()
		}
	}()
	gw, err := fetch.Parse("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Join(t.TempDir(), "local.txt")
	if err := os.WriteFile(name, []byte("local bytes"), 0o600); err != nil {
		t.Fatal(err)
	}
	c := schemes.NewClient(fetch.Options{Proxy: func(*fetch.URL) (*fetch.URL, error) { return gw, nil }},
		schemes.Config{Mailto: mailto.Config{DryRun: true, From: "me@example.org"}})
	defer c.Close()
	res, err := c.Fetch(context.Background(), "file://"+filepath.ToSlash(name))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Document.Body)
	res.Close()
	if string(b) != "local bytes" {
		t.Errorf("file: read %q, want the local file", b)
	}
	if res, err := c.Fetch(context.Background(), "mailto:someone@example.org?subject=hi&body=x"); err == nil {
		res.Close()
	}
	if n := asked.Load(); n != 0 {
		t.Errorf("the gateway was asked %d times for file: and mailto: URLs", n)
	}
}

// The port policy with the real records: fetch's TestPortPolicy table.
func TestPortPolicyWithRecords(t *testing.T) {
	reg := schemes.Registry()
	tests := []struct {
		scheme string
		port   int
		ok     bool
	}{
		{"ftp", 21, true}, {"telnet", 23, true}, {"nntp", 119, true}, {"news", 119, true},
		{"gopher", 70, true}, {"http", 80, true}, {"wais", 210, true}, {"prospero", 1525, true},
		{"http", 8080, true}, {"gopher", 7070, true}, {"http", 25, false}, {"gopher", 25, false},
		{"http", 6667, false}, {"http", 10080, false}, {"http", 21, false}, {"http", 70, false},
		{"gopher", 80, false}, {"ftp", 1525, false}, {"gopher", 443, false}, {"gopher", 999, false},
		{"http", 999, true}, {"https", 999, true}, {"http", 0, false}, {"http", 65536, false}, {"x-foo", 4000, true},
		{"ftp", 210, false}, {"telnet", 443, false},
	}
	for _, tt := range tests {
		err := (&fetch.PortPolicy{}).Check(reg, tt.scheme, tt.port)
		if (err == nil) != tt.ok || err != nil && !errors.Is(err, fetch.ErrPortRefused) {
			t.Errorf("Check(%s, %d) = %v, want ok=%v", tt.scheme, tt.port, err, tt.ok)
		}
	}
	err := (&fetch.PortPolicy{}).Check(reg, "ftp", 1525)
	if err == nil || !strings.Contains(err.Error(), "it is the prospero port") {
		t.Errorf("ftp to 1525: %v, want it named prospero's port", err)
	}
}

// RFC 1630's equivalence with the real records (fetch's TestEqual cases
// that depend on a scheme's port or grammar).
func TestEqualWithRecords(t *testing.T) {
	reg := schemes.Registry()
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"http://h:80/", "http://h/", true}, {"http://h:80/", "http://h", true}, {"http://h:8080/", "http://h/", false},
		{"https://h:443/x", "https://h/x", true}, {"ftp://h:21/x", "ftp://h/x", true}, {"gopher://h:70/", "gopher://h", true},
		{"http://h?q", "http://h/?q", true}, {"http://h/a+b", "http://h/a%2Bb", true}, {"http://h/?a+b", "http://h/?a%2Bb", false},
		{"wais://h/db?a+b", "wais://h/db?a%2Bb", false}, {"gopher://h/7?a+b", "gopher://h/7?a%2Bb", true},
	} {
		got, err := reg.Equal(c.a, c.b)
		if err != nil || got != c.want {
			t.Errorf("Equal(%q, %q) = %v, %v; want %v", c.a, c.b, got, err, c.want)
		}
	}
}

func TestView(t *testing.T) {
	cases := map[string]any{
		"ftp://h/":       &ftp.URL{},
		"http://h/":      &http.URL{Path: "/"},
		"https://h/":     &http.URL{Path: "/"},
		"gopher://h/":    &gopher.URL{Type: '1'},
		"mailto:a@b":     &mailto.URL{To: []string{"a@b"}},
		"news:*":         &nntp.NewsURL{All: true},
		"nntp://h/g":     &nntp.URL{Group: "g"},
		"telnet://h":     &telnet.URL{},
		"wais://h/db":    &wais.URL{Database: "db"},
		"file:///x":      &file.URL{Path: "/x"},
		"prospero://h/n": &prospero.URL{HSOName: "n"},
		"x-foo:bar":      nil,
	}
	reg := schemes.Registry()
	for in, want := range cases {
		v, err := reg.View(mustParse(t, in))
		if err != nil || !reflect.DeepEqual(v, want) {
			t.Errorf("View(%q) = %#v, %v; want %#v", in, v, err, want)
		}
	}
	v, err := reg.View(mustParse(t, "ftp://h/a;type=z"))
	if v != nil || err == nil {
		t.Errorf("View of a bad ftp URL = %#v, %v", v, err)
	}
}

func TestJSON(t *testing.T) {
	reg := schemes.Registry()
	u := mustParse(t, "ftp://joe:secret@Host.com:2121/pub/a.txt;type=i#top")
	b, err := json.Marshal(u)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	if strings.Contains(got, "secret") {
		t.Errorf("JSON shows the password: %s", got)
	}
	for _, want := range []string{`"scheme":"ftp"`, `"user":"joe"`, `"password":"****"`, `"host":"host.com"`, `"port":2121`,
		`"path":"pub/a.txt;type=i"`, `"fragment":"top"`, `"canonical":"ftp://joe:****@host.com:2121/pub/a.txt;type=i#top"`} {
		if !strings.Contains(got, want) {
			t.Errorf("JSON %s lacks %s", got, want)
		}
	}
	v, _ := reg.View(u)
	b, _ = json.Marshal(v)
	if string(b) != `{"dirs":["pub"],"name":"a.txt","type":"i"}` {
		t.Errorf("FTP view JSON = %s", b)
	}
	v, _ = reg.View(mustParse(t, "gopher://h/7s%09q"))
	b, _ = json.Marshal(v)
	if string(b) != `{"selector":"s","search":"q","has_search":true,"plus":"","has_plus":false,"type":"7"}` {
		t.Errorf("gopher view JSON = %s", b)
	}
	v, _ = reg.View(mustParse(t, "telnet://u:pw@h"))
	b, _ = json.Marshal(v)
	if strings.Contains(string(b), "pw") || !strings.Contains(string(b), `"password":"****"`) {
		t.Errorf("telnet view JSON = %s", b)
	}
	b, _ = json.Marshal(mustParse(t, "mailto:a@b?subject=x%26y"))
	if !strings.Contains(string(b), `"opaque":"a@b?subject=x%26y"`) {
		t.Errorf("mailto JSON = %s", b)
	}
}

// fingerURL is the view of the x-finger scheme below: a user to ask about.
type fingerURL struct {
	User string `json:"user"`
}

// A scheme added from outside this module: one record with its own
// grammar ("?" ends the host), port, view and driver, registered with one
// line, parsed, viewed, policed and fetched through the client.
func TestAddScheme(t *testing.T) {
	var got *fingerURL
	finger := fetch.Scheme{
		Name:        "x-finger",
		DefaultPort: 7079,
		Grammar:     fetch.Grammar{HostRequired: true, QueryEndsHost: true},
		View: func(u *fetch.URL) (any, error) {
			if !strings.HasPrefix(u.Path, "?") {
				return nil, u.ViewError("path", u.PathOffset(), "an x-finger URL is x-finger://host?user")
			}
			user, err := u.DecodeAt(u.Path[1:], "user", u.PathOffset()+1)
			if err != nil {
				return nil, err
			}
			return &fingerURL{User: user}, nil
		},
	}
	finger.Driver = fetch.DriverFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
		v, err := finger.View(req.URL)
		if err != nil {
			return nil, err
		}
		got = v.(*fingerURL)
		body := io.NopCloser(strings.NewReader("Login: " + got.User + "\n"))
		return &fetch.Result{Kind: fetch.KindDocument, Document: &fetch.Document{Body: body, Size: -1}}, nil
	})

	c := schemes.NewClient(fetch.Options{}, schemes.Config{})
	c.RegisterScheme(finger) // the one registration line

	res, err := c.Fetch(context.Background(), "x-finger://Host.Example?j%20doe")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Document.Body)
	res.Close()
	if string(b) != "Login: j doe\n" || got == nil || got.User != "j doe" {
		t.Errorf("fetched %q, view %+v", b, got)
	}
	u, err := c.Parse("x-finger://h?root")
	if err != nil || u.Host != "h" || u.String() != "x-finger://h?root" {
		t.Errorf("Parse = %+v, %v", u, err)
	}
	if v, err := c.View(u); err != nil || v.(*fingerURL).User != "root" {
		t.Errorf("View = %v, %v", v, err)
	}
	if _, err := c.Fetch(context.Background(), "x-finger:///?root"); fetch.KindOf(err) != fetch.KindMalformed {
		t.Errorf("x-finger without a host: %v, want malformed", err)
	}
	// Its port is protected from the other schemes, and it from theirs.
	if _, err := c.Fetch(context.Background(), "gopher://127.0.0.1:7079/"); !errors.Is(err, fetch.ErrPortRefused) {
		t.Errorf("gopher to x-finger's port: %v, want refused", err)
	}
	if _, err := c.Fetch(context.Background(), "x-finger://127.0.0.1:1525?u"); !errors.Is(err, fetch.ErrPortRefused) {
		t.Errorf("x-finger to prospero's port: %v, want refused", err)
	}
	// Other clients know nothing of it.
	if _, err := schemes.Parse("x-finger://h?root"); err == nil {
		t.Error("another registry parsed x-finger's grammar")
	}
}

// FuzzViews runs every scheme's view through the registry: no view
// panics, a failure is a Malformed *fetch.Error inside the URL, a success
// marshals to JSON. Seeded from fetch's URL corpus.
func FuzzViews(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("..", "fetch", "testdata", "fuzz", "FuzzViews", "*"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(b), "\n") {
			if s, ok := strings.CutPrefix(l, "string("); ok {
				if v, err := strconv.Unquote(strings.TrimSuffix(s, ")")); err == nil {
					f.Add(v)
				}
			}
		}
	}
	reg := schemes.Registry()
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := reg.Parse(raw)
		if err != nil {
			return
		}
		v, err := reg.View(u)
		if err != nil {
			var e *fetch.Error
			if !errors.As(err, &e) || e.Kind != fetch.KindMalformed || e.Offset < 0 || e.Offset > len(e.URL) {
				t.Fatalf("View(%q): %v is not a Malformed *Error inside the URL", raw, err)
			}
			return
		}
		if _, err := json.Marshal(v); err != nil {
			t.Fatal(err)
		}
		// Every view, whatever the scheme, must not panic either.
		ftp.ParseURL(u)
		http.ParseURL(u)
		mailto.ParseURL(u)
		nntp.ParseURL(u)
		nntp.ParseNewsURL(u)
		telnet.ParseURL(u)
		file.ParseURL(u)
		if g, err := gopher.ParseURL(u); err == nil && g.Type != 0 && !strings.ContainsRune(g.Selector, '\t') && !strings.ContainsRune(g.Search, '\t') {
			s := gopher.URLString(u.Host, u.Port, g.Type, g.Selector, g.Search, g.HasSearch, g.Plus, g.HasPlus)
			w, err := reg.Parse(s)
			if err != nil {
				t.Fatalf("URLString of %q = %q: %v", raw, s, err)
			}
			g2, err := gopher.ParseURL(w)
			if err != nil || *g2 != *g {
				t.Fatalf("URLString of %q = %q, which reads %+v, %v; want %+v", raw, s, g2, err, g)
			}
		}
	})
}
