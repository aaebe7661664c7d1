package gopher

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

// TestRenderAttributesText pins the rendering of every kind of block: a
// stray line before the first block, an item with a URL and one without,
// views with and without language, size and URL, a multi-line abstract,
// a form, and blocks of no known name.
func TestRenderAttributesText(t *testing.T) {
	const reply = "stray line\r\n" +
		"+INFO: 0Some file\tmoo selector\thost2\t7070\t+\r\n" +
		"+ADMIN:\r\n Admin: Frodo <fng@bogus.edu>\r\n Mod-Date: Wed Jul 28 17:02:01 1993 <19930728170201>\r\n no colon\r\n" +
		"+VIEWS:\r\n Text/plain: <15k>\r\n text/plain De_DE: <2k>\r\n application/postscript:\r\n\r\n" +
		"+ABSTRACT:\r\n First line\r\n second line\r\n" +
		"+ASK:\r\n Ask: Your name?\tGopher\r\n Note: be honest\r\n Choose: Colour\tred\tgreen\r\n" +
		"+SMELL: of roses\r\n Roses\r\n\tand tabs\r\n" +
		"+\r\n" +
		"+INFO: 1No host\tsel\t\t70\r\n+VIEWS:\r\n text/plain: <1k>\r\n"
	const want = "  (no block):\n    stray line\n\n" +
		"Some file\n  URL: gopher://host2:7070/0moo%20selector%09%09+\n" +
		"  Admin: Frodo <fng@bogus.edu>\n  Mod-Date: Wed Jul 28 17:02:01 1993 <19930728170201>\n" +
		"  Views:\n" +
		"    text/plain <15k>  gopher://host2:7070/0moo%20selector%09%09+Text/plain\n" +
		"    text/plain De_DE <2k>  gopher://host2:7070/0moo%20selector%09%09+text/plain%20De_DE\n" +
		"    application/postscript  gopher://host2:7070/0moo%20selector%09%09+application/postscript\n" +
		"  Abstract:\n    First line\n    second line\n" +
		"  Form:\n    Ask: Your name? [Gopher]\n    Note: be honest\n    Choose: Colour [red | green]\n" +
		"  SMELL: of roses\n    Roses\n    \tand tabs\n" +
		"  :\n\n" +
		"No host\n  Views:\n    text/plain <1k>\n"
	attrs, err := ParseAttributes([]byte(reply))
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := RenderAttributes(&b, attrs); err != nil {
		t.Fatal(err)
	}
	if b.String() != want {
		t.Errorf("rendered\n%q, want\n%q", b.String(), want)
	}
}

// writeRecorder counts the bytes written to it and keeps the longest
// single write.
type writeRecorder struct {
	n, longest int
	err        error // returned by every write, when set
}

func (w *writeRecorder) Write(p []byte) (int, error) {
	if w.err != nil {
		return 0, w.err
	}
	w.n += len(p)
	w.longest = max(w.longest, len(p))
	return len(p), nil
}

// TestRenderAttributesStreams: the rendering of a large attribute reply
// goes to the writer as it is made, not built whole first (a 3.5 MB
// reply of 100,000 views was 12 MB of text, built and then copied).
func TestRenderAttributesStreams(t *testing.T) {
	const views = 20000
	a := Attributes{Info: &Item{Type: '0', Name: "doc", Selector: "/doc", Host: "h", Port: 70}, URL: "gopher://h:70/0/doc%09%09+"}
	for i := range views {
		typ := "text/p" + strconv.Itoa(i)
		a.Views = append(a.Views, View{Type: typ, Size: "1k", URL: "gopher://h:70/0/doc%09%09+" + typ})
	}
	var w writeRecorder
	if err := RenderAttributes(&w, []Attributes{a}); err != nil {
		t.Fatal(err)
	}
	if w.n < views*40 {
		t.Fatalf("%d bytes rendered for %d views", w.n, views)
	}
	if w.longest > 64<<10 {
		t.Errorf("a write of %d bytes (of %d): the rendering is held before it is written", w.longest, w.n)
	}

	// A failed write is the rendering's error.
	failed := errors.New("disk full")
	if err := RenderAttributes(&writeRecorder{err: failed}, []Attributes{a}); !errors.Is(err, failed) {
		t.Errorf("rendering to a failing writer: %v, want %v", err, failed)
	}
}

// TestParseAttributesLinesApart: the blocks' lines share one slice, but
// each block's is its own: appending to one leaves the next as it was.
func TestParseAttributesLinesApart(t *testing.T) {
	attrs, err := ParseAttributes([]byte("+INFO: 0a\t/a\th\t70\t+\r\n+ABSTRACT:\r\n one\r\n two\r\n+SMELL:\r\n roses\r\n"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := attrs[0].Blocks
	if len(blocks) != 3 || blocks[0].Lines != nil || len(blocks[1].Lines) != 2 || len(blocks[2].Lines) != 1 {
		t.Fatalf("blocks %+v", blocks)
	}
	_ = append(blocks[1].Lines, "three")
	if blocks[2].Lines[0] != "roses" {
		t.Errorf("appending to +ABSTRACT's lines changed +SMELL's: %q", blocks[2].Lines)
	}
}
