//go:build !linux

package main

import (
	"errors"
	"os"
)

// openUnnamed: only Linux has files without a name (O_TMPFILE) that can
// be named later; elsewhere documents are written under a temporary name.
func openUnnamed(dir string) (*os.File, error) { return nil, errors.ErrUnsupported }

func linkUnnamed(f *os.File, dest string) error { return errors.ErrUnsupported }
