package wais_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	"github.com/fetchproject/fetch/schemes/wais"
	"github.com/fetchproject/fetch/schemes/wais/apdu"
)

// waisdSlices answers retrievals of doc the way integration/waisd does:
// like slices, but a slice starting at the very end gets the "out of
// range" diagnostic alone, as one past the end does.
func waisdSlices(t *testing.T, docid, doc []byte) func(int, *apdu.Search) []byte {
	return func(_ int, q *apdu.Search) []byte {
		r, err := apdu.ParseRetrieval(q.Terms)
		if err != nil {
			t.Errorf("fake: %v", err)
			return nil
		}
		size := int64(len(doc))
		switch {
		case r.Start >= size:
			return textResponse(docid, nil, outOfRange)
		case r.End > size:
			return textResponse(docid, doc[r.Start:], outOfRange)
		}
		return textResponse(docid, doc[r.Start:r.End])
	}
}

// ranges is the byte ranges the fake was asked for, in order.
func ranges(t *testing.T, f *fake) [][2]int64 {
	t.Helper()
	var rs [][2]int64
	for _, q := range f.requests() {
		r, err := apdu.ParseRetrieval(q.Terms)
		if err != nil {
			t.Fatalf("a request that is no retrieval: %v", err)
		}
		rs = append(rs, [2]int64{r.Start, r.End})
	}
	return rs
}

func sameRanges(a, b [][2]int64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// resume fetches u from byte off and reads the body.
func resume(t *testing.T, u string, off int64) (*fetch.Result, []byte, error) {
	t.Helper()
	req, err := fetch.NewRequest(u)
	if err != nil {
		t.Fatal(err)
	}
	req.Offset = off
	res, err := client(fetch.Options{}).Do(context.Background(), req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Close()
	b, err := io.ReadAll(res.Document.Body)
	return res, b, err
}

// TestWAISResumeFromOffset: a retrieval addresses byte ranges, so
// Request.Offset (fetch -C) starts the first slice there; the body is the
// rest of the document and Document.Offset says where it starts, which
// is what the command checks before it appends.
func TestWAISResumeFromOffset(t *testing.T) {
	doc := bytes.Repeat([]byte("0123456789abcdef"), 63)[:1000]
	for _, c := range []struct {
		off    int64
		ranges [][2]int64
		size   int64
	}{
		{300, [][2]int64{{300, 556}, {556, 812}, {812, 1068}}, -1},
		// The first slice is the last: the size is known, as from byte 0.
		{900, [][2]int64{{900, 1156}}, 1000},
	} {
		f := newFake(t, slices(t, []byte("id"), doc))
		res, body, err := resume(t, "wais://"+f.srv.Addr+"/db/TEXT/id", c.off)
		if err != nil || !bytes.Equal(body, doc[c.off:]) {
			t.Errorf("from byte %d: %d bytes, %v; want the last %d", c.off, len(body), err, len(doc)-int(c.off))
			continue
		}
		if d := res.Document; d.Offset != c.off || d.Size != c.size {
			t.Errorf("from byte %d: Offset %d, Size %d; want %d, %d", c.off, d.Offset, d.Size, c.off, c.size)
		}
		if got := ranges(t, f); !sameRanges(got, c.ranges) {
			t.Errorf("from byte %d: asked for %v, want %v", c.off, got, c.ranges)
		}
	}
}

// TestWAISResumeAtEnd: resuming a copy that is already whole gives an
// empty body from the document's end, as the file driver does, whether
// the server answers a slice at the end with an empty text and "out of
// range" (freeWAIS-sf, the fake's slices) or with the diagnostic alone
// (waisd): the byte before the offset is asked for to tell it from a
// shorter document.
func TestWAISResumeAtEnd(t *testing.T) {
	doc := bytes.Repeat([]byte("x"), 1000)
	for name, answer := range map[string]func(*testing.T, []byte, []byte) func(int, *apdu.Search) []byte{
		"empty text": slices, "diagnostic alone": waisdSlices,
	} {
		f := newFake(t, answer(t, []byte("id"), doc))
		res, body, err := resume(t, "wais://"+f.srv.Addr+"/db/TEXT/id", 1000)
		if err != nil || len(body) != 0 {
			t.Errorf("%s: %d bytes, %v; want an empty body", name, len(body), err)
			continue
		}
		if d := res.Document; d.Offset != 1000 || d.Size != 1000 {
			t.Errorf("%s: Offset %d, Size %d; want 1000, 1000", name, d.Offset, d.Size)
		}
		if got, want := ranges(t, f), [][2]int64{{1000, 1256}, {999, 1000}}; !sameRanges(got, want) {
			t.Errorf("%s: asked for %v, want %v", name, got, want)
		}
	}
}

// TestWAISResumePastEnd: a local copy longer than the document is no part
// of it: the resume fails as file: and ftp: fail (a server error, "cannot
// resume at byte N"), rather than appending nothing and passing for whole.
func TestWAISResumePastEnd(t *testing.T) {
	doc := bytes.Repeat([]byte("x"), 1000)
	for name, answer := range map[string]func(*testing.T, []byte, []byte) func(int, *apdu.Search) []byte{
		"empty text": slices, "diagnostic alone": waisdSlices,
	} {
		for _, off := range []int64{1001, 5000} {
			f := newFake(t, answer(t, []byte("id"), doc))
			_, _, err := resume(t, "wais://"+f.srv.Addr+"/db/TEXT/id", off)
			var fe *fetch.Error
			if fetch.KindOf(err) != fetch.KindServer || !errors.As(err, &fe) || fe.Op != "resume" ||
				!strings.Contains(err.Error(), "cannot resume at byte") {
				t.Errorf("%s, from byte %d: error %v (kind %v); want a server error, cannot resume", name, off, err, fetch.KindOf(err))
			}
			if got, want := ranges(t, f), [][2]int64{{off, off + testChunk}, {off - 1, off}}; !sameRanges(got, want) {
				t.Errorf("%s, from byte %d: asked for %v, want %v", name, off, got, want)
			}
		}
	}
}

// TestWAISResumeBadOffset: a negative offset is a usage error, and one no
// WAIS request can address (freeWAIS keeps positions in a 32-bit long) a
// policy refusal; neither sends anything.
func TestWAISResumeBadOffset(t *testing.T) {
	f := newFake(t, slices(t, []byte("id"), []byte("doc")))
	for off, kind := range map[int64]fetch.Kind{-1: fetch.KindUsage, 1<<31 - 1: fetch.KindPolicy, 1 << 40: fetch.KindPolicy} {
		_, _, err := resume(t, "wais://"+f.srv.Addr+"/db/TEXT/id", off)
		if fetch.KindOf(err) != kind {
			t.Errorf("from byte %d: error %v (kind %v), want kind %v", off, err, fetch.KindOf(err), kind)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// payloads is a Capture that counts the payload bytes it is given.
type payloads struct {
	mu sync.Mutex
	n  int
}

func (p *payloads) Exchange(string, net.Addr) (io.Writer, io.Writer) { return io.Discard, io.Discard }
func (p *payloads) Payload(net.Addr) io.Writer                       { return p }
func (p *payloads) Write(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n += len(b)
	return len(b), nil
}

// TestWAISInfoReadsOneSlice: --info fetches and closes the body unread.
// The Request does not say so, and a document has no request but a
// retrieval that tells whether it exists, so Fetch asks for the first
// slice and no other; what it holds reaches no archive, and the size is
// claimed only when that slice is the whole document. The metadata a
// freeWAIS document id implies (length, headline) needs no slice.
func TestWAISInfoReadsOneSlice(t *testing.T) {
	docid := apdu.AppendDocID(nil, map[int]string{
		apdu.DocIDOriginalDatabase: "db", apdu.DocIDOriginalLocalID: "0 1000 /srv/db/big.txt",
	})
	for _, c := range []struct {
		size     int
		wantSize int64
	}{{1000, -1}, {100, 100}} {
		f := newFake(t, slices(t, docid, bytes.Repeat([]byte("x"), c.size)))
		req, err := fetch.NewRequest("wais://" + f.srv.Addr + "/db/TEXT/" + fetch.Escape(string(docid), ""))
		if err != nil {
			t.Fatal(err)
		}
		capture := &payloads{}
		req.Capture = capture
		res, err := client(fetch.Options{}).Do(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		d := res.Document
		if d.Size != c.wantSize || d.Meta["length"] != "1000" || d.Meta["headline"] != "big.txt   /srv/db/" || d.MIMEType != "text/plain" {
			t.Errorf("%d bytes: Size %d, metadata %v", c.size, d.Size, d.Meta)
		}
		res.Close()
		time.Sleep(50 * time.Millisecond) // a request sent at Close would have arrived
		if got, want := ranges(t, f), [][2]int64{{0, testChunk}}; !sameRanges(got, want) {
			t.Errorf("%d bytes: asked for %v, want %v", c.size, got, want)
		}
		capture.mu.Lock()
		if capture.n != 0 {
			t.Errorf("%d bytes: %d bytes archived of a body never read", c.size, capture.n)
		}
		capture.mu.Unlock()
	}
}

// lynxURL is the document URL Lynx's HTWAIS.c writes for the freeWAIS
// document id of TestWAISLynxDocument: /database/type/length/ then each
// field as "type=value;", the value's bytes outside
// [A-Za-z0-9./-_$] %-encoded.
const lynxURL = "/my%20db/TEXT/1000/2=my%20db;3=0%201000%20/srv/wais/my%20db/100%25.txt;7=%00;"

func lynxDocID() []byte {
	return apdu.AppendDocID(nil, map[int]string{
		apdu.DocIDOriginalDatabase: "my db", apdu.DocIDOriginalLocalID: "0 1000 /srv/wais/my db/100%.txt",
	})
}

// TestWAISLynxParse: Lynx's form is read into the binary document id the
// server gave, its length kept; a field longer than 127 bytes takes a
// two-byte length, as libwww writes it. RFC 1738's form holds no "/" in
// its wpath, so the two never meet: a fourth segment after anything but
// a number is still refused as RFC 1738's.
func TestWAISLynxParse(t *testing.T) {
	schemes := wais.Schemes(wais.Config{})
	w, err := wais.ParseURL(fetchtest.MustParse(t, "wais://h"+lynxURL, schemes...))
	if err != nil {
		t.Fatal(err)
	}
	if want := (wais.URL{Database: "my db", WType: "TEXT", WPath: string(lynxDocID()), IsDoc: true, Lynx: true, Length: 1000}); *w != want {
		t.Errorf("Lynx's form read as %+v, want %+v", *w, want)
	}
	long := "0 0 /" + strings.Repeat("d", 200)
	w, err = wais.ParseURL(fetchtest.MustParse(t, "wais://h/db/TEXT/0/3="+fetch.Escape(long, "/")+";", schemes...))
	if err != nil {
		t.Fatal(err)
	}
	if want := string(apdu.AppendDocIDField(nil, 3, []byte(long))); w.WPath != want || !strings.HasPrefix(w.WPath, "\x03\x81\x4d") {
		t.Errorf("a 205-byte field read as % x..., want % x...", w.WPath[:4], want[:4])
	}
	for _, c := range []struct {
		in     string
		part   string
		offset int
	}{
		{"wais://h/db/T/a/b", "wpath", 15},                   // RFC 1738's form: "/" in the wpath
		{"wais://h/db/T/12/", "wpath", 17},                   // no document id
		{"wais://h/db/T/12/abc", "wpath", 17},                // not type=value;
		{"wais://h/db/T/12/2=a", "wpath", 20},                // no ";"
		{"wais://h/db/T/12/2=a;x=b;", "wpath", 21},           // a type that is no number
		{"wais://h/db/T/12/2=a;99999999999=b;", "wpath", 21}, // a type past 2^31
		{"wais://h/db/T/99999999999999999999/2=a;", "length", 14},
	} {
		_, err := wais.ParseURL(fetchtest.MustParse(t, c.in, schemes...))
		fetchtest.WantViewError(t, c.in, err, c.part, c.offset)
	}
}

// TestWAISLynxDocument: a Lynx-style document URL retrieves the same
// document as the RFC 1738 URL a search lists for it: the same id byte
// for byte, the same slices; the length it carries is shown as the
// document's length when the id implies none.
func TestWAISLynxDocument(t *testing.T) {
	docid := lynxDocID()
	doc := bytes.Repeat([]byte("0123456789abcdef"), 63)[:1000]
	f := newFake(t, slices(t, docid, doc))
	res, body, err := fetchBody(t, client(fetch.Options{}), "wais://"+f.srv.Addr+lynxURL)
	if err != nil || !bytes.Equal(body, doc) {
		t.Fatalf("%d bytes, %v", len(body), err)
	}
	want := [][2]int64{{0, 256}, {256, 512}, {512, 768}, {768, 1024}}
	if got := ranges(t, f); !sameRanges(got, want) {
		t.Errorf("asked for %v, want %v", got, want)
	}
	if d := res.Document; d.MIMEType != "text/plain" || d.Meta["wais-docid"] != fetch.Escape(string(docid), "") ||
		d.Meta["wais-database"] != "my db" || d.Meta["length"] != "1000" {
		t.Errorf("document facts %+v", d)
	}

	// An id that is no freeWAIS one implies no length: the URL's is shown.
	other := string(apdu.AppendDocIDField(nil, 9, []byte("x")))
	f = newFake(t, slices(t, []byte(other), []byte("doc")))
	res, body, err = fetchBody(t, client(fetch.Options{}), "wais://"+f.srv.Addr+"/db/TEXT/3/9=x;")
	if err != nil || string(body) != "doc" || res.Document.Meta["length"] != "3" {
		t.Errorf("%q, %v, metadata %v", body, err, res.Document.Meta)
	}
}
