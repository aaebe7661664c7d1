//go:build !unix

package fetchtest

import (
	"net"
	"testing"
)

// RefusedAddr is a loopback TCP address ("127.0.0.1:port") where nothing
// listens. Here it is a port found free by listening and closing, which
// another test's listener could take before it is used; on Unix systems
// a socket is bound to the port and never listens.
func RefusedAddr(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
