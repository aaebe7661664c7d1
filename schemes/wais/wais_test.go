package wais_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	fetchhttp "github.com/fetchproject/fetch/schemes/http"
	"github.com/fetchproject/fetch/schemes/wais"
	"github.com/fetchproject/fetch/schemes/wais/apdu"
)

// fake is an in-process WAIS server run by a script: answer gets each
// search the client sends and returns the bytes to send back (nil closes
// the connection, hold keeps it open and silent).
type fake struct {
	srv  *fetchtest.Server
	mu   sync.Mutex
	reqs []*apdu.Search
	hdrs []apdu.Header
}

var hold = []byte("hold")

// trickle starts an answer that the fake sends a byte every 20 ms.
var trickle = []byte("\x00trickle\x00")

// closing ends an answer that the fake sends and then closes on.
var closing = []byte("\x00close\x00")

func thenClose(b []byte) []byte { return append(append([]byte{}, b...), closing...) }

func newFake(t *testing.T, answer func(n int, q *apdu.Search) []byte) *fake {
	f := &fake{}
	f.srv = fetchtest.NewServer(t, func(p *fetchtest.Peer) {
		for n := 0; ; n++ {
			h, m, err := apdu.ReadMessage(p.Reader(), 1<<20)
			if err != nil {
				return
			}
			q, err := apdu.Decode(m)
			if err != nil {
				t.Errorf("fake: the client sent an undecodable APDU: %v", err)
				return
			}
			s, ok := q.(*apdu.Search)
			if !ok {
				t.Errorf("fake: the client sent a %T; a URL client needs no Init", q)
				return
			}
			f.mu.Lock()
			f.reqs = append(f.reqs, s)
			f.hdrs = append(f.hdrs, h)
			f.mu.Unlock()
			out := answer(n, s)
			if bytes.Equal(out, hold) {
				p.Hold()
				return
			}
			if out == nil {
				return
			}
			if rest, ok := bytes.CutPrefix(out, trickle); ok {
				for i := range rest {
					if _, err := p.Write(rest[i : i+1]); err != nil {
						return
					}
					time.Sleep(20 * time.Millisecond)
				}
				continue
			}
			last := bytes.HasSuffix(out, closing)
			if _, err := p.Write(bytes.TrimSuffix(out, closing)); err != nil || last {
				return
			}
		}
	})
	return f
}

func (f *fake) requests() []*apdu.Search {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]*apdu.Search(nil), f.reqs...)
}

func client(opts fetch.Options) *fetch.Client {
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = 5 * time.Second
	}
	return newClient(opts, "")
}

// slices answers retrievals of doc from its bytes the way freeWAIS-sf
// does: a slice reaching past the end gets the rest and the "out of
// range" diagnostic, one wholly past it only the diagnostic.
func slices(t *testing.T, docid, doc []byte) func(int, *apdu.Search) []byte {
	return func(_ int, q *apdu.Search) []byte {
		r, err := apdu.ParseRetrieval(q.Terms)
		if err != nil {
			t.Errorf("fake: %v", err)
			return nil
		}
		if !bytes.Equal(r.DocID, docid) {
			t.Errorf("fake: document id %q, want %q byte for byte", r.DocID, docid)
			return textResponse(r.DocID, nil, apdu.Diagnostic{Code: "SF", Info: "Bad DocID in request"})
		}
		size := int64(len(doc))
		switch {
		case r.Start == size && size > 0:
			// freeWAIS-sf: a slice starting at the very end gets an empty
			// text and the diagnostic.
			return textResponse(docid, []byte{}, outOfRange)
		case r.Start >= size:
			return textResponse(docid, nil, outOfRange)
		}
		if r.End > size {
			return textResponse(docid, doc[r.Start:], outOfRange)
		}
		return textResponse(docid, doc[r.Start:r.End])
	}
}

func searchResponse(headers ...apdu.DocHeader) []byte {
	return message(&apdu.SearchResponse{Status: 1, RecordsReturned: len(headers), ResultSetStatus: apdu.Unused,
		PresentStatus: 0, Info: &apdu.ResponseInfo{SeedWordsUsed: "w", Headers: headers}})
}

func fetchBody(t *testing.T, c *fetch.Client, u string) (*fetch.Result, []byte, error) {
	t.Helper()
	return fetchBodyContext(context.Background(), t, c, u)
}

func fetchBodyContext(ctx context.Context, t *testing.T, c *fetch.Client, u string) (*fetch.Result, []byte, error) {
	t.Helper()
	res, err := c.Fetch(ctx, u)
	if err != nil {
		return nil, nil, err
	}
	defer res.Close()
	if res.Document == nil {
		t.Fatalf("%s: a %v, want a document", u, res.Kind)
	}
	b, err := io.ReadAll(res.Document.Body)
	return res, b, err
}

func TestSearchThenRetrieve(t *testing.T) {
	// A freeWAIS-style document id: binary, with a NUL, "/", "%" and a
	// server path; it must come back byte for byte.
	docid := apdu.AppendDocID(nil, map[int]string{
		apdu.DocIDOriginalDatabase: "my db", apdu.DocIDOriginalLocalID: "0 1000 /srv/wais/my db/100%.txt",
	})
	doc := bytes.Repeat([]byte("0123456789abcdef"), 63)[:1000]
	retrieve := slices(t, docid, doc)
	f := newFake(t, func(n int, q *apdu.Search) []byte {
		if q.QueryType == apdu.QueryType1 {
			return retrieve(n, q)
		}
		return searchResponse(
			apdu.DocHeader{DocID: docid, Version: apdu.Unused, Score: 4711, BestMatch: apdu.Unused, Length: 1000, Lines: 3,
				Types: []string{"TEXT", "HTML"}, Source: "my db", Headline: "100%.txt   /srv/wais/my db/   "},
			apdu.DocHeader{DocID: []byte("plain"), Version: apdu.Unused, Score: 3, BestMatch: apdu.Unused, Length: apdu.Unused,
				Lines: apdu.Unused, Headline: "untyped"})
	})
	c := client(fetch.Options{})
	res, err := c.Fetch(context.Background(), "wais://"+f.srv.Addr+"/my%20db?two+words")
	if err != nil {
		t.Fatal(err)
	}
	q := f.requests()[0]
	if q.QueryType != "3" || q.Seeds == nil || q.Seeds.SeedWords != "two words" || len(q.DatabaseNames) != 1 ||
		q.DatabaseNames[0] != "my db" || q.Seeds.MaxDocuments != wais.DefaultMaxDocuments {
		t.Fatalf("search sent: %+v %+v", q, q.Seeds)
	}
	l := res.Listing
	if l == nil || len(l.Entries) != 2 {
		t.Fatalf("listing %+v", res)
	}
	e := l.Entries[0]
	if e.Name != "100%.txt   /srv/wais/my db/" || e.Size != 1000 || e.Type != "TEXT,HTML" ||
		!strings.Contains(e.Description, "score 4711") || !strings.Contains(e.Description, "3 lines") ||
		!strings.Contains(e.Description, "docid %02") || e.Score == nil || *e.Score != 4711 || !strings.HasPrefix(e.ID, "%02") ||
		!strings.HasSuffix(e.URL, "/"+e.ID) {
		t.Errorf("entry %+v", e)
	}
	if !strings.HasPrefix(e.URL, "wais://"+f.srv.Addr+"/my%20db/TEXT/") {
		t.Errorf("entry URL %s", e.URL)
	}
	if l.Entries[1].Size != -1 || !strings.HasSuffix(l.Entries[1].URL, "/my%20db/TEXT/plain") {
		t.Errorf("untyped entry %+v", l.Entries[1])
	}
	fetchtest.CheckEntryURLs(t, "listing", l)
	u, err := fetch.Parse(e.URL)
	if err != nil {
		t.Fatal(err)
	}
	w, err := wais.ParseURL(u)
	if err != nil || !w.IsDoc || w.WPath != string(docid) || w.Database != "my db" || w.WType != "TEXT" {
		t.Fatalf("entry URL view %+v %v", w, err)
	}
	dres, body, err := fetchBody(t, c, e.URL)
	if err != nil || !bytes.Equal(body, doc) {
		t.Fatalf("document: %d bytes, %v", len(body), err)
	}
	// 1000 bytes in slices of 256: 0-256, 256-512, 512-768, 768-1024.
	reqs := f.requests()[1:]
	if len(reqs) != 4 {
		t.Errorf("%d retrieval requests, want 4", len(reqs))
	}
	for i, q := range reqs {
		r, _ := apdu.ParseRetrieval(q.Terms)
		if r.Start != int64(i*testChunk) || r.End != int64((i+1)*testChunk) || r.Type != "TEXT" {
			t.Errorf("request %d: %+v", i, r)
		}
	}
	if dres.Document.MIMEType != "text/plain" || dres.Document.Meta["headline"] != "100%.txt   /srv/wais/my db/" ||
		dres.Document.Meta["length"] != "1000" || dres.Document.Meta["wais-type"] != "TEXT" {
		t.Errorf("document facts %+v", dres.Document)
	}
}

func TestRetrievalEnds(t *testing.T) {
	for _, size := range []int{0, 1, testChunk - 1, testChunk, 2 * testChunk, 5*testChunk + 7} {
		doc := bytes.Repeat([]byte{0, 'x', 0xff}, size)[:size]
		f := newFake(t, slices(t, []byte("id"), doc))
		res, body, err := fetchBody(t, client(fetch.Options{}), "wais://"+f.srv.Addr+"/db/GIF/id")
		if err != nil || !bytes.Equal(body, doc) {
			t.Errorf("size %d: got %d bytes, %v", size, len(body), err)
			continue
		}
		if res.Document.MIMEType != "image/gif" {
			t.Errorf("MIME type %q", res.Document.MIMEType)
		}
		if want := int64(-1); size < testChunk && res.Document.Size != int64(size) || size >= testChunk && res.Document.Size != want {
			t.Errorf("size %d: Size %d", size, res.Document.Size)
		}
		if n := len(f.requests()); n != size/testChunk+1 {
			t.Errorf("size %d: %d requests, want %d", size, n, size/testChunk+1)
		}
	}
}

func TestNoMatchIsTheCatalog(t *testing.T) {
	f := newFake(t, func(int, *apdu.Search) []byte {
		return searchResponse(apdu.DocHeader{DocID: []byte("\x02\x02db\x03\x0f0 0 /srv/db.cat"), Version: apdu.Unused,
			Score: 0, BestMatch: apdu.Unused, Length: 40, Lines: 2, Types: []string{"TEXT"}, Source: "db",
			Headline: "Search produced no result. Here's the Catalog for database: db"})
	})
	res, err := client(fetch.Options{}).Fetch(context.Background(), "wais://"+f.srv.Addr+"/db?nothing")
	if err != nil {
		t.Fatal(err)
	}
	e := res.Listing.Entries[0]
	if !strings.HasPrefix(e.Name, "Catalog of database db") || !strings.Contains(res.Listing.Title, "no document matched") ||
		!strings.Contains(e.Description, "Search produced no result") {
		t.Errorf("catalog shown as %+v (title %q)", e, res.Listing.Title)
	}
}

func TestDiagnostics(t *testing.T) {
	f := newFake(t, func(int, *apdu.Search) []byte {
		return message(&apdu.SearchResponse{RecordsReturned: 1, ResultSetStatus: apdu.Unused, PresentStatus: 0,
			Info: &apdu.ResponseInfo{Diagnostics: []apdu.Diagnostic{{Code: "S1", Info: "The following database is not available: nodb"}}}})
	})
	_, err := client(fetch.Options{}).Fetch(context.Background(), "wais://"+f.srv.Addr+"/nodb?x")
	var d *wais.Diagnostic
	var fe *fetch.Error
	if fetch.KindOf(err) != fetch.KindServer || !errors.As(err, &d) || d.Code != "S1" || !errors.As(err, &fe) ||
		!strings.Contains(fe.Reply, "S1 The following database is not available: nodb") {
		t.Fatalf("error %v (kind %v)", err, fetch.KindOf(err))
	}
	if fetch.KindServer.ExitCode() != 6 {
		t.Fatal("server errors must exit 6")
	}

	// A diagnostic other than "out of range" in the middle of a document
	// is an error, not its end.
	f = newFake(t, func(n int, q *apdu.Search) []byte {
		if n == 0 {
			return textResponse([]byte("id"), bytes.Repeat([]byte("a"), testChunk))
		}
		return textResponse([]byte("id"), nil, apdu.Diagnostic{Code: "SG", Info: "System error in presenting records"})
	})
	_, body, err := fetchBody(t, client(fetch.Options{}), "wais://"+f.srv.Addr+"/db/TEXT/id")
	if !errors.As(err, &d) || d.Code != "SG" || fetch.KindOf(err) != fetch.KindServer || len(body) != testChunk {
		t.Fatalf("mid-document diagnostic: %d bytes, %v", len(body), err)
	}
}

func TestHostileServers(t *testing.T) {
	full := textResponse([]byte("id"), bytes.Repeat([]byte("a"), testChunk))
	for _, c := range []struct {
		name    string
		answer  func(n int, q *apdu.Search) []byte
		opts    fetch.Options
		wantErr error
		kind    fetch.Kind
	}{
		{"header announces more than sent", func(int, *apdu.Search) []byte { return thenClose(full[:len(full)-10]) },
			fetch.Options{}, fetch.ErrTruncated, fetch.KindNetwork},
		{"APDU length beyond the message", func(int, *apdu.Search) []byte {
			b := append([]byte{}, full...)
			b[apdu.HeaderLen], b[apdu.HeaderLen+1] = 0x7f, 0xff
			return b
		}, fetch.Options{}, apdu.ErrMalformed, fetch.KindServer},
		{"slice longer than asked", func(int, *apdu.Search) []byte {
			return textResponse([]byte("id"), bytes.Repeat([]byte("a"), testChunk+1))
		}, fetch.Options{}, apdu.ErrMalformed, fetch.KindServer},
		{"text of another document", func(int, *apdu.Search) []byte {
			return textResponse([]byte("other"), []byte("a"))
		}, fetch.Options{}, apdu.ErrMalformed, fetch.KindServer},
		{"neither text nor diagnostic", func(int, *apdu.Search) []byte {
			return message(&apdu.SearchResponse{ResultSetStatus: apdu.Unused, PresentStatus: 0, Info: &apdu.ResponseInfo{}})
		}, fetch.Options{}, apdu.ErrMalformed, fetch.KindServer},
		{"an Init response instead", func(int, *apdu.Search) []byte {
			return message(&apdu.InitResponse{Result: true})
		}, fetch.Options{}, apdu.ErrMalformed, fetch.KindServer},
		{"message over the bound", func(int, *apdu.Search) []byte {
			return []byte("1000000000z2wais\x00\x00\x00\x00\x00\x00  0")
		}, fetch.Options{}, fetch.ErrTooLarge, fetch.KindPolicy},
		{"retrieval message far over its slice", func(int, *apdu.Search) []byte {
			return []byte("0000200000z2wais\x00\x00\x00\x00\x00\x00  0")
		}, fetch.Options{}, fetch.ErrTooLarge, fetch.KindPolicy},
		{"endless chunks", func(int, *apdu.Search) []byte { return full },
			fetch.Options{MaxSize: 100 * testChunk}, fetch.ErrTooLarge, fetch.KindPolicy},
		// A slice of 256 bytes a byte every 20 ms, each well within
		// the idle timeout, the whole six times longer.
		{"slice trickled", func(int, *apdu.Search) []byte { return append(append([]byte{}, trickle...), full...) },
			fetch.Options{IdleTimeout: time.Second}, fetch.ErrTimeout, fetch.KindNetwork},
		{"stall after a slice", func(n int, _ *apdu.Search) []byte {
			if n > 0 {
				return hold
			}
			return full
		}, fetch.Options{IdleTimeout: 300 * time.Millisecond}, fetch.ErrTimeout, fetch.KindNetwork},
	} {
		t.Run(c.name, func(t *testing.T) {
			fetchtest.NoLeaks(t, func() {
				f := newFake(t, c.answer)
				defer f.srv.Close()
				// A bound not enforced would run into this deadline, whose
				// error is none of the ones wanted.
				ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
				defer cancel()
				_, _, err := fetchBodyContext(ctx, t, client(c.opts), "wais://"+f.srv.Addr+"/db/TEXT/id")
				if !errors.Is(err, c.wantErr) || fetch.KindOf(err) != c.kind || errors.Is(err, context.DeadlineExceeded) {
					t.Errorf("error %v (kind %v), want %v of kind %v", err, fetch.KindOf(err), c.wantErr, c.kind)
				}
			})
		})
	}
}

// TestEmptyParts: a URL without a database, or a document URL without a
// document id, is malformed, the part named, and nothing is sent.
func TestEmptyParts(t *testing.T) {
	f := newFake(t, func(int, *apdu.Search) []byte { return searchResponse() })
	for path, part := range map[string]string{
		"/?words": "database", "": "database", "/": "database", "//TEXT/id": "database",
		"/db/TEXT/": "wpath", "/db//": "wpath",
	} {
		u := "wais://" + f.srv.Addr + path
		_, err := client(fetch.Options{}).Fetch(context.Background(), u)
		var fe *fetch.Error
		if fetch.KindOf(err) != fetch.KindMalformed || !errors.As(err, &fe) || fe.Part != part {
			t.Errorf("%s: error %v (kind %v), want a malformed %s", u, err, fetch.KindOf(err), part)
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests sent for URLs that name nothing to ask for", n)
	}
}

func TestQueryWithoutSearch(t *testing.T) {
	f := newFake(t, func(int, *apdu.Search) []byte { return searchResponse() })
	u := "wais://" + f.srv.Addr + "/db"
	req, err := fetch.NewRequest(u)
	if err != nil {
		t.Fatal(err)
	}
	req.Query = "from option"
	if _, err := client(fetch.Options{}).Do(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if _, err := client(fetch.Options{Prompter: fetch.Answers{"query": "from prompt"}}).Fetch(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(reqs) != 2 || reqs[0].Seeds.SeedWords != "from option" || reqs[1].Seeds.SeedWords != "from prompt" {
		t.Fatalf("searches sent: %+v", reqs)
	}
	_, err = client(fetch.Options{}).Fetch(context.Background(), u)
	if !errors.Is(err, fetch.ErrNoAnswer) || fetch.KindOf(err) != fetch.KindUsage || strings.Contains(err.Error(), "search: search:") {
		t.Fatalf("no query, no prompter: %v", err)
	}
	if len(f.requests()) != 2 {
		t.Fatal("a search was sent without words")
	}
	// "db?" and "db?+" name no words either: the prompt's are asked for.
	for _, empty := range []string{u + "?", u + "?+"} {
		_, err = client(fetch.Options{}).Fetch(context.Background(), empty)
		if !errors.Is(err, fetch.ErrNoAnswer) || len(f.requests()) != 2 {
			t.Fatalf("%s: %v, %d searches sent", empty, err, len(f.requests()))
		}
	}
}

func TestMessageHeader(t *testing.T) {
	f := newFake(t, func(int, *apdu.Search) []byte { return searchResponse() })
	if _, err := client(fetch.Options{}).Fetch(context.Background(), "wais://"+f.srv.Addr+"/db?x"); err != nil {
		t.Fatal(err)
	}
	h := f.hdrs[0]
	if h.Type != 'z' || h.Version != '2' || string(bytes.TrimRight(h.Server[:], "\x00")) != "wais" {
		t.Fatalf("header %+v", h)
	}
}

// TestGateway: with wais_proxy set, a wais: URL is fetched whole through
// that HTTP gateway (RFC 1738 §3.3's gateways, as Lynx and libwww do).
func TestGateway(t *testing.T) {
	var got string
	gw := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.RequestURI
		io.WriteString(w, "through the gateway")
	}))
	defer gw.Close()
	t.Setenv("wais_proxy", gw.URL)
	t.Setenv("no_proxy", "")
	c := fetch.NewClient(fetch.Options{Proxy: fetch.ProxyFromEnvironment, IdleTimeout: 5 * time.Second})
	c.RegisterScheme(wais.Schemes(wais.Config{})...)
	c.RegisterScheme(fetchhttp.Schemes(fetchhttp.Config{})...)
	_, body, err := fetchBody(t, c, "wais://wais.example.org/db?word")
	if err != nil || string(body) != "through the gateway" {
		t.Fatalf("%q, %v", body, err)
	}
	if got != "wais://wais.example.org/db?word" {
		t.Fatalf("the gateway was asked for %q", got)
	}
}

// TestSearchBounds: a search's answer may hold a little more than the
// MaxDocuments asked for, not a flood of tiny records, and its size is
// bounded in proportion: the refusal names the bound and what was asked.
func TestSearchBounds(t *testing.T) {
	const maxDocs = 5
	const records = 2*maxDocs + 16 // the bound: room for diagnostics and some overshoot
	headers := func(n int) []apdu.DocHeader {
		hs := make([]apdu.DocHeader, n)
		for i := range hs {
			hs[i] = apdu.DocHeader{DocID: []byte{'d', byte('a' + i%26)}, Version: apdu.Unused, Score: 1,
				BestMatch: apdu.Unused, Length: apdu.Unused, Lines: apdu.Unused}
		}
		return hs
	}
	search := func(answer []byte) (*fetch.Result, error) {
		f := newFake(t, func(int, *apdu.Search) []byte { return answer })
		defer f.srv.Close()
		c := fetch.NewClient(fetch.Options{IdleTimeout: 5 * time.Second})
		c.Register("wais", wais.New(wais.Config{MaxDocuments: maxDocs}))
		return c.Fetch(context.Background(), "wais://"+f.srv.Addr+"/db?w")
	}

	res, err := search(searchResponse(headers(records)...))
	if err != nil || len(res.Listing.Entries) != records {
		t.Fatalf("%d headers for %d asked: %v", records, maxDocs, err)
	}

	_, err = search(searchResponse(headers(records + 1)...))
	if !errors.Is(err, apdu.ErrTooManyRecords) || fetch.KindOf(err) != fetch.KindServer ||
		!strings.Contains(err.Error(), "more than 26 records") || !strings.Contains(err.Error(), "at most 5 documents") {
		t.Errorf("%d headers for %d asked: error %v (kind %v)", records+1, maxDocs, err, fetch.KindOf(err))
	}

	// Diagnostics count as records too.
	diags := make([]apdu.Diagnostic, records+1)
	for i := range diags {
		diags[i] = apdu.Diagnostic{Code: "S1", Info: "x"}
	}
	_, err = search(message(&apdu.SearchResponse{ResultSetStatus: apdu.Unused, PresentStatus: 0,
		Info: &apdu.ResponseInfo{Diagnostics: diags}}))
	if !errors.Is(err, apdu.ErrTooManyRecords) {
		t.Errorf("%d diagnostics: error %v", len(diags), err)
	}

	// A few records of 64 KiB headlines: within DefaultMaxMessage, over
	// what 26 records of 4 KiB and 64 KiB of framing come to.
	big := headers(3)
	for i := range big {
		big[i].Headline = strings.Repeat("h", 64<<10)
	}
	_, err = search(searchResponse(big...))
	if !errors.Is(err, fetch.ErrTooLarge) || !strings.Contains(err.Error(), "limit of 172032") {
		t.Errorf("a %d-byte answer: error %v", len(searchResponse(big...)), err)
	}
}

// TestSearchEncodedPlus: in a search part "+" stands for a space and a
// real plus is written "%2B" (RFC 1630, "the plus sign is reserved as
// shorthand notation for a space. Therefore, real plus signs must be
// encoded."), so "c%2B%2B+code" searches for "c++ code"; a query given
// outside the URL comes back in the result's URL with its "+" encoded.
func TestSearchEncodedPlus(t *testing.T) {
	f := newFake(t, func(int, *apdu.Search) []byte { return searchResponse() })
	if _, err := client(fetch.Options{}).Fetch(context.Background(), "wais://"+f.srv.Addr+"/db?c%2B%2B+code"); err != nil {
		t.Fatal(err)
	}
	req, err := fetch.NewRequest("wais://" + f.srv.Addr + "/db")
	if err != nil {
		t.Fatal(err)
	}
	req.Query = "a+b c"
	res, err := client(fetch.Options{}).Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(reqs) != 2 {
		t.Fatalf("%d searches sent, want 2", len(reqs))
	}
	if got := reqs[0].Seeds.SeedWords; got != "c++ code" {
		t.Errorf("?c%%2B%%2B+code searched for %q, want %q", got, "c++ code")
	}
	if got := reqs[1].Seeds.SeedWords; got != "a+b c" {
		t.Errorf("the query \"a+b c\" searched for %q", got)
	}
	if got, want := res.URL.String(), "wais://"+f.srv.Addr+"/db?a%2Bb%20c"; got != want {
		t.Errorf("result URL %s, want %s", got, want)
	}
}

// TestDatabaseDelimiter: the database part "db%1Fother" is one database
// name to the URL (RFC 1738 §3.9), but a SearchAPDU joins database names
// with 0x1F: sent, it would ask for "db" and "other". It is refused,
// naming the database part, before anything is sent.
func TestDatabaseDelimiter(t *testing.T) {
	f := newFake(t, func(n int, q *apdu.Search) []byte {
		if q.QueryType == apdu.QueryType1 {
			return textResponse([]byte("id"), []byte("x"))
		}
		return searchResponse()
	})
	for _, path := range []string{"/db%1Fother?words", "/db%1Fother/TEXT/id"} {
		before := len(f.requests())
		_, _, err := func() (*fetch.Result, []byte, error) {
			res, err := client(fetch.Options{}).Fetch(context.Background(), "wais://"+f.srv.Addr+path)
			if err != nil {
				return nil, nil, err
			}
			defer res.Close()
			if res.Document != nil {
				b, err := io.ReadAll(res.Document.Body)
				return res, b, err
			}
			return res, nil, nil
		}()
		reqs := f.requests()[before:]
		if err != nil {
			var fe *fetch.Error
			if !errors.As(err, &fe) || fe.Part != "database" || len(reqs) != 0 {
				t.Errorf("%s: error %v (part %q), %d requests sent", path, err, fe.Part, len(reqs))
			}
			continue
		}
		for _, q := range reqs {
			if len(q.DatabaseNames) != 1 || q.DatabaseNames[0] != "db\x1fother" {
				t.Errorf("%s: the server was asked for the databases %q, want the one database %q", path, q.DatabaseNames, "db\x1fother")
			}
		}
	}
}

// TestEntryURLsFetchBack: a listing entry's URL is "absolute and
// fetchable by the client that produced it" (fetch.Entry). A header
// without a document id, or whose only type holds a line break, is
// listed without a URL ("/db/TEXT/" would be malformed, "/db/TEXT%0A/x"
// refused for its CR/LF).
func TestEntryURLsFetchBack(t *testing.T) {
	f := newFake(t, func(n int, q *apdu.Search) []byte {
		if q.QueryType == apdu.QueryType1 {
			r, _ := apdu.ParseRetrieval(q.Terms)
			return textResponse(r.DocID, []byte("doc"))
		}
		return searchResponse(
			apdu.DocHeader{DocID: []byte{}, Version: apdu.Unused, Score: 3, BestMatch: apdu.Unused, Length: 3,
				Lines: apdu.Unused, Types: []string{"TEXT"}, Headline: "no id"},
			apdu.DocHeader{DocID: []byte("x"), Version: apdu.Unused, Score: 2, BestMatch: apdu.Unused, Length: 3,
				Lines: apdu.Unused, Types: []string{"TEXT\n"}, Headline: "odd type"})
	})
	c := client(fetch.Options{})
	res, err := c.Fetch(context.Background(), "wais://"+f.srv.Addr+"/db?w")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range res.Listing.Entries {
		if e.URL == "" {
			continue // listed without a link: fine
		}
		_, _, err := fetchBody(t, c, e.URL)
		if k := fetch.KindOf(err); k == fetch.KindMalformed || k == fetch.KindPolicy {
			t.Errorf("entry %q: its URL %s is refused by the client that listed it: %v", e.Name, e.URL, err)
		}
	}
}

// TestLongDatabaseName: a database name that does not fit the APDU's
// counted header part (65,535 bytes) is refused naming the URL's
// database part, not as a malformed WAIS message.
func TestLongDatabaseName(t *testing.T) {
	f := newFake(t, func(int, *apdu.Search) []byte { return searchResponse() })
	db := strings.Repeat("d", 70000)
	for _, path := range []string{"/" + db + "?w", "/" + db + "/TEXT/id"} {
		_, err := client(fetch.Options{}).Fetch(context.Background(), "wais://"+f.srv.Addr+path)
		var fe *fetch.Error
		if !errors.As(err, &fe) || fe.Part != "database" || errors.Is(err, apdu.ErrMalformed) {
			part := ""
			if fe != nil {
				part = fe.Part
			}
			t.Errorf("%d-byte database: error part %q, kind %v, malformed-message %v; want the database part named",
				len(db), part, fetch.KindOf(err), errors.Is(err, apdu.ErrMalformed))
		}
	}
	if n := len(f.requests()); n != 0 {
		t.Errorf("%d requests sent", n)
	}
}

// TestRetrievalRecordBound: a retrieval's response is refused once it
// holds more records than a slice needs. A flood of empty header groups
// within the slice's byte bound was decoded whole: 28,000 headers and
// some 22 MiB from an 85 KB answer.
func TestRetrievalRecordBound(t *testing.T) {
	docid := []byte("0 5 /doc")
	flood := func(n int) []byte {
		hs := make([]apdu.DocHeader, n)
		for i := range hs {
			hs[i] = apdu.DocHeader{Version: apdu.Unused, Score: apdu.Unused, BestMatch: apdu.Unused, Length: apdu.Unused, Lines: apdu.Unused}
		}
		return message(&apdu.SearchResponse{ResultSetStatus: apdu.Unused, PresentStatus: 0,
			Info: &apdu.ResponseInfo{Headers: hs, Texts: []apdu.DocText{{DocID: docid, Text: []byte("hello")}}}})
	}
	for _, tt := range []struct {
		headers int
		ok      bool
	}{{0, true}, {63, true}, {64, false}, {10000, false}} {
		f := newFake(t, func(int, *apdu.Search) []byte { return flood(tt.headers) })
		_, body, err := fetchBody(t, client(fetch.Options{IdleTimeout: 5 * time.Second}), "wais://"+f.srv.Addr+"/db/TEXT/"+url.PathEscape(string(docid)))
		f.srv.Close()
		if tt.ok && (err != nil || string(body) != "hello") {
			t.Errorf("a slice with %d header records besides its text: %q, %v", tt.headers, body, err)
		}
		if !tt.ok && (!errors.Is(err, apdu.ErrTooManyRecords) || fetch.KindOf(err) != fetch.KindServer) {
			t.Errorf("a slice with %d header records besides its text: error %v (kind %v), want too many records", tt.headers, err, fetch.KindOf(err))
		}
	}
}
