package fetch_test

import (
	"context"
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
