package http

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"sync/atomic"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

// connectGuard holds a gateway's answer to the CONNECT of an https URL
// (the tunnel net/http opens through --proxy) to the bounds of every other
// response header: wire.DefaultMaxLine bytes, refused as a size (exit 4),
// and twice the idle time as a whole. net/http reads that answer on its
// own, past the transport's ResponseHeaderTimeout and MaxResponseHeaderBytes:
// its byte limit ends in a bare "unexpected EOF" (a network failure) and
// its only time limit is a minute, however slowly the bytes come.
//
// The guard watches from the connection's first write, when that is a
// CONNECT, to the next write after some of the answer was read (the TLS
// handshake inside the tunnel); any other connection it passes through.
// The error it ends the answer with seldom reaches the caller as it is:
// net/http first reports what it makes of the part it read (a header
// line without its colon, say), so the guard also leaves the error in
// the tunnelFailure of the request that dialled.
type connectGuard struct {
	net.Conn // from fetch.NewDeadlineConn, which Rebind bounds in time
	idle     time.Duration
	failure  *tunnelFailure // nil when nobody asks

	state atomic.Int32 // guardFresh, guardAnswer or guardDone
	// Set at the CONNECT, by the goroutine that writes it and then reads
	// the answer; read by that goroutine only until guardDone.
	left   int64 // answer bytes still allowed
	read   bool  // some of the answer was read
	cancel context.CancelFunc
}

const (
	guardFresh int32 = iota
	guardAnswer
	guardDone
)

func (g *connectGuard) Write(p []byte) (int, error) {
	switch g.state.Load() {
	case guardFresh:
		if bytes.HasPrefix(p, []byte("CONNECT ")) {
			g.watch()
		} else {
			g.state.Store(guardDone)
		}
	case guardAnswer:
		if g.read { // the tunnel's first bytes: the answer is in
			g.unwatch()
		}
	}
	return g.Conn.Write(p)
}

func (g *connectGuard) Read(p []byte) (int, error) {
	if g.state.Load() != guardAnswer {
		return g.Conn.Read(p)
	}
	if g.left <= 0 {
		err := headerTooLong("CONNECT")
		g.fail(err)
		return 0, err
	}
	if int64(len(p)) > g.left {
		p = p[:g.left]
	}
	n, err := g.Conn.Read(p)
	g.left -= int64(n)
	g.read = g.read || n > 0
	var fe *fetch.Error
	if errors.As(err, &fe) && errors.Is(err, fetch.ErrTimeout) {
		g.fail(fe)
	}
	return n, err
}

func (g *connectGuard) fail(err *fetch.Error) {
	if g.failure != nil {
		g.failure.err.CompareAndSwap(nil, err)
	}
}

func (g *connectGuard) Close() error {
	if g.state.Swap(guardDone) == guardAnswer {
		g.cancel()
	}
	return g.Conn.Close()
}

// watch starts the answer's bounds. The byte bound is one short of
// net/http's own (the same wire.DefaultMaxLine), so that the guard's
// refusal comes before net/http's end of input.
func (g *connectGuard) watch() {
	limit := 2 * g.idle
	ctx, cancel := context.WithTimeoutCause(context.Background(), limit, &fetch.Error{
		Kind: fetch.KindNetwork, Op: "CONNECT", Offset: -1,
		Err: fmt.Errorf("%w: the gateway's answer to CONNECT took more than %v", fetch.ErrTimeout, limit)})
	if !fetch.Rebind(g.Conn, ctx) {
		cancel() // closed already: the next read or write fails
		g.state.Store(guardDone)
		return
	}
	g.left, g.cancel = wire.DefaultMaxLine-1, cancel
	g.state.Store(guardAnswer)
}

// unwatch ends the answer's bounds: the connection is a tunnel, with the
// idle time between reads as every connection has.
func (g *connectGuard) unwatch() {
	if g.state.Swap(guardDone) != guardAnswer {
		return
	}
	fetch.Rebind(g.Conn, context.Background())
	g.cancel()
}

// tunnelKey carries a request's tunnelFailure on its context, which
// net/http's dial context keeps.
type tunnelKey struct{}

// tunnelFailure is where a connectGuard leaves the error that ended a
// gateway's answer to CONNECT, for the request whose dial it was.
type tunnelFailure struct {
	err atomic.Pointer[fetch.Error]
}

// withTunnelFailure returns ctx carrying a new tunnelFailure, for a
// request that goes through a gateway.
func withTunnelFailure(ctx context.Context) (context.Context, *tunnelFailure) {
	f := &tunnelFailure{}
	return context.WithValue(ctx, tunnelKey{}, f), f
}

// tunnelFailureOf is the tunnelFailure on ctx, or nil.
func tunnelFailureOf(ctx context.Context) *tunnelFailure {
	f, _ := ctx.Value(tunnelKey{}).(*tunnelFailure)
	return f
}

// Err is the error left, or nil; a nil tunnelFailure has none.
func (f *tunnelFailure) Err() error {
	if f == nil {
		return nil
	}
	if e := f.err.Load(); e != nil {
		return e
	}
	return nil
}
