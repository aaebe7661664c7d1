package ftp_test

import (
	"fmt"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/ftp"
)

func ExampleParseURL() {
	// RFC 1738 §3.2.2: the same file by three paths.
	for _, s := range []string{
		"ftp://myname@host.dom/etc/motd",    // CWD etc, RETR motd
		"ftp://myname@host.dom/%2Fetc/motd", // CWD /etc, RETR motd
		"ftp://myname@host.dom//etc/motd",   // CWD (null), CWD etc, RETR motd
		"ftp://info.cern.ch/pub/www/doc;type=d",
	} {
		u, _ := fetch.Parse(s)
		f, err := ftp.ParseURL(u)
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
