package wais_test

import (
	"fmt"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/wais"
)

// A document URL carries the document id %-encoded: any bytes, NULs
// included, come back to the server as they were.
func ExampleDocumentPath() {
	docid := []byte("\x03\x0a0 42 /srv\x07\x01\x00")
	u, _ := fetch.Parse("wais://wais.example.org/" + wais.DocumentPath("my db", "TEXT", docid))
	fmt.Println(u)
	w, _ := wais.ParseURL(u)
	fmt.Println(w.Database, w.WType, w.WPath == string(docid), wais.MIMEType(w.WType))
	// Output:
	// wais://wais.example.org/my%20db/TEXT/%03%0A0%2042%20%2Fsrv%07%01%00
	// my db TEXT true text/plain
}

// A client that searches WAIS databases and retrieves their documents.
func ExampleNew() {
	c := fetch.NewClient(fetch.Options{})
	c.RegisterScheme(wais.Schemes(wais.Config{})...)
	fmt.Println(c.Schemes(), c.DefaultPortOf("wais"))
	// The search words of a wais://host/db URL travel on its request.
	req, _ := fetch.NewRequest("wais://wais.example.org/my%20db")
	req.Query = "two words"
	fmt.Println(req.URL, req.Query)
	// Output:
	// [wais] 210
	// wais://wais.example.org/my%20db two words
}
