package gopher_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"strings"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/gopher"
)

// A tiny Gopher+ server for the example: a menu at the empty selector and
// the attributes of an item.
func serveExample(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		buf := make([]byte, 512)
		n, _ := c.Read(buf)
		port := ln.Addr().(*net.TCPAddr).Port
		switch req := string(buf[:n]); {
		case req == "\r\n":
			fmt.Fprintf(c, "iWelcome\tfake\t(NULL)\t0\r\n0About\t/about.txt\t127.0.0.1\t%d\t+\r\n8A BBS\tguest\t127.0.0.1\t2323\r\n.\r\n", port)
		case strings.HasSuffix(req, "\t!\r\n"):
			io.WriteString(c, "+-2\r\n+INFO: 0About\t/about.txt\t127.0.0.1\t7070\t+\r\n+ABSTRACT:\r\n What this hole is about.\r\n")
		}
		c.Close()
	}
}

func Example() {
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	defer ln.Close()
	go serveExample(ln)
	base := fmt.Sprintf("gopher://%s/", ln.Addr())

	c := fetch.NewClient(fetch.Options{})
	c.Register("gopher", gopher.New(gopher.Config{}))

	// A menu is a listing whose entries are absolute URLs.
	res, err := c.Fetch(context.Background(), base)
	if err != nil {
		fmt.Println(err)
		return
	}
	// It streams: each entry is read from the server as it is asked for,
	// and Close releases the connection.
	defer res.Close()
	l := res.Listing
	for l.Next() {
		e := l.Entry()
		line := fmt.Sprint(e.Kind, " ", e.Name, " ", strings.Replace(e.URL, ln.Addr().String(), "HOST", 1))
		fmt.Println(strings.TrimSpace(line))
	}
	if err := l.Err(); err != nil {
		fmt.Println(err)
	}

	// "!" asks a Gopher+ server for an item's attributes.
	res, err = c.Fetch(context.Background(), base+"0/about.txt%09%09!")
	if err != nil {
		fmt.Println(err)
		return
	}
	res.Close()
	attrs, _ := gopher.DocumentAttributes(res.Document)
	gopher.RenderAttributes(os.Stdout, attrs)
	// Output:
	// text Welcome
	// file About gopher://HOST/0/about.txt%09%09+
	// session A BBS telnet://guest@127.0.0.1:2323/
	// About
	//   URL: gopher://127.0.0.1:7070/0/about.txt%09%09+
	//   Abstract:
	//     What this hole is about.
}
