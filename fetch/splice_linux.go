package fetch

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// spliceChunk is the most a splice moves at once, and the size asked for
// the pipe between the socket and the file (the default pipe holds 64
// KiB; a larger one means fewer calls).
const spliceChunk = 1 << 20

// spliceable tells whether the kernel can splice into f: a regular file,
// a pipe, or /dev/null. Terminals and other devices are written as usual.
func spliceable(f *os.File) bool {
	rc, err := f.SyscallConn() // not f.Fd(), which would make f blocking
	if err != nil {
		return false
	}
	var st unix.Stat_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = unix.Fstat(int(fd), &st) }); err != nil || serr != nil {
		return false
	}
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG, unix.S_IFIFO:
		return true
	case unix.S_IFCHR:
		return unix.Major(uint64(st.Rdev)) == 1 && unix.Minor(uint64(st.Rdev)) == 3 // /dev/null
	}
	return false
}

// spliceConn moves c's bytes through a pipe into f. Waiting for the
// socket goes through Go's poller (RawConn.Read), so the read deadline
// (set before each chunk, as Read sets it) and closing the connection
// (the context's end) interrupt it.
func spliceConn(c *deadlineConn, f *os.File, max int64) (int64, error) {
	sc, ok := c.Conn.(syscall.Conn)
	if !ok {
		return 0, errNoSplice
	}
	src, err := sc.SyscallConn()
	if err != nil {
		return 0, errNoSplice
	}
	dst, err := f.SyscallConn()
	if err != nil {
		return 0, errNoSplice
	}
	var p [2]int
	// A blocking pipe: splicing out of a non-blocking one into a full
	// pipe (standard output read by a slow reader) would fail with EAGAIN
	// rather than wait. The socket side does not wait on it: the pipe is
	// empty before each splice into it.
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return 0, errNoSplice
	}
	defer unix.Close(p[0])
	defer unix.Close(p[1])
	unix.FcntlInt(uintptr(p[1]), unix.F_SETPIPE_SZ, spliceChunk) // a smaller pipe works too

	var total int64
	copyOut := false // the file refused splice: the pipe is read and f written
	for max < 0 || total < max {
		chunk := int64(spliceChunk)
		if max >= 0 {
			chunk = min(chunk, max-total)
		}
		c.Conn.SetReadDeadline(c.deadline())
		var in int64
		var serr error
		if err := src.Read(func(fd uintptr) bool {
			in, serr = unix.Splice(int(fd), nil, p[1], nil, int(chunk), unix.SPLICE_F_MOVE|unix.SPLICE_F_NONBLOCK)
			return serr != unix.EAGAIN
		}); err != nil {
			return total, c.wrap(err)
		}
		if serr != nil {
			return total, c.wrap(os.NewSyscallError("splice", serr))
		}
		if in == 0 {
			return total, nil // the end of the stream
		}
		for in > 0 {
			var out int64
			var werr error
			if !copyOut {
				if err := dst.Write(func(fd uintptr) bool {
					out, werr = unix.Splice(p[0], nil, int(fd), nil, int(in), unix.SPLICE_F_MOVE)
					return werr != unix.EAGAIN
				}); err != nil {
					werr = err
				}
				if errors.Is(werr, unix.EINVAL) && total == 0 && out == 0 {
					// f takes no splice after all (an O_APPEND file on
					// an older kernel): copied from here on
					copyOut, werr = true, nil
					continue
				}
			} else {
				out, werr = drainPipe(p[0], f, in)
			}
			if werr != nil {
				return total, writeError(werr)
			}
			in -= out
			total += out
		}
	}
	return total, nil
}

// drainPipe reads up to n bytes from the pipe r and writes them to f.
func drainPipe(r int, f *os.File, n int64) (int64, error) {
	var buf [64 << 10]byte
	k, err := unix.Read(r, buf[:min(n, int64(len(buf)))])
	if err != nil {
		return 0, err
	}
	w, err := f.Write(buf[:k])
	return int64(w), err
}
