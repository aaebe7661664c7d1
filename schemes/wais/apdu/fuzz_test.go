package apdu

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

// fuzzSeeds are whole messages: the golden requests in testdata and
// responses of every shape a server sends.
func fuzzSeeds(f *testing.F) [][]byte {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.golden"))
	var out [][]byte
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, b)
	}
	docid := AppendDocID(nil, map[int]string{DocIDOriginalDatabase: "db", DocIDOriginalLocalID: "0 5 /srv/db/a"})
	for _, p := range []PDU{
		&SearchResponse{Status: 1, RecordsReturned: 1, ResultSetStatus: Unused, PresentStatus: 0, Info: &ResponseInfo{
			SeedWordsUsed: "a", Headers: []DocHeader{{DocID: docid, Version: Unused, Score: 7, BestMatch: Unused,
				Length: 5, Lines: 1, Types: []string{"TEXT"}, Source: "db", Headline: "a   /srv/db/"}}}},
		&SearchResponse{RecordsReturned: 2, ResultSetStatus: Unused, PresentStatus: 0, ReferenceID: []byte("3"), Info: &ResponseInfo{
			Texts:       []DocText{{DocID: docid, Text: []byte("hello")}},
			Diagnostics: []Diagnostic{{Code: "SF", Info: "Request out of range", Surrogate: true}}}},
		&SearchResponse{RecordsReturned: 1, ResultSetStatus: Unused, PresentStatus: 0, Info: &ResponseInfo{
			Diagnostics: []Diagnostic{{Code: "S1", Info: "The following database is not available: x"}}}},
		&InitResponse{Result: true, Init: Init{PreferredMessageSize: 100000, MaximumRecordSize: 100000}},
		&Init{PreferredMessageSize: 100000, MaximumRecordSize: Unused},
	} {
		b, err := p.Marshal()
		if err != nil {
			f.Fatal(err)
		}
		out = append(out, AppendMessage(nil, "wais", b))
	}
	return out
}

// FuzzDecode reads arbitrary bytes as a message: no panic, no read past
// the end, and whatever decodes encodes to bytes that decode and encode
// the same again.
func FuzzDecode(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		_, m, err := ReadMessage(bytes.NewReader(data), 1<<20)
		if err != nil {
			var tl *ErrTooLarge
			if !errors.Is(err, ErrMalformed) && !errors.As(err, &tl) && err != io.EOF && err != io.ErrUnexpectedEOF {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		p, err := Decode(m)
		if err != nil {
			if !errors.Is(err, ErrMalformed) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		b1, err := p.Marshal()
		if err != nil {
			return // a header part over 65,535 bytes cannot be written back
		}
		p2, err := Decode(b1)
		if err != nil {
			t.Fatalf("re-encoded %T does not decode: %v\n%x", p, err, b1)
		}
		b2, err := p2.Marshal()
		if err != nil || !bytes.Equal(b1, b2) {
			t.Fatalf("encoding not stable: %v\n%x\n%x", err, b1, b2)
		}
		if s, ok := p.(*Search); ok && s.Terms != nil {
			ParseRetrieval(s.Terms)
		}
		if r, ok := p.(*SearchResponse); ok && r.Info != nil {
			for _, h := range r.Info.Headers {
				if id, ok := ParseDocID(h.DocID); ok {
					ParseLocalID(id.Fields[DocIDOriginalLocalID])
				}
			}
		}
	})
}
