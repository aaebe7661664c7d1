//go:build linux || darwin || freebsd

package main

import "golang.org/x/sys/unix"

// diskFree is the room left to unprivileged users on the file system of
// dir.
func diskFree(dir string) (uint64, error) {
	var st unix.Statfs_t
	if err := unix.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}
