package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"sync"
	"time"

	"github.com/fetchproject/fetch/fetch/internal/rawio"
)

// deadlineConn pushes the read and write deadlines forward before each
// call, so a peer that goes silent for the idle time ends the transfer,
// and closes the connection when its context ends. A TCP connection is
// read and written through package rawio, which spares the Go scheduler a
// wake-up after every wait for the server.
type deadlineConn struct {
	net.Conn
	rw   io.ReadWriter // Conn, or its rawio.Socket
	idle time.Duration
	once sync.Once

	mu   sync.Mutex // guards ctx and stop, which Rebind changes
	ctx  context.Context
	stop func() bool
}

// NewDeadlineConn wraps c so that no read or write waits longer than idle
// and the connection closes when ctx is done. Timeouts come back as errors
// that wrap ErrTimeout.
func NewDeadlineConn(ctx context.Context, c net.Conn, idle time.Duration) net.Conn {
	dc := &deadlineConn{Conn: c, rw: c, idle: idle, ctx: ctx}
	if s := rawio.NewSocket(c); s != nil {
		dc.rw = s
	}
	dc.stop = context.AfterFunc(ctx, func() { c.Close() })
	return dc
}

// Rebind ties c, a connection from NewDeadlineConn or Request.Dial, to
// ctx instead of the context it had, so a pooled connection is closed by
// the request that has it checked out and not by one that ended long ago;
// context.Background() unties it while it waits in a pool. It reports
// false when c is already closed or closing (its former context ended),
// or is not such a connection.
func Rebind(c net.Conn, ctx context.Context) bool {
	dc, ok := c.(*deadlineConn)
	if !ok {
		return false
	}
	dc.mu.Lock()
	defer dc.mu.Unlock()
	if !dc.stop() {
		return false
	}
	dc.ctx = ctx
	dc.stop = context.AfterFunc(ctx, func() { dc.Conn.Close() })
	return true
}

func (c *deadlineConn) context() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx
}

func (c *deadlineConn) deadline() time.Time {
	d := time.Now().Add(c.idle)
	if cd, ok := c.context().Deadline(); ok && cd.Before(d) {
		return cd
	}
	return d
}

func (c *deadlineConn) Read(p []byte) (int, error) {
	c.Conn.SetReadDeadline(c.deadline())
	n, err := c.rw.Read(p)
	return n, c.wrap(err)
}

func (c *deadlineConn) Write(p []byte) (int, error) {
	c.Conn.SetWriteDeadline(c.deadline())
	n, err := c.rw.Write(p)
	return n, c.wrap(err)
}

func (c *deadlineConn) Close() error {
	var err error
	c.once.Do(func() {
		c.mu.Lock()
		c.stop()
		c.mu.Unlock()
		err = c.Conn.Close()
	})
	return err
}

// timeoutError keeps net.Error's Timeout while matching ErrTimeout.
type timeoutError struct {
	cause error
	idle  time.Duration
}

func (e timeoutError) Error() string {
	return fmt.Sprintf("no data for %v (the idle timeout): %v", e.idle, ErrTimeout)
}
func (e timeoutError) Unwrap() []error { return []error{ErrTimeout, e.cause} }
func (e timeoutError) Timeout() bool   { return true }
func (e timeoutError) Temporary() bool { return false }

func (c *deadlineConn) wrap(err error) error {
	if err == nil {
		return nil
	}
	if cerr := ctxError(c.context()); cerr != nil {
		return cerr // the maximum time, the caller's deadline or a cancellation
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if cerr := ctxError(c.context()); cerr != nil {
			return cerr // the read deadline was the context's
		}
		return timeoutError{err, c.idle}
	}
	return err
}
