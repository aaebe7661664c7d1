package fetchtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// Bounds of the timing checks. slack absorbs scheduling (and -race).
const (
	shortIdle  = 300 * time.Millisecond
	slack      = 2 * time.Second
	dribbleGap = 100 * time.Millisecond
	maxTime    = 500 * time.Millisecond
)

// Limits of the memory checks.
const (
	longLine          = 1 << 20
	endlessLineLimit  = 64 << 20
	endlessListLimit  = 80 << 20
	largeListing      = 100000
	maxSizeForCheck   = 64 << 10
	truncatedAnnounce = 1024
	truncatedSent     = 512
)

// fetchAll fetches u and reads a document's body whole, closing it. The
// error is Fetch's or the body's.
func fetchAll(ctx context.Context, c *fetch.Client, u string) (*fetch.Result, []byte, error) {
	res, err := c.Fetch(ctx, u)
	if err != nil {
		return nil, nil, err
	}
	var body []byte
	if res.Document != nil && res.Document.Body != nil {
		body, err = io.ReadAll(res.Document.Body)
		if cerr := res.Close(); err == nil && cerr != nil && !errors.Is(cerr, net.ErrClosed) {
			err = cerr
		}
	} else if res.Listing != nil {
		// A streaming listing is read to its end (or its error), as a
		// caller printing it would, then released.
		err = res.Listing.ReadAll()
		res.Close()
	} else {
		res.Close()
	}
	return res, body, err
}

// contentLines writes n bytes of 64-byte lines of "x" (the last one cut
// short when n is not a multiple of 64): safe in every protocol's body.
func contentLines(w io.Writer, n int) error {
	line := []byte(strings.Repeat("x", 62) + "\r\n")
	for n > 0 {
		k := min(n, len(line))
		if _, err := w.Write(line[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

func (h *Harness) client(opts fetch.Options, server string) *fetch.Client {
	return knowWellKnown(h.NewClient(opts, server))
}

// serveWell is a handler that answers like a good server: the opening,
// five bytes of document (or the listing of names), the end.
func serveWell(h *Harness, listing bool, names []string) func(*Peer) {
	return func(p *Peer) {
		length := int64(7)
		if listing {
			length = -1
		}
		c, err := h.Open(p, Opening{Listing: listing, Length: length})
		if err != nil {
			return
		}
		if listing && !h.Sender {
			for _, n := range names {
				if _, err := io.WriteString(c.W, h.ListingLine(n)); err != nil {
					return
				}
			}
		} else if !h.Sender {
			if _, err := io.WriteString(c.W, "hello\r\n"); err != nil {
				return
			}
		}
		c.End()
	}
}

// --- port policy ---------------------------------------------------------

// countingDialer counts dials and connects nothing.
type countingDialer struct {
	mu    sync.Mutex
	addrs []string
}

func (d *countingDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.addrs = append(d.addrs, addr)
	d.mu.Unlock()
	return nil, &net.OpError{Op: "dial", Net: network, Err: syscall.ECONNREFUSED}
}

func (d *countingDialer) dialled() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.addrs...)
}

// connectCounter dials for real and counts the connections made.
type connectCounter struct {
	mu sync.Mutex
	n  int
}

func (d *connectCounter) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
	if err == nil {
		d.mu.Lock()
		d.n++
		d.mu.Unlock()
	}
	return c, err
}

func (d *connectCounter) count() int {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.n
}

// wellKnown are the default ports of RFC 1738 §3's schemes (and https,
// and smtp for mailto's server): the suite's own list, so that a driver is
// checked against every one of them whatever its client registered.
var wellKnown = map[string]int{
	"ftp": 21, "telnet": 23, "smtp": 25, "gopher": 70, "http": 80, "nntp": 119,
	"news": 119, "wais": 210, "https": 443, "prospero": 1525,
}

// refusedPorts are the ports a scheme must refuse: the bad ports and the
// other schemes' well-known ports, but never its own default.
func refusedPorts(h *Harness) []int {
	set := map[int]bool{}
	for _, p := range fetch.BadPorts() {
		set[p] = true
	}
	for _, p := range wellKnown {
		set[p] = true
	}
	delete(set, 0) // not writable in a URL
	delete(set, h.DefaultPort)
	if h.DefaultPort == 0 {
		delete(set, wellKnown[h.Scheme])
	}
	out := make([]int, 0, len(set))
	for p := range set {
		out = append(out, p)
	}
	sort.Ints(out)
	return out
}

// knowWellKnown adds a port-only record for each well-known scheme c's
// registry lacks (a harness may register its driver alone, with
// Client.Register): the policy protects the ports of the schemes a client
// knows, and the suite checks the driver asks it for every one of them.
func knowWellKnown(c *fetch.Client) *fetch.Client {
	for s, p := range wellKnown {
		if _, ok := c.Registry().Lookup(s); !ok {
			c.Registry().Add(fetch.Scheme{Name: s, DefaultPort: p})
		}
	}
	return c
}

// trap listens on a port, where it can, to prove nothing connects to it.
type trap struct {
	ln *net.TCPListener
}

func setTrap(port int) *trap {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return &trap{} // in use or not ours to bind: the dialer's count must do
	}
	return &trap{ln: ln.(*net.TCPListener)}
}

// sprung reports whether anything connected, and closes the trap.
func (tr *trap) sprung() bool {
	if tr.ln == nil {
		return false
	}
	defer tr.ln.Close()
	tr.ln.SetDeadline(time.Now().Add(10 * time.Millisecond))
	c, err := tr.ln.Accept()
	if err != nil {
		return false
	}
	c.Close()
	return true
}

func urlsOf(h *Harness, addr string) []string {
	us := []string{h.DocumentURL(addr)}
	if h.ListingURL != nil {
		us = append(us, h.ListingURL(addr))
	}
	return us
}

func checkPortsRefused(t testing.TB, h *Harness) {
	for _, port := range refusedPorts(h) {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		tr := setTrap(port)
		d := &countingDialer{}
		c := h.client(fetch.Options{Dialer: d, IdleTimeout: time.Second, DialTimeout: time.Second}, addr)
		defer c.Close() // pooled sessions end with the check
		for _, u := range urlsOf(h, addr) {
			res, _, err := fetchAll(context.Background(), c, u)
			switch {
			case err == nil:
				t.Errorf("%s: fetched (%v) through port %d, which the policy refuses", u, res.Kind, port)
			case fetch.KindOf(err) != fetch.KindPolicy || !errors.Is(err, fetch.ErrPortRefused):
				t.Errorf("%s: error %v (kind %v), want a port-policy refusal (exit 4, ErrPortRefused)", u, err, fetch.KindOf(err))
			}
		}
		if got := d.dialled(); len(got) != 0 {
			t.Errorf("port %d: dialled %v before the policy refused it", port, got)
		}
		if tr.sprung() {
			t.Errorf("port %d: something connected to 127.0.0.1:%d, which the policy refuses", port, port)
		}
	}
}

func checkDefaultPort(t testing.TB, h *Harness) {
	want := net.JoinHostPort("127.0.0.1", strconv.Itoa(h.DefaultPort))
	for _, addr := range []string{"127.0.0.1", want} {
		d := &countingDialer{}
		c := h.client(fetch.Options{Dialer: d, IdleTimeout: time.Second}, addr)
		defer c.Close() // pooled sessions end with the check
		for _, u := range urlsOf(h, addr) {
			_, _, err := fetchAll(context.Background(), c, u)
			if errors.Is(err, fetch.ErrPortRefused) {
				t.Errorf("%s: the scheme's own port %d refused: %v", u, h.DefaultPort, err)
			}
		}
		got := d.dialled()
		if len(got) == 0 || got[0] != want {
			t.Errorf("server %q: dialled %v, want %s (the default port)", addr, got, want)
		}
	}
}

func checkAllowPort(t testing.TB, h *Harness) {
	other := 70 // gopher's port, or http's for gopher itself
	if h.DefaultPort == 70 {
		other = 80
	}
	for _, port := range []int{6000, other, 25} {
		addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
		pol := &fetch.PortPolicy{}
		pol.Allow(port)
		d := &countingDialer{}
		c := h.client(fetch.Options{Dialer: d, Policy: pol, IdleTimeout: time.Second}, addr)
		defer c.Close() // pooled sessions end with the check
		u := h.DocumentURL(addr)
		if _, _, err := fetchAll(context.Background(), c, u); errors.Is(err, fetch.ErrPortRefused) {
			t.Errorf("%s with --allow-port %d: still refused: %v", u, port, err)
		}
		if got := d.dialled(); len(got) == 0 || got[0] != addr {
			t.Errorf("%s with --allow-port %d: dialled %v, want %s", u, port, got, addr)
		}
	}
}

// --- line safety ---------------------------------------------------------

func checkLineClean(t testing.TB, h *Harness, wp WirePart) {
	NoLeaks(t, func() {
		srv := newServerFor(t, h, wp.Listing)
		defer srv.Close()
		u := wp.URL(srv.Addr, wp.Example)
		c := h.client(fetch.Options{IdleTimeout: 2 * time.Second}, srv.Addr)
		defer c.Close() // pooled sessions end with the check
		if _, _, err := fetchAll(context.Background(), c, u); err != nil {
			t.Errorf("%s (part %s = %q, harmless): %v", u, wp.Name, wp.Example, err)
		}
	})
}

func newServerFor(t testing.TB, h *Harness, listing bool) *Server {
	if h.Open == nil {
		return NewServer(t, (*Peer).Hold)
	}
	return NewServer(t, serveWell(h, listing, []string{"one", "two"}))
}

func checkLineUnsafe(t testing.TB, h *Harness, wp WirePart, bad string) {
	NoLeaks(t, func() {
		srv := newServerFor(t, h, wp.Listing)
		defer srv.Close()
		mid := len(wp.Example) / 2
		value := wp.Example[:mid] + bad + wp.Example[mid:]
		u := wp.URL(srv.Addr, value)
		dialer := &connectCounter{}
		c := h.client(fetch.Options{IdleTimeout: 2 * time.Second, Dialer: dialer}, srv.Addr)
		defer c.Close() // pooled sessions end with the check
		_, _, err := fetchAll(context.Background(), c, u)
		c.CloseIdle() // a pooled session would keep its peer from going
		// Every connection the driver made must reach the server's handler,
		// and the handler read what was sent, before the bytes are counted:
		// under load Accept and the reads lag behind. Both waits end as soon
		// as that is so (at once for a driver that made no connection); the
		// bound only stops a handler that never ends.
		srv.WaitAccepted(dialer.count(), 20*time.Second)
		srv.WaitGone(20 * time.Second)
		srv.Close()
		got := srv.Received()
		if wp.Escaped {
			if err != nil && fetch.KindOf(err) != fetch.KindPolicy {
				t.Errorf("%s: %v", u, err)
			}
			head, _, _ := bytes.Cut(got, []byte("\r\n\r\n"))
			for i, line := range bytes.Split(head, []byte("\r\n")) {
				if bytes.ContainsAny(line, "\r\n\x00") {
					t.Errorf("%s: line %d the server received holds a raw CR, LF or NUL: %q", u, i+1, line)
				}
			}
			return
		}
		if err == nil {
			t.Errorf("%s: part %s holds %q and the fetch went ahead; the server received %q", u, wp.Name, bad, clip(got))
			return
		}
		if fetch.KindOf(err) != fetch.KindPolicy || !errors.Is(err, fetch.ErrUnsafeLine) {
			t.Errorf("%s: error %v (kind %v), want a line-safety refusal (exit 4, ErrUnsafeLine)", u, err, fetch.KindOf(err))
		}
		wantURLOnce(t, u, err)
		if len(got) != 0 {
			t.Errorf("%s: refused, but only after sending the server %q", u, clip(got))
		}
	})
}

func clip(b []byte) string {
	if len(b) > 300 {
		return string(b[:300]) + "..."
	}
	return string(b)
}

// --- timeouts --------------------------------------------------------------

// isTimeout reports an error that says time ran out.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, fetch.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, os.ErrDeadlineExceeded) || errors.As(err, &ne) && ne.Timeout()
}

// wantTimeout fails t unless err is a KindNetwork timeout that came
// within bound.
func wantTimeout(t testing.TB, u string, err error, took, bound time.Duration) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s: no error from a server that never finishes", u)
	case fetch.KindOf(err) != fetch.KindNetwork:
		t.Errorf("%s: error %v (kind %v), want a network timeout (exit 5)", u, err, fetch.KindOf(err))
	case !isTimeout(err):
		t.Errorf("%s: error %v is KindNetwork but does not say it timed out", u, err)
	}
	if took > bound {
		t.Errorf("%s: took %v, bound %v", u, took.Round(time.Millisecond), bound)
	}
	wantURLOnce(t, u, err)
}

// wantURLOnce fails t unless err is a *fetch.Error naming u (as the client
// fills it in, password masked, fragment removed) and its message names u
// exactly once: drivers leave the URL to the client.
func wantURLOnce(t testing.TB, u string, err error) {
	t.Helper()
	var fe *fetch.Error
	if err == nil {
		return
	}
	if !errors.As(err, &fe) {
		t.Errorf("%s: error %v is not a *fetch.Error", u, err)
		return
	}
	p, perr := fetch.Parse(u)
	if perr != nil {
		return
	}
	p.Fragment, p.HasFragment = "", false
	want := p.Redacted()
	if fe.URL != want {
		t.Errorf("%s: error names URL %q, want %q", u, fe.URL, want)
	}
	if n := strings.Count(err.Error(), want); n != 1 {
		t.Errorf("%s: the message names the URL %d times: %v", u, n, err)
	}
}

func checkSilent(t testing.TB, h *Harness) {
	wantFetchTimeout(t, h, (*Peer).Hold, fetch.Options{IdleTimeout: shortIdle}, shortIdle+slack)
}

// wantFetchTimeout fetches h's document from a server run by handler and
// wants a timeout error within bound.
func wantFetchTimeout(t testing.TB, h *Harness, handler func(*Peer), opts fetch.Options, bound time.Duration) {
	NoLeaks(t, func() {
		srv := NewServer(t, handler)
		defer srv.Close()
		u := h.DocumentURL(srv.Addr)
		c := h.client(opts, srv.Addr)
		defer c.Close() // pooled sessions end with the check
		start := time.Now()
		_, _, err := fetchAll(context.Background(), c, u)
		wantTimeout(t, u, err, time.Since(start), bound)
	})
}

// stallAfter opens, sends some content, then says nothing more.
func stallAfter(h *Harness, n int) func(*Peer) {
	return func(p *Peer) {
		c, err := h.Open(p, Opening{Length: 1 << 20})
		if err != nil {
			return
		}
		if !h.Sender {
			if contentLines(c.W, n) != nil {
				return
			}
		}
		p.Hold()
	}
}

func checkStall(t testing.TB, h *Harness) {
	wantFetchTimeout(t, h, stallAfter(h, 4096), fetch.Options{IdleTimeout: shortIdle}, shortIdle+slack)
}

// dribble writes one byte of b every dribbleGap until the client goes.
func dribble(w io.Writer, b byte) {
	for {
		if _, err := w.Write([]byte{b}); err != nil {
			return
		}
		time.Sleep(dribbleGap)
	}
}

// awaitRequest waits (at most two seconds) for the client's first byte.
func awaitRequest(p *Peer) {
	p.Conn.SetReadDeadline(time.Now().Add(2 * time.Second))
	p.Conn.Read(make([]byte, 1))
	p.Conn.SetReadDeadline(time.Time{})
}

// dribbleOptions leave the idle timeout long: only MaxTime can end a
// transfer that gets a byte every dribbleGap.
var dribbleOptions = fetch.Options{IdleTimeout: 2 * time.Second, MaxTime: maxTime}

func checkDribbleOpening(t testing.TB, h *Harness) {
	wantFetchTimeout(t, h, func(p *Peer) {
		if h.ClientFirst {
			awaitRequest(p)
		}
		p.Drain()
		dribble(p.Conn, 'x')
	}, dribbleOptions, maxTime+slack)
}

func checkDribbleTransfer(t testing.TB, h *Harness) {
	wantFetchTimeout(t, h, func(p *Peer) {
		c, err := h.Open(p, Opening{Length: -1})
		if err != nil {
			return
		}
		p.Drain()
		dribble(c.W, '2')
	}, dribbleOptions, maxTime+slack)
}

// --- cancellation ------------------------------------------------------------

// waitGone fails t unless the client closes p's connection within d.
func waitGone(t testing.TB, what string, gone <-chan struct{}, d time.Duration) {
	t.Helper()
	select {
	case <-gone:
	case <-time.After(d):
		t.Errorf("%s: the connection was still open %v after the context was cancelled", what, d)
	}
}

func checkCancelFetch(t testing.TB, h *Harness) {
	NoLeaks(t, func() {
		peers := make(chan *Peer, 4)
		srv := NewServer(t, func(p *Peer) {
			peers <- p
			p.Hold()
		})
		defer srv.Close()
		u := h.DocumentURL(srv.Addr)
		c := h.client(fetch.Options{IdleTimeout: 30 * time.Second}, srv.Addr)
		defer c.Close() // pooled sessions end with the check
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		done := make(chan error, 1)
		go func() {
			res, err := c.Fetch(ctx, u)
			res.Close()
			done <- err
		}()
		var p *Peer
		select {
		case p = <-peers:
		case err := <-done:
			t.Fatalf("%s: Fetch returned before the server said anything: %v", u, err)
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no connection within 5s", u)
		}
		time.Sleep(100 * time.Millisecond)
		cancel()
		cancelled := time.Now()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: Fetch succeeded after its context was cancelled", u)
			}
			if took := time.Since(cancelled); took > slack {
				t.Errorf("%s: Fetch took %v to return after cancel", u, took)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Fetch still running 10s after its context was cancelled", u)
		}
		waitGone(t, u, p.Gone(), slack)
	})
}

func checkCancelBody(t testing.TB, h *Harness) {
	NoLeaks(t, func() {
		gone := make(chan (<-chan struct{}), 1)
		srv := NewServer(t, func(p *Peer) {
			c, err := h.Open(p, Opening{Length: -1})
			if err != nil {
				return
			}
			gone <- p.Gone()
			contentLines(c.W, 16<<10) // fails once the client has gone
			p.Hold()
		})
		defer srv.Close()
		u := h.DocumentURL(srv.Addr)
		c := h.client(fetch.Options{IdleTimeout: 30 * time.Second}, srv.Addr)
		defer c.Close() // pooled sessions end with the check
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		res, err := c.Fetch(ctx, u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		defer res.Close()
		if res.Document == nil {
			t.Fatalf("%s: a %v, want a document", u, res.Kind)
		}
		if _, err := io.ReadFull(res.Document.Body, make([]byte, 1024)); err != nil {
			t.Fatalf("%s: reading the first KiB: %v", u, err)
		}
		cancel()
		cancelled := time.Now()
		done := make(chan error, 1)
		go func() {
			_, err := io.Copy(io.Discard, res.Document.Body)
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil {
				t.Errorf("%s: the body ended cleanly (io.EOF) after its context was cancelled", u)
			}
			if took := time.Since(cancelled); took > slack {
				t.Errorf("%s: Read took %v to return after cancel", u, took)
			}
		case <-time.After(10 * time.Second):
			res.Close()
			t.Fatalf("%s: Read still blocked 10s after its context was cancelled", u)
		}
		waitGone(t, u, <-gone, slack)
	})
}

// --- truncation ------------------------------------------------------------

func wantTruncated(t testing.TB, u string, err error, body []byte) {
	t.Helper()
	switch {
	case err == nil:
		t.Errorf("%s: %d bytes and a clean end from a transfer cut short", u, len(body))
	case !errors.Is(err, fetch.ErrTruncated):
		t.Errorf("%s: error %v (kind %v), want one wrapping fetch.ErrTruncated", u, err, fetch.KindOf(err))
	}
	wantURLOnce(t, u, err)
}

func checkTruncShort(t testing.TB, h *Harness) { checkTruncAfter(t, h, truncatedSent) }

func checkTruncNoEnd(t testing.TB, h *Harness) { checkTruncAfter(t, h, truncatedAnnounce) }

// checkTruncAfter serves sent lines of a document announced as
// truncatedAnnounce lines long, then drops the connection without the
// protocol's end: the fetch must fail as truncated.
func checkTruncAfter(t testing.TB, h *Harness, sent int) {
	NoLeaks(t, func() {
		srv := NewServer(t, func(p *Peer) {
			c, err := h.Open(p, Opening{Length: truncatedAnnounce})
			if err != nil {
				return
			}
			contentLines(c.W, sent)
			c.Abort()
		})
		defer srv.Close()
		u := h.DocumentURL(srv.Addr)
		c := h.client(fetch.Options{IdleTimeout: 2 * time.Second}, srv.Addr)
		defer c.Close() // pooled sessions end with the check
		_, body, err := fetchAll(context.Background(), c, u)
		wantTruncated(t, u, err, body)
	})
}

// --- size ------------------------------------------------------------------

func checkMaxSize(t testing.TB, h *Harness) {
	NoLeaks(t, func() {
		srv := NewServer(t, func(p *Peer) {
			c, err := h.Open(p, Opening{Length: -1})
			if err != nil {
				return
			}
			for contentLines(c.W, 64<<10) == nil {
			}
			c.Abort()
		})
		defer srv.Close()
		u := h.DocumentURL(srv.Addr)
		c := h.client(fetch.Options{IdleTimeout: 2 * time.Second, MaxSize: maxSizeForCheck}, srv.Addr)
		defer c.Close() // pooled sessions end with the check
		res, err := c.Fetch(context.Background(), u)
		if err != nil {
			if !errors.Is(err, fetch.ErrTooLarge) {
				t.Errorf("%s: %v, want a document or ErrTooLarge", u, err)
			}
			return
		}
		defer res.Close()
		if res.Document == nil {
			t.Fatalf("%s: a %v, want a document", u, res.Kind)
		}
		n, err := io.Copy(io.Discard, io.LimitReader(res.Document.Body, 64<<20))
		switch {
		case err == nil:
			t.Errorf("%s: read %d bytes of an endless stream with --max-size %d and no error", u, n, maxSizeForCheck)
		case !errors.Is(err, fetch.ErrTooLarge) || fetch.KindOf(err) != fetch.KindPolicy:
			t.Errorf("%s: error %v (kind %v) after %d bytes, want ErrTooLarge (exit 4)", u, err, fetch.KindOf(err), n)
		case n > maxSizeForCheck:
			t.Errorf("%s: delivered %d bytes past --max-size %d", u, n, maxSizeForCheck)
		}
	})
}

// writeCounter counts bytes written and refuses more than limit.
type writeCounter struct {
	w     io.Writer
	n     atomic.Int64
	limit int64
	over  atomic.Bool
}

var errLimit = errors.New("fake server: write limit reached")

func (c *writeCounter) Write(b []byte) (int, error) {
	if c.n.Load() >= c.limit {
		c.over.Store(true)
		return 0, errLimit
	}
	n, err := c.w.Write(b)
	c.n.Add(int64(n))
	return n, err
}

func checkEndlessListing(t testing.TB, h *Harness) {
	NoLeaks(t, func() {
		var wc *writeCounter
		var mu sync.Mutex
		srv := NewServer(t, func(p *Peer) {
			c, err := h.Open(p, Opening{Listing: true, Length: -1})
			if err != nil {
				return
			}
			w := &writeCounter{w: c.W, limit: endlessListLimit}
			mu.Lock()
			wc = w
			mu.Unlock()
			pad := strings.Repeat("n", 1000)
			for i := 0; ; i++ {
				if _, err := io.WriteString(w, h.ListingLine(fmt.Sprintf("e%09d%s", i, pad))); err != nil {
					break
				}
			}
			c.Abort()
		})
		defer srv.Close()
		u := h.ListingURL(srv.Addr)
		c := h.client(fetch.Options{IdleTimeout: 5 * time.Second}, srv.Addr)
		defer c.Close() // pooled sessions end with the check
		res, _, err := fetchAll(context.Background(), c, u)
		srv.Close()
		mu.Lock()
		defer mu.Unlock()
		if wc != nil && wc.over.Load() {
			t.Errorf("%s: the client took %d MiB of an endless listing without giving up", u, endlessListLimit>>20)
			return
		}
		if err == nil {
			t.Errorf("%s: an endless listing ended cleanly (%v)", u, res.Kind)
		}
	})
}

// --- long lines ------------------------------------------------------------

func lineURL(h *Harness, addr string) string {
	if h.ListingURL != nil {
		return h.ListingURL(addr)
	}
	return h.DocumentURL(addr)
}

func checkLongLine(t testing.TB, h *Harness) {
	NoLeaks(t, func() {
		srv := NewServer(t, func(p *Peer) {
			prefix, err := h.LinePrefix(p)
			if err != nil {
				return
			}
			p.Drain()
			line := prefix + strings.Repeat("a", longLine) + "\r\n"
			if _, err := io.WriteString(p.Conn, line); err != nil {
				return
			}
			<-p.Gone()
		})
		defer srv.Close()
		u := lineURL(h, srv.Addr)
		c := h.client(fetch.Options{IdleTimeout: 5 * time.Second}, srv.Addr)
		defer c.Close() // pooled sessions end with the check
		start := time.Now()
		_, _, err := fetchAll(context.Background(), c, u)
		took := time.Since(start)
		switch {
		case err == nil:
			t.Errorf("%s: a %d-byte protocol line was accepted", u, longLine)
		case isTimeout(err):
			t.Errorf("%s: a %d-byte protocol line was read without complaint (the fetch timed out later: %v)", u, longLine, err)
		default:
			checkLineRefusal(t, u, err)
		}
		if took > 3*time.Second {
			t.Errorf("%s: took %v to refuse a %d-byte line", u, took, longLine)
		}
	})
}

func checkEndlessLine(t testing.TB, h *Harness) {
	NoLeaks(t, func() {
		var over atomic.Bool
		srv := NewServer(t, func(p *Peer) {
			prefix, err := h.LinePrefix(p)
			if err != nil {
				return
			}
			p.Drain()
			w := &writeCounter{w: p.Conn, limit: endlessLineLimit}
			io.WriteString(w, prefix)
			chunk := bytes.Repeat([]byte("a"), 64<<10)
			for {
				if _, err := w.Write(chunk); err != nil {
					break
				}
			}
			if w.over.Load() {
				over.Store(true)
			}
			p.Close()
		})
		defer srv.Close()
		u := lineURL(h, srv.Addr)
		c := h.client(fetch.Options{IdleTimeout: 5 * time.Second}, srv.Addr)
		defer c.Close() // pooled sessions end with the check
		_, _, err := fetchAll(context.Background(), c, u)
		srv.Close()
		if over.Load() {
			t.Errorf("%s: the client read %d MiB of one line without giving up", u, endlessLineLimit>>20)
		} else if err == nil {
			t.Errorf("%s: an endless protocol line was accepted", u)
		} else {
			checkLineRefusal(t, u, err)
		}
	})
}

// boundInBytes finds a bound said in bytes ("65536 bytes") in a message.
var boundInBytes = regexp.MustCompile(`\b[0-9]+ bytes\b`)

// checkLineRefusal fails t unless err refuses a line past its bound as
// the README says every driver does: ErrLineTooLong, a size bound refused
// by policy (exit 4), with the bound in bytes in its message.
func checkLineRefusal(t testing.TB, u string, err error) {
	t.Helper()
	// The driver's own kind: KindOf makes any size bound a refusal by
	// policy whatever the driver said, which would hide a driver that
	// says otherwise to another reader of its errors.
	var fe *fetch.Error
	if !errors.Is(err, fetch.ErrLineTooLong) || !errors.As(err, &fe) || fe.Kind != fetch.KindPolicy {
		t.Errorf("%s: a protocol line past the bound: %v (kind %v, exit %d), want ErrLineTooLong, refused by policy (exit 4)",
			u, err, fetch.KindOf(err), fetch.KindOf(err).ExitCode())
	} else if !boundInBytes.MatchString(err.Error()) {
		t.Errorf("%s: a protocol line past the bound: %q does not name the bound in bytes", u, err)
	}
}

// --- listings ----------------------------------------------------------------

// CheckEntryURLs fails t for each entry of l whose URL is not absolute or
// does not parse; text, error and raw lines may have none.
func CheckEntryURLs(t testing.TB, where string, l *fetch.Listing) {
	t.Helper()
	bad := 0
	for i, e := range l.Entries {
		if msg := entryURLProblem(e); msg != "" {
			if bad++; bad <= 10 {
				t.Errorf("%s: entry %d %q: %s", where, i, e.Name, msg)
			}
		}
	}
	if bad > 10 {
		t.Errorf("%s: %d entries in all with bad URLs", where, bad)
	}
}

func entryURLProblem(e fetch.Entry) string {
	if e.URL == "" {
		switch e.Kind {
		case fetch.EntryText, fetch.EntryError, fetch.EntryRaw:
			return ""
		}
		return "no URL"
	}
	u, err := fetch.Parse(e.URL)
	switch {
	case err != nil:
		return fmt.Sprintf("URL %q does not parse: %v", e.URL, err)
	case u.Scheme == "":
		return fmt.Sprintf("URL %q is not absolute", e.URL)
	case u.Slashes && u.Host == "" && u.Scheme != "file":
		return fmt.Sprintf("URL %q names no host", e.URL)
	}
	return ""
}

// listingResult fetches a listing of names from a fake server (or from
// MakeListing) and checks it.
func listingResult(t testing.TB, h *Harness, names []string) {
	var u string
	var srv *Server
	if h.MakeListing != nil {
		u = h.MakeListing(t, names)
	} else {
		srv = NewServer(t, serveWell(h, true, names))
		defer srv.Close()
		u = h.ListingURL(srv.Addr)
	}
	addr := ""
	if srv != nil {
		addr = srv.Addr
	}
	// The idle timeout only guards against a hang; it is not the bound under
	// test, and a fake building 100,000 entries under -race on a busy
	// machine takes its time before the first byte.
	c := h.client(fetch.Options{IdleTimeout: time.Minute}, addr)
	defer c.Close() // pooled sessions end with the check
	res, _, err := fetchAll(context.Background(), c, u)
	if err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	if res.Listing == nil {
		t.Fatalf("%s: a %v, want a listing", u, res.Kind)
	}
	CheckEntryURLs(t, u, res.Listing)
	for _, e := range res.Listing.Entries {
		// The names served have no fragment: a "#" in one was not escaped.
		if eu, err := fetch.Parse(e.URL); err == nil && eu.HasFragment {
			t.Errorf("%s: entry %q: URL %q has a fragment: the name's \"#\" was not escaped", u, e.Name, e.URL)
		}
	}
	want := map[string]bool{}
	for _, n := range names {
		want[n] = true
	}
	got := map[string]bool{}
	var extra []string
	for _, e := range res.Listing.Entries {
		switch {
		case want[e.Name]:
			if got[e.Name] {
				extra = append(extra, e.Name)
			}
			got[e.Name] = true
		case e.Kind != fetch.EntryText:
			extra = append(extra, e.Name)
		}
	}
	var missing []string
	for _, n := range names {
		if !got[n] {
			missing = append(missing, n)
		}
	}
	if len(missing) > 0 || len(extra) > 0 {
		t.Errorf("%s: %d entries for %d names; missing %q; unexpected or repeated %q", u, len(res.Listing.Entries), len(names), first(missing), first(extra))
	}
}

func first(s []string) []string {
	if len(s) > 10 {
		return s[:10]
	}
	return s
}

func checkListingNames(t testing.TB, h *Harness) {
	names := h.Names
	if names == nil {
		names = DefaultNames
	}
	NoLeaks(t, func() { listingResult(t, h, names) })
}

// checkListingCloseEarly: a caller that reads a few entries of a large
// listing and closes the result leaves no connection or goroutine behind,
// whether the driver streams the listing or holds it.
func checkListingCloseEarly(t testing.TB, h *Harness) {
	names := make([]string, largeListing)
	for i := range names {
		names[i] = fmt.Sprintf("entry%06d", i)
	}
	NoLeaks(t, func() {
		srv := NewServer(t, serveWell(h, true, names))
		defer srv.Close()
		u := h.ListingURL(srv.Addr)
		c := h.client(fetch.Options{IdleTimeout: time.Minute}, srv.Addr) // a guard against a hang only
		defer c.Close()                                                  // pooled sessions end with the check
		res, err := c.Fetch(context.Background(), u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if res.Listing == nil {
			res.Close()
			t.Fatalf("%s: a %v, want a listing", u, res.Kind)
		}
		n := 0
		for n < 10 && res.Listing.Next() {
			n++
		}
		if err := res.Listing.Err(); err != nil || n < 10 {
			t.Errorf("%s: %d entries read before closing, then %v", u, n, err)
		}
		if err := res.Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			t.Errorf("%s: closing a listing after %d entries: %v", u, n, err)
		}
	})
}

func checkListingLarge(t testing.TB, h *Harness) {
	names := make([]string, largeListing)
	for i := range names {
		names[i] = fmt.Sprintf("entry%06d", i)
	}
	NoLeaks(t, func() { listingResult(t, h, names) })
}
