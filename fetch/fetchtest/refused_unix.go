//go:build unix

package fetchtest

import (
	"net"
	"strconv"
	"syscall"
	"testing"
)

// RefusedAddr is a loopback TCP address ("127.0.0.1:port") that refuses
// connections for as long as the test runs: a socket is bound to the port
// and never listens. A port found free by listening and closing could be
// taken in between by a listener of another test running at once, which
// would then answer the connection the test expects refused.
func RefusedAddr(t testing.TB) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatal(err)
	}
	syscall.CloseOnExec(fd)
	t.Cleanup(func() { syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatal(err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatal(err)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(sa.(*syscall.SockaddrInet4).Port))
}
