package gopher

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata/")

// holeAnswer is a small Gopher+ server: attribute requests get attribute
// blocks (with a +ASK form), Gopher+ requests a "+N" document, and plain
// requests a one-line text.
func holeAnswer(_ int, req string, c net.Conn) {
	line, _, _ := strings.Cut(req, "\r\n")
	f := strings.Split(line, "\t")
	plus := ""
	switch {
	case len(f) >= 2 && f[1] != "" && strings.ContainsRune("+!$", rune(f[1][0])):
		plus = f[1] // "selector<tab>+..." (Gopher+ §2.4)
	case len(f) >= 3:
		plus = f[2] // "selector<tab>search<tab>+..."
	}
	switch {
	case strings.HasPrefix(plus, "!+ASK"):
		io.WriteString(c, "+-2\r\n+ASK:\r\n Ask: Your name?\tGopher\r\n Note: be honest\r\n AskL: Comments?\r\n Choose: Colour\tred\tgreen\r\n Select: Send spam?:0\r\n")
	case strings.HasPrefix(plus, "!"), strings.HasPrefix(plus, "$"):
		io.WriteString(c, "+-2\r\n+INFO: 0doc\t/doc\t127.0.0.1\t7070\t+\r\n+ADMIN:\r\n Admin: Frodo Gophermeister <fng@bogus.edu>\r\n Mod-Date: Wed Jul 28 17:02:01 1993 <19930728170201>\r\n+ABSTRACT:\r\n A short abstract.\r\n")
	case strings.HasPrefix(plus, "+"):
		io.WriteString(c, "+5\r\nhello")
	default:
		io.WriteString(c, "hello\r\n.\r\n")
	}
}

// TestGoldenRequests pins the exact bytes sent for each URL form of RFC 1738
// §3.4, using the RFC's own examples where it gives them.
func TestGoldenRequests(t *testing.T) {
	cases := []struct {
		name string
		path string // after gopher://host:port/
		req  fetch.Request
	}{
		// §3.4.1: an empty gopher-path is type 1 and the empty selector.
		{"empty-path", "", fetch.Request{}},
		{"type-only", "1", fetch.Request{}},
		{"text", "0/about.txt", fetch.Request{}},
		// §3.4.1: a selector that starts with its type character.
		{"type-doubled", "00about", fetch.Request{}},
		{"selector-escapes", "0/a%20b%2Fc%3Fd", fetch.Request{}},
		// §3.4.2: the search follows an encoded tab.
		{"search", "7/search%09gopher%20plus", fetch.Request{}},
		{"search-query-option", "7/search", fetch.Request{Query: "from options"}},
		{"search-empty", "7/search%09", fetch.Request{}},
		// §3.4.3-3.4.4: the Gopher+ string follows the (possibly empty) search.
		{"plus-default-view", "0/about.txt%09%09+", fetch.Request{}},
		{"plus-search", "7/search%09words%09+", fetch.Request{}},
		{"plus-search-attributes", "7/search%09%09!", fetch.Request{}},
		// §3.4.5: an item with a form: fetch +ASK, then answer it.
		{"plus-ask", "0/form%09%09?", fetch.Request{Form: map[string]string{"Your name?": "Ann", "2": "line one\nline two", "3": "2", "4": "yes"}}},
		// §3.4.6: all attributes of an item, of every item of a directory.
		{"plus-attributes", "0/about.txt%09%09!", fetch.Request{}},
		{"plus-dir-attributes", "1%09%09$", fetch.Request{}},
		// §3.4.7: chosen attributes, coded spaces between them.
		{"plus-abstract", "0/about.txt%09%09!+ABSTRACT", fetch.Request{}},
		{"plus-abstract-smell", "0/about.txt%09%09!+ABSTRACT%20+SMELL", fetch.Request{}},
		{"plus-dir-views", "1%09%09$+VIEWS", fetch.Request{}},
		// §3.4.8: an alternate view and language.
		{"plus-view", "0/about.txt%09%09+application/postscript%20Es_ES", fetch.Request{}},
		// §3.4.9: a filled-in form, sent exactly as the RFC shows.
		{"plus-form", "0/form%09%09+%091%0D%0A+-1%0D%0Aask_item1_value%0D%0Aask_item2_value%0D%0A.%0D%0A", fetch.Request{}},
		{"plus-form-empty", "0/form%09%09+%091%0D%0A+-1%0D%0A.%0D%0A", fetch.Request{}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, holeAnswer)
			_, _, err := getWith(t, client(fetch.Options{}), f.url(tc.path), tc.req)
			if err != nil {
				t.Fatalf("fetch: %v", err)
			}
			var got bytes.Buffer
			for i, r := range f.requests() {
				fmt.Fprintf(&got, "--- connection %d: %s\n", i+1, tc.path)
				got.Write(r)
			}
			file := filepath.Join("testdata", "golden", tc.name+".golden")
			if *update {
				os.MkdirAll(filepath.Dir(file), 0o755)
				if err := os.WriteFile(file, got.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(file)
			if err != nil {
				t.Fatalf("%v (run with -update to create it)", err)
			}
			if !bytes.Equal(got.Bytes(), want) {
				t.Errorf("sent bytes differ from %s\n got: %q\nwant: %q", file, got.Bytes(), want)
			}
		})
	}
}
