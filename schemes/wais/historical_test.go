package wais_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/wais/apdu"
)

// TestEmptyWTypeSendsText: "db//docid" has an empty wtype (RFC 1738
// allows *uchar). The historical client library (freeWAIS's
// generate_retrieval_apdu) always puts a type term in a retrieval, TEXT
// when none is given; freeWAIS-sf's getData calls strlen(doc->Type) on
// it, so a retrieval without the term crashed the server's child and the
// client saw a truncated transfer. An empty wtype is sent as TEXT.
func TestEmptyWTypeSendsText(t *testing.T) {
	f := newFake(t, func(_ int, q *apdu.Search) []byte {
		return textResponse([]byte("id"), []byte("doc"))
	})
	_, body, err := fetchBody(t, client(fetch.Options{}), "wais://"+f.srv.Addr+"/db//id")
	if err != nil || string(body) != "doc" {
		t.Fatalf("%q, %v", body, err)
	}
	for _, q := range f.requests() {
		typed := false
		for _, term := range q.Terms {
			if strings.HasPrefix(term.Attributes, "wt ") {
				typed = true
			}
		}
		if !typed {
			t.Errorf("retrieval sent without a type term: %+v", q.Terms)
		}
	}
}

// TestZeroScoreHitNamedCatalog: freeWAIS-sf scores a hit as its
// weight / 1000 (_BE_normalized), so a real hit can score 0. A single
// such hit whose headline mentions "catalog" is a match, not freeWAIS's
// no-match catalog ("Search produced no result. Here's the Catalog for
// database: ...").
func TestZeroScoreHitNamedCatalog(t *testing.T) {
	f := newFake(t, func(int, *apdu.Search) []byte {
		return searchResponse(apdu.DocHeader{DocID: []byte("\x02\x03lib\x03\x190 812 /srv/lib/catalog.txt"), Version: apdu.Unused,
			Score: 0, BestMatch: apdu.Unused, Length: 812, Lines: 20, Types: []string{"TEXT"}, Source: "lib",
			Headline: "catalog.txt   /srv/lib/"})
	})
	res, err := client(fetch.Options{}).Fetch(context.Background(), "wais://"+f.srv.Addr+"/lib?catalog")
	if err != nil {
		t.Fatal(err)
	}
	e := res.Listing.Entries[0]
	if strings.Contains(res.Listing.Title, "no document matched") || e.Name != "catalog.txt   /srv/lib/" {
		t.Errorf("a matching document shown as the no-match catalog: title %q, entry %q", res.Listing.Title, e.Name)
	}
}

// TestFailedSearchWithCatalog: freeWAIS-sf adds the no-match
// catalog to any answer without hits, a failed search's too: run_search
// returns an S1 diagnostic ("query syntax error: ...", "field unexists",
// "Serious error in server") and handleRelevanceFeedbackSearch then
// appends the catalog. That is a server diagnostic (exit 6), not "no
// document matched".
func TestFailedSearchWithCatalog(t *testing.T) {
	f := newFake(t, func(int, *apdu.Search) []byte {
		return message(&apdu.SearchResponse{RecordsReturned: 2, ResultSetStatus: apdu.Unused, PresentStatus: 0,
			Info: &apdu.ResponseInfo{Headers: []apdu.DocHeader{{DocID: []byte("\x02\x02db\x03\x0f0 0 /srv/db.cat"),
				Version: apdu.Unused, Score: 0, BestMatch: apdu.Unused, Length: 40, Lines: 2, Types: []string{"TEXT"},
				Source: "db", Headline: "Search produced no result. Here's the Catalog for database: db"}},
				Diagnostics: []apdu.Diagnostic{{Code: "S1", Info: "query syntax error: ti=(a"}}}})
	})
	res, err := client(fetch.Options{}).Fetch(context.Background(), "wais://"+f.srv.Addr+"/db?ti%3D(a")
	if fetch.KindOf(err) != fetch.KindServer || !strings.Contains(err.Error(), "query syntax error") {
		title := ""
		if res != nil && res.Listing != nil {
			title = res.Listing.Title
		}
		t.Errorf("error %v (kind %v), listing %q; want the S1 diagnostic as a server error", err, fetch.KindOf(err), title)
	}
}
