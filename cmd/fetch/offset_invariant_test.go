package main

import (
	"errors"
	"math/rand"
	"strconv"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
)

// TestMaskedOffsetInvariant: for malformed URLs built around a
// login "user:PASSWORD@" after "//" (with '%' escapes, bytes that are not
// UTF-8, IPv6 hosts, extra '@' and ':', wrappers), the error the command
// reports keeps its Offset inside the URL it shows, and shows none of the
// password, in Error() and on standard error.
func TestMaskedOffsetInvariant(t *testing.T) {
	reg := schemes.Registry()
	pick := func(r *rand.Rand, s []string) string { return s[r.Intn(len(s))] }
	schemesL := []string{"ftp://", "FTP://", "http://", "https://", "nntp://", "gopher://", "telnet://", "wais://", "prospero://", "file://", "news://", "x://", "<URL:ftp://", "URL:http://", " <http://", "http:/", "ftp:", "", ""}
	users := []string{"joe", "", "J%41", "j%zz", "u\xff", "[::1]", "j o", "j\t", "%40"}
	pws := []string{"SECRETpw", "SEC%52ETpw", "SECRETpw%zz", "SEC RETpw", "SEC@RETpw", "SEC:RETpw", "SECRETpw\xff", "SEC?RETpw", "SEC#RETpw", "SEC%40RETpw", "SEC%RETpw", "SEC[::1]RETpw"}
	hosts := []string{"h", "H", "[::1]", "[fe80::1%25eth0]", "[::1", "h:99999", "h:8x", "h%zz", "\xff.com", "a@b", "h:", "[::1]:21", "h]", "H@[::1]"}
	rests := []string{"", "/", "/a b", "/a!b", "/x;type=q", "/%zz", "/\xff", "?q", "#f", "/a%2Fb", "/x#a b", "/a@b c", "/x:y z", ">", "/a b>"}
	rng := rand.New(rand.NewSource(1))
	for i := 0; i < 40000; i++ {
		raw := pick(rng, schemesL) + pick(rng, users) + ":" + pick(rng, pws) + "@" + pick(rng, hosts) + pick(rng, rests)
		u, err := reg.Parse(raw)
		if err == nil {
			if _, err = reg.View(u); err == nil {
				continue
			}
		}
		var fe *fetch.Error
		if !errors.As(err, &fe) {
			t.Fatalf("%q: %v is not a *fetch.Error", raw, err)
		}
		if fe.Offset < -1 || fe.Offset > len(fe.URL) {
			t.Errorf("library: %q: offset %d outside %q", raw, fe.Offset, fe.URL)
		}
		msg := withURL(raw, err).Error()
		if fe.Offset < -1 || fe.Offset > len(fe.URL) {
			t.Errorf("command: %q: offset %d outside %q", raw, fe.Offset, fe.URL)
		}
		for _, frag := range []string{"SECR", "RETpw", "SEC%52"} {
			if strings.Contains(msg, frag) {
				t.Errorf("%q: %q shows the password", raw, msg)
				break
			}
		}
		if i%40 != 0 {
			continue
		}
		// The command as run: its message on standard error, whose offset
		// indexes the URL it prints.
		_, _, stderr := runFetch(t, "", raw)
		if strings.Contains(stderr, "SECR") || strings.Contains(stderr, "RETpw") {
			t.Errorf("fetch %q: stderr %q shows the password", raw, stderr)
		}
		url, rest, ok := strings.Cut(strings.TrimPrefix(stderr, "fetch: "), ": parse: ")
		if _, n, found := strings.Cut(rest, "(at offset "); ok && found {
			n, _, _ = strings.Cut(n, ")")
			if off, err := strconv.Atoi(n); err != nil || off < 0 || off > len(url) {
				t.Errorf("fetch %q: offset %q outside the URL in %q", raw, n, stderr)
			}
		}
	}
}

// TestSchemelessLoginMasked: curl's "user:password@host/path",
// whose password holds "@", "?" or "#" unencoded, is shown with all of the
// password masked, as fetch.RedactedText masks one after "//" (up to the
// last "@" before the first "/"); the first "@" showed the rest of it,
// and a "?" or "#" left it whole.
func TestSchemelessLoginMasked(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"joe:Q7@zW@host/a b", "joe:****@host/a b"},
		{"joe:Q7?zW@host/a b", "joe:****@host/a b"},
		{"joe:Q7#zW@host/a b", "joe:****@host/a b"},
		{"joe:Q7@zW@host", "joe:****@host"},
	} {
		if got := redactArg(c.in); got != c.want {
			t.Errorf("redactArg(%q) = %q, want %q", c.in, got, c.want)
		}
		_, _, stderr := runFetch(t, "", c.in)
		if strings.Contains(stderr, "zW") {
			t.Errorf("fetch %q: stderr %q shows the password", c.in, stderr)
		}
	}
}
