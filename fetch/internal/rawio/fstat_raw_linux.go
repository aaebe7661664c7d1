//go:build linux && (amd64 || arm64)

package rawio

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// fstat is fstat(2) made as a raw system call: an ordinary call would
// wake the runtime's monitor thread once a file (see the package
// comment). It answers from the inode at hand, as the package's other
// calls on regular files do; only a network file system may make it
// wait for its server, as it may a raw write there.
func fstat(fd uintptr, st *unix.Stat_t) error {
	if _, _, e := unix.RawSyscall(unix.SYS_FSTAT, fd, uintptr(unsafe.Pointer(st)), 0); e != 0 {
		return e
	}
	return nil
}
