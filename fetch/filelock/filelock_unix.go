//go:build unix && !solaris && !aix

package filelock

import (
	"errors"
	"syscall"
)

// tryLock is flock(2) without waiting. flock rather than fcntl's record
// locks: a record lock is dropped when any descriptor of the file in the
// process is closed, and a writer here opens its file again to repair it.
func tryLock(fd uintptr) error {
	for {
		err := syscall.Flock(int(fd), syscall.LOCK_EX|syscall.LOCK_NB)
		switch {
		case err == nil:
			return nil
		case errors.Is(err, syscall.EINTR):
			continue
		case errors.Is(err, syscall.EWOULDBLOCK):
			return ErrLocked
		case errors.Is(err, syscall.ENOLCK), errors.Is(err, syscall.EOPNOTSUPP), errors.Is(err, syscall.ENOTSUP), errors.Is(err, syscall.EINVAL):
			return nil // a file system without locks
		default:
			return err
		}
	}
}
