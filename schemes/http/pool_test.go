package http

import (
	"context"
	"fmt"
	"io"
	"net"
	nethttp "net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// countingServer serves "body of <path>" and counts the TCP connections
// it accepts.
func countingServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var conns atomic.Int32
	srv := httptest.NewUnstartedServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		fmt.Fprintf(w, "body of %s", r.URL.Path)
	}))
	srv.Config.ConnState = func(_ net.Conn, s nethttp.ConnState) {
		if s == nethttp.StateNew {
			conns.Add(1)
		}
	}
	srv.Start()
	t.Cleanup(srv.Close)
	return srv, &conns
}

func readAll(t *testing.T, c *fetch.Client, req *fetch.Request) string {
	t.Helper()
	res, err := c.Do(context.Background(), req)
	if err != nil {
		t.Fatalf("%s: %v", req.URL, err)
	}
	defer res.Close()
	b, err := io.ReadAll(res.Document.Body)
	if err != nil {
		t.Fatalf("%s: %v", req.URL, err)
	}
	return string(b)
}

// TestKeepAlive: one client's requests to one server share a connection,
// each request tracing to its own Tracer; CloseIdle ends it, and the next
// request connects again.
func TestKeepAlive(t *testing.T) {
	srv, conns := countingServer(t)
	c := newClient(fetch.Options{})
	defer c.Close()
	for i := range 20 {
		req, err := fetch.NewRequest(fmt.Sprintf("%s/f%d", srv.URL, i))
		if err != nil {
			t.Fatal(err)
		}
		var trace strings.Builder
		req.Tracer = fetch.TracerFunc(func(d fetch.Direction, l string) { fmt.Fprintf(&trace, "%c %s\n", d, l) })
		if got, want := readAll(t, c, req), fmt.Sprintf("body of /f%d", i); got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
		if want := fmt.Sprintf("> GET /f%d HTTP/1.1\n", i); !strings.Contains(trace.String(), want) || strings.Count(trace.String(), "> GET") != 1 {
			t.Errorf("request %d traced\n%s", i, trace.String())
		}
		if dialled := strings.Contains(trace.String(), "connecting to"); dialled != (i == 0) {
			t.Errorf("request %d: connecting traced %v", i, dialled)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections for 20 requests, want 1", n)
	}
	c.CloseIdle()
	readAll(t, c, fetch.NewRequestURL(mustParse(t, srv.URL+"/again")))
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections after CloseIdle and one more request, want 2", n)
	}
}

// TestKeepAliveOff: MaxIdlePerHost < 0 turns keep-alive off.
func TestKeepAliveOff(t *testing.T) {
	srv, conns := countingServer(t)
	c := newClient(fetch.Options{MaxIdlePerHost: -1})
	for i := range 3 {
		readAll(t, c, fetch.NewRequestURL(mustParse(t, fmt.Sprintf("%s/f%d", srv.URL, i))))
	}
	if n := conns.Load(); n != 3 {
		t.Errorf("%d connections, want 3", n)
	}
}

// TestConcurrentRequests: many goroutines through one client, each with
// its own offset; no more connections than goroutines.
func TestConcurrentRequests(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		nethttp.ServeContent(w, r, "f", time.Time{}, strings.NewReader(r.URL.Path+":0123456789"))
	}))
	defer srv.Close()
	c := newClient(fetch.Options{MaxIdlePerHost: 8})
	defer c.Close()
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				path := fmt.Sprintf("/g%d/%d", g, i)
				req := fetch.NewRequestURL(mustParse(t, srv.URL+path))
				req.Offset = int64(i)
				res, err := c.Do(context.Background(), req)
				if err != nil {
					t.Error(err)
					return
				}
				b, err := io.ReadAll(res.Document.Body)
				res.Close()
				if want := (path + ":0123456789")[i:]; err != nil || string(b) != want {
					t.Errorf("%s from %d: %q, %v; want %q", path, i, b, err, want)
				}
			}
		})
	}
	wg.Wait()
}

func mustParse(t *testing.T, raw string) *fetch.URL {
	t.Helper()
	u, err := fetch.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	return u
}
