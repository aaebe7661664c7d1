package fetch_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
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

// A concurrent bot shares one client between its workers: the client is
// safe for concurrent use, each fetch carries its own inputs on a Request
// (here a resume offset), and sessions to the same server (FTP logins,
// NNTP sessions, HTTP connections) are reused from the client's pools.
// Close says goodbye to the idle ones when the bot is done.
func Example_concurrentBot() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		os.WriteFile(filepath.Join(dir, name), []byte("partial "+name+"\n"), 0o644)
	}

	client := schemes.NewClient(fetch.Options{MaxSize: 10 << 20, IdleSessionTimeout: time.Minute}, schemes.Config{})
	defer client.Close()

	type job struct {
		url    string
		offset int64 // bytes already archived
	}
	jobs := make(chan job)
	results := make([]string, 3)
	var wg sync.WaitGroup
	for range 2 { // workers
		wg.Go(func() {
			for j := range jobs {
				req, err := fetch.NewRequest(j.url)
				if err != nil {
					continue
				}
				req.Offset = j.offset
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				res, err := client.Do(ctx, req)
				if err == nil {
					b, _ := io.ReadAll(res.Document.Body)
					res.Close()
					results[j.url[len(j.url)-5]-'a'] = string(b)
				}
				cancel()
			}
		})
	}
	for i, name := range []string{"a.txt", "b.txt", "c.txt"} {
		jobs <- job{url: "file://" + filepath.Join(dir, name), offset: int64(i)}
	}
	close(jobs)
	wg.Wait()
	for _, r := range results {
		fmt.Print(r)
	}
	// Output:
	// partial a.txt
	// artial b.txt
	// rtial c.txt
}
