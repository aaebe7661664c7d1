package http

import (
	"context"
	"io"
	nethttp "net/http"
	"net/http/httptest"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// The driver's records parse "?" as the end of the host, and a document
// gives its response header through As, its status under fetch.MetaStatus.
func TestSchemesAndAs(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		w.Header().Set("X-Archive", "yes")
		w.Header().Add("Link", "</a>; rel=next")
		w.Header().Add("Link", "</b>; rel=prev")
		io.WriteString(w, r.URL.RawQuery)
	}))
	defer srv.Close()
	c := fetch.NewClient(fetch.Options{})
	c.RegisterScheme(Schemes(Config{})...)
	res, err := c.Fetch(context.Background(), srv.URL+"?q=1") // no "/" before "?"
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	body, _ := io.ReadAll(res.Document.Body)
	if string(body) != "q=1" {
		t.Errorf("body %q, want the query", body)
	}
	var h nethttp.Header
	if !res.Document.As(&h) || h.Get("X-Archive") != "yes" || len(h.Values("Link")) != 2 {
		t.Errorf("As(*http.Header) gave %v", h)
	}
	if res.Document.Meta[fetch.MetaStatus] != "200 OK" || res.Document.Meta["x-archive"] != "yes" {
		t.Errorf("Meta %v", res.Document.Meta)
	}
	var other *nethttp.Response
	if res.Document.As(&other) {
		t.Error("As filled a type the driver does not keep")
	}
}
