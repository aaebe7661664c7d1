package mailto

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/emersion/go-message/mail"

	"github.com/fetchproject/fetch/fetch"
)

// FuzzParseAddrSpec: an accepted address is safe for a header and an SMTP
// command line, and parsing its own output gives it back.
func FuzzParseAddrSpec(f *testing.F) {
	for _, s := range []string{"a@example.com", `"a b"@example.com`, `"\\\"it's\ ugly\\\""@example.org`,
		"a@[127.0.0.1]", "a@[IPv6:::1]", "a@bücher.example", "jörg@example.com", "a@b@c", "gorby%kremvax@example.com"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseAddrSpec(s)
		if err != nil {
			return
		}
		spec := a.Spec()
		if strings.ContainsAny(spec, "\r\n\x00") {
			t.Fatalf("%q accepted with a CR, LF or NUL", s)
		}
		for i := 0; i < len(a.Domain); i++ {
			if c := a.Domain[i]; c <= ' ' || c >= 0x7f || c == '<' || c == '>' {
				t.Fatalf("%q: domain %q is not 7-bit atext", s, a.Domain)
			}
		}
		if !strings.HasPrefix(a.Local, `"`) && strings.ContainsAny(a.Local, " <>()[]:;@\\,\"") {
			t.Fatalf("%q: unquoted local part %q holds a special", s, a.Local)
		}
		b, err := parseAddrSpec(spec)
		if err != nil || b.Spec() != spec {
			t.Fatalf("%q -> %q -> %q, %v", s, spec, b.Spec(), err)
		}
	})
}

// fuzzSeeds are mailto URLs for the URL fuzzer: the golden cases and the
// injection attempts.
func fuzzSeeds() []string {
	seeds := []string{
		"mailto:joe@example.com?subject=x%0D%0ABcc:evil@example.com",
		"mailto:joe@example.com%3E%0D%0ARCPT%20TO:%3Cevil@example.com%3E",
		"mailto:a@example.com?body=one%0D%0A.%0D%0Atwo",
		"mailto:a@example.com?subject=" + strings.Repeat("x", 1200),
		"mailto:a@example.com?subject=a%20%20%20%20" + strings.Repeat("%20", 100) + "b",
	}
	for _, tt := range composeTests {
		seeds = append(seeds, tt.url)
	}
	return seeds
}

// FuzzMailtoURL: whatever a mailto URL holds, the driver either refuses it
// or composes a message whose header has only the fields it writes, on
// CR LF lines of at most 998 octets, with the subject intact.
func FuzzMailtoURL(f *testing.F) {
	for _, s := range fuzzSeeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		u, err := fetch.Parse(raw)
		if err != nil || u.Scheme != "mailto" {
			return
		}
		d := testDriver(Config{DryRun: true, From: "me@example.com", AllowBcc: true})
		res, err := d.Fetch(context.Background(), &fetch.Request{URL: u})
		if err != nil {
			if _, ok := err.(*fetch.Error); !ok {
				t.Fatalf("%q: error %v is not a *fetch.Error", raw, err)
			}
			return
		}
		var msg bytes.Buffer
		msg.ReadFrom(res.Document.Body)
		checkMessageShape(t, msg.Bytes())
		view, _ := ParseURL(u)
		checkSubject(t, msg.Bytes(), view.Subject)
	})
}

// FuzzEditor: an edited draft is either refused or becomes a well-formed
// message.
func FuzzEditor(f *testing.F) {
	f.Add("From: me@example.com\nTo: a@example.org\nCc: \nSubject: Hi\n\nbody\n")
	f.Add("To: Carol <carol@example.org>,\n dave@example.org\nX-Extra: x\n\n.\n")
	f.Add("\nonly a body")
	f.Add("To: a@example.org\r\nSubject: caf\xc3\xa9\r\n\r\nbody")
	f.Add("To: undisclosed-recipients:;, \"a b\" <\"a b\"@example.org>\nBcc: x@example.org\n\n")
	f.Fuzz(func(t *testing.T, text string) {
		m := &draft{From: address{Local: "me", Domain: "example.com"}}
		if err := m.fromEditor([]byte(text), true, func(string) {}); err != nil {
			return
		}
		m.Body = normalizeBody(m.Body)
		var msg bytes.Buffer
		if err := compose(&msg, m, fixedDate, "ID@example.com"); err != nil {
			return
		}
		checkMessageShape(t, msg.Bytes())
		checkSubject(t, msg.Bytes(), m.Subject)
	})
}

// checkSubject reads the composed Subject back and compares it with the
// one given, where RFC 2047 decoding can be expected to invert encoding.
func checkSubject(t *testing.T, msg []byte, subject string) {
	t.Helper()
	if subject == "" || strings.Contains(subject, "=?") || !utf8.ValidString(subject) || strings.TrimSpace(subject) != subject {
		return
	}
	r, err := mail.CreateReader(bytes.NewReader(msg))
	if err != nil {
		t.Fatalf("go-message cannot read the message back: %v\n%s", err, msg)
	}
	got, err := r.Header.Subject()
	if err != nil || got != subject {
		t.Fatalf("subject %q came back as %q (%v)\n%s", subject, got, err, msg)
	}
}
