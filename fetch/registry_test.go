package fetch

import (
	"errors"
	"strings"
	"testing"
)

// testSchemes holds records with the ports and grammar of RFC 1738's
// schemes, as the scheme packages declare them (package schemes checks
// that its records agree), so the core's tests exercise the registry
// without importing the drivers.
var testSchemes = NewRegistry(
	Scheme{Name: "ftp", DefaultPort: 21, Grammar: Grammar{HostRequired: true}},
	Scheme{Name: "http", DefaultPort: 80, LowPorts: true, Grammar: Grammar{HostRequired: true, QueryEndsHost: true, PlusInQuery: true}},
	Scheme{Name: "https", DefaultPort: 443, LowPorts: true, Grammar: Grammar{HostRequired: true, QueryEndsHost: true, PlusInQuery: true}},
	Scheme{Name: "gopher", DefaultPort: 70, Grammar: Grammar{HostRequired: true, EmptyPath: "1"}},
	Scheme{Name: "nntp", DefaultPort: 119, Grammar: Grammar{HostRequired: true}},
	Scheme{Name: "news", DefaultPort: 119, Grammar: Grammar{HostRequired: true}},
	Scheme{Name: "telnet", DefaultPort: 23, Grammar: Grammar{HostRequired: true}},
	Scheme{Name: "file"},
	Scheme{Name: "mailto"},
	Scheme{Name: "wais", DefaultPort: 210, Grammar: Grammar{HostRequired: true, PlusInQuery: true}},
	Scheme{Name: "prospero", DefaultPort: 1525, Grammar: Grammar{HostRequired: true}},
)

// testParse parses s with testSchemes.
func testParse(s string) (*URL, error) { return testSchemes.Parse(s) }

// The generic syntax alone: a host may be empty, only "/" ends it.
func TestGenericGrammar(t *testing.T) {
	u, err := Parse("ftp:///x")
	if err != nil || u.Host != "" || u.Path != "x" {
		t.Errorf("Parse(ftp:///x) = %+v, %v; the generic syntax lets the host be empty", u, err)
	}
	if _, err := testParse("ftp:///x"); err == nil {
		t.Error("ftp:///x parsed with ftp's grammar, which requires a host")
	}
	_, err = Parse("http://h?q")
	var e *Error
	if !errors.As(err, &e) || e.Part != "host" {
		t.Errorf("Parse(http://h?q) = %v, want a host error: only \"/\" ends the host generically", err)
	}
	u, err = testParse("http://h?q")
	if err != nil || u.Host != "h" || u.Path != "?q" || u.String() != "http://h?q" {
		t.Errorf("http://h?q with http's grammar = %+v, %v", u, err)
	}
}

func TestRegistry(t *testing.T) {
	r := NewRegistry(Scheme{Name: "X-Finger", DefaultPort: 79, Grammar: Grammar{QueryEndsHost: true},
		View: func(u *URL) (any, error) { return u.Path, nil }})
	if got := r.Names(); len(got) != 1 || got[0] != "x-finger" {
		t.Errorf("Names = %v", got)
	}
	if r.DefaultPort("X-FINGER") != 79 || r.DefaultPort("http") != 0 {
		t.Error("DefaultPort does not come from the records")
	}
	u, err := r.Parse("x-finger://h?who")
	if err != nil || u.Path != "?who" {
		t.Fatalf("Parse = %+v, %v", u, err)
	}
	if v, err := r.View(u); v != "?who" || err != nil {
		t.Errorf("View = %v, %v", v, err)
	}
	if v, err := r.View(&URL{Scheme: "gopher"}); v != nil || err != nil {
		t.Errorf("View of an unregistered scheme = %v, %v", v, err)
	}
	var nilReg *Registry
	if _, ok := nilReg.Lookup("http"); ok || nilReg.DefaultPort("http") != 0 || nilReg.Names() != nil {
		t.Error("a nil registry knows a scheme")
	}
	for _, bad := range []Scheme{{Name: "x-finger"}, {Name: "X-FINGER"}, {Name: "1x"}, {Name: ""}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Add(%q) did not panic", bad.Name)
				}
			}()
			r.Add(bad)
		}()
	}
}

// A client's records reach its parser, views, default ports and policy;
// a record without a driver is view-only and fails dispatch as unknown.
func TestClientRegisterScheme(t *testing.T) {
	c := NewClient(Options{})
	rec := &recorder{body: "x"}
	c.RegisterScheme(Scheme{Name: "x-q", DefaultPort: 4999, Grammar: Grammar{HostRequired: true, QueryEndsHost: true}, Driver: rec},
		Scheme{Name: "x-view", DefaultPort: 5999, View: func(u *URL) (any, error) { return "v", nil }})
	if got := c.Schemes(); len(got) != 1 || got[0] != "x-q" {
		t.Errorf("Schemes = %v, want only the scheme with a driver", got)
	}
	if c.DefaultPortOf("x-q") != 4999 {
		t.Errorf("DefaultPortOf(x-q) = %d", c.DefaultPortOf("x-q"))
	}
	res, err := c.Fetch(t.Context(), "x-q://h?a")
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if rec.got.URL.Host != "h" || rec.got.URL.Path != "?a" {
		t.Errorf("driver got %+v", rec.got.URL)
	}
	if _, err := c.Fetch(t.Context(), "x-q:///a"); KindOf(err) != KindMalformed {
		t.Errorf("x-q:///a: %v, want malformed (host required)", err)
	}
	// x-q may not reach x-view's port: the policy knows it from the record.
	if _, err := c.Fetch(t.Context(), "x-q://h:5999/"); !errors.Is(err, ErrPortRefused) || !strings.Contains(err.Error(), "x-view") {
		t.Errorf("x-q to x-view's port: %v, want a refusal naming x-view", err)
	}
	u, _ := c.Parse("x-view://h/")
	if v, err := c.View(u); v != "v" || err != nil {
		t.Errorf("View = %v, %v", v, err)
	}
	if _, err := c.Fetch(t.Context(), "x-view://h/"); !errors.Is(err, ErrUnknownScheme) {
		t.Errorf("fetch of a view-only scheme: %v, want ErrUnknownScheme", err)
	}
	// A driver registered alone, completed by a view-only record.
	c.Register("x-alone", &recorder{body: "y"})
	c.RegisterScheme(Scheme{Name: "x-alone", DefaultPort: 6999, Grammar: Grammar{QueryEndsHost: true}})
	if res, err := c.Fetch(t.Context(), "x-alone://h?z"); err != nil {
		t.Errorf("x-alone: %v", err)
	} else {
		res.Close()
	}
	for _, rec := range []Scheme{{Name: "x-q"}, {Name: "x-alone", Driver: &recorder{}}, {Name: "x-view", Driver: &recorder{}}} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterScheme of %s (driver %v) again did not panic", rec.Name, rec.Driver != nil)
				}
			}()
			c.RegisterScheme(rec)
		}()
	}
}

func TestAs(t *testing.T) {
	type reply struct{ Code int }
	doc := &Document{Native: []any{"text", reply{226}}}
	var r reply
	if !doc.As(&r) || r.Code != 226 {
		t.Errorf("Document.As(*reply) = %+v", r)
	}
	var s string
	if !(&Result{Document: doc}).As(&s) || s != "text" {
		t.Errorf("Result.As(*string) = %q", s)
	}
	var n int
	if doc.As(&n) || doc.As(nil) || doc.As(r) || (*Document)(nil).As(&r) || (&Result{}).As(&r) {
		t.Error("As found a value that is not there, or took a non-pointer")
	}
	var any1 any
	e := &Entry{Native: []any{reply{1}}}
	if !e.As(&any1) || any1.(reply).Code != 1 {
		t.Errorf("Entry.As(*any) = %v", any1)
	}
}

// TestIsSchemeName: RFC 1738's scheme names, in the lower case Register
// and Registry.Add give it, and nothing else.
func TestIsSchemeName(t *testing.T) {
	for s, want := range map[string]bool{
		"http": true, "x": true, "z39.50s": true, "a+b-c.d": true, "prospero": true,
		"": false, "1abc": false, "+ab": false, ".ab": false, "-ab": false,
		"Http": false, "ht tp": false, "ht:tp": false, "ht_tp": false, "é": false, "a\x00": false,
	} {
		if got := isSchemeName(s); got != want {
			t.Errorf("isSchemeName(%q) = %v, want %v", s, got, want)
		}
	}
}
