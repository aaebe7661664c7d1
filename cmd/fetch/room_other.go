//go:build !linux && !darwin && !freebsd && !windows

package main

import "errors"

// diskFree cannot tell here: a document that finds no room stops the
// batch, as if the disk were full.
func diskFree(dir string) (uint64, error) { return 0, errors.ErrUnsupported }
