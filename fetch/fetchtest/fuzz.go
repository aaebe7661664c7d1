package fetchtest

import (
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// PipeDialer connects every dial to an in-memory server whose whole reply
// is the same bytes and which reads whatever the client sends: no ports,
// so a fuzzer can run it millions of times. Set it as fetch.Options.Dialer.
// It is safe for concurrent use, as a driver may dial from a goroutine of
// its own (FTP's data connection) that ends after the fetch did; a dial
// after Close fails.
type PipeDialer struct {
	reply  []byte
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn
	closed bool
}

// NewPipeDialer returns a PipeDialer whose server answers reply.
func NewPipeDialer(reply []byte) *PipeDialer { return &PipeDialer{reply: reply} }

// DialContext connects to a new in-memory server.
func (d *PipeDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.closed { // Close is waiting for the servers: no new one
		return nil, &net.OpError{Op: "dial", Net: network, Err: net.ErrClosed}
	}
	client, server := net.Pipe()
	d.conns = append(d.conns, server)
	d.wg.Add(2)
	go func() {
		defer d.wg.Done()
		io.Copy(io.Discard, server)
	}()
	go func() {
		defer d.wg.Done()
		server.Write(d.reply)
		server.Close()
	}()
	return client, nil
}

// Close ends every server side and waits for its goroutines.
func (d *PipeDialer) Close() {
	d.mu.Lock()
	d.closed = true
	for _, c := range d.conns {
		c.Close()
	}
	d.mu.Unlock()
	d.wg.Wait()
}

// fuzzBound is how long one fetch of garbage may take; past hangBound
// the fetch is taken for hung and its goroutines are dumped.
const (
	fuzzBound = 5 * time.Second
	hangBound = 10 * time.Second
)

// ServeBytes fetches h's document and listing URLs from a server whose
// whole reply, on every connection, is reply. It fails t if the driver
// hangs, returns an error of no kind (exit 1), or a listing whose entry
// URLs are not absolute; a panic fails it by itself.
func ServeBytes(t testing.TB, h *Harness, reply []byte) {
	t.Helper()
	const server = "127.0.0.1:7119"
	urls := []string{h.DocumentURL(server)}
	if h.ListingURL != nil {
		urls = append(urls, h.ListingURL(server))
	}
	for _, u := range urls {
		d := NewPipeDialer(reply)
		pol := &fetch.PortPolicy{}
		pol.Allow(7119)
		c := h.client(fetch.Options{
			Dialer:      d,
			Policy:      pol,
			IdleTimeout: time.Second,
			MaxTime:     2 * time.Second,
			MaxSize:     1 << 20,
		}, server)
		defer c.Close() // pooled sessions end with the check
		start := time.Now()
		type outcome struct {
			res   *fetch.Result
			err   error
			panic string
		}
		done := make(chan outcome, 1)
		go func() {
			defer func() {
				if p := recover(); p != nil {
					done <- outcome{panic: fmt.Sprintf("%v\n%s", p, debug.Stack())}
				}
			}()
			res, _, err := fetchAll(context.Background(), c, u)
			done <- outcome{res: res, err: err}
		}()
		var o outcome
		select {
		case o = <-done:
			if o.panic != "" {
				d.Close()
				t.Fatalf("%s: panic on the %d-byte reply %q: %s", u, len(reply), clip(reply), o.panic)
			}
		case <-time.After(hangBound):
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%s: still running %v after Options.MaxTime of 2s on the %d-byte reply %q:\n%s", u, hangBound, len(reply), clip(reply), buf)
		}
		res, err := o.res, o.err
		if took := time.Since(start); took > fuzzBound {
			t.Errorf("%s: %v to give up on a %d-byte reply %q", u, took, len(reply), clip(reply))
		}
		d.Close()
		if err != nil {
			if fetch.KindOf(err) == fetch.KindUnknown {
				t.Errorf("%s: error of no kind (exit 1) for the reply %q: %v (%T)", u, clip(reply), err, err)
			}
			continue
		}
		if res.Listing != nil {
			CheckEntryURLs(t, u, res.Listing)
		}
	}
}

// FuzzServerBytes is the body of a driver's FuzzServerBytes target: the
// fuzzer's input is the server's whole reply to each of the harnesses'
// URLs. Seeds come from the harnesses, plus a few generic ones.
func FuzzServerBytes(f *testing.F, hs ...*Harness) {
	for _, s := range genericSeeds {
		f.Add([]byte(s))
	}
	for _, h := range hs {
		for _, s := range h.Seeds {
			f.Add(s)
		}
	}
	f.Fuzz(func(t *testing.T, reply []byte) {
		for _, h := range hs {
			ServeBytes(t, h, reply)
		}
	})
}

var genericSeeds = []string{
	"", "\r\n", "\n", ".\r\n", "\x00\xff", "200 \r\n", "+-1\r\n", "HTTP/1.1 200 OK\r\n\r\n",
	"220-\r\n220 \r\n", "+5\r\nab", "-1\r\n", "3err\t\terror.host\t1\r\n",
}

// checkGarbage runs ServeBytes over the seeds, random mutations of them
// and random bytes: the fuzz target's regression run inside go test.
func checkGarbage(t testing.TB, h *Harness) {
	rng := rand.New(rand.NewPCG(8, 1738))
	inputs := [][]byte{}
	for _, s := range genericSeeds {
		inputs = append(inputs, []byte(s))
	}
	inputs = append(inputs, h.Seeds...)
	for _, s := range h.Seeds {
		for range 10 {
			m := append([]byte(nil), s...)
			for range 1 + rng.IntN(4) {
				if len(m) == 0 {
					break
				}
				m[rng.IntN(len(m))] = byte(rng.UintN(256))
			}
			if len(m) > 0 && rng.IntN(3) == 0 {
				m = m[:rng.IntN(len(m))]
			}
			inputs = append(inputs, m)
		}
	}
	for range 50 {
		b := make([]byte, rng.IntN(300))
		for i := range b {
			b[i] = byte(rng.UintN(256))
		}
		inputs = append(inputs, b)
	}
	NoLeaks(t, func() {
		for _, in := range inputs {
			ServeBytes(t, h, in)
		}
	})
}
