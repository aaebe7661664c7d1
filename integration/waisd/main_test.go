package main

import (
	"bytes"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/schemes/wais/apdu"
)

// testServer loads a collection of one database, "db", with the given
// files, and returns a function that sends one APDU and decodes the reply.
func testServer(t *testing.T, files map[string]string) (*collection, func(apdu.PDU) apdu.PDU) {
	t.Helper()
	root := t.TempDir()
	os.Mkdir(filepath.Join(root, "db"), 0o755)
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(root, "db", name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	c, err := load(root, "127.0.0.1:210")
	if err != nil {
		t.Fatal(err)
	}
	client, server := net.Pipe()
	go c.serve(server)
	t.Cleanup(func() { client.Close() })
	return c, func(p apdu.PDU) apdu.PDU {
		t.Helper()
		b, err := p.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		client.SetDeadline(time.Now().Add(5 * time.Second))
		if _, err := client.Write(apdu.AppendMessage(nil, "wais", b)); err != nil {
			t.Fatal(err)
		}
		h, m, err := apdu.ReadMessage(client, 1<<20)
		if err != nil {
			t.Fatal(err)
		}
		if h.Type != 'z' || string(bytes.TrimRight(h.Server[:], "\x00")) != "wais" {
			t.Errorf("reply header %+v does not echo the request's", h)
		}
		r, err := apdu.Decode(m)
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
}

func TestSearchAsFreeWAIS(t *testing.T) {
	_, send := testServer(t, map[string]string{"a.txt": "apple apple pear\n", "b.txt": "pear\n"})
	// A search as the first message, no Init.
	r := send(apdu.NewKeywordSearch("db", "apple pear", 10)).(*apdu.SearchResponse)
	if r.Status != 1 || r.ResultCount != 0 || r.Info == nil || len(r.Info.Headers) != 2 || r.RecordsReturned != 2 {
		t.Fatalf("search: %+v", r)
	}
	h := r.Info.Headers[0]
	dir := strings.TrimSuffix(h.Headline[len("a.txt   "):], "/")
	if h.Score != 3 || !strings.HasPrefix(h.Headline, "a.txt   /") || !strings.HasSuffix(h.Headline, "/db/") ||
		len(h.Types) != 1 || h.Types[0] != "TEXT" || h.Length != 17 {
		t.Errorf("first header %+v", h)
	}
	id, ok := apdu.ParseDocID(h.DocID)
	if !ok || id.Fields[apdu.DocIDDistributorLocalID] != "0 17 "+dir+"/a.txt" {
		t.Errorf("document id %q does not embed the server's path", h.DocID)
	}

	// No match: one score-0 hit, the catalog, whose headline says so.
	r = send(apdu.NewKeywordSearch("db", "banana", 10)).(*apdu.SearchResponse)
	if len(r.Info.Headers) != 1 || r.Info.Headers[0].Score != 0 ||
		!strings.HasPrefix(r.Info.Headers[0].Headline, "Search produced no result. Here's the Catalog for database: db") {
		t.Fatalf("no match: %+v", r.Info)
	}
	cat := send(apdu.NewRetrieval("db", r.Info.Headers[0].DocID, "TEXT", 0, 10000)).(*apdu.SearchResponse)
	if len(cat.Info.Texts) != 1 || !strings.Contains(string(cat.Info.Texts[0].Text), "a.txt") {
		t.Errorf("catalog: %+v", cat.Info)
	}

	// An unknown database: no hits, an S1 diagnostic naming it.
	r = send(apdu.NewKeywordSearch("nodb", "apple", 10)).(*apdu.SearchResponse)
	if len(r.Info.Headers) != 0 || len(r.Info.Diagnostics) != 1 || r.Info.Diagnostics[0].Code != "S1" ||
		!strings.Contains(r.Info.Diagnostics[0].Info, "nodb") {
		t.Fatalf("unknown database: %+v", r.Info)
	}

	// An Init is answered when sent.
	if _, ok := send(&apdu.Init{PreferredMessageSize: 1000, MaximumRecordSize: 1000}).(*apdu.InitResponse); !ok {
		t.Fatal("Init not answered")
	}
}

func TestRetrievalAsFreeWAIS(t *testing.T) {
	text := strings.Repeat("0123456789", 25) // 250 bytes
	_, send := testServer(t, map[string]string{"d.txt": text})
	h := send(apdu.NewKeywordSearch("db", "d", 10)).(*apdu.SearchResponse).Info.Headers[0]
	get := func(start, end int64) *apdu.ResponseInfo {
		r := send(apdu.NewRetrieval("db", h.DocID, "TEXT", start, end)).(*apdu.SearchResponse)
		if r.Status != 0 || !bytes.Equal(r.ReferenceID, []byte("3")) {
			t.Errorf("retrieval status %d, reference id %q", r.Status, r.ReferenceID)
		}
		return r.Info
	}
	isRange := func(ds []apdu.Diagnostic) bool {
		return len(ds) == 1 && ds[0].Code == "SF" && ds[0].Info == "Request out of range"
	}
	if i := get(0, 100); len(i.Texts) != 1 || string(i.Texts[0].Text) != text[:100] || len(i.Diagnostics) != 0 ||
		!bytes.Equal(i.Texts[0].DocID, h.DocID) {
		t.Errorf("a slice inside: %+v", i)
	}
	if i := get(200, 300); len(i.Texts) != 1 || string(i.Texts[0].Text) != text[200:] || !isRange(i.Diagnostics) {
		t.Errorf("a slice past the end: %+v", i)
	}
	if i := get(300, 400); len(i.Texts) != 0 || !isRange(i.Diagnostics) {
		t.Errorf("a slice wholly past the end: %+v", i)
	}
	// The document id must come back byte for byte.
	bad := append(append([]byte{}, h.DocID...), 'x')
	r := send(apdu.NewRetrieval("db", bad, "TEXT", 0, 100)).(*apdu.SearchResponse)
	if len(r.Info.Texts) != 0 || len(r.Info.Diagnostics) != 1 {
		t.Errorf("a changed id: %+v", r.Info)
	}
}
