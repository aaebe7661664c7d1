//go:build linux && (amd64 || arm64)

package rawio

import (
	"unsafe"

	"golang.org/x/sys/unix"
)

// fstat is fstat(2) made as a raw system call: it does not block (a
// descriptor's inode is at hand), and an ordinary call would wake the
// runtime's monitor thread once a file (see the package comment).
func fstat(fd uintptr, st *unix.Stat_t) error {
	if _, _, e := unix.RawSyscall(unix.SYS_FSTAT, fd, uintptr(unsafe.Pointer(st)), 0); e != 0 {
		return e
	}
	return nil
}
