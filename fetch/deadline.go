package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
	"time"
)

// deadlineConn pushes the read and write deadlines forward before each
// call, so a peer that goes silent for the idle time ends the transfer,
// and closes the connection when its context ends.
type deadlineConn struct {
	net.Conn
	idle time.Duration
	ctx  context.Context
	stop func() bool
	once sync.Once
}

// NewDeadlineConn wraps c so that no read or write waits longer than idle
// and the connection closes when ctx is done. Timeouts come back as errors
// that wrap ErrTimeout.
func NewDeadlineConn(ctx context.Context, c net.Conn, idle time.Duration) net.Conn {
	dc := &deadlineConn{Conn: c, idle: idle, ctx: ctx}
	dc.stop = context.AfterFunc(ctx, func() { c.Close() })
	return dc
}

func (c *deadlineConn) deadline() time.Time {
	d := time.Now().Add(c.idle)
	if cd, ok := c.ctx.Deadline(); ok && cd.Before(d) {
		return cd
	}
	return d
}

func (c *deadlineConn) Read(p []byte) (int, error) {
	c.Conn.SetReadDeadline(c.deadline())
	n, err := c.Conn.Read(p)
	return n, c.wrap(err)
}

func (c *deadlineConn) Write(p []byte) (int, error) {
	c.Conn.SetWriteDeadline(c.deadline())
	n, err := c.Conn.Write(p)
	return n, c.wrap(err)
}

func (c *deadlineConn) Close() error {
	var err error
	c.once.Do(func() {
		c.stop()
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
	if cerr := ctxError(c.ctx); cerr != nil {
		return cerr // the maximum time, the caller's deadline or a cancellation
	}
	if errors.Is(err, os.ErrDeadlineExceeded) {
		if cerr := ctxError(c.ctx); cerr != nil {
			return cerr // the read deadline was the context's
		}
		return timeoutError{err, c.idle}
	}
	return err
}
