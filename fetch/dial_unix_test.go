//go:build unix

package fetch

import (
	"context"
	"net"
	"syscall"
	"testing"
)

// TestDialTransferKeepAlive: with the default dialer, a connection for
// one exchange (DialTransfer) has no TCP keep-alive while Dial's has Go's;
// a configured dialer is used by both as it is.
func TestDialTransferKeepAlive(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			defer c.Close()
		}
	}()
	keepAlive := func(c net.Conn) int {
		t.Helper()
		dc, ok := c.(*deadlineConn)
		if !ok {
			t.Fatalf("dialled %T, want the deadline wrapper", c)
		}
		raw, err := dc.Conn.(*net.TCPConn).SyscallConn()
		if err != nil {
			t.Fatal(err)
		}
		var v int
		var gerr error
		if err := raw.Control(func(fd uintptr) {
			v, gerr = syscall.GetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_KEEPALIVE)
		}); err != nil {
			t.Fatal(err)
		}
		if gerr != nil {
			t.Fatal(gerr)
		}
		return v
	}
	ctx := context.Background()
	addr := ln.Addr().String()
	for _, c := range []struct {
		name string
		dial func(*Request) (net.Conn, error)
		want bool
	}{
		{"Dial", func(r *Request) (net.Conn, error) { return r.Dial(ctx, addr) }, true},
		{"DialTransfer", func(r *Request) (net.Conn, error) { return r.DialTransfer(ctx, addr) }, false},
	} {
		conn, err := c.dial(&Request{})
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got := keepAlive(conn) != 0; got != c.want {
			t.Errorf("%s with the default dialer: keep-alive %v, want %v", c.name, got, c.want)
		}
		conn.Close()

		// a configured dialer's choice stands
		r := &Request{}
		r.Options.Dialer = &net.Dialer{} // Go's default probes
		if conn, err = c.dial(r); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if keepAlive(conn) == 0 {
			t.Errorf("%s with a dialer that keeps alive: no keep-alive", c.name)
		}
		conn.Close()
	}
}
