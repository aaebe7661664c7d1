//go:build unix && !linux

package main

// fsName names no file system type outside Linux, whose statfs(2) magic
// numbers it knows.
func fsName(string) string { return "" }
