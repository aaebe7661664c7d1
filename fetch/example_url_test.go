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

func ExampleURL_FTP() {
	// RFC 1738 §3.2.2: the same file by three paths.
	for _, s := range []string{
		"ftp://myname@host.dom/etc/motd",    // CWD etc, RETR motd
		"ftp://myname@host.dom/%2Fetc/motd", // CWD /etc, RETR motd
		"ftp://myname@host.dom//etc/motd",   // CWD (null), CWD etc, RETR motd
		"ftp://info.cern.ch/pub/www/doc;type=d",
	} {
		u, _ := fetch.Parse(s)
		f, err := u.FTP()
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("dirs %q name %q type %q\n", f.Dirs, f.Name, f.Type)
	}
	// Output:
	// dirs ["etc"] name "motd" type '\x00'
	// dirs ["/etc"] name "motd" type '\x00'
	// dirs ["" "etc"] name "motd" type '\x00'
	// dirs ["pub" "www"] name "doc" type 'd'
}

func ExampleURL_Gopher() {
	u, _ := fetch.Parse("gopher://gopher.example.org/7/search%09dogs%20cats")
	g, _ := u.Gopher()
	fmt.Printf("type %c selector %q search %q\n", g.Type, g.Selector, g.Search)
	fmt.Println(fetch.GopherURLString("gopher.example.org", 70, '0', "/docs/read me.txt", "", false, "", false))
	// Output:
	// type 7 selector "/search" search "dogs cats"
	// gopher://gopher.example.org/0/docs/read%20me.txt
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
