package file

import (
	"context"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// A ";" is an ordinary character of a file name in a file: URL, but in an
// ftp: URL a bare ";type=" is a typecode (and any other bare ";" is
// refused): the fallback must carry it as data, not change what is asked.
func TestFTPFallbackSemicolon(t *testing.T) {
	var got string
	c := fetch.NewClient(fetch.Options{})
	c.Register("file", New(Config{FTPFallback: true}))
	c.Register("ftp", fetch.DriverFunc(func(_ context.Context, req *fetch.Request) (*fetch.Result, error) {
		got = req.URL.String()
		return &fetch.Result{Kind: fetch.KindListing, Listing: &fetch.Listing{}}, nil
	}))
	for in, want := range map[string]string{
		"file://ftp.example/pub/notes;type=d": "ftp://ftp.example/pub/notes%3Btype=d",
		"file://ftp.example/pub/semi;colon":   "ftp://ftp.example/pub/semi%3Bcolon",
	} {
		got = ""
		if _, err := c.Fetch(context.Background(), in); err != nil {
			t.Errorf("%s: %v", in, err)
			continue
		}
		if got != want {
			t.Errorf("%s: fallback fetched %q, want %q", in, got, want)
		}
	}
}
