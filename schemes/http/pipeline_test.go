package http

import (
	"bufio"
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
	"syscall"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

// pipelined, when set, is the Pipeline of the drivers newDriver makes:
// TestPipelinedSuite runs the driver's tests again with it.
var pipelined int

func newDriver(cfg Config) *Driver {
	if cfg.Pipeline == 0 {
		cfg.Pipeline = pipelined
	}
	return New(cfg)
}

// TestPipelinedSuite runs the driver's tests of plain http on its own
// connections, with four requests pipelined on one and with one at a
// time: whatever the Transport does (bounds, timeouts, redirects,
// traces, resuming), a request on the driver's own connection does too.
// (TestTraceDialGoesWithConnection is not among them: it has a request
// take a connection the Transport freed while that request's own dial
// waits, where on the driver's connections a request uses the one it
// dials.)
func TestPipelinedSuite(t *testing.T) {
	tests := []func(*testing.T){
		TestRequestURIAsWritten, TestStatusErrors, TestRedirectWithUserinfo, TestRedirects,
		TestTruncatedBody, TestStallTimesOut, TestTrickledHeaderTimesOut, TestUnaskedPartialContent,
		TestTrickledErrorPage, TestResumeRange, TestLineBounds, TestResumeRejectsWrongRange,
		TestResumeRejectsShortRange, TestResumePartWithoutLength, TestResultURLWithoutRedirect,
		TestHeadersNotForwardedAcrossHosts, TestCredentialsStayWithOrigin, TestSchemeRelativeRedirectHost,
		TestTraceMasksCredentials, TestModTime, TestKeepAlive, TestKeepAliveOff, TestConcurrentRequests,
		TestSwitchingProtocols, TestRedirectResultURL, TestResumePartStopsAtRange, TestResumeComplete,
		TestRedirectPortNamesHop, TestRetryAfterHuge, TestTraceRefusedConnect,
	}
	defer func() { pipelined = 0 }()
	for _, depth := range []int{4, 1} {
		pipelined = depth
		for i, test := range tests {
			t.Run(fmt.Sprintf("depth%d/%d", depth, i), test)
		}
	}
}

// pipeState is what d's pipeline holds for addr: its connections and the
// requests counted on each, and whether the host is pipelined.
func pipeState(d *Driver, addr string) (inflight []int, off bool) {
	d.mu.Lock()
	p := d.pipe
	d.mu.Unlock()
	if p == nil {
		return nil, false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.hosts[addr]
	if h == nil {
		return nil, false
	}
	for _, c := range h.conns {
		inflight = append(inflight, c.inflight)
	}
	return inflight, h.off
}

// waitInflight waits until d has n requests on one connection to addr, a
// minute at most (a CI run once missed a bound of 10 s, in
// TestPipelineLeavesClosingConnection, for a reason its hang hid: the
// state is printed now).
func waitInflight(t *testing.T, d *Driver, addr string, n int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if in, _ := pipeState(d, addr); len(in) == 1 && in[0] == n {
			return
		}
	}
	in, off := pipeState(d, addr)
	t.Fatalf("requests on the connections to %s: %v (pipelining off: %v), want %d on one", addr, in, off, n)
}

// queueBehind fetches first and /next from a server that answers first
// with special only once both wait on one connection, /next queued behind
// first (every other path as answer does), with a client that pipelines
// four deep. It returns first's result, a channel with /next's body and
// error, and the server's connection count.
func queueBehind(t *testing.T, first string, special func(c net.Conn, br *bufio.Reader) bool) (next <-chan string, res *fetch.Result, conns *atomic.Int32, err error) {
	t.Helper()
	release, got := make(chan struct{}), make(chan struct{})
	var gotOnce sync.Once
	addr, conns := pathServer(t, first, func(c net.Conn, br *bufio.Reader) bool {
		gotOnce.Do(func() { close(got) })
		<-release
		return special(c, br)
	})
	released := false
	t.Cleanup(func() {
		// before the server's cleanup waits for its handlers: a test
		// that failed while first was held would wait for ever
		if !released {
			close(release)
		}
	})
	c, d := pipeClient(4)
	t.Cleanup(func() { c.Close() })
	type result struct {
		res *fetch.Result
		err error
	}
	firstc := make(chan result, 1)
	go func() {
		res, err := c.Fetch(context.Background(), "http://"+addr+first)
		firstc <- result{res, err}
	}()
	// first written and read by the server, not only counted on its
	// connection (which happens before the dial is over): /next then
	// goes behind it, never first on the connection
	waitInflight(t, d, addr, 1)
	select {
	case <-got:
	case <-time.After(time.Minute):
		t.Fatalf("the server never read %s", first)
	}
	nextc := make(chan string, 1)
	go func() {
		bodies, errs := fetchAll(c, addr, "/next")
		nextc <- fmt.Sprint(bodies[0], errs[0])
	}()
	waitInflight(t, d, addr, 2)
	close(release)
	released = true
	r := <-firstc
	return nextc, r.res, conns, r.err
}

// pipeServer serves each connection with serve, counting connections.
func pipeServer(t *testing.T, serve func(c net.Conn, br *bufio.Reader)) (addr string, conns *atomic.Int32) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns = new(atomic.Int32)
	var wg sync.WaitGroup
	t.Cleanup(func() {
		ln.Close()
		wg.Wait()
	})
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns.Add(1)
			wg.Go(func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(time.Minute)) // a broken test ends
				serve(c, bufio.NewReader(c))
			})
		}
	})
	return ln.Addr().String(), conns
}

// pathServer answers every request as answer does, but those for path,
// which special answers itself (or holds, or cuts short), telling whether
// the connection goes on.
func pathServer(t *testing.T, path string, special func(c net.Conn, br *bufio.Reader) bool) (addr string, conns *atomic.Int32) {
	return pipeServer(t, func(c net.Conn, br *bufio.Reader) {
		for {
			r, err := nethttp.ReadRequest(br)
			if err != nil {
				return
			}
			if r.URL.Path != path {
				answer(c, r.URL.Path, "")
			} else if !special(c, br) {
				return
			}
		}
	})
}

func answer(w io.Writer, path string, extra string) {
	body := "body of " + path
	fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n%s\r\n%s", len(body), extra, body)
}

// openCountingServer answers every request as answer does, once hold (if
// not nil) returns, and counts its connections open in open.
func openCountingServer(t *testing.T, open *atomic.Int32, hold func()) (addr string, conns *atomic.Int32) {
	return pipeServer(t, func(c net.Conn, br *bufio.Reader) {
		open.Add(1)
		defer open.Add(-1)
		for {
			r, err := nethttp.ReadRequest(br)
			if err != nil {
				return
			}
			if hold != nil {
				hold()
			}
			answer(c, r.URL.Path, "")
		}
	})
}

// fetchAll fetches the paths from addr at once with c, and returns each
// one's body or error.
func fetchAll(c *fetch.Client, addr string, paths ...string) (bodies []string, errs []error) {
	bodies, errs = make([]string, len(paths)), make([]error, len(paths))
	var wg sync.WaitGroup
	for i, p := range paths {
		wg.Go(func() {
			res, err := c.Fetch(context.Background(), "http://"+addr+p)
			if err == nil {
				var b []byte
				b, err = io.ReadAll(res.Document.Body)
				res.Close()
				bodies[i] = string(b)
			}
			errs[i] = err
		})
	}
	wg.Wait()
	return bodies, errs
}

func pipeClient(depth int) (*fetch.Client, *Driver) {
	c := fetch.NewClient(fetch.Options{})
	d := New(Config{Pipeline: depth})
	c.Register("http", d)
	return c, d
}

// TestPipelineSendsBeforeAnswers: requests queued behind an answer go out
// together, before the server has answered the one before them, all on
// one connection. The server answers the second request only once the
// third has come: one request at a time, it would wait for ever.
func TestPipelineSendsBeforeAnswers(t *testing.T) {
	release := make(chan struct{})
	addr, conns := pipeServer(t, func(c net.Conn, br *bufio.Reader) {
		r1, err := nethttp.ReadRequest(br)
		if err != nil {
			return
		}
		<-release
		answer(c, r1.URL.Path, "")
		r2, err := nethttp.ReadRequest(br)
		if err != nil {
			return
		}
		r3, err := nethttp.ReadRequest(br)
		if err != nil {
			return
		}
		answer(c, r2.URL.Path, "")
		answer(c, r3.URL.Path, "")
	})
	c, d := pipeClient(4)
	defer c.Close()
	done := make(chan struct{})
	var bodies []string
	var errs []error
	go func() {
		defer close(done)
		bodies, errs = fetchAll(c, addr, "/a", "/b", "/c")
	}()
	waitInflight(t, d, addr, 3)
	close(release)
	<-done
	got := map[string]bool{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		got[bodies[i]] = true
	}
	for _, p := range []string{"/a", "/b", "/c"} {
		if !got["body of "+p] {
			t.Errorf("no request had %q: %q", "body of "+p, bodies)
		}
	}
	if n := conns.Load(); n != 1 {
		t.Errorf("%d connections, want 1", n)
	}
}

// TestPipelineResendsUnanswered: a server that ends each connection after
// two answers (the second saying "Connection: close") leaves the requests
// sent behind them unanswered; they are sent again on a new connection,
// every request gets its own document once, and the host stays pipelined.
func TestPipelineResendsUnanswered(t *testing.T) {
	var mu sync.Mutex
	answered := map[string]int{}
	addr, conns := pipeServer(t, func(c net.Conn, br *bufio.Reader) {
		for i := range 2 {
			r, err := nethttp.ReadRequest(br)
			if err != nil {
				return
			}
			mu.Lock()
			answered[r.URL.Path]++
			mu.Unlock()
			extra := ""
			if i == 1 {
				extra = "Connection: close\r\n"
			}
			answer(c, r.URL.Path, extra)
		}
	})
	c, d := pipeClient(4)
	defer c.Close()
	var paths []string
	for i := range 24 {
		paths = append(paths, fmt.Sprintf("/f%d", i))
	}
	bodies, errs := fetchAll(c, addr, paths...)
	for i, p := range paths {
		if errs[i] != nil || bodies[i] != "body of "+p {
			t.Errorf("%s: %q, %v", p, bodies[i], errs[i])
		}
		if answered[p] != 1 {
			t.Errorf("%s answered %d times", p, answered[p])
		}
	}
	if n := conns.Load(); n < 12 {
		t.Errorf("%d connections for 24 requests at two a connection", n)
	}
	if _, off := pipeState(d, addr); off {
		t.Error("the host is no longer pipelined")
	}
}

// TestPipelineOffWithoutKeepAlive: a server that answers in HTTP/1.0 and
// closes each connection after one answer is asked one request at a time
// from then on; every request still gets its document.
func TestPipelineOffWithoutKeepAlive(t *testing.T) {
	addr, _ := pipeServer(t, func(c net.Conn, br *bufio.Reader) {
		r, err := nethttp.ReadRequest(br)
		if err != nil {
			return
		}
		body := "body of " + r.URL.Path
		fmt.Fprintf(c, "HTTP/1.0 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
	})
	c, d := pipeClient(4)
	defer c.Close()
	paths := []string{"/a", "/b", "/c", "/d", "/e", "/f"}
	bodies, errs := fetchAll(c, addr, paths...)
	for i, p := range paths {
		if errs[i] != nil || bodies[i] != "body of "+p {
			t.Errorf("%s: %q, %v", p, bodies[i], errs[i])
		}
	}
	if _, off := pipeState(d, addr); !off {
		t.Error("the host is still pipelined")
	}
}

// TestFirstRequestNotResent: a server that reads the first request on a
// new connection and closes it (or resets it) unanswered fails that
// request, which is sent once, as net/http's Transport sends it: it is
// no idle connection that closed as the request came, and sending it
// again is the caller's choice (--retry).
func TestFirstRequestNotResent(t *testing.T) {
	for _, depth := range []int{1, 4} {
		for _, reset := range []bool{false, true} {
			t.Run(fmt.Sprintf("depth%d/reset=%v", depth, reset), func(t *testing.T) {
				var reqs atomic.Int32
				addr, conns := pipeServer(t, func(c net.Conn, br *bufio.Reader) {
					if _, err := nethttp.ReadRequest(br); err != nil {
						return
					}
					reqs.Add(1)
					if reset {
						c.(*net.TCPConn).SetLinger(0)
					}
				})
				c, _ := pipeClient(depth)
				defer c.Close()
				res, err := c.Fetch(context.Background(), "http://"+addr+"/a")
				if err == nil {
					res.Close()
					t.Fatal("a request the server never answered succeeded")
				}
				var fe *fetch.Error
				if !errors.As(err, &fe) || fe.Kind != fetch.KindNetwork || strings.Contains(err.Error(), errUnanswered.Error()) {
					t.Errorf("error %v: want a network error of the connection's end", err)
				}
				if n, m := reqs.Load(), conns.Load(); n != 1 || m != 1 {
					t.Errorf("the request was read %d times on %d connections, want once on one", n, m)
				}
			})
		}
	}
}

// failingWrites dials connections whose writes fail, as a write to a
// connection the server has reset does, counting the dials.
type failingWrites struct{ dials atomic.Int32 }

func (f *failingWrites) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	f.dials.Add(1)
	var d net.Dialer
	c, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, err
	}
	return writeFails{c}, nil
}

type writeFails struct{ net.Conn }

func (writeFails) Write([]byte) (int, error) { return 0, syscall.ECONNRESET }

// TestFirstWriteNotResent: the first request on a new connection whose
// write fails gets that failure, dialled once, at each depth.
func TestFirstWriteNotResent(t *testing.T) {
	for _, depth := range []int{1, 4} {
		addr, _ := pipeServer(t, func(c net.Conn, br *bufio.Reader) { br.ReadByte() })
		f := &failingWrites{}
		c := fetch.NewClient(fetch.Options{Dialer: f})
		c.Register("http", New(Config{Pipeline: depth}))
		res, err := c.Fetch(context.Background(), "http://"+addr+"/a")
		if err == nil {
			res.Close()
			t.Fatalf("depth %d: a request that was never written succeeded", depth)
		}
		if !errors.Is(err, syscall.ECONNRESET) {
			t.Errorf("depth %d: error %v, want the write's", depth, err)
		}
		if n := f.dials.Load(); n != 1 {
			t.Errorf("depth %d: %d dials, want 1", depth, n)
		}
		c.Close()
	}
}

// TestPipelineTruncatedAnswer: an answer cut short fails its own request
// (truncated, exit 5); the request queued behind it is sent again and
// gets its document.
func TestPipelineTruncatedAnswer(t *testing.T) {
	var first atomic.Bool
	next, res, _, err := queueBehind(t, "/short", func(c net.Conn, _ *bufio.Reader) bool {
		if first.Swap(true) {
			answer(c, "/short", "") // sent again
			return true
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nonly this")
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	_, err = io.ReadAll(res.Document.Body)
	if !errors.Is(err, fetch.ErrTruncated) {
		t.Errorf("the short answer read with %v, want truncated", err)
	}
	if got := <-next; got != "body of /next<nil>" {
		t.Errorf("the request behind it: %s", got)
	}
}

// TestPipelineCancelWhileWaiting: a request cancelled while it waits for
// the answers before its own returns at once, without cutting short the
// answer being read; the connection then ends, and the next request gets
// a new one.
func TestPipelineCancelWhileWaiting(t *testing.T) {
	release := make(chan struct{})
	addr, conns := pathServer(t, "/slow", func(c net.Conn, _ *bufio.Reader) bool {
		<-release
		answer(c, "/slow", "")
		return true
	})
	c, d := pipeClient(4)
	defer c.Close()
	slow := make(chan string, 1)
	go func() {
		bodies, errs := fetchAll(c, addr, "/slow")
		slow <- fmt.Sprint(bodies[0], errs[0])
	}()
	waitInflight(t, d, addr, 1)
	ctx, cancel := context.WithCancel(context.Background())
	behind := make(chan error, 1)
	go func() {
		_, err := c.Fetch(ctx, "http://"+addr+"/behind")
		behind <- err
	}()
	waitInflight(t, d, addr, 2)
	cancel()
	// It returns while /slow's answer is still held.
	if err := <-behind; err == nil {
		t.Error("the cancelled request succeeded")
	}
	select {
	case got := <-slow:
		t.Fatalf("/slow ended before its answer was sent: %s", got)
	default:
	}
	close(release)
	if got := <-slow; got != "body of /slow<nil>" {
		t.Errorf("/slow: %s", got)
	}
	bodies, errs := fetchAll(c, addr, "/after")
	if errs[0] != nil || bodies[0] != "body of /after" {
		t.Errorf("/after: %q, %v", bodies[0], errs[0])
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2 (the first ended with the cancelled request)", n)
	}
}

// TestPipelineBodyClosedEarly: a body closed before its end ends its
// connection (the rest of it would come before the next answer); the
// request behind it gets its document on another.
func TestPipelineBodyClosedEarly(t *testing.T) {
	big := strings.Repeat("x", 1<<20)
	addr, _ := pathServer(t, "/big", func(c net.Conn, _ *bufio.Reader) bool {
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s", len(big), big)
		return true
	})
	c, d := pipeClient(4)
	defer c.Close()
	res, err := c.Fetch(context.Background(), "http://"+addr+"/big")
	if err != nil {
		t.Fatal(err)
	}
	next := make(chan string, 1)
	go func() {
		bodies, errs := fetchAll(c, addr, "/next")
		next <- fmt.Sprint(bodies[0], errs[0])
	}()
	waitInflight(t, d, addr, 2)
	if _, err := io.ReadFull(res.Document.Body, make([]byte, 10)); err != nil {
		t.Fatal(err)
	}
	res.Close()
	if got := <-next; got != "body of /next<nil>" {
		t.Errorf("the request behind it: %s", got)
	}
}

// TestPipelineIdleConnections: connections left unused past the client's
// MaxIdlePerHost are closed when their requests end, the rest once unused
// for IdleSessionTimeout, and then the pipeline forgets the host.
func TestPipelineIdleConnections(t *testing.T) {
	release := make(chan struct{})
	var open atomic.Int32
	addr, conns := openCountingServer(t, &open, func() { <-release })
	const idle = 200 * time.Millisecond
	c := fetch.NewClient(fetch.Options{MaxIdlePerHost: 1, IdleSessionTimeout: idle})
	defer c.Close()
	d := New(Config{Pipeline: 2})
	c.Register("http", d)
	done := make(chan []error, 1)
	go func() {
		_, errs := fetchAll(c, addr, "/a", "/b", "/c", "/d")
		done <- errs
	}()
	for range 2000 {
		if in, _ := pipeState(d, addr); len(in) == 2 && in[0] == 2 && in[1] == 2 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if in, _ := pipeState(d, addr); len(in) != 2 {
		t.Fatalf("connections: %v, want two with two requests each", in)
	}
	close(release)
	for i, err := range <-done {
		if err != nil {
			t.Errorf("request %d: %v", i, err)
		}
	}
	if n := conns.Load(); n != 2 {
		t.Fatalf("%d connections, want 2", n)
	}
	// One is closed as its last request ends (one unused is kept), the
	// other after the idle time: the server sees both end.
	for range 2000 {
		if open.Load() == 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if n := open.Load(); n != 0 {
		t.Errorf("%d connections still open after the idle time", n)
	}
	d.mu.Lock()
	p := d.pipe
	d.mu.Unlock()
	p.mu.Lock()
	hosts := len(p.hosts)
	p.mu.Unlock()
	if hosts != 0 {
		t.Errorf("%d hosts still known with no connection", hosts)
	}
}

// TestPipelineSwitchingProtocols: after a 101 the connection carries
// another protocol, so the request queued behind it is sent again on a
// new connection rather than read from what follows.
func TestPipelineSwitchingProtocols(t *testing.T) {
	next, _, conns, err := queueBehind(t, "/up", func(c net.Conn, br *bufio.Reader) bool {
		io.WriteString(c, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: other\r\nConnection: upgrade\r\n\r\n")
		answer(c, "/not-for-next", "") // the other protocol's bytes
		io.Copy(io.Discard, br)
		return false
	})
	if err == nil {
		t.Error("a 101 gave a document")
	}
	if got := <-next; got != "body of /next<nil>" {
		t.Errorf("the request behind the 101: %s", got)
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

// TestPipelineTooManyInterim: a sixth interim answer fails its request
// and ends the connection; the request behind it gets its own document,
// not the answer that followed the interim ones.
func TestPipelineTooManyInterim(t *testing.T) {
	next, _, _, err := queueBehind(t, "/hints", func(c net.Conn, _ *bufio.Reader) bool {
		for range 6 {
			io.WriteString(c, "HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\n")
		}
		answer(c, "/hints", "")
		return true
	})
	if err == nil || !strings.Contains(err.Error(), "interim") {
		t.Errorf("six interim answers: %v", err)
	}
	if got := <-next; got != "body of /next<nil>" {
		t.Errorf("the request behind: %s", got)
	}
}

// TestPipeline408OnIdle: a 408 a server wrote on a connection left idle
// is not the next request's answer: that request goes on a new
// connection.
func TestPipeline408OnIdle(t *testing.T) {
	addr, conns := pipeServer(t, func(c net.Conn, br *bufio.Reader) {
		r, err := nethttp.ReadRequest(br)
		if err != nil {
			return
		}
		answer(c, r.URL.Path, "")
		if r.URL.Path == "/first" {
			io.WriteString(c, "HTTP/1.1 408 Request Timeout\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
			return
		}
	})
	c, _ := pipeClient(4)
	defer c.Close()
	for _, p := range []string{"/first", "/second"} {
		bodies, errs := fetchAll(c, addr, p)
		if errs[0] != nil || bodies[0] != "body of "+p {
			t.Errorf("%s: %q, %v", p, bodies[0], errs[0])
		}
	}
	if n := conns.Load(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

// TestPipelineLargeHeader: a header of exactly the bound (64 KiB), its
// body after it, is accepted, as net/http's Transport accepts it (a
// header that ends where the bound stops the reads is whole).
func TestPipelineLargeHeader(t *testing.T) {
	head := len("HTTP/1.1 200 OK\r\nContent-Length: 10\r\nX-Pad: \r\n\r\n")
	pad := strings.Repeat("p", wire.DefaultMaxLine-head)
	addr, _ := pipeServer(t, func(c net.Conn, br *bufio.Reader) {
		for {
			r, err := nethttp.ReadRequest(br)
			if err != nil {
				return
			}
			answer(c, r.URL.Path, "X-Pad: "+pad+"\r\n")
		}
	})
	c, _ := pipeClient(4)
	defer c.Close()
	bodies, errs := fetchAll(c, addr, "/a", "/b")
	for i, p := range []string{"/a", "/b"} {
		if errs[i] != nil || bodies[i] != "body of "+p {
			t.Errorf("%s: %q, %v", p, bodies[i], errs[i])
		}
	}
}

// TestPipelineLeavesClosingConnection: the requests queued behind an
// answer that ends the connection go elsewhere at once, without waiting
// for that answer's body to be read.
func TestPipelineLeavesClosingConnection(t *testing.T) {
	big := strings.Repeat("x", 4<<20)
	next, res, _, err := queueBehind(t, "/big", func(c net.Conn, _ *bufio.Reader) bool {
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s", len(big), big)
		return false
	})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	// /big's body is not read until /next has its document.
	if got := <-next; got != "body of /next<nil>" {
		t.Errorf("the request behind: %s", got)
	}
	if b, err := io.ReadAll(res.Document.Body); err != nil || len(b) != len(big) {
		t.Errorf("/big: %d bytes, %v", len(b), err)
	}
}

// TestPipelineDroppedRequests: a server that drops the requests that
// came while it answered another (what it has read ahead when an answer
// is done) leaves them without an answer for the idle time; they are
// asked again one at a time, and the host is pipelined no more.
func TestPipelineDroppedRequests(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	var log []string
	addr, _ := pipeServer(t, func(c net.Conn, br *bufio.Reader) {
		for {
			r, err := nethttp.ReadRequest(br)
			if err != nil {
				return
			}
			<-release
			answer(c, r.URL.Path, "")
			mu.Lock()
			log = append(log, fmt.Sprintf("%p %s dropping %d", c, r.URL.Path, br.Buffered()))
			mu.Unlock()
			br.Discard(br.Buffered()) // the pipelined ones are lost
		}
	})
	c := fetch.NewClient(fetch.Options{IdleTimeout: 300 * time.Millisecond})
	defer c.Close()
	d := New(Config{Pipeline: 4})
	c.Register("http", d)
	paths := []string{"/a", "/b", "/c", "/d"}
	done := make(chan struct{})
	var bodies []string
	var errs []error
	go func() {
		defer close(done)
		bodies, errs = fetchAll(c, addr, paths...)
	}()
	waitInflight(t, d, addr, 4)
	close(release)
	<-done
	for i, p := range paths {
		if errs[i] != nil || bodies[i] != "body of "+p {
			t.Errorf("%s: %q, %v", p, bodies[i], errs[i])
		}
	}
	if _, off := pipeState(d, addr); !off {
		t.Error("the host is still pipelined")
	}
	if t.Failed() {
		mu.Lock()
		t.Logf("the server: %q", log)
		mu.Unlock()
	}
}

// gateDialer fails every dial once n requests wait on the pipeline's
// dial, counting the dials.
type gateDialer struct {
	ready chan struct{}
	dials atomic.Int32
}

func (g *gateDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	g.dials.Add(1)
	<-g.ready
	return nil, errors.New("no route to the test's host")
}

// TestPipelineSharedDialError: requests that waited for one dial get its
// error at once, each naming its own URL, and no dial of their own.
func TestPipelineSharedDialError(t *testing.T) {
	g := &gateDialer{ready: make(chan struct{})}
	c := fetch.NewClient(fetch.Options{Dialer: g})
	defer c.Close()
	d := New(Config{Pipeline: 4})
	c.Register("http", d)
	const addr = "127.0.0.1:45123" // never dialled: the dialer fails
	errs := make(chan error, 3)
	for _, p := range []string{"/a", "/b", "/c"} {
		go func() {
			_, err := c.Fetch(context.Background(), "http://"+addr+p)
			errs <- err
		}()
	}
	waitInflight(t, d, addr, 3)
	close(g.ready)
	seen := map[string]bool{}
	for range 3 {
		err := <-errs
		var fe *fetch.Error
		if !errors.As(err, &fe) || !strings.Contains(err.Error(), "no route") {
			t.Fatalf("error %v", err)
		}
		seen[fe.URL] = true
	}
	if len(seen) != 3 {
		t.Errorf("the errors name %v, want each request's URL", seen)
	}
	if n := g.dials.Load(); n != 1 {
		t.Errorf("%d dials, want 1", n)
	}
}

// TestPipelineDropsNeverMisattributed: against a server that drops the
// requests it has read ahead and answers those written later, no request
// is ever given another's document, whatever the timing (50 runs): the
// first pipelined write to a host (several requests, or one behind a
// request unanswered) is answered whole before anything more is written
// behind it.
func TestPipelineDropsNeverMisattributed(t *testing.T) {
	for run := range 50 {
		addr, _ := pipeServer(t, func(c net.Conn, br *bufio.Reader) {
			for {
				r, err := nethttp.ReadRequest(br)
				if err != nil {
					return
				}
				answer(c, r.URL.Path, "")
				br.Discard(br.Buffered())
			}
		})
		c := fetch.NewClient(fetch.Options{IdleTimeout: 300 * time.Millisecond})
		c.Register("http", New(Config{Pipeline: 4}))
		paths := []string{"/a", "/b", "/c", "/d"}
		bodies, errs := fetchAll(c, addr, paths...)
		c.Close()
		for i, p := range paths {
			if errs[i] != nil || bodies[i] != "body of "+p {
				t.Fatalf("run %d: %s: %q, %v", run, p, bodies[i], errs[i])
			}
		}
	}
}

// TestIdleConnectionsBoundedInAll: a client that has fetched from many
// servers keeps at most fetch.DefaultMaxIdle unused connections in all,
// pipelined or not, and with the pipeline's fallback (https) together.
// Only a bound per server was set, so a list naming thousands of servers
// kept a connection to each for the idle time (an audit saw 12,000 and
// 300 MiB); then the pipeline and its fallback kept 100 each.
func TestIdleConnectionsBoundedInAll(t *testing.T) {
	const servers = fetch.DefaultMaxIdle + 50
	for _, tc := range []struct {
		depth int
		tls   bool // half the servers https: the pipeline's fallback
	}{{1, false}, {4, false}, {4, true}} {
		name := fmt.Sprintf("--pipeline %d, https %v", tc.depth, tc.tls)
		var open atomic.Int32
		var urls []string
		for i := range servers {
			if tc.tls && i%2 == 1 {
				srv := httptest.NewUnstartedServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
					io.WriteString(w, "body of "+r.URL.Path)
				}))
				srv.Config.ConnState = func(_ net.Conn, st nethttp.ConnState) {
					switch st {
					case nethttp.StateNew:
						open.Add(1)
					case nethttp.StateClosed, nethttp.StateHijacked:
						open.Add(-1)
					}
				}
				srv.StartTLS()
				t.Cleanup(srv.Close)
				urls = append(urls, srv.URL+"/doc")
				continue
			}
			addr, _ := openCountingServer(t, &open, nil)
			urls = append(urls, "http://"+addr+"/doc")
		}
		c := fetch.NewClient(fetch.Options{})
		d := New(Config{Pipeline: tc.depth, Insecure: true})
		c.Register("http", d)
		c.Register("https", d)
		for _, u := range urls {
			res, err := c.Fetch(context.Background(), u)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			io.ReadAll(res.Document.Body)
			res.Close()
		}
		if p := d.pipe; p != nil {
			p.mu.Lock()
			n := 0
			for _, h := range p.hosts {
				n += len(h.conns)
			}
			if n != p.nconns {
				t.Errorf("%s: the pipeline counts %d connections, its hosts hold %d", name, p.nconns, n)
			}
			p.mu.Unlock()
		}
		// the server sees a close when the client's comes through
		deadline := time.Now().Add(30 * time.Second)
		for open.Load() > fetch.DefaultMaxIdle && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		if n := open.Load(); n > fetch.DefaultMaxIdle {
			t.Errorf("%s: %d connections kept open after %d servers, want at most %d", name, n, servers, fetch.DefaultMaxIdle)
		}
		c.Close()
	}
}

// TestPipelineUnsolicitedBytes: bytes a server sends after an answer
// whole, with no request outstanding on the connection (a body longer than
// its Content-Length, a stray CRLF, a second answer), are no answer to the
// next request sent on that connection. net/http's Transport drops such a
// connection ("Unsolicited response received on idle HTTP channel") and
// the next request gets its own document on a new one (almost always: its
// reader races the next request).
func TestPipelineUnsolicitedBytes(t *testing.T) {
	for _, depth := range []int{1, 4} {
		for _, extra := range []string{"\r\n", "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nWRONG"} {
			t.Run(fmt.Sprintf("depth%d/%q", depth, extra[:2]), func(t *testing.T) {
				addr, _ := pipeServer(t, func(c net.Conn, br *bufio.Reader) {
					for {
						r, err := nethttp.ReadRequest(br)
						if err != nil {
							return
						}
						body := "body of " + r.URL.Path
						fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n%s%s", len(body), body, extra)
					}
				})
				c, _ := pipeClient(depth)
				defer c.Close()
				for _, p := range []string{"/a", "/b", "/c"} {
					wantBody(t, c, addr, p)
				}
			})
		}
	}
}

// wantBody fetches path from addr with c and checks that it is the
// document answer sends for it.
func wantBody(t *testing.T, c *fetch.Client, addr, path string) {
	t.Helper()
	res, err := c.Fetch(context.Background(), "http://"+addr+path)
	if err != nil {
		t.Errorf("%s: %v", path, err)
		return
	}
	b, err := io.ReadAll(res.Document.Body)
	res.Close()
	if err != nil || string(b) != "body of "+path {
		t.Errorf("%s: got %q, %v; want %q", path, b, err, "body of "+path)
	}
}

// TestPipelineUnsolicitedWhileIdle: a server that writes an answer
// on an idle keep-alive connection (a 400 as it times the connection out)
// and closes it: the next request is not answered by it. The Transport's
// reader sees the bytes while the connection is idle and drops it; the
// driver's own connection looks before it sends on a connection that was
// idle (pipeConn.stale).
func TestPipelineUnsolicitedWhileIdle(t *testing.T) {
	for _, depth := range []int{1, 4} {
		t.Run(fmt.Sprintf("depth%d", depth), func(t *testing.T) {
			wrote := make(chan struct{}, 2)
			addr, _ := pipeServer(t, func(c net.Conn, br *bufio.Reader) {
				r, err := nethttp.ReadRequest(br)
				if err != nil {
					return
				}
				answer(c, r.URL.Path, "")
				time.Sleep(50 * time.Millisecond) // the answer read and the connection idle
				io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
				wrote <- struct{}{}
			})
			c, _ := pipeClient(depth)
			defer c.Close()
			for _, p := range []string{"/a", "/b"} {
				wantBody(t, c, addr, p)
				<-wrote // (on loopback the bytes are there when the write returns)
			}
		})
	}
}

// TestStallBeforeAnswerNamesIdleTimeout: a server silent after the request
// fails it when the idle timeout passes, and the error says so (the
// command's hint, "--timeout raises the idle timeout", keys on it), as it
// does through net/http's Transport; not "no answer within" twice the
// idle time, which is not what was waited.
func TestStallBeforeAnswerNamesIdleTimeout(t *testing.T) {
	for _, depth := range []int{0, 1} {
		t.Run(fmt.Sprint("depth", depth), func(t *testing.T) {
			addr := rawServer(t, "", func(c net.Conn) {
				c.SetReadDeadline(time.Now().Add(time.Minute))
				io.Copy(io.Discard, c)
			})
			const idle = 200 * time.Millisecond
			c := fetch.NewClient(fetch.Options{IdleTimeout: idle})
			c.Register("http", New(Config{Pipeline: depth}))
			defer c.Close()
			_, err := c.Fetch(context.Background(), "http://"+addr+"/")
			if err == nil || !strings.Contains(err.Error(), "idle timeout") {
				t.Errorf("err = %v, want the idle timeout named", err)
			}
		})
	}
}
