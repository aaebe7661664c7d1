//go:build linux

package main

import (
	"os"
	"path/filepath"
	"strconv"

	"golang.org/x/sys/unix"
)

// openDescriptorDest returns a file sharing the open descriptor that dest
// names through /proc (/dev/stdout, /dev/fd/N, /proc/self/fd/N, or a link
// to one), or nil when dest names none. Such a name leads to whatever
// file the descriptor has open; writing it in place keeps the
// descriptor's offset and O_APPEND, where renaming a new file over that
// file would discard what it held and leave the descriptor writing a
// file with no name (">> log" losing the log).
func openDescriptorDest(dest string) *os.File {
	fdDir := filepath.Join("/proc", strconv.Itoa(os.Getpid()), "fd")
	p := dest
	for range 40 { // as many links as the kernel follows
		dir, err := filepath.EvalSymlinks(filepath.Dir(p))
		if err != nil {
			return nil
		}
		base := filepath.Base(p)
		if dir == fdDir {
			n, err := strconv.Atoi(base)
			if err != nil {
				return nil
			}
			nfd, err := unix.FcntlInt(uintptr(n), unix.F_DUPFD_CLOEXEC, 0)
			if err != nil {
				return nil
			}
			return os.NewFile(uintptr(nfd), dest)
		}
		full := filepath.Join(dir, base)
		t, err := os.Readlink(full)
		if err != nil {
			return nil // not a link: an ordinary file
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(dir, t)
		}
		p = t
	}
	return nil
}
