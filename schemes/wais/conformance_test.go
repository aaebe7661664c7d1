package wais_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	"github.com/fetchproject/fetch/schemes/wais"
	"github.com/fetchproject/fetch/schemes/wais/apdu"
)

// testChunk is the slice size the conformance client asks for: small, so
// that the checks' few KiB of content span many slices.
const testChunk = 256

func newClient(opts fetch.Options, _ string) *fetch.Client {
	c := fetch.NewClient(opts)
	c.Register("wais", wais.New(wais.Config{ChunkSize: testChunk}))
	return c
}

// suiteDocuments is what the conformance client's searches ask for: the
// suite's largest listing is 100,000 entries, and a search's answer may
// hold only about as many headers as were asked for.
const suiteDocuments = 100000

func suiteClient(opts fetch.Options, _ string) *fetch.Client {
	c := fetch.NewClient(opts)
	c.Register("wais", wais.New(wais.Config{ChunkSize: testChunk, MaxDocuments: suiteDocuments}))
	return c
}

// harness describes the wais driver to the conformance suite: the
// document is retrieved slice by slice, the listing is a search.
func harness() *fetchtest.Harness {
	return &fetchtest.Harness{
		Scheme:      "wais",
		DefaultPort: 210,
		ClientFirst: true,
		NewClient:   suiteClient,
		DocumentURL: func(addr string) string { return "wais://" + addr + "/db/TEXT/doc1" },
		ListingURL:  func(addr string) string { return "wais://" + addr + "/db?words" },
		Open:        open,
		ListingLine: func(name string) string { return name + "\n" },
		// A document ends with a short slice or the "out of range"
		// diagnostic: full slices and a close are a truncation.
		EndMarker: true,
		// RFC 1738 §3.9: the database and the wtype are sent as C strings,
		// the search as the seed words. The document id is binary data
		// (freeWAIS's hold NULs) and is not among them.
		Wire: []fetchtest.WirePart{
			{Name: "database", Example: "db",
				URL: func(addr, v string) string { return "wais://" + addr + "/" + fetch.Escape(v, "") + "/TEXT/doc1" }},
			{Name: "wtype", Example: "TEXT",
				URL: func(addr, v string) string { return "wais://" + addr + "/db/" + fetch.Escape(v, "") + "/doc1" }},
			{Name: "search", Example: "words", Listing: true,
				URL: func(addr, v string) string { return "wais://" + addr + "/db?" + fetch.Escape(v, "") }},
		},
		Seeds: seeds(),
	}
}

// message frames p as the server would send it.
func message(p apdu.PDU) []byte {
	b, err := p.Marshal()
	if err != nil {
		panic(err)
	}
	return apdu.AppendMessage(nil, "wais", b)
}

// textResponse is a retrieval response carrying text and diagnostics.
func textResponse(docid, text []byte, diags ...apdu.Diagnostic) []byte {
	info := &apdu.ResponseInfo{Diagnostics: diags}
	if text != nil {
		info.Texts = []apdu.DocText{{DocID: docid, Text: text}}
	}
	return message(&apdu.SearchResponse{RecordsReturned: len(info.Texts) + len(diags),
		ResultSetStatus: apdu.Unused, PresentStatus: 0, Info: info})
}

var outOfRange = apdu.Diagnostic{Code: "SF", Info: "Request out of range", Surrogate: true}

func seeds() [][]byte {
	hits := message(&apdu.SearchResponse{Status: 1, RecordsReturned: 2, ResultSetStatus: apdu.Unused, PresentStatus: 0,
		Info: &apdu.ResponseInfo{SeedWordsUsed: "words", Headers: []apdu.DocHeader{
			{DocID: []byte("a\x00b"), Version: apdu.Unused, Score: 12, BestMatch: apdu.Unused, Length: 5, Lines: 1,
				Types: []string{"TEXT"}, Source: "db", Headline: "a   /srv/db/"},
			{DocID: []byte{}, Version: apdu.Unused, Score: 0, BestMatch: apdu.Unused, Length: apdu.Unused, Lines: apdu.Unused,
				Headline: "Search produced no result. Here's the Catalog for database: db"},
		}}})
	return [][]byte{
		hits,
		append(textResponse([]byte("doc1"), bytes.Repeat([]byte("x"), testChunk)), textResponse([]byte("doc1"), []byte("end"), outOfRange)...),
		textResponse([]byte("doc1"), nil, outOfRange),
		textResponse([]byte("doc1"), nil, apdu.Diagnostic{Code: "S1", Info: "The following database is not available: db"}),
		message(&apdu.InitResponse{Result: true, Init: apdu.Init{PreferredMessageSize: 1000, MaximumRecordSize: 1000}}),
	}
}

// open is a fake WAIS server: it reads the client's first message (a
// keyword search or a retrieval) and says where the content goes.
func open(p *fetchtest.Peer, o fetchtest.Opening) (*fetchtest.Content, error) {
	_, m, err := apdu.ReadMessage(p.Reader(), 1<<20)
	if err != nil {
		return nil, err
	}
	q, err := apdu.Decode(m)
	if err != nil {
		return nil, err
	}
	s, ok := q.(*apdu.Search)
	if !ok {
		return nil, fmt.Errorf("fake: %T", q)
	}
	if o.Listing {
		if s.Seeds == nil {
			return nil, fmt.Errorf("fake: a search was due")
		}
		l := &listingWriter{p: p}
		return &fetchtest.Content{W: l, End: l.end, Abort: func() { p.Close() }}, nil
	}
	r, err := apdu.ParseRetrieval(s.Terms)
	if err != nil {
		return nil, err
	}
	d := &docWriter{p: p, docid: r.DocID}
	return &fetchtest.Content{W: d, End: d.end, Abort: func() { p.Close() }}, nil
}

// docWriter sends what is written as full retrieval slices, without
// waiting for each request (the client asks for them in order); end
// sends the rest as a short slice with the "out of range" diagnostic.
type docWriter struct {
	p     *fetchtest.Peer
	docid []byte
	buf   []byte
}

func (d *docWriter) Write(b []byte) (int, error) {
	d.buf = append(d.buf, b...)
	for len(d.buf) >= testChunk {
		if _, err := d.p.Write(textResponse(d.docid, d.buf[:testChunk])); err != nil {
			return 0, err
		}
		d.buf = d.buf[testChunk:]
	}
	return len(b), nil
}

func (d *docWriter) end() error {
	var text []byte
	if len(d.buf) > 0 {
		text = d.buf
	}
	_, err := d.p.Write(textResponse(d.docid, text, outOfRange))
	return err
}

// listingWriter collects one header per line; end sends them as one
// search response. Past streamAt bytes it stops collecting and streams a
// response whose header announces more than any client accepts, as an
// endless server would.
type listingWriter struct {
	p         *fetchtest.Peer
	buf       bytes.Buffer
	streaming bool
}

const streamAt = wais.DefaultMaxMessage + 1<<20

func (l *listingWriter) Write(b []byte) (int, error) {
	if l.streaming {
		return l.p.Write(b)
	}
	l.buf.Write(b)
	if l.buf.Len() > streamAt {
		l.streaming = true
		if _, err := l.p.Write([]byte("9999999999z2wais         0")); err != nil {
			return 0, err
		}
		if _, err := l.p.Write(l.buf.Bytes()); err != nil {
			return 0, err
		}
	}
	return len(b), nil
}

func (l *listingWriter) end() error {
	var hs []apdu.DocHeader
	for _, name := range bytes.Split(bytes.TrimSuffix(l.buf.Bytes(), []byte("\n")), []byte("\n")) {
		if len(name) == 0 {
			continue
		}
		hs = append(hs, apdu.DocHeader{DocID: name, Version: apdu.Unused, Score: 10, BestMatch: apdu.Unused,
			Length: 5, Lines: 1, Types: []string{"TEXT"}, Source: "db", Headline: string(name)})
	}
	_, err := l.p.Write(message(&apdu.SearchResponse{Status: 1, RecordsReturned: len(hs),
		ResultSetStatus: apdu.Unused, PresentStatus: 0, Info: &apdu.ResponseInfo{SeedWordsUsed: "words", Headers: hs}}))
	return err
}

func TestConformance(t *testing.T) { fetchtest.Run(t, harness()) }

// FuzzServerBytes feeds arbitrary bytes to the driver as the server's
// whole reply.
func FuzzServerBytes(f *testing.F) { fetchtest.FuzzServerBytes(f, harness()) }
