package fetch_test

import (
	"fmt"

	"github.com/fetchproject/fetch/fetch"
)

func ExampleParse() {
	u, err := fetch.Parse("<URL:ftp://myname:secret@Host.DOM:2121/%2Fetc/motd;type=a>")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(u.Scheme, u.User, u.Host, u.Port, u.Path)
	fmt.Println(u.HostPort(21))
	fmt.Println(u.Redacted())

	_, err = fetch.Parse("http://example.com:65536/")
	fmt.Println(err)
	// Output:
	// ftp myname host.dom 2121 %2Fetc/motd;type=a
	// host.dom:2121
	// ftp://myname:****@host.dom:2121/%2Fetc/motd;type=a
	// http://example.com:65536/: parse: port (at offset 19): port out of range 1-65535
}

func ExampleResolve() {
	base, _ := fetch.Parse("magic://a/b/c//d/e/f")
	for _, ref := range []string{"g", "/g", "//g", "../g", "g:h"} {
		u, _ := fetch.Resolve(base, ref)
		fmt.Println(ref, "=>", u)
	}
	// Output:
	// g => magic://a/b/c//d/e/g
	// /g => magic://a/g
	// //g => magic://g
	// ../g => magic://a/b/c//d/g
	// g:h => g:h
}

func ExampleEqual() {
	eq, _ := fetch.Equal("http://info.cern.ch/albert/bertram/marie-claude",
		"http://info.cern.ch/albert/bertram/marie%2Dclaude")
	fmt.Println(eq)
	eq, _ = fetch.Equal("http://info.cern.ch/albert/bertram/marie-claude",
		"http://info.cern.ch/albert/bertram%2Fmarie-claude")
	fmt.Println(eq)
	_, err := fetch.Equal("news:12345667123%asdghfh@info.cern.ch", "news:x@y")
	fmt.Println(err != nil)
	// Output:
	// true
	// false
	// true
}

func ExampleExtractURLs() {
	text := `Yes, Jim, I found it under <URL:ftp://info.cern.ch/pub/www/doc;
      type=d> but you can probably pick it up from <URL:ftp://ds.in
      ternic.net/rfc>.`
	for _, s := range fetch.ExtractURLs(text) {
		fmt.Println(s)
	}
	// Output:
	// ftp://info.cern.ch/pub/www/doc;type=d
	// ftp://ds.internic.net/rfc
}
