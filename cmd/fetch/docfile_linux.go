package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"golang.org/x/sys/unix"
)

// openUnnamed opens a file in dir that has no name (O_TMPFILE). It
// returns an error wrapping errors.ErrUnsupported where the file system
// has no such files or this process cannot name them later.
func openUnnamed(dir string) (*os.File, error) {
	if !canName(dir) {
		return nil, errors.ErrUnsupported
	}
	fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o666)
	switch {
	case err == nil:
		return os.NewFile(uintptr(fd), dir), nil
	case errors.Is(err, unix.EOPNOTSUPP), errors.Is(err, unix.EISDIR), errors.Is(err, unix.EINVAL):
		// kernels and file systems without O_TMPFILE
		return nil, errors.ErrUnsupported
	default:
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
}

var (
	probeOnce sync.Once
	probeOK   bool
	// byDescriptor: linking the descriptor itself works here, which spares
	// the kernel resolving /proc/self/fd/N (about 1.5 µs a file, measured
	// on tmpfs). Written only in probeOnce.
	byDescriptor bool
)

// canName tells whether this process can give an unnamed file a name: by
// linking the descriptor itself (which needs CAP_DAC_READ_SEARCH before
// Linux 6.10), or else through /proc/self/fd. It is tried once a run, on
// a file linked in dir and removed at once, and the way that worked is
// the run's. A run that cannot writes every document under a temporary
// name.
func canName(dir string) bool {
	probeOnce.Do(func() {
		fd, err := unix.Open(dir, unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o666)
		if err != nil {
			// no O_TMPFILE here; another directory may have them,
			// but it cannot be told whether they can be named
			return
		}
		f := os.NewFile(uintptr(fd), dir)
		defer f.Close()
		name := filepath.Join(dir, fmt.Sprintf("%s%d.%08x.probe", tempPrefix, os.Getpid(), rand.Uint32()))
		if linkUnnamedBy(f, name, true) == nil {
			byDescriptor = true
		} else if linkUnnamedBy(f, name, false) != nil {
			return
		}
		os.Remove(name)
		probeOK = true
	})
	return probeOK
}

// linkUnnamed names the unnamed file f dest. It fails with an error
// matching os.ErrExist when dest exists.
func linkUnnamed(f *os.File, dest string) error { return linkUnnamedBy(f, dest, byDescriptor) }

// linkUnnamedBy is linkUnnamed, through the descriptor itself when byFD
// is true and through /proc/self/fd otherwise.
func linkUnnamedBy(f *os.File, dest string, byFD bool) error {
	fd := int(f.Fd())
	var err error
	if byFD {
		err = unix.Linkat(fd, "", unix.AT_FDCWD, dest, unix.AT_EMPTY_PATH)
	} else {
		err = unix.Linkat(unix.AT_FDCWD, "/proc/self/fd/"+strconv.Itoa(fd), unix.AT_FDCWD, dest, unix.AT_SYMLINK_FOLLOW)
	}
	if err != nil {
		return &os.LinkError{Op: "link", Old: f.Name(), New: dest, Err: err}
	}
	return nil
}
