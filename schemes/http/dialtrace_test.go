package http

import (
	"context"
	"errors"
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

// traceBuf keeps a trace as -v shows it, for tracers called from the
// dialling goroutine and the request's alike.
type traceBuf struct {
	mu sync.Mutex
	b  strings.Builder
}

func (t *traceBuf) Trace(d fetch.Direction, l string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(&t.b, "%c %s\n", d, l)
}

func (t *traceBuf) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}

// gatedDialer dials at once the first time; its second dial waits for
// gate, and any later one for stop.
type gatedDialer struct {
	n       atomic.Int32
	dialing chan struct{} // closed when the second dial starts
	gate    chan struct{}
	stop    chan struct{}
}

func (g *gatedDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	switch g.n.Add(1) {
	case 1:
	case 2:
		close(g.dialing)
		<-g.gate
	default:
		select {
		case <-g.stop:
			return nil, errors.New("stopped")
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// TestTraceDialGoesWithConnection: -v traces how a connection was made
// ("connecting to ...") to the request that uses it. net/http dials for a
// request that finds no idle connection, but that request may get another
// one freed meanwhile; the new connection then waits in the pool for a
// later request. The trace line went to the first request, which used an
// old connection, and the later one had none.
func TestTraceDialGoesWithConnection(t *testing.T) {
	release := map[string]chan struct{}{"/slow1": make(chan struct{}), "/slow2": make(chan struct{})}
	started := make(chan struct{}, 2)
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		if ch := release[r.URL.Path]; ch != nil {
			started <- struct{}{}
			<-ch
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	g := &gatedDialer{dialing: make(chan struct{}), gate: make(chan struct{}), stop: make(chan struct{})}
	defer close(g.stop)
	c := newClient(fetch.Options{Dialer: g, MaxIdlePerHost: 4})
	defer c.Close()

	fetchTraced := func(path string, into chan<- string) {
		req, err := fetch.NewRequest(srv.URL + path)
		if err != nil {
			t.Error(err)
			into <- ""
			return
		}
		tr := &traceBuf{}
		req.Tracer = tr
		res, err := c.Do(context.Background(), req)
		if err != nil {
			t.Errorf("%s: %v", path, err)
			into <- ""
			return
		}
		io.Copy(io.Discard, res.Document.Body)
		res.Close()
		into <- tr.String()
	}
	dials := func(trace string) int { return strings.Count(trace, "* connecting to ") }

	// slow1 holds the first connection; a's request dials a second, which
	// waits, and gets the first when slow1 is done with it.
	slow1, a, slow2, b := make(chan string, 1), make(chan string, 1), make(chan string, 1), make(chan string, 1)
	go fetchTraced("/slow1", slow1)
	<-started
	go fetchTraced("/a", a)
	<-g.dialing
	close(release["/slow1"])
	if n := dials(<-slow1); n != 1 {
		t.Errorf("the request that made the first connection traced %d dials", n)
	}
	if tr := <-a; dials(tr) != 0 {
		t.Errorf("a request that used the first connection again traced the dial of another:\n%s", tr)
	}
	// slow2 holds the first connection again; the second, made for
	// nobody now, goes to the pool, and b gets it: b traces its making.
	go fetchTraced("/slow2", slow2)
	<-started
	close(g.gate)
	time.Sleep(50 * time.Millisecond) // the second connection pooled, mostly: b need not wait for it
	go fetchTraced("/b", b)
	if tr := <-b; dials(tr) != 1 {
		t.Errorf("the request that used the second connection traced %d dials:\n%s", dials(tr), tr)
	}
	close(release["/slow2"])
	if n := dials(<-slow2); n != 0 {
		t.Errorf("slow2, on the first connection again, traced %d dials", n)
	}
}

// TestTraceRefusedConnect: a gateway that refuses the CONNECT of an https
// request: the connection is never used, and -v still shows the request
// how it was made and refused.
func TestTraceRefusedConnect(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		buf := make([]byte, 4096)
		c.Read(buf)
		io.WriteString(c, "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"gw\"\r\nContent-Length: 0\r\n\r\n")
	}()
	c := fetch.NewClient(fetch.Options{Proxy: func(*fetch.URL) (*fetch.URL, error) { return fetch.Parse("http://" + ln.Addr().String()) }})
	d := newDriver(Config{})
	c.Register("http", d)
	c.Register("https", d)
	req, err := fetch.NewRequest("https://secure.example/")
	if err != nil {
		t.Fatal(err)
	}
	tr := &traceBuf{}
	req.Tracer = tr
	if res, err := c.Do(context.Background(), req); err == nil {
		res.Close()
		t.Fatal("a refused CONNECT fetched something")
	}
	got := tr.String()
	for _, l := range []string{"* connecting to " + ln.Addr().String(), "> CONNECT secure.example:443 HTTP/1.1", "< HTTP/1.1 407 Proxy Authentication Required"} {
		if !strings.Contains(got, l+"\n") {
			t.Errorf("no %q in the trace:\n%s", l, got)
		}
	}
}
