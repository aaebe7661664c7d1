package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/fetchproject/fetch/fetch"
)

// A program can register a driver of its own for an x- scheme.
func ExampleClient_Register() {
	c := fetch.NewClient(fetch.Options{})
	c.Register("x-echo", fetch.DriverFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
		body := io.NopCloser(strings.NewReader(req.URL.Opaque))
		return &fetch.Result{Kind: fetch.KindDocument, Document: &fetch.Document{Body: body, Size: -1}}, nil
	}))
	res, err := c.Fetch(context.Background(), "x-echo:hello#fragments-are-never-sent")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Close()
	b, _ := io.ReadAll(res.Document.Body)
	fmt.Println(string(b))

	_, err = c.Fetch(context.Background(), "gopher://example.org/")
	fmt.Println(err)
	// Output:
	// hello
	// gopher://example.org/: dispatch: scheme (at offset 0): no driver for scheme "gopher"; available: x-echo
}

// Do takes a Request, which carries what belongs to one fetch (here a
// resume offset and a tighter size limit); the client's options hold
// what is shared.
func ExampleClient_Do() {
	c := fetch.NewClient(fetch.Options{MaxSize: 1 << 20})
	c.Register("x-echo", fetch.DriverFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
		text := req.URL.Opaque[req.Offset:]
		body := io.NopCloser(strings.NewReader(text))
		return &fetch.Result{Kind: fetch.KindDocument, Document: &fetch.Document{Body: body, Size: int64(len(text)), Offset: req.Offset}}, nil
	}))
	req, err := fetch.NewRequest("x-echo:0123456789")
	if err != nil {
		fmt.Println(err)
		return
	}
	req.Offset = 4
	req.MaxSize = 5
	res, err := c.Do(context.Background(), req)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Close()
	b, err := io.ReadAll(res.Document.Body)
	fmt.Printf("%q from byte %d\n", b, res.Document.Offset)
	fmt.Println(fetch.KindOf(err).ExitCode(), errors.Is(err, fetch.ErrTooLarge))
	// Output:
	// "45678" from byte 4
	// 4 true
}

// CheckLine is the safeguard every line-protocol driver applies to values
// decoded from a URL before they reach the wire.
func ExampleCheckLine() {
	fmt.Println(fetch.CheckLine("selector", "about"))
	err := fetch.CheckLine("selector", "a\r\nQUIT")
	fmt.Println(fetch.KindOf(err).ExitCode(), err)
	// Output:
	// <nil>
	// 4 line safety: selector: byte 1 of the decoded value is '\r': CR, LF or NUL would reach the protocol stream
}
