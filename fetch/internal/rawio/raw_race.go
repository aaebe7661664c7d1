//go:build linux && race

package rawio

import "golang.org/x/sys/unix"

// Splice moves up to n bytes from the non-blocking socket fd into the
// empty pipe p, without waiting: it returns unix.EAGAIN when the socket
// has nothing yet. (With the race detector, an ordinary call.)
func Splice(fd uintptr, p int, n int) (int64, error) {
	m, err := unix.Splice(int(fd), nil, p, nil, n, unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
	return int64(m), err // m is an int on 32-bit systems
}
