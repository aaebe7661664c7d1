//go:build !linux || race

package rawio

import (
	"errors"
	"net"
	"os"
)

// Without raw calls (another system, or the race detector) the
// constructors return nil and callers use the descriptors' own methods.

// A Socket is a TCP connection read and written with raw calls.
type Socket struct{}

// NewSocket returns nil: raw calls are not used here.
func NewSocket(net.Conn) *Socket { return nil }

func (*Socket) Read([]byte) (int, error)  { return 0, errors.ErrUnsupported }
func (*Socket) Write([]byte) (int, error) { return 0, errors.ErrUnsupported }

// A File is a regular file or /dev/null written with raw calls.
type File struct{}

// NewFile returns nil: raw calls are not used here.
func NewFile(*os.File, Kind) *File { return nil }

func (*File) Write([]byte) (int, error) { return 0, errors.ErrUnsupported }

// SpliceOut is not available: NewFile returned nil.
func (*File) SpliceOut(int, int) (int64, error) { return 0, errors.ErrUnsupported }
