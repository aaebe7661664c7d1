package prospero

import (
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

func TestQuote(t *testing.T) {
	cases := map[string]string{
		"":            "''",
		"ASCII":       "ASCII",
		"/pub/file":   "'/pub/file'",
		"AFTP/pub":    "AFTP'/pub'", // quoting starts mid-token, as dirsrv writes it
		"0/selector":  "0'/selector'",
		"it's":        "it'''s'", // the quote is itself quoted
		"it's /here":  "it'''s /here'",
		"a b":         "a' b'",
		"don't/stop":  "don'''t/stop'",
		"'":           "''''",
		"plus+comma,": "plus'+comma,'",
	}
	for in, want := range cases {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
		// and back
		lines, err := splitReply([]byte("X " + quote(in) + "\n"))
		if err != nil || len(lines) != 1 || len(lines[0]) != 2 || lines[0][1] != in {
			t.Errorf("split(quote(%q)) = %q, %v", in, lines, err)
		}
	}
}

// splitReply reads every line of b as the driver reads a reply, each
// line a slice of its own.
func splitReply(b []byte) ([]Line, error) {
	r := lineReader{text: string(b)}
	var lines []Line
	for r.next() {
		lines = append(lines, slices.Clone(r.line))
	}
	if r.err != nil {
		return nil, r.err
	}
	return lines, nil
}

// links reads every link of r.
func links(r *Reply) []Link {
	var ks []Link
	lr := r.readLinks()
	for k, ok := lr.read(); ok; k, ok = lr.read() {
		ks = append(ks, k)
	}
	return ks
}

func TestSplitReply(t *testing.T) {
	cases := []struct {
		in   string
		want string // lines joined by " | ", tokens by ","
	}{
		{"A B\n", "A,B"},
		{"A  B\tC\r\nD\n", "A,B,C | D"},
		{"LINK  L FILE x\n", "LINK,L,FILE,x"}, // dirsrv's two spaces
		{"X AFTP'/pub' 0'/selector' ''\n", "X,AFTP/pub,0/selector,"},
		{"X 'it''s' ''''\n", "X,it's,'"},
		{"X 'a\nb' c\n", "X,a\nb,c"}, // a quoted LF does not end the line
		{"\n\nX\n\n", "X"},
		{"X no-final-newline", "X,no-final-newline"},
		{"X a''b\n", "X,ab"},
	}
	for _, c := range cases {
		lines, err := splitReply([]byte(c.in))
		if err != nil {
			t.Errorf("%q: %v", c.in, err)
			continue
		}
		var parts []string
		for _, l := range lines {
			parts = append(parts, strings.Join(l, ","))
		}
		if got := strings.Join(parts, " | "); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
	if _, err := splitReply([]byte("X 'open\n")); !errors.Is(err, errSyntax) {
		t.Errorf("unterminated quote: %v", err)
	}
	if _, err := splitReply([]byte("X" + strings.Repeat(" a", maxLineTokens+1))); !errors.Is(err, fetch.ErrLineTooLong) {
		t.Errorf("too many tokens: %v", err)
	}
}

// dirsrv's reply to GET-OBJECT-INFO #ALL for a file: its FIELD method
// without SEQUENCE, then the INTRINSIC ones it appends to every object.
const objectReply = `ATTRIBUTE OBJECT FIELD ACCESS-METHOD AFTP INTERNET-D ftp.example(2121) ASCII '/pub/file one' BINARY
ATTRIBUTE OBJECT INTRINSIC SIZE SEQUENCE '12 bytes'
ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE PROSPERO-CONTENTS '' '' '' ''
ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE LOCAL '' '' '' ''
`

func TestParseObjectReply(t *testing.T) {
	r := mustParse(t, objectReply)
	ms := accessMethods(r.Attrs)
	want := `[[AFTP INTERNET-D ftp.example(2121) ASCII /pub/file one BINARY] [PROSPERO-CONTENTS    ] [LOCAL    ]]`
	if got := fmt.Sprint(ms); got != want {
		t.Errorf("methods %s\nwant    %s", got, want)
	}
	if r.Attrs[0].Type != "" || r.Attrs[1].Type != "SEQUENCE" || r.Attrs[1].Value[0] != "12 bytes" {
		t.Errorf("attributes %+v", r.Attrs)
	}
	// the newer FIELD form with its type is read the same way
	r = mustParse(t, "ATTRIBUTE OBJECT FIELD ACCESS-METHOD SEQUENCE GOPHER '' h(70) '' 0'/x'\n")
	if got := fmt.Sprint(accessMethods(r.Attrs)); got != "[[GOPHER  h(70)  0/x]]" {
		t.Errorf("FIELD with SEQUENCE: %s", got)
	}
}

// A listing: LINK lines with two spaces, EXTERNAL links followed by their
// CACHED access method, a nested attribute that belongs to no link.
const listReply = `LINK  L DIRECTORY pub INTERNET-D pros.example(1525) ASCII '/pub' 0
LINK  L EXTERNAL 'read me' INTERNET-D ftp.example(2121) ASCII '/pub/README' 0
ATTRIBUTE CACHED FIELD ACCESS-METHOD AFTP '' '' '' '' TEXT
ATTRIBUTE> LINK FIELD ID SEQUENCE REMOTE 7
LINK  L EXTERNAL menu INTERNET-D gopher.example(70) ASCII 1'/menu' 0
ATTRIBUTE CACHED FIELD ACCESS-METHOD GOPHER '' '' '' ''
LINK  L FILE x INTERNET-D pros.example ASCII '/x' 3
LINK  L NULL secret NULL NULL NULL NULL 0
`

func TestParseListReply(t *testing.T) {
	ks := links(mustParse(t, listReply))
	if len(ks) != 5 {
		t.Fatalf("%d links", len(ks))
	}
	if k := ks[1]; k.Name != "read me" || k.Target != "EXTERNAL" || len(k.Attrs) != 1 || k.Attrs[0].AppliesTo != "CACHED" {
		t.Errorf("external link %+v", k)
	}
}

func TestParseFailures(t *testing.T) {
	cases := map[string]string{
		"FAILURE NOT-FOUND\n":                                   "FAILURE NOT-FOUND",
		"FAILURE NOT-AUTHORIZED\n":                              "FAILURE NOT-AUTHORIZED",
		"FAILURE SERVER-FAILED 'disk on fire'\n":                "FAILURE SERVER-FAILED disk on fire",
		"ERROR Malformed input line: 'x'\n":                     "ERROR Malformed input line: x",
		"VERSION-NOT-SUPPORTED TRY 5\n":                         "VERSION-NOT-SUPPORTED TRY 5",
		"ATTRIBUTE OBJECT FIELD A x\nFAILURE NOT-A-DIRECTORY\n": "FAILURE NOT-A-DIRECTORY",
	}
	for in, want := range cases {
		_, err := parseReply(in)
		var re *ReplyError
		if !errors.As(err, &re) || re.Error() != want {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
	for _, bad := range []string{"ATTRIBUTE OBJECT\n", "ATTRIBUTE OBJECT WEIRD X\n", "LINK L FILE x\n", "ATTRIBUTE OBJECT INTRINSIC X\n", "FORWARDED a b\n"} {
		if _, err := parseReply(bad); !errors.Is(err, errSyntax) {
			t.Errorf("%q: %v, want a syntax error", bad, err)
		}
	}
	r := mustParse(t, "FORWARDED INTERNET-D new.example(1600) ASCII '/moved' 2\nNONE-FOUND\nWARNING MESSAGE hi\n")
	if f := r.Forwarded; f == nil || f.Host != "new.example(1600)" || f.HSOName != "/moved" || f.Version != "2" || !r.NoneFound || len(r.Warnings) != 1 {
		t.Errorf("%+v %+v", r, r.Forwarded)
	}
}

func mustParse(t *testing.T, s string) *Reply {
	t.Helper()
	r, err := parseReply(s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestMapMethod(t *testing.T) {
	o := origin{host: "pros.example", hsoname: "/the/object"}
	cases := []struct {
		in   string
		url  string // "" when the method is not followed
		kind string
	}{
		// the path is relative to the anonymous FTP root
		{"AFTP INTERNET-D ftp.example(2121) ASCII '/pub/file one' BINARY", "ftp://ftp.example:2121/pub/file%20one;type=i", "document"},
		{"AFTP INTERNET-D ftp.example ASCII '/a;b/c' TEXT", "ftp://ftp.example/a%3Bb/c;type=a", "document"},
		{"AFTP INTERNET-D ftp.example ASCII '/pub' DIRECTORY", "ftp://ftp.example/pub/", "listing"},
		// empty fields: the link's own host and name
		{"AFTP '' '' '' '' BINARY", "ftp://pros.example/the/object;type=i", "document"},
		{"FTP INTERNET-D h ASCII '/etc/motd' TEXT", "ftp://h/%2Fetc/motd;type=a", "document"},
		{"GOPHER INTERNET-D g.example(7070) ASCII 0'/doc.txt' TEXT", "gopher://g.example:7070/0/doc.txt", "document"},
		{"GOPHER INTERNET-D g.example ASCII 1'/Fun Stuff' ", "gopher://g.example/1/Fun%20Stuff", "listing"},
		// a one-character sixth field is the item type; the name is the whole selector
		{"GOPHER INTERNET-D g.example(150) ASCII '1/Fun Stuff/Pyro' 1", "gopher://g.example:150/11/Fun%20Stuff/Pyro", "listing"},
		{"WAIS INTERNET-D w.example(2100) ASCII db", "wais://w.example:2100/db", "listing"},
		{"TELNET INTERNET-D t.example(2323) ASCII '' ''", "telnet://t.example:2323/", "session"},
		{"PROSPERO-CONTENTS '' '' '' ''", "", ""},
		{"LOCAL '' '' ASCII /etc/passwd", "", ""},
		{"NFS INTERNET-D h ASCII /x /fs", "", ""},
		{"MAGIC a b c d", "", ""},
		{"AFTP INTERNET-D h(0) ASCII /x BINARY", "", ""},
		{"AFTP INTERNET-D h(70000) ASCII /x BINARY", "", ""},
		{"AFTP INTERNET-D h(21 ASCII /x BINARY", "", ""},
		{"AFTP INTERNET-D 'h h' ASCII /x BINARY", "", ""},
		{"AFTP INTERNET-D h ASCII 'x\ny' BINARY", "", ""},
		{"GOPHER INTERNET-D h ASCII '8user' ''", "", ""},
		{"AFTP INTERNET-D h", "", ""},
	}
	for _, c := range cases {
		lines, err := splitReply([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		m := mapMethod(lines[0], o, nil)
		if m.URL != c.url || string(m.Kind) != c.kind {
			t.Errorf("%s:\n got %q (%s) %s\nwant %q (%s)", c.in, m.URL, m.Kind, m.Why, c.url, c.kind)
		}
		if m.URL == "" && m.Why == "" {
			t.Errorf("%s: not followed and no reason given", c.in)
		}
	}
}

// TestChooseMethod: the first usable method in the server's order wins;
// PROSPERO-CONTENTS and LOCAL, which dirsrv appends to every file, never
// do while another one is usable.
func TestChooseMethod(t *testing.T) {
	offered := [][]string{
		{"LOCAL", "", "", "", ""},
		{"PROSPERO-CONTENTS", "", "", "", ""},
		{"AFS", "", "", "ASCII", "/afs/x"},
		{"GOPHER", "", "g(70)", "", "0/x"},
		{"AFTP", "", "f", "", "/x", "BINARY"},
	}
	ms := resolveMethods(offered, origin{host: "p"}, nil)
	if i := chosen(ms); i != 3 {
		t.Errorf("chose %d (%v)", i, ms)
	}
	if !offersContents(ms) {
		t.Error("PROSPERO-CONTENTS not seen")
	}
	if i := chosen(resolveMethods(offered[:3], origin{host: "p"}, nil)); i != -1 {
		t.Errorf("chose %d among unusable methods", i)
	}
}

// TestMethodURLBounds: an access method with an empty name takes its
// link's hsoname, so its URL repeats it: a listing reply of 190 KB (an
// EXTERNAL link of a 128 KiB hsoname, then 1,000 such methods) took a
// GiB and 20 s. The URLs made from one reply are bounded as a whole;
// past the bound a method is not followed, and says so.
func TestMethodURLBounds(t *testing.T) {
	text := "LINK L EXTERNAL x h.example '' ASCII /" + strings.Repeat("%", 128<<10) + " 0\n" +
		strings.Repeat("ATTRIBUTE LINK FIELD ACCESS-METHOD AFTP '' h.example '' ''\n", 1000)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := mustParse(t, text)
	u, _ := fetch.Parse("prospero://p.example//")
	l := (&Driver{}).listing(&fetch.Request{URL: u}, target{hsoname: "/"}, r)
	if err := l.ReadAll(); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 128<<20 {
		t.Errorf("a listing reply of %d bytes allocated %d MiB", len(text), alloc>>20)
	}
	if len(l.Entries) != 1 || !strings.HasPrefix(l.Entries[0].URL, "ftp://h.example/%25%25") {
		t.Errorf("entries %.200v", l.Entries)
	}

	budget := 1000
	ms := resolveMethods([][]string{{"AFTP", "", "h", "", ""}, {"AFTP", "", "h", "", "/short"}}, origin{host: "p", hsoname: strings.Repeat("a", 1000)}, &budget)
	if ms[0].URL != "" || !strings.Contains(ms[0].Why, "bytes") || ms[1].URL != "ftp://h/short" || !ms[1].Chosen {
		t.Errorf("past the bound: %+v", ms)
	}
}

// TestReplyBounds: a reply is refused once it passes maxReplyLines lines
// or maxReplyTokens tokens, whatever its size in octets.
func TestReplyBounds(t *testing.T) {
	lines, err := splitReply([]byte(strings.Repeat("a\n", maxReplyLines)))
	if err != nil || len(lines) != maxReplyLines {
		t.Errorf("%d lines: %d read, %v", maxReplyLines, len(lines), err)
	}
	_, err = splitReply([]byte(strings.Repeat("a\n", maxReplyLines) + "a"))
	if !errors.Is(err, errReplyTooLarge) || !strings.Contains(err.Error(), "more than 100000 lines") {
		t.Errorf("%d lines: %v", maxReplyLines+1, err)
	}
	// Blank lines are dropped, not counted.
	if _, err := splitReply([]byte(strings.Repeat("\n", maxReplyLines+1) + "a\n")); err != nil {
		t.Errorf("blank lines: %v", err)
	}
	// Lines of 4000 tokens: within maxLineTokens, but 251 of them pass
	// maxReplyTokens long before maxReplyLines.
	line := "a" + strings.Repeat(" a", 3999) + "\n"
	n := maxReplyTokens / 4000
	if _, err := splitReply([]byte(strings.Repeat(line, n))); err != nil {
		t.Errorf("%d tokens: %v", n*4000, err)
	}
	_, err = splitReply([]byte(strings.Repeat(line, n) + "a"))
	if !errors.Is(err, errReplyTooLarge) || !strings.Contains(err.Error(), "more than 1000000 tokens") {
		t.Errorf("%d tokens: %v", n*4000+1, err)
	}
}

// TestLargeListingMemory: a LIST reply at the driver's bounds (99,990
// short LINK lines, 3.7 MB: under maxReply and maxReplyLines) is read
// from its text. Parsing it allocates next to nothing, and its listing,
// read an entry at a time, holds little beside the text. Held as lines of
// tokens, then links, then entries, it took 61 MB at once, and a fetch of
// it 150 MB resident: over the 64 MiB maxReply is to keep a fetch under.
func TestLargeListingMemory(t *testing.T) {
	const n = maxReplyLines - 10
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "LINK L FILE n ASCII h ASCII /%05d 0\n", i)
	}
	text := b.String()
	if len(text) > maxReply {
		t.Fatalf("the reply is %d bytes, over maxReply", len(text))
	}
	u, _ := fetch.Parse("prospero://p.example//")

	var start, parsed, midway runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&start)
	r, err := parseReply(text)
	runtime.ReadMemStats(&parsed)
	if err != nil {
		t.Fatal(err)
	}
	l := (&Driver{}).listing(&fetch.Request{URL: u}, target{hsoname: "/"}, r)
	defer l.Close()
	read := 0
	for read < n/2 && l.Next() {
		read++
	}
	runtime.GC()
	runtime.ReadMemStats(&midway)

	// The bounds are generous: what is measured is well under them, and
	// the text held as lines, links or entries is several times them.
	if alloc := parsed.TotalAlloc - start.TotalAlloc; alloc > 256<<10 {
		t.Errorf("parsing a reply of %d bytes allocated %d KiB", len(text), alloc>>10)
	}
	if held := int64(midway.HeapAlloc) - int64(start.HeapAlloc); held > 4<<20 {
		t.Errorf("a listing of %d links, half read, holds %d KiB beside its reply's %d", n, held>>10, len(text)>>10)
	}
	for l.Next() {
		read++
	}
	if e := l.Entry(); read != n || e.URL != "prospero://h//99989" || e.Kind != fetch.EntryFile {
		t.Errorf("%d entries, the last %+v; want %d, the last a file at prospero://h//99989", read, e, n)
	}
	runtime.KeepAlive(text)
}
