//go:build !unix && !windows

package main

// processAlive cannot tell here: every other process's temporary files
// are left in place.
func processAlive(pid int) bool { return true }

// outOfSpace cannot tell a full disk here: a batch goes on past one,
// each document failing on its own.
func outOfSpace(err error) bool { return false }

// overQuota is never asked here (outOfSpace is false).
func overQuota(err error) bool { return false }
