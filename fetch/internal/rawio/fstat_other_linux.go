//go:build linux && !(amd64 || arm64)

package rawio

import "golang.org/x/sys/unix"

// fstat is unix.Fstat where the raw call is not made: on 32-bit systems
// its structure differs from unix.Stat_t, and the other 64-bit ones are
// not measured.
func fstat(fd uintptr, st *unix.Stat_t) error { return unix.Fstat(int(fd), st) }
