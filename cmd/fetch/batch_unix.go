//go:build unix

package main

import (
	"errors"
	"syscall"
)

// processAlive tells whether process pid still runs (signal 0 checks
// without sending); a temporary file of a live batch is left alone.
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// outOfSpace reports a failure for want of room: the file system is full
// (ENOSPC) or the user's quota is used up (EDQUOT). No read fails so: it
// is the output's, which every document after it would meet.
func outOfSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// overQuota reports the user's quota used up (EDQUOT), which the free
// space of the file system does not show.
func overQuota(err error) bool { return errors.Is(err, syscall.EDQUOT) }
