//go:build linux

package rawio

import (
	"os"
	"sync/atomic"

	"golang.org/x/sys/unix"
)

// last is KindOf's latest answer. Standard output is asked about once a
// URL, and asking again would cost an fstat(2) after each wait for the
// server: the very wake-up this package spares.
var last atomic.Pointer[known]

type known struct {
	f *os.File // held, so that no other file takes its address
	k Kind
}

// KindOf tells what f is; Other when it cannot tell.
func KindOf(f *os.File) Kind {
	if l := last.Load(); l != nil && l.f == f {
		return l.k
	}
	rc, err := f.SyscallConn() // not f.Fd(), which would make f blocking
	if err != nil {
		return Other
	}
	var st unix.Stat_t
	var serr error
	if err := rc.Control(func(fd uintptr) { serr = fstat(fd, &st) }); err != nil || serr != nil {
		return Other
	}
	k := Other
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFREG:
		k = Quick
	case unix.S_IFIFO:
		k = Pipe
	case unix.S_IFCHR:
		if unix.Major(uint64(st.Rdev)) == 1 && unix.Minor(uint64(st.Rdev)) == 3 {
			k = Quick // /dev/null
		}
	}
	last.Store(&known{f, k})
	return k
}
