package fetch

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// urlSeeds are the test tables' URLs, so each fuzzer starts from the
// spec's examples.
func urlSeeds() []string {
	var s []string
	for _, c := range parseCases {
		s = append(s, c.in)
	}
	s = append(s,
		"ftp://myname@host.dom/%2Fetc/motd", "ftp://h/a;type=i", "ftp://h/a;type=x",
		"gopher://h/1form%09%09+%091%0D%0A+-1%0D%0Ayes%0D%0A.%0D%0A",
		"mailto:%22a,b%22@example.org,c@d.org?cc=x@y&subject=s&body=b",
		"news:<123@host.com>", "news:comp.lang.*", "nntp://h/g/12", "telnet://u:p@h/",
		"wais://h/db/TEXT/0-1", "wais://h/db?q", "file:///etc/motd", "file:/x",
		"prospero://h//n%0012;a=b", "http://[::1]:8080/?q#f", "http://h:0/", "http://bücher.example/",
		"fxqn:/us/va/reston/cnri/ietf/24/asdf%*.fred",
	)
	return s
}

// FuzzParse: Parse never panics, and a URL it accepts has a canonical
// form that parses back to itself.
func FuzzParse(f *testing.F) {
	for _, s := range urlSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		// The generic syntax, and the grammar of the registered schemes.
		if u, err := Parse(raw); err == nil {
			if v, err := Parse(u.String()); err != nil || *v != *u {
				t.Fatalf("Parse(%q) ok, but its String %q gives %+v, %v", raw, u.String(), v, err)
			}
		} else if _, ok := err.(*Error); !ok {
			t.Fatalf("Parse(%q) error %T is not *Error", raw, err)
		}
		u, err := testParse(raw)
		if err != nil {
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("Parse(%q) error %T is not *Error", raw, err)
			}
			// The offset indexes the URL the error shows, password masked.
			if e.Offset < 0 || e.Offset > len(e.URL) {
				t.Fatalf("Parse(%q): offset %d outside %q", raw, e.Offset, e.URL)
			}
			return
		}
		s := u.String()
		v, err := testParse(s)
		if err != nil {
			t.Fatalf("Parse(%q) ok, but its String %q fails: %v", raw, s, err)
		}
		if v.String() != s {
			t.Fatalf("Parse(%q).String() = %q, but that parses to %q", raw, s, v.String())
		}
		if *u != *v {
			t.Fatalf("Parse(%q) = %+v, its String %q parses to %+v", raw, *u, s, *v)
		}
		// Only the authority can show the password: a path or fragment may
		// hold the same characters by chance ("A://:p@A#:p@").
		authority := u.Redacted()
		if i := strings.Index(authority, "//"); i >= 0 {
			authority = authority[i+2:]
		}
		if i := strings.IndexAny(authority, "/?#"); i >= 0 {
			authority = authority[:i]
		}
		if u.HasPassword && u.Password != "" && strings.Contains(authority, ":"+Escape(u.Password, urlUserKeep)+"@") &&
			u.Password != "****" {
			t.Fatalf("Redacted %q shows the password", u.Redacted())
		}
		if got, want := u.HostPort(1), net.JoinHostPort(u.Host, strconv.Itoa(u.PortOr(1))); got != want {
			t.Fatalf("HostPort = %q, net.JoinHostPort gives %q", got, want)
		}
		if _, err := json.Marshal(u); err != nil {
			t.Fatal(err)
		}
		// The equivalence is reflexive on what parses.
		if eq, err := testSchemes.Equal(raw, s); err != nil || !eq {
			t.Fatalf("Equal(%q, %q) = %v, %v", raw, s, eq, err)
		}
		if r, err := testSchemes.Resolve(u, "../g?x#y"); err == nil {
			_ = r.String()
		}
	})
}

// FuzzViews: no view panics, a failure is a Malformed *Error, and a view
// that succeeds marshals to JSON. The views that moved to their scheme's
// package are fuzzed there (schemes.FuzzViews), from this corpus too.
func FuzzViews(f *testing.F) {
	for _, s := range urlSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := testParse(raw)
		if err != nil {
			return
		}
		v, err := testSchemes.View(u)
		if err != nil {
			e, ok := err.(*Error)
			if !ok || e.Kind != KindMalformed {
				t.Fatalf("View(%q): %v is not a Malformed *Error", raw, err)
			}
			if e.Offset < 0 || e.Offset > len(e.URL) {
				t.Fatalf("View(%q): offset %d outside %q", raw, e.Offset, e.URL)
			}
			return
		}
		if _, err := json.Marshal(v); err != nil {
			t.Fatal(err)
		}
	})
}

// FuzzExtractURLs: ExtractURLs never panics and finds only texts that
// start with "scheme:" and hold no whitespace.
func FuzzExtractURLs(f *testing.F) {
	f.Add(`Yes, Jim, I found it under <URL:ftp://info.cern.ch/pub/www/doc;
      type=d> but you can probably pick it up from <URL:ftp://ds.in
      ternic.net/rfc>.  Note the warning in <URL:http://ds.internic.
      net/instructions/overview.html#WARNING>.`)
	f.Add("see URL:http://h/marie-\n   claude.html, then <ftp:\n //h/x> <b>")
	f.Add("<<URL:http://h/x> URL: <http://h/a> (see URL:http://h/a)")
	for _, s := range urlSeeds() {
		f.Add("text <URL:" + s + "> text")
	}
	f.Fuzz(func(t *testing.T, text string) {
		for _, s := range ExtractURLs(text) {
			if urlSchemeLen(s) == 0 {
				t.Fatalf("ExtractURLs(%q) found %q, which has no scheme", text, s)
			}
			for i := 0; i < len(s); i++ {
				if urlIsSpace(s[i]) {
					t.Fatalf("ExtractURLs(%q) found %q, which holds whitespace", text, s)
				}
			}
		}
	})
}

// TestWriteURLFuzzSeeds writes the seeds above as corpus files under
// testdata/fuzz, so "go test -fuzz" and plain "go test" replay them even
// where f.Add is not reached; run with FETCH_WRITE_SEEDS=1 to refresh.
func TestWriteURLFuzzSeeds(t *testing.T) {
	if os.Getenv("FETCH_WRITE_SEEDS") == "" {
		t.Skip("set FETCH_WRITE_SEEDS=1 to rewrite testdata/fuzz seeds")
	}
	write := func(target string, inputs []string) {
		dir := filepath.Join("testdata", "fuzz", target)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for _, in := range inputs {
			sum := sha256.Sum256([]byte(in))
			name := filepath.Join(dir, "seed-"+hex.EncodeToString(sum[:8]))
			body := "go test fuzz v1\nstring(" + strconv.Quote(in) + ")\n"
			if err := os.WriteFile(name, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	seeds := urlSeeds()
	write("FuzzParse", seeds)
	write("FuzzViews", seeds)
	var texts []string
	for _, c := range extractCases {
		texts = append(texts, c.text)
	}
	write("FuzzExtractURLs", texts)
}
