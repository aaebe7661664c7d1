package schemes_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	nethttp "net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
)

// gopherFake answers a type 7 search with a menu naming the words, and any
// other selector with a text naming it.
func gopherFake(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				line, err := bufio.NewReader(c).ReadString('\n')
				if err != nil {
					return
				}
				sel, search, _ := strings.Cut(strings.TrimRight(line, "\r\n"), "\t")
				if sel == "/search" {
					fmt.Fprintf(c, "iYou searched for: %s\t\terror.host\t1\r\n.\r\n", search)
					return
				}
				fmt.Fprintf(c, "text of %s\r\n.\r\n", sel)
			})
		}
	})
	return ln.Addr().String()
}

// TestConcurrentMixedSchemes: one client, many goroutines, http, gopher
// and file URLs at once, each request with its own offset or search
// words: every result is its own request's (run with -race).
func TestConcurrentMixedSchemes(t *testing.T) {
	web := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		nethttp.ServeContent(w, r, "f", time.Time{}, strings.NewReader("web "+r.URL.Path))
	}))
	defer web.Close()
	gopher := gopherFake(t)
	dir := t.TempDir()
	c := schemes.NewClient(fetch.Options{IdleTimeout: 20 * time.Second}, schemes.Config{})
	defer c.Close()

	const workers, each = 12, 9
	for w := range workers {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprint(w)), []byte(fmt.Sprintf("file of worker %d", w)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := range each {
				var req *fetch.Request
				var err error
				var want string
				off := int64(i % 4)
				switch i % 3 {
				case 0:
					req, err = fetch.NewRequest(fmt.Sprintf("%s/w%d/%d", web.URL, w, i))
					req.Offset = off
					want = fmt.Sprintf("web /w%d/%d", w, i)[off:]
				case 1:
					req, err = fetch.NewRequest("gopher://" + gopher + "/7/search")
					req.Query = fmt.Sprintf("worker %d item %d", w, i)
					want = "You searched for: " + req.Query
				case 2:
					req, err = fetch.NewRequest("file://" + filepath.Join(dir, fmt.Sprint(w)))
					req.Offset = off
					want = fmt.Sprintf("file of worker %d", w)[off:]
				}
				if err != nil {
					t.Error(err)
					return
				}
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				got, err := resultText(ctx, c, req)
				cancel()
				if err != nil || got != want {
					t.Errorf("%s: %q, %v; want %q", req.URL, got, err, want)
				}
			}
		})
	}
	wg.Wait()
}

// resultText is a document's body or a listing's first entry's name.
func resultText(ctx context.Context, c *fetch.Client, req *fetch.Request) (string, error) {
	res, err := c.Do(ctx, req)
	if err != nil {
		return "", err
	}
	defer res.Close()
	if res.Listing != nil {
		if err := res.Listing.ReadAll(); err != nil { // a menu streams
			return "", err
		}
		if len(res.Listing.Entries) == 0 {
			return "", fmt.Errorf("empty listing")
		}
		return res.Listing.Entries[0].Name, nil
	}
	b, err := io.ReadAll(res.Document.Body)
	return string(b), err
}
