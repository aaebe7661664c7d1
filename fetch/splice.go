package fetch

import (
	"errors"
	"io"
	"net"
	"os"

	"github.com/fetchproject/fetch/fetch/internal/rawio"
)

// A FileWriter is a document body that can move its bytes into an open
// file without passing them through the process: splice(2) on Linux,
// from the socket to a pipe and from the pipe to the file. A 1 GiB FTP
// download to a file or /dev/null then costs the kernel's work alone
// rather than a copy into a buffer and another out of it.
//
// The bodies of Client.Do implement it; a copy loop tries it first and
// then reads the body to its end as usual. WriteToFile moves bytes until
// the document ends (having done what Read does at the end, such as
// checking a transfer's final reply: the next Read returns io.EOF at
// once), until max bytes are moved (max < 0: no limit; the next Read
// tells whether more follow), or until an error; a failure to write f is
// an *Error of KindLocal with Op "write". A pipe whose reader has gone is
// written with f's Write, so that Go's rule for a broken pipe holds as in
// any copy: on standard output or error the process ends by SIGPIPE. It
// returns an error matching errors.ErrUnsupported, having moved nothing,
// when this body, file or system cannot.
type FileWriter interface {
	WriteToFile(f *os.File, max int64) (int64, error)
}

// errNoSplice is what a FileWriter returns when it cannot move bytes
// itself.
var errNoSplice = errors.ErrUnsupported

// SpliceConn moves bytes from c, a connection from Request.Dial, into f
// as FileWriter describes: until c ends, max bytes are moved (max < 0: no
// limit) or an error. The connection's idle timeout and context apply as
// they do to its reads. Drivers call it from their bodies' WriteToFile.
func SpliceConn(c net.Conn, f *os.File, max int64) (int64, error) {
	dc, ok := c.(*deadlineConn)
	if !ok {
		return 0, errNoSplice
	}
	return spliceConn(dc, f, max)
}

// FileOutput returns a writer for f, a document's destination: where f is
// a regular file or /dev/null and the system allows, one that writes with
// raw system calls, which do not wake the Go scheduler's monitor thread
// after each wait for a server (package internal/rawio tells why it
// matters); otherwise f itself. Errors are those of f's Write.
func FileOutput(f *os.File) io.Writer {
	if w := rawio.NewFile(f, rawio.KindOf(f)); w != nil {
		return w
	}
	return f
}

// writeError is a failure to write the local file, told apart from the
// network's.
func writeError(err error) error {
	return &Error{Kind: KindLocal, Op: "write", Offset: -1, Err: err}
}
