package wais

import (
	"bufio"
	"io"
	"net"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	"github.com/fetchproject/fetch/fetch/wire"
	"github.com/fetchproject/fetch/schemes/wais/apdu"
)

func TestParseURL(t *testing.T) {
	cases := []struct {
		In   string
		Want URL
	}{
		{"wais://h/db", URL{Database: "db"}},
		{"wais://quake.think.com/wais-discussion-archives?lynch", URL{Database: "wais-discussion-archives", Search: "lynch", HasSearch: true}},
		{"wais://h/db?a%20b", URL{Database: "db", Search: "a b", HasSearch: true}},
		// RFC 1630: "+" in a search is a space, a real plus is "%2B"
		{"wais://h/db?c%2B%2B+code", URL{Database: "db", Search: "c++ code", HasSearch: true}},
		{"wais://h:210/db/TEXT/0%2F1%3B2", URL{Database: "db", WType: "TEXT", WPath: "0/1;2", IsDoc: true}},
	}
	refused := []struct {
		In     string
		Part   string
		Offset int
	}{
		{"wais://h/db/TEXT", "wpath", 16},
		{"wais://h/db/T/a/b", "wpath", 15},
		{"wais://h/d;b", "database", 10},
		{"wais://h/db/T=1/x", "wtype", 13},
		{"wais://h", "database", 8},
		{"wais://h/", "database", 9},
		{"wais://h/?words", "database", 9},
		{"wais://h//TEXT/x", "database", 9},
		{"wais://h/db/TEXT/", "wpath", 17},
	}
	fetchtest.CheckViews(t, Schemes(Config{}), ParseURL, cases, refused)
}

// TestLastSliceBeforeMaxPosition: a document ends at byte 2^31 − 1 at
// the latest (README "Limits"); one of 2,147,481,000 bytes is fetched
// whole, its last slice asked for as [2147480000, 2147483647) rather
// than refused for ending past that byte.
func TestLastSliceBeforeMaxPosition(t *testing.T) {
	const start = 2147480000
	tail := make([]byte, 1000) // the document ends at byte 2,147,481,000
	c1, c2 := net.Pipe()
	defer c1.Close()
	defer c2.Close()
	go func() {
		_, m, err := apdu.ReadMessage(c2, 1<<20)
		if err != nil {
			return
		}
		p, err := apdu.Decode(m)
		if err != nil {
			return
		}
		r, err := apdu.ParseRetrieval(p.(*apdu.Search).Terms)
		if err != nil || r.Start != start || r.End > maxPosition {
			t.Errorf("slice asked for: %+v %v", r, err)
			return
		}
		resp := &apdu.SearchResponse{ResultSetStatus: apdu.Unused, PresentStatus: 0, Info: &apdu.ResponseInfo{
			Texts:       []apdu.DocText{{DocID: []byte("id"), Text: tail}},
			Diagnostics: []apdu.Diagnostic{{Code: "SF", Info: "Request out of range", Surrogate: true}}}}
		b, _ := resp.Marshal()
		c2.Write(apdu.AppendMessage(nil, "wais", b))
		io.Copy(io.Discard, c2)
	}()
	c1.SetDeadline(time.Now().Add(10 * time.Second))
	req, err := fetch.NewRequest("wais://h/db/TEXT/id")
	if err != nil {
		t.Fatal(err)
	}
	timer := wire.NewReplyTimer(c1)
	s := &session{req: req, conn: c1, r: bufio.NewReader(timer), timer: timer, max: DefaultMaxMessage}
	b := &body{s: s, db: "db", docid: []byte("id"), wtype: "TEXT", chunk: DefaultChunkSize, next: start}
	if err := b.fetchChunk(); err != nil {
		t.Fatalf("the last slice of a document ending at byte %d, before 2^31-1: %v", start+len(tail), err)
	}
	if len(b.buf) != len(tail) || !b.done {
		t.Errorf("last slice: %d bytes, done %v", len(b.buf), b.done)
	}
}
