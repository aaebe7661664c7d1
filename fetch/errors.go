package fetch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"strings"
)

// Kind classifies a failure; each kind has the exit status the fetch
// command reports for it.
type Kind int

// The kinds of failure, with their exit statuses.
const (
	KindUnknown   Kind = iota // not classified: exit 1
	KindUsage                 // bad command-line use: exit 2
	KindMalformed             // the URL breaks its scheme's syntax: exit 3
	KindPolicy                // refused before sending (port, scheme, CR/LF, size): exit 4
	KindNetwork               // connection failed, dropped or timed out: exit 5
	KindServer                // the server refused or has no such resource: exit 6
	KindLocal                 // local file or terminal I/O failed: exit 7
)

// ExitCode is the fetch command's exit status for k.
func (k Kind) ExitCode() int {
	if k == KindUnknown {
		return 1
	}
	return int(k) + 1
}

func (k Kind) String() string {
	switch k {
	case KindUsage:
		return "usage"
	case KindMalformed:
		return "malformed URL"
	case KindPolicy:
		return "refused by policy"
	case KindNetwork:
		return "network"
	case KindServer:
		return "server refused"
	case KindLocal:
		return "local I/O"
	}
	return "error"
}

// Sentinel causes callers can test with errors.Is.
var (
	ErrPortRefused   = errors.New("port refused by policy")
	ErrUnsafeLine    = errors.New("CR, LF or NUL would reach the protocol stream")
	ErrUnknownScheme = errors.New("no driver for scheme")
	ErrTimeout       = errors.New("timed out")
	ErrTruncated     = errors.New("transfer ended before the announced end")
	ErrTooLarge      = errors.New("larger than the maximum size")
	ErrNoAnswer      = errors.New("an answer is needed and no prompter can give one")
	ErrLineTooLong   = errors.New("line from server too long")
	ErrNotFound      = errors.New("no such resource")
	ErrAuth          = errors.New("authentication failed")
)

// Error is the error every part of fetch returns: what failed, where in
// the URL, and the server's reply when there was one.
type Error struct {
	Kind   Kind
	Op     string // what was being done: "parse", "dial", "RETR", "GROUP"...
	URL    string // the URL, password masked
	Part   string // the URL part at fault: "port", "host", "selector"...
	Offset int    // byte offset of the fault in the URL, or -1
	Code   int    // the server's reply code, or 0
	Reply  string // the server's reply text, if any
	Err    error  // the cause
}

func (e *Error) Error() string {
	var b strings.Builder
	if e.URL != "" {
		b.WriteString(e.URL)
		b.WriteString(": ")
	}
	if e.Op != "" {
		b.WriteString(e.Op)
		b.WriteString(": ")
	}
	if e.Part != "" {
		b.WriteString(e.Part)
		if e.Offset >= 0 {
			fmt.Fprintf(&b, " (at offset %d)", e.Offset)
		}
		b.WriteString(": ")
	}
	if e.Err != nil {
		b.WriteString(e.Err.Error())
	} else {
		b.WriteString(e.Kind.String())
	}
	if e.Code != 0 || e.Reply != "" {
		b.WriteString(": server said")
		if e.Code != 0 {
			fmt.Fprintf(&b, " %d", e.Code)
		}
		if e.Reply != "" {
			b.WriteString(" ")
			b.WriteString(e.Reply)
		}
	}
	return b.String()
}

func (e *Error) Unwrap() error { return e.Err }

// Errorf builds an Error of kind k for operation op.
func Errorf(k Kind, op string, format string, args ...any) *Error {
	return &Error{Kind: k, Op: op, Offset: -1, Err: fmt.Errorf(format, args...)}
}

// Wrap gives err the kind k unless it already carries one; op names the step.
func Wrap(k Kind, op string, err error) error {
	if err == nil {
		return nil
	}
	var fe *Error
	if errors.As(err, &fe) {
		return err
	}
	return &Error{Kind: k, Op: op, Offset: -1, Err: err}
}

// KindOf tells which kind of failure err is, looking through wrapping.
func KindOf(err error) Kind {
	if err == nil {
		return KindUnknown
	}
	var fe *Error
	if errors.As(err, &fe) && fe.Kind != KindUnknown {
		return fe.Kind
	}
	switch {
	case errors.Is(err, ErrPortRefused), errors.Is(err, ErrUnsafeLine), errors.Is(err, ErrUnknownScheme), errors.Is(err, ErrTooLarge):
		return KindPolicy
	case errors.Is(err, ErrTimeout), errors.Is(err, ErrTruncated), errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
		return KindNetwork
	case errors.Is(err, ErrNotFound), errors.Is(err, ErrAuth):
		return KindServer
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return KindNetwork
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return KindLocal
	}
	return KindUnknown
}
