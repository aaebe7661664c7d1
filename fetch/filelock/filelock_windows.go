//go:build windows

package filelock

import (
	"errors"

	"golang.org/x/sys/windows"
)

// tryLock is LockFileEx without waiting, on one byte far past any end of
// file: Windows locks are mandatory for the range they cover, so a lock
// on the data would keep readers out of it too.
func tryLock(fd uintptr) error {
	ol := windows.Overlapped{Offset: 0xffffffff, OffsetHigh: 0x7fffffff}
	err := windows.LockFileEx(windows.Handle(fd), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, windows.ERROR_LOCK_VIOLATION), errors.Is(err, windows.ERROR_IO_PENDING):
		return ErrLocked
	case errors.Is(err, windows.ERROR_NOT_SUPPORTED), errors.Is(err, windows.ERROR_INVALID_FUNCTION), errors.Is(err, windows.ERROR_ACCESS_DENIED):
		return nil // a file system without locks, or a handle that cannot take one
	default:
		return err
	}
}
