package fetch

import (
	"errors"
	"os"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/fetchproject/fetch/fetch/internal/rawio"
)

// spliceChunk is the most a splice moves at once, and the size asked for
// the pipe between the socket and the file (the default pipe holds 64
// KiB; a larger one means fewer calls).
const spliceChunk = 1 << 20

// spliceConn moves c's bytes through a pipe into f. Waiting for the
// socket goes through Go's poller (RawConn.Read), so the read deadline
// (set before each chunk, as Read sets it) and closing the connection
// (the context's end) interrupt it.
func spliceConn(c *deadlineConn, f *os.File, max int64) (int64, error) {
	// Into a regular file, a pipe, or /dev/null; terminals and other
	// devices are written as usual.
	kind := rawio.KindOf(f)
	if kind == rawio.Other {
		return 0, errNoSplice
	}
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
	p, err := getPipe()
	if err != nil {
		return 0, errNoSplice
	}
	var held int64 // bytes in the pipe
	defer func() { putPipe(p, held == 0) }()

	quick := rawio.NewFile(f, kind) // nil: f can block (a pipe), or no raw calls
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
			in, serr = rawio.Splice(fd, p[1], int(chunk))
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
		held = in
		for in > 0 {
			var out int64
			var werr error
			if !copyOut {
				if quick != nil {
					out, werr = quick.SpliceOut(p[0], int(in))
				} else if err := dst.Write(func(fd uintptr) bool {
					n, err := unix.Splice(p[0], nil, int(fd), nil, int(in), unix.SPLICE_F_MOVE)
					if err != nil {
						n = 0 // the kernel's -1: nothing moved
					}
					out, werr = int64(n), err // n is an int on 32-bit systems
					return werr != unix.EAGAIN
				}); err != nil {
					werr = err
				}
				if errors.Is(werr, unix.EINVAL) && total == 0 && out == 0 {
					// f takes no splice (Linux refuses one into an
					// O_APPEND file, ">> file"): copied from here on
					copyOut, werr = true, nil
					continue
				}
				if errors.Is(werr, unix.EPIPE) {
					// f's reader is gone (fetch URL | head). Go raises
					// SIGPIPE after a failed write, never a splice: f's
					// Write fails as the runtime has it, ending the
					// process by SIGPIPE on standard output, as any
					// filter ends, and with EPIPE on another file.
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
			held = in
			total += out
		}
	}
	return total, nil
}

// pipes keeps a few empty pipes for the next splice: making, sizing and
// closing one costs four system calls a document.
var pipes = make(chan [2]int, 8)

// getPipe returns an empty pipe, kept or new. It blocks: splicing out of
// a non-blocking pipe into a full one (standard output read by a slow
// reader) would fail with EAGAIN rather than wait. The socket side does
// not wait on it: the pipe is empty before each splice into it.
func getPipe() ([2]int, error) {
	select {
	case p := <-pipes:
		return p, nil
	default:
	}
	var p [2]int
	if err := unix.Pipe2(p[:], unix.O_CLOEXEC); err != nil {
		return p, err
	}
	unix.FcntlInt(uintptr(p[1]), unix.F_SETPIPE_SZ, spliceChunk) // a smaller pipe works too
	return p, nil
}

// putPipe keeps p for the next splice when it is empty and there is
// room, and closes it otherwise.
func putPipe(p [2]int, empty bool) {
	if empty {
		select {
		case pipes <- p:
			return
		default:
		}
	}
	unix.Close(p[0])
	unix.Close(p[1])
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
