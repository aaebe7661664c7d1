//go:build linux && !(amd64 || arm64)

package rawio

import "golang.org/x/sys/unix"

// fstat is unix.Fstat where the raw call's structure differs.
func fstat(fd uintptr, st *unix.Stat_t) error { return unix.Fstat(int(fd), st) }
