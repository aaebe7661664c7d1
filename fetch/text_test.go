package fetch

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

// extractCases are ExtractURLs' tests, also the fuzzer's seeds.
var extractCases = []struct {
	text string
	want []string
}{
	// RFC 1738 Appendix, "Examples:", verbatim.
	{`      Yes, Jim, I found it under <URL:ftp://info.cern.ch/pub/www/doc;
      type=d> but you can probably pick it up from <URL:ftp://ds.in
      ternic.net/rfc>.  Note the warning in <URL:http://ds.internic.
      net/instructions/overview.html#WARNING>.`,
		[]string{"ftp://info.cern.ch/pub/www/doc;type=d", "ftp://ds.internic.net/rfc",
			"http://ds.internic.net/instructions/overview.html#WARNING"}},
	// RFC 1738 references: a break before "/".
	{`       <URL:ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol
       /Gopher+/Gopher+.txt>`,
		[]string{"ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol/Gopher+/Gopher+.txt"}},
	// RFC 1630 references: brackets without "URL:", broken lines.
	{`Specification", Thinking Machines Corporation, April 23, 1990.
     <ftp://quake.think.com/pub/wa is/doc/protspec.txt>
  Kahle, B., "Document Identifiers", <ftp:
     //quake.think.com/pub/wais/doc/doc-ids.txt>`,
		[]string{"ftp://quake.think.com/pub/wais/doc/protspec.txt", "ftp://quake.think.com/pub/wais/doc/doc-ids.txt"}},
	// A line broken right after a hyphen: the hyphen stays, the
	// whitespace around the break goes.
	{"see <URL:http://h/marie-\n     claude.html>", []string{"http://h/marie-claude.html"}},
	{"see URL:http://h/marie-\n   claude.html, then", []string{"http://h/marie-claude.html"}},
	// Bare "URL:" prefix: up to whitespace, trailing punctuation out.
	{"Fetch URL:ftp://h/x.txt. Or URL:news:comp.lang.go, maybe.", []string{"ftp://h/x.txt", "news:comp.lang.go"}},
	{"(see URL:http://h/a)", []string{"http://h/a"}},
	{"URL:http://h/f(1)", []string{"http://h/f(1)"}},
	{"URL: <http://h/a>", []string{"http://h/a"}},
	{"a hyphen - not a break URL:http://h/a - b", []string{"http://h/a"}},
	// Not URLs.
	{"mail <joe@example.com> or <b>bold</b> or <see URL:x> <  >", nil},
	{"CURL:http://x/ and URL: nothing", nil},
	{"<<URL:http://h/x>", []string{"http://h/x"}},
	{"<URL:http://h/x", []string{"http://h/x"}}, // unclosed: read as a bare URL: prefix
	{"", nil},
	// Fragments stay inside the brackets.
	{"<URL:http://h/doc#sec>", []string{"http://h/doc#sec"}},
}

func TestExtractURLs(t *testing.T) {
	for _, c := range extractCases {
		got := ExtractURLs(c.text)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("ExtractURLs(%q)\n got %q\nwant %q", c.text, got, c.want)
		}
	}
}

// TestExtractURLsLinear: text is a server's (an article, a document), so
// its cost must grow with its length, not its square. Each "URL:" not
// followed by a scheme was read to the next whitespace, so 64 KiB of
// "URL:-" took seconds and 1 MiB half an hour; a run of ")" at the end
// of a bare URL looked for "(" once a ")". The bound is a thousand times
// what the scan needs.
func TestExtractURLsLinear(t *testing.T) {
	const n = 1 << 20
	for _, c := range []struct{ name, text string }{
		{"closing parentheses", "URL:a:b" + strings.Repeat(")", n)},
		{"URL: without a scheme", strings.Repeat("URL:-", n/5)},
	} {
		name, text := c.name, c.text
		done := make(chan []string, 1)
		go func() { done <- ExtractURLs(text) }()
		select {
		case got := <-done:
			if name == "closing parentheses" && !reflect.DeepEqual(got, []string{"a:b"}) {
				t.Errorf("%s: %.40q", name, got)
			}
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: ExtractURLs of %d bytes still running after 20 s", name, len(text))
		}
	}
}
