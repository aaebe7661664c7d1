package fetch_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/fetchproject/fetch/fetch"
)

// A scheme is one record: its port, where its grammar differs from the
// generic syntax, its view and its driver. Registered on a client, the
// record reaches that client's parser, --parse view and port policy.
func ExampleClient_RegisterScheme() {
	type whois struct{ Query string }
	view := func(u *fetch.URL) (any, error) {
		q, err := u.DecodeAt(strings.TrimPrefix(u.Path, "?"), "query", u.PathOffset()+1)
		if err != nil {
			return nil, err
		}
		return &whois{Query: q}, nil
	}
	c := fetch.NewClient(fetch.Options{})
	c.RegisterScheme(fetch.Scheme{
		Name:        "x-whois",
		DefaultPort: 4343,
		Grammar:     fetch.Grammar{HostRequired: true, QueryEndsHost: true},
		View:        view,
		Driver: fetch.DriverFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
			v, err := view(req.URL)
			if err != nil {
				return nil, err
			}
			body := io.NopCloser(strings.NewReader("no match for " + v.(*whois).Query))
			return &fetch.Result{Kind: fetch.KindDocument, Document: &fetch.Document{Body: body, Size: -1}}, nil
		}),
	})

	u, _ := c.Parse("x-whois://whois.example?example.org")
	v, _ := c.View(u)
	fmt.Println(u.Host, v.(*whois).Query, c.DefaultPortOf("x-whois"))

	res, err := c.Fetch(context.Background(), "x-whois://whois.example?example.org")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Close()
	b, _ := io.ReadAll(res.Document.Body)
	fmt.Println(string(b))

	_, err = fetch.Parse("x-whois://whois.example?example.org")
	fmt.Println(err != nil) // the generic syntax: only "/" ends the host
	// Output:
	// whois.example example.org 4343
	// no match for example.org
	// true
}

// The same URL text by the generic syntax and by an HTTP-like grammar.
func ExampleRegistry_Parse() {
	reg := fetch.NewRegistry(fetch.Scheme{Name: "http", DefaultPort: 80,
		Grammar: fetch.Grammar{HostRequired: true, QueryEndsHost: true, PlusInQuery: true}})
	u, err := reg.Parse("http://example.org?q=1")
	fmt.Println(u.Host, u.Path, err)
	_, err = fetch.Parse("http://example.org?q=1")
	fmt.Println(err)
	eq, _ := reg.Equal("http://example.org:80/", "http://example.org")
	fmt.Println(eq)
	// Output:
	// example.org ?q=1 <nil>
	// http://example.org?q=1: parse: host (at offset 18): host name may hold only letters, digits, "-" and "."
	// true
}
