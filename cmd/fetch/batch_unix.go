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
