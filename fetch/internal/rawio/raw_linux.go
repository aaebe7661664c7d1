//go:build linux && !race

package rawio

import (
	"io"
	"net"
	"os"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// maxRW is the most one read or write asks of the kernel, as Go's own
// poller caps it.
const maxRW = 1 << 30

// A Socket is a TCP connection's descriptor, read and written with raw
// system calls after Go's poller reports it ready. Deadlines set on the
// connection and closing it apply as they do to its own Read and Write.
type Socket struct {
	c    net.Conn
	rc   syscall.RawConn
	r, w call
}

// A call is one read or write under way: its buffer, what it moved and
// the error that stopped it. The RawConn runs its do, made once, so that
// a call allocates nothing.
type call struct {
	mu    sync.Mutex // one call at a time in each direction
	p     []byte
	n     int
	errno syscall.Errno
	do    func(fd uintptr) bool
}

// NewSocket returns c's Socket, or nil when c is not a *net.TCPConn (a
// TLS or SOCKS connection, a test's pipe): use c's own methods then.
func NewSocket(c net.Conn) *Socket {
	tc, ok := c.(*net.TCPConn)
	if !ok {
		return nil
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	s := &Socket{c: c, rc: rc}
	s.r.do = s.r.read
	s.w.do = func(fd uintptr) bool { return s.w.write(fd, true) }
	return s
}

// read reads once into c.p; false (wait, then call again) while the
// socket has nothing.
func (c *call) read(fd uintptr) bool {
	for {
		r, _, e := unix.RawSyscall(unix.SYS_READ, fd, uintptr(unsafe.Pointer(&c.p[0])), uintptr(len(c.p)))
		switch e {
		case unix.EINTR:
			continue
		case unix.EAGAIN:
			return false
		}
		c.n, c.errno = int(r), e
		return true
	}
}

// write writes all of c.p from c.n on. A socket that takes no more
// returns false (wait, then call again) when wait is set, and is an
// error otherwise.
func (c *call) write(fd uintptr, wait bool) bool {
	for c.n < len(c.p) {
		r, _, e := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&c.p[c.n])), uintptr(min(len(c.p)-c.n, maxRW)))
		switch {
		case e == 0 && r == 0:
			c.errno = unix.EIO // no progress: never loop on it
			return true
		case e == 0:
			c.n += int(r)
		case e == unix.EINTR:
		case e == unix.EAGAIN && wait:
			return false
		default:
			c.errno = e
			return true
		}
	}
	return true
}

// run runs c for p through f (a RawConn's Read or Write) and returns
// what it moved, the system's error and that of f.
func (c *call) run(p []byte, f func(func(uintptr) bool) error) (int, syscall.Errno, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.p, c.n, c.errno = p, 0, 0
	err := f(c.do)
	c.p = nil // not kept past the call
	return c.n, c.errno, err
}

// Read is net.Conn's Read: it waits for data, returns io.EOF at the end
// of the stream, and reports errors as *net.OpError.
func (s *Socket) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	n, errno, err := s.r.run(p[:min(len(p), maxRW)], s.rc.Read)
	switch {
	case err != nil:
		return 0, s.opError("read", err)
	case errno != 0:
		return 0, s.opError("read", os.NewSyscallError("read", errno))
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write is net.Conn's Write: it returns once all of p is written or an
// error stops it.
func (s *Socket) Write(p []byte) (int, error) {
	n, errno, err := s.w.run(p, s.rc.Write)
	switch {
	case err != nil:
		return n, s.opError("write", err)
	case errno != 0:
		return n, s.opError("write", os.NewSyscallError("write", errno))
	}
	return n, nil
}

// opError words err as the connection's own Read and Write would: the
// poller's errors (a deadline, a closed connection) come from RawConn
// wrapped as a "raw-read" or "raw-write" *net.OpError.
func (s *Socket) opError(op string, err error) error {
	if oe, ok := err.(*net.OpError); ok {
		err = oe.Err
	}
	return &net.OpError{Op: op, Net: "tcp", Source: s.c.LocalAddr(), Addr: s.c.RemoteAddr(), Err: err}
}

// Splice moves up to n bytes from the non-blocking socket fd into the
// empty pipe p, without waiting: it returns unix.EAGAIN when the socket
// has nothing yet.
func Splice(fd uintptr, p int, n int) (int64, error) {
	for {
		r, _, e := unix.RawSyscall6(unix.SYS_SPLICE, fd, 0, uintptr(p), 0, uintptr(n), unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return 0, e
		}
		return int64(r), nil
	}
}

// A File writes a regular file or /dev/null with raw system calls.
type File struct {
	name string
	rc   syscall.RawConn
	w    call
}

// NewFile returns f's File, or nil unless k, f's KindOf, is Quick.
func NewFile(f *os.File, k Kind) *File {
	if k != Quick {
		return nil
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return nil
	}
	w := &File{name: f.Name(), rc: rc}
	w.w.do = func(fd uintptr) bool { return w.w.write(fd, false) }
	return w
}

// Write is os.File's Write; its errors are *os.PathError, as the file's.
func (w *File) Write(p []byte) (int, error) {
	n, errno, err := w.w.run(p, w.rc.Write)
	switch {
	case err != nil:
		// the descriptor's lock refused: the file is closed or closing
		return n, &os.PathError{Op: "write", Path: w.name, Err: os.ErrClosed}
	case errno != 0:
		return n, &os.PathError{Op: "write", Path: w.name, Err: errno}
	}
	return n, nil
}

// SpliceOut moves up to n bytes from the pipe p into the file. Its
// errors are the system's, unwrapped.
func (w *File) SpliceOut(p int, n int) (int64, error) {
	var out int64
	var errno syscall.Errno
	err := w.rc.Write(func(fd uintptr) bool {
		for {
			r, _, e := unix.RawSyscall6(unix.SYS_SPLICE, uintptr(p), 0, fd, 0, uintptr(n), unix.SPLICE_F_MOVE)
			if e == unix.EINTR {
				continue
			}
			if e != 0 {
				r = 0 // the kernel's -1: nothing moved
			}
			out, errno = int64(r), e
			return true
		}
	})
	if err == nil && errno != 0 {
		err = errno
	}
	return out, err
}
