//go:build unix && !aix

package fetch

import (
	"errors"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// Readable reports whether something waits to be read on c, a TCP
// connection or one from NewDeadlineConn or Request.Dial: a byte, the end
// of the stream or an error. It neither reads nor waits (a peek that
// returns at once). A kept-alive connection that is readable while no
// request is outstanding on it carries bytes nobody asked for, or was
// closed by its server; either way it is not to be used again. False when
// it cannot tell.
func Readable(c net.Conn) bool {
	if dc, ok := c.(*deadlineConn); ok {
		c = dc.Conn
	}
	sc, ok := c.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return false
	}
	readable := false
	rc.Control(func(fd uintptr) {
		var b [1]byte
		n, _, err := unix.Recvfrom(int(fd), b[:], unix.MSG_PEEK|unix.MSG_DONTWAIT)
		readable = n > 0 || err == nil || !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EINTR)
	})
	return readable
}
