package http

import (
	"context"
	"crypto/tls"
	"net"
	"reflect"
	"sync"

	"github.com/fetchproject/fetch/fetch"
)

// lineTracer is what the trace of a connection's making is written to: a
// fetch.Request, or the dialTrace of the connection.
type lineTracer interface {
	Trace(dir fetch.Direction, line string)
}

// dialTrace keeps the trace lines of one connection's making ("connecting
// to", a gateway's CONNECT and its answer) until a request gets the
// connection (httptrace's GotConn), and then traces them to that request.
// net/http dials for a request that found no idle connection but hands the
// new connection to whichever request is waiting first when it is ready,
// or to the pool, and the request that dialled may take another one
// meanwhile: traced at once, the lines went to that request, and the one
// that used the connection had none.
type dialTrace struct {
	d   *Driver
	key context.Context // its entry in d.dials
	req *fetch.Request  // the request that dialled

	mu    sync.Mutex
	lines []traceLine
	done  bool // traced to a request, or the connection closed unused
}

type traceLine struct {
	dir  fetch.Direction
	text string
}

func (t *dialTrace) Trace(dir fetch.Direction, line string) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.done {
		t.lines = append(t.lines, traceLine{dir, line})
	}
}

// flushTo traces the lines kept to req and ends the dialTrace.
func (t *dialTrace) flushTo(req *fetch.Request) {
	t.mu.Lock()
	lines, done := t.lines, t.done
	t.lines, t.done = nil, true
	t.mu.Unlock()
	if done {
		return
	}
	t.d.dials.Delete(t.key)
	for _, l := range lines {
		req.Trace(l.dir, l.text)
	}
}

// newDialTrace starts the dialTrace of the dial net/http runs with ctx, or
// returns nil when nobody traces: a request without a Tracer, or a
// context that cannot key d.dials (net/http's is a pointer, one a dial).
func (d *Driver) newDialTrace(ctx context.Context, req *fetch.Request) *dialTrace {
	if req == nil || req.Options.Tracer == nil || reflect.ValueOf(ctx).Kind() != reflect.Pointer {
		return nil
	}
	t := &dialTrace{d: d, key: ctx, req: req}
	d.dials.Store(ctx, t)
	return t
}

// tracerFor is where a line of the connection being made with ctx goes:
// its dialTrace, or else req.
func (d *Driver) tracerFor(ctx context.Context, req *fetch.Request) lineTracer {
	if reflect.ValueOf(ctx).Kind() == reflect.Pointer {
		if t, ok := d.dials.Load(ctx); ok {
			return t.(*dialTrace)
		}
	}
	return req
}

// tracedConn is a connection with the dialTrace of its making. Closed
// before any request got it (a gateway refused the CONNECT, a TLS
// handshake failed, or it waited unused in the pool), it traces its
// making to the request that dialled, which got the error if there was
// one.
type tracedConn struct {
	net.Conn
	trace *dialTrace
}

func (c *tracedConn) Close() error {
	c.trace.flushTo(c.trace.req)
	return c.Conn.Close()
}

// dialTraceOf finds the dialTrace of c under the layers over it: the
// archive's tap and TLS (the driver's, or net/http's inside a gateway's
// tunnel).
func dialTraceOf(c net.Conn) *dialTrace {
	for c != nil {
		switch x := c.(type) {
		case *tracedConn:
			return x.trace
		case *tapConn:
			c = x.Conn
		case *tls.Conn:
			c = x.NetConn()
		default:
			return nil
		}
	}
	return nil
}
