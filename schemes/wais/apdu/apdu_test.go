package apdu

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func TestCompressedInteger(t *testing.T) {
	// waisprot "Compressed Integers": 7 bits a byte, most significant
	// first, the high bit on every byte but the last.
	for _, c := range []struct {
		n    uint64
		want string
	}{
		{0, "00"}, {127, "7f"}, {128, "8100"}, {300, "822c"}, {16383, "ff7f"},
		{16384, "818000"}, {1<<21 - 1, "ffff7f"}, {1 << 21, "81808000"}, {1<<28 - 1, "ffffff7f"},
	} {
		got := appendCompressed(nil, c.n)
		if hex.EncodeToString(got) != c.want {
			t.Errorf("appendCompressed(%d) = %x, want %s", c.n, got, c.want)
		}
		n, rest, err := readCompressed(append(got, 0xAA))
		if err != nil || n != c.n || len(rest) != 1 {
			t.Errorf("readCompressed(%x) = %d, %x, %v", got, n, rest, err)
		}
	}
	// The padded form (leading 0x80 bytes) reads as the same number.
	if n, _, err := readCompressed([]byte{0x80, 0x80, 0x05}); err != nil || n != 5 {
		t.Errorf("padded 5: %d, %v", n, err)
	}
	for _, bad := range []string{"", "80", "ffffffffff7f", "8fffffff7f"} {
		b, _ := hex.DecodeString(bad)
		if _, _, err := readCompressed(b); err == nil {
			t.Errorf("readCompressed(%s): no error", bad)
		}
	}
}

func TestNum(t *testing.T) {
	for _, c := range []struct {
		n    int64
		want string
	}{
		{0, "740100"}, {255, "7401ff"}, {256, "74020100"}, {65536, "7403010000"},
		{1 << 24, "740401000000"}, {-5, "7404fffffffb"}, {Unused, ""},
	} {
		got := appendNum(nil, tagDocumentID, c.n)
		if hex.EncodeToString(got) != c.want {
			t.Errorf("appendNum(%d) = %x, want %s", c.n, got, c.want)
		}
		if c.n == Unused {
			continue
		}
		tag, v, _, err := readTLV(got)
		if err != nil || tag != tagDocumentID {
			t.Fatalf("readTLV(%x): %d %v", got, tag, err)
		}
		if n, err := num(tag, v); err != nil || n != c.n {
			t.Errorf("num(%x) = %d, %v; want %d", v, n, err, c.n)
		}
	}
}

func TestDiagnosticBytes(t *testing.T) {
	// Diagnostic records keep a two-byte length: code, text, surrogate
	// flag, then 0x1D after the counted bytes.
	d := Diagnostic{Code: "SF", Info: "Request out of range", Surrogate: true}
	got := d.appendTo(nil)
	want := "1c0017" + hex.EncodeToString([]byte("SFRequest out of range")) + "011d"
	if hex.EncodeToString(got) != want {
		t.Fatalf("diagnostic = %x\nwant         %s", got, want)
	}
	var back Diagnostic
	rest, err := back.decode(got)
	if err != nil || len(rest) != 0 || back != d {
		t.Fatalf("decode: %+v, %x, %v", back, rest, err)
	}
}

// unhex joins annotated hex pieces ("16 | 00001e"), ignoring spaces and
// bars, and literal text in quotes.
func unhex(t *testing.T, parts ...string) []byte {
	t.Helper()
	var b []byte
	for _, p := range parts {
		if strings.HasPrefix(p, `"`) {
			b = append(b, strings.Trim(p, `"`)...)
			continue
		}
		h, err := hex.DecodeString(strings.NewReplacer(" ", "", "|", "").Replace(p))
		if err != nil {
			t.Fatalf("bad hex %q", p)
		}
		b = append(b, h...)
	}
	return b
}

// header is the 25-byte header the historical clients write for n bytes:
// length, 'z', version '2', "wais" NUL-padded, no compression, no
// encoding, checksum '0'.
func header(n string) string {
	return `"` + n + `z2wais` + "\x00\x00\x00\x00\x00\x00" + `  0"`
}

func TestGoldenSearch(t *testing.T) {
	// The keyword search Lynx's generate_search_apdu builds, byte by byte
	// from the layout of the specification and freeWAIS-sf's writers.
	want := unhex(t,
		header("0000000037"),
		"0014",                 // header length: 20 bytes, the user information uncounted
		"16",                   // PDU type 22: SearchAPDU
		"00001e 001388 00001e", // small set 30, large set 5000, medium set 30
		"01",                   // replace indicator
		"11 00",                // result set name ""
		"12 02", `"db"`,        // database names
		"14 01", `"3"`, // query type 3: relevance feedback (keywords)
		"63 0d",            // user information (tag 99), 13 bytes
		"6a 05", `"hello"`, // seed words
		"6f 01 01", // date factor 1
		"72 01 c8", // max documents 200
	)
	b, err := NewKeywordSearch("db", "hello", 200).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "search.golden", AppendMessage(nil, "wais", b), want)
}

func TestGoldenRetrieval(t *testing.T) {
	// The type-1 query Lynx's generate_retrieval_apdu builds for bytes
	// [0, 10000) of document "ID" of type TEXT.
	want := unhex(t,
		header("0000000152"),
		"002b",                 // header length: 43 bytes
		"16",                   // SearchAPDU
		"00000a 000010 00000f", // 10, 16, 15
		"01",                   // replace
		"11 03", `"FOO"`,       // result set name
		"12 02", `"db"`, // database
		"14 01", `"1"`, // query type 1
		"13 0f", `" `, "1f", `"Document Text"`, // element set: no database, "Document Text"
		"02 01", `"3"`, // reference id
		"15 69", // the query (tag 21), 105 bytes, uncounted
		"2c 11", `"un re ig ig ig ig"`, "2d 02", `"ID"`,
		"2c 11", `"wt re ig ig ig ig"`, "2d 04", `"TEXT"`,
		"2e 01", `"a"`,
		"2c 11", `"wb ro ig ig ig ig"`, "2d 01", `"0"`,
		"2e 01", `"a"`,
		"2c 11", `"wb rl ig ig ig ig"`, "2d 05", `"10000"`,
		"2e 01", `"a"`,
	)
	b, err := NewRetrieval("db", []byte("ID"), "TEXT", 0, 10000).Marshal()
	if err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "retrieval.golden", AppendMessage(nil, "wais", b), want)
}

func checkGolden(t *testing.T, name string, got, want []byte) {
	t.Helper()
	if !bytes.Equal(got, want) {
		t.Fatalf("encoded:\n%s\nwant:\n%s", hex.Dump(got), hex.Dump(want))
	}
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if !bytes.Equal(file, got) {
		t.Fatalf("%s differs from the encoding:\n%s", path, hex.Dump(file))
	}
	// And the golden message decodes back to what was encoded.
	_, m, err := ReadMessage(bytes.NewReader(file), 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(m); err != nil {
		t.Fatal(err)
	}
}

// roundTrip marshals p, decodes it and compares.
func roundTrip(t *testing.T, p PDU) {
	t.Helper()
	b, err := p.Marshal()
	if err != nil {
		t.Fatalf("%T: %v", p, err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatalf("%T: decode: %v", p, err)
	}
	if !reflect.DeepEqual(got, p) {
		t.Errorf("round trip of %T:\n got %+v\nwant %+v", p, got, p)
	}
}

func TestRoundTrip(t *testing.T) {
	docid := AppendDocID(nil, map[int]string{DocIDOriginalDatabase: "db", DocIDOriginalLocalID: "0 10 /srv/db/a.txt"})
	roundTrip(t, NewKeywordSearch("db", "hello world", 40))
	roundTrip(t, NewRetrieval("db", docid, "TEXT", 10000, 20000))
	roundTrip(t, NewRetrieval("db", []byte{0, 1, 0x1f, 0xff}, "", 0, 5))
	roundTrip(t, &Search{SmallSetUpperBound: 1, LargeSetLowerBound: 2, MediumSetPresentNumber: 3,
		ResultSetName: "r", DatabaseNames: []string{"a", "b"}, QueryType: "3", ReferenceID: []byte{},
		Seeds: &WAISSearch{SeedWords: "w", DateFactor: Unused, BeginDateRange: "19930101", EndDateRange: "19940101", MaxDocuments: 70000}})
	roundTrip(t, &SearchResponse{Status: 1, ResultCount: 0, RecordsReturned: 2, ResultSetStatus: Unused, PresentStatus: 0,
		Info: &ResponseInfo{SeedWordsUsed: "hello",
			Headers: []DocHeader{
				{DocID: docid, Version: Unused, Score: 1234, BestMatch: Unused, Length: 10, Lines: 1, Types: []string{"TEXT", "HTML"},
					Source: "db", Date: "930101", Headline: "a.txt   /srv/db/", OriginCity: "x"},
				{DocID: []byte{}, Version: 2, Score: 0, BestMatch: 1, Length: 1 << 24, Lines: Unused, Headline: "catalog"},
			}}})
	roundTrip(t, &SearchResponse{RecordsReturned: 2, ResultSetStatus: Unused, PresentStatus: 0, ReferenceID: []byte("3"),
		Info: &ResponseInfo{
			Texts:       []DocText{{DocID: docid, Version: 0, Text: bytes.Repeat([]byte("x"), 300)}},
			Diagnostics: []Diagnostic{{Code: "SF", Info: "Request out of range", Surrogate: true}, {Code: "S1", Info: ""}},
		}})
	roundTrip(t, &SearchResponse{ResultSetStatus: 1, PresentStatus: Unused})
	roundTrip(t, &Init{PreferredMessageSize: 100000, MaximumRecordSize: 100000, IDAuthentication: "id",
		ImplementationID: "LS6", ImplementationName: "n", ImplementationVer: "2.2", ReferenceID: []byte("r")})
	roundTrip(t, &InitResponse{Result: true, Init: Init{PreferredMessageSize: Unused, MaximumRecordSize: 5}})
}

func TestRetrievalQuery(t *testing.T) {
	r, err := ParseRetrieval(RetrievalTerms([]byte("id"), "TEXT", 20000, 30000))
	if err != nil || string(r.DocID) != "id" || r.Type != "TEXT" || r.Start != 20000 || r.End != 30000 {
		t.Fatalf("%+v %v", r, err)
	}
	if _, err := ParseRetrieval([]Term{{Operator: "a"}}); err == nil {
		t.Error("a query without a document id parsed")
	}
	if _, err := ParseRetrieval([]Term{{Attributes: attrDocID, Value: []byte("x")}, {Attributes: attrByteFrom, Value: []byte("-1")}}); err == nil {
		t.Error("a negative position parsed")
	}
}

func TestDocID(t *testing.T) {
	b := AppendDocID(nil, map[int]string{DocIDOriginalServer: "h:210", DocIDOriginalLocalID: "0 42 /srv/x"})
	// freeWAIS's layout: tagged strings, then the copyright disposition
	// as a number (a NUL byte on the wire).
	want := unhex(t, "01 05", `"h:210"`, "03 0b", `"0 42 /srv/x"`, "07 01 00")
	if !bytes.Equal(b, want) {
		t.Fatalf("%x, want %x", b, want)
	}
	id, ok := ParseDocID(b)
	if !ok || id.Fields[DocIDOriginalLocalID] != "0 42 /srv/x" {
		t.Fatalf("%+v %v", id, ok)
	}
	l, ok := ParseLocalID(id.Fields[DocIDOriginalLocalID])
	if !ok || l != (LocalID{0, 42, "/srv/x"}) {
		t.Fatalf("%+v %v", l, ok)
	}
	if _, ok := ParseDocID([]byte("plain text id")); ok {
		t.Error("a plain id parsed as freeWAIS's")
	}
}

func TestDecodeBounds(t *testing.T) {
	good, _ := (&SearchResponse{ResultSetStatus: Unused, PresentStatus: 0, Info: &ResponseInfo{
		Headers: []DocHeader{{DocID: []byte("d"), Score: 1, Headline: "h", Types: []string{"TEXT"}}}}}).Marshal()
	// Every truncation of a good APDU fails cleanly (or decodes a prefix
	// that is itself whole); none reads past the end.
	for i := 0; i < len(good); i++ {
		Decode(good[:i])
	}
	for _, c := range []struct{ name, hex string }{
		{"header length beyond the bytes", "00ff17"},
		{"zero header length", "000017"},
		{"unknown PDU", "000163"},
		{"short search response", "00021701"},
		{"tag length beyond", "000c17000000000000000000001b05"},
		{"user info beyond", "000b170000000000000000000063ff"},
		{"diagnostic beyond", "000b1700000000000000000000630a1cffff5346"},
		{"diagnostic without end", "000b17000000000000000000006307" + "1c0003534601" + "00"},
	} {
		b, _ := hex.DecodeString(c.hex)
		if _, err := Decode(b); err == nil {
			t.Errorf("%s: %x decoded", c.name, b)
		}
	}
}

func TestReadMessage(t *testing.T) {
	msg := AppendMessage(nil, "wais", []byte{0, 1, 0x17})
	if _, m, err := ReadMessage(bytes.NewReader(msg), 3); err != nil || len(m) != 3 {
		t.Fatalf("%x %v", m, err)
	}
	if _, _, err := ReadMessage(bytes.NewReader(msg), 2); err == nil {
		t.Error("a message over the bound was read")
	}
	if _, _, err := ReadMessage(bytes.NewReader(msg[:len(msg)-1]), 100); err == nil {
		t.Error("a cut message was read")
	}
	// A header announcing 16 MB with 100 bytes behind it allocates about
	// what arrived, not what was announced.
	claim := append([]byte("0016000000z2wais\x00\x00\x00\x00\x00\x00  0"), make([]byte, 100)...)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, _, err := ReadMessage(bytes.NewReader(claim), 16000000)
	runtime.ReadMemStats(&after)
	if err != io.ErrUnexpectedEOF {
		t.Errorf("a cut message: %v", err)
	}
	if n := after.TotalAlloc - before.TotalAlloc; n > 1<<20 {
		t.Errorf("%d bytes allocated for 100 received", n)
	}
	// length, type, version, server (10), compression, encoding, checksum
	hd := func(length, typ, comp, enc string) []byte {
		return []byte(length + typ + "2" + "wais      " + comp + enc + "0")
	}
	for name, bad := range map[string][]byte{
		"length not a number": hd("00000000x3", "z", " ", " "),
		"no digits":           hd("          ", "z", " ", " "),
		"negative":            hd("-000000003", "z", " ", " "),
		"not Z39.50":          hd("0000000003", "a", " ", " "),
		"compressed":          hd("0000000003", "z", "u", " "),
		"hex encoded":         hd("0000000003", "z", " ", "h"),
		"short":               []byte("0000000003z2"),
	} {
		if _, err := ParseHeader(bad); err == nil {
			t.Errorf("%s: header %q parsed", name, bad)
		}
	}
	if h, err := ParseHeader([]byte("       123Z2wais\x00\x00\x00\x00\x00\x00  0")); err != nil || h.Length != 123 {
		t.Errorf("space-padded length: %+v %v", h, err)
	}
}

// TestDecodeLimit: DecodeLimit refuses a response of more records than
// its bound, counting headers, texts and diagnostics together; Decode
// sets no bound.
func TestDecodeLimit(t *testing.T) {
	r := &SearchResponse{ResultSetStatus: Unused, PresentStatus: 0, Info: &ResponseInfo{
		Headers:     []DocHeader{{DocID: []byte("a")}, {DocID: []byte("b")}},
		Texts:       []DocText{{DocID: []byte("a"), Text: []byte("t")}},
		Diagnostics: []Diagnostic{{Code: "S1", Info: "i"}},
	}}
	b, err := r.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeLimit(b, 4); err != nil {
		t.Errorf("4 records within a bound of 4: %v", err)
	}
	if _, err := Decode(b); err != nil {
		t.Errorf("Decode: %v", err)
	}
	_, err = DecodeLimit(b, 3)
	if !errors.Is(err, ErrTooManyRecords) || !errors.Is(err, ErrMalformed) || !strings.Contains(err.Error(), "more than 3 records") {
		t.Errorf("4 records over a bound of 3: %v", err)
	}
}

// TestDatabaseNameDelimiter: a SearchAPDU names its databases joined by
// 0x1F, so a name holding that byte would read back as several: Marshal
// refuses it.
func TestDatabaseNameDelimiter(t *testing.T) {
	s := &Search{DatabaseNames: []string{"db\x1fother"}, QueryType: QueryRelevance,
		Seeds: &WAISSearch{SeedWords: "w", DateFactor: Unused, MaxDocuments: 10}}
	b, err := s.Marshal()
	if err != nil {
		return // refused: fine
	}
	p, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := p.(*Search).DatabaseNames; !reflect.DeepEqual(got, s.DatabaseNames) {
		t.Errorf("one database %q written, databases %q read back", s.DatabaseNames, got)
	}
}

// TestNumEightBytes: a number of five to eight bytes is in range only
// with leading zeros; eight bytes of ff once overflowed int64 into −1
// (Unused), so a Document-Length or Score so written vanished.
func TestNumEightBytes(t *testing.T) {
	for _, h := range []string{"ffffffffff", "ffffffffffffffff", "fffffffffffffffe", "8000000000000005"} {
		v, _ := hex.DecodeString(h)
		if n, err := num(tagDocumentLength, v); err == nil {
			t.Errorf("num(%s) = %d, want an out-of-range error", h, n)
		}
	}
}
