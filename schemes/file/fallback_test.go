package file

import (
	"context"
	"testing"
)

// A ";" is an ordinary character of a file name in a file: URL, but in an
// ftp: URL a bare ";type=" is a typecode (and any other bare ";" is
// refused): the fallback must carry it as data, not change what is asked.
func TestFTPFallbackSemicolon(t *testing.T) {
	var got string
	c := fallbackClient(&got)
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
