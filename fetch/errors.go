package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"strings"
	"time"
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
	// ErrMaybeDone marks a failure after the request may already have
	// taken effect (an SMTP message whose final reply was lost): asking
	// again could repeat it, so Temporary is false.
	ErrMaybeDone = errors.New("the request may have taken effect")
	// ErrMaxTime is the cause of a fetch that outlived Options.MaxTime; it
	// matches ErrTimeout and context.DeadlineExceeded too.
	ErrMaxTime = errors.New("the time limit for the whole fetch ran out")
	// ErrCanceled is the cause of a fetch whose context was cancelled; it
	// matches context.Canceled too.
	ErrCanceled = errors.New("cancelled")
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
	// Protocol is the protocol whose reply Code is, when that is not
	// the URL's scheme's: "http" for an HTTP gateway's status answering
	// for a gopher: or ftp: URL. Empty, Code is the URL's scheme's.
	Protocol string
	Err      error // the cause
	// Setting names the library setting that would change the outcome
	// ("Options.MaxSize", "PortPolicy.Allow", "mailto.Config.SMTPServer"),
	// so that a front end can say it in its own terms (the fetch command
	// names its flag). It is not part of the message.
	Setting string
}

func (e *Error) Error() string {
	var b strings.Builder
	// A URL given with a raw line break (a shell's $'...\n...') would
	// break the message in two, its second line passing for another
	// message; offsets hold up to the first control character, the one
	// a parse error points at.
	shown := EscapeControls(e.URL)
	if e.URL != "" {
		b.WriteString(shown)
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
		msg := e.Err.Error()
		if e.URL != "" {
			// The URL is said once, here: an inner error that names it
			// again (a driver's own Error, a wrapped message) loses it.
			msg = strings.ReplaceAll(msg, e.URL+": ", "")
			msg = strings.ReplaceAll(msg, shown+": ", "")
		}
		b.WriteString(msg)
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
	if overBound(err) {
		return KindPolicy // a size bound, whatever kind the driver gave it
	}
	var fe *Error
	if errors.As(err, &fe) && fe.Kind != KindUnknown {
		return fe.Kind
	}
	switch {
	case errors.Is(err, ErrPortRefused), errors.Is(err, ErrUnsafeLine), errors.Is(err, ErrUnknownScheme):
		return KindPolicy
	case errors.Is(err, ErrTimeout), errors.Is(err, ErrTruncated), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded), errors.Is(err, os.ErrDeadlineExceeded):
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

// overBound reports a reply refused for passing a size bound: the
// maximum size, or the bound on one protocol line from a server
// (ErrLineTooLong; for HTTP, the response header block). Both are
// refusals by policy, exit 4, whatever the driver.
func overBound(err error) bool {
	return errors.Is(err, ErrTooLarge) || errors.Is(err, ErrLineTooLong)
}

// maxTimeError is the cause given to the context of a fetch bounded by
// Options.MaxTime, so that it is told apart from the caller's deadline
// and from the idle timeout.
type maxTimeError struct{ d time.Duration }

func (e maxTimeError) Error() string {
	return fmt.Sprintf("%v (%v)", ErrMaxTime, e.d)
}
func (e maxTimeError) Unwrap() []error {
	return []error{ErrMaxTime, ErrTimeout, context.DeadlineExceeded}
}
func (e maxTimeError) Timeout() bool { return true }

// ctxError says why ctx ended: the client's maximum time, the caller's
// deadline or a cancellation; nil while ctx is live.
func ctxError(ctx context.Context) error {
	if ctx.Err() == nil {
		d, ok := ctx.Deadline()
		if !ok || time.Now().Before(d) {
			return nil
		}
		// A read deadline set to the context's can fire a moment before
		// the context's own timer: the context is ending, wait for it.
		<-ctx.Done()
	}
	cause := context.Cause(ctx)
	var mt maxTimeError
	switch {
	case errors.As(cause, &mt):
		return mt
	case errors.Is(cause, context.Canceled):
		return canceledError{cause}
	case errors.Is(cause, context.DeadlineExceeded) && cause == context.DeadlineExceeded:
		return deadlineError{cause}
	case errors.Is(ctx.Err(), context.Canceled):
		// cancelled with a cause the caller chose: theirs to word, and
		// a cancellation all the same (never retried)
		return causedCancel{cause}
	}
	return cause // a cause the caller chose: theirs to word
}

// causedCancel is the caller cancelling the context with a cause of its
// own (context.WithCancelCause).
type causedCancel struct{ cause error }

func (e causedCancel) Error() string   { return e.cause.Error() }
func (e causedCancel) Unwrap() []error { return []error{ErrCanceled, e.cause} }

// deadlineError is the caller's context deadline passing.
type deadlineError struct{ cause error }

func (e deadlineError) Error() string   { return "the context's deadline passed" }
func (e deadlineError) Unwrap() []error { return []error{ErrTimeout, e.cause} }
func (e deadlineError) Timeout() bool   { return true }

// canceledError is the caller cancelling the context.
type canceledError struct{ cause error }

func (e canceledError) Error() string   { return ErrCanceled.Error() }
func (e canceledError) Unwrap() []error { return []error{ErrCanceled, e.cause} }

// finish is every error a fetch returns, made whole once by the client: it
// names the URL exactly once, and when the fetch's context has ended the
// cause is that end (the maximum time, the caller's deadline, a
// cancellation), not whatever the driver saw of it (a closed connection,
// an expired read deadline).
func finish(ctx context.Context, url string, err error) error {
	if err == nil || err == io.EOF {
		return err
	}
	var fe *Error
	if !errors.As(err, &fe) {
		// Classifying is the driver's job (the conformance suite checks
		// it); an error it left without a kind keeps none.
		fe = &Error{Kind: KindOf(err), Offset: -1, Err: err}
		err = fe
	}
	if fe.URL == "" {
		fe.URL = url
	}
	if cerr := ctxError(ctx); cerr != nil && !overBound(err) {
		out := *fe
		out.Kind, out.Code, out.Reply, out.Part, out.Offset, out.Setting = KindNetwork, 0, "", "", -1, ""
		out.Err = cerr
		if errors.Is(cerr, ErrMaxTime) {
			out.Setting = "Options.MaxTime"
		}
		return &out
	}
	return err
}

// unknownScheme is the error for a URL whose scheme has no driver: a
// malformed URL as far as this client can tell, with the schemes it has
// and the nearest of them when one is close ("htp" → "http").
func unknownScheme(u *URL, scheme string, available []string) error {
	msg := fmt.Sprintf("%v %q; available: %s", ErrUnknownScheme, scheme, strings.Join(available, ", "))
	if near := Nearest(scheme, available); near != "" {
		msg += fmt.Sprintf(" (did you mean %s:?)", near)
	}
	return &Error{Kind: KindMalformed, Op: "dispatch", URL: RedactedUnknown(u.Redacted()), Part: "scheme", Offset: 0,
		Err: explained{msg, ErrUnknownScheme}}
}

// Nearest is the word of words closest to w by edit distance, when it is
// within a third of w's length (at least one edit), else "".
func Nearest(w string, words []string) string {
	best, bestD := "", len(w)/3
	if bestD < 1 {
		bestD = 1
	}
	for _, c := range words {
		d := editDistance(w, c)
		if d > bestD {
			continue
		}
		// Ties go to the word sharing the longer prefix ("htp": http, not ftp).
		if bd := editDistance(w, best); best == "" || d < bd || d == bd && commonPrefix(w, c) > commonPrefix(w, best) {
			best = c
		}
	}
	return best
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// editDistance is the number of single-letter edits (an insertion, a
// deletion, a substitution, or two neighbours swapped) that make a into
// b: the Levenshtein distance with transpositions counted as one edit
// (the optimal string alignment distance), since "fiel" for "file" is a
// typist's one slip.
func editDistance(a, b string) int {
	prev2 := make([]int, len(b)+1) // the row before prev
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}

// PortRefusal is the cause of a port-policy refusal (errors.Is
// ErrPortRefused): the scheme and the port it was refused.
type PortRefusal struct {
	Scheme string
	Port   int
	msg    string
}

func (e *PortRefusal) Error() string { return e.msg }

// Is makes a refusal match ErrPortRefused.
func (e *PortRefusal) Is(target error) bool { return target == ErrPortRefused }
