package wire

import (
	"fmt"
	"io"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// A ReplyTimer bounds a reply as a whole in time. A connection's idle
// timeout bounds each wait for bytes, and each byte renews it, so a server
// that trickles a reply (a line of a multi-line reply every few seconds,
// or a byte) could hold a reader for as long as the reply's size bounds
// allow. The timer sits under the line reader: Begin before reading a
// reply, End after it, and a read that comes more than the limit after the
// reply's first byte fails with fetch.ErrTimeout.
type ReplyTimer struct {
	r     io.Reader
	limit time.Duration
	armed bool      // between Begin and End
	start time.Time // of the reply's first byte read; zero before it
	err   error     // the timeout, once it struck: every later read fails
}

// NewReplyTimer times replies read from r.
func NewReplyTimer(r io.Reader) *ReplyTimer { return &ReplyTimer{r: r} }

// Begin starts a reply that may take limit from its first byte read (0:
// no bound). Bytes the reader above holds already are not timed.
func (t *ReplyTimer) Begin(limit time.Duration) {
	t.armed, t.limit, t.start = true, limit, time.Time{}
}

// End ends the reply: reads are not timed until the next Begin.
func (t *ReplyTimer) End() { t.armed, t.start = false, time.Time{} }

func (t *ReplyTimer) Read(p []byte) (int, error) {
	if err := t.check(); err != nil {
		return 0, err
	}
	n, err := t.r.Read(p)
	if n > 0 && t.armed && t.start.IsZero() {
		t.start = time.Now()
	}
	if cerr := t.check(); cerr != nil {
		return 0, cerr
	}
	return n, err
}

// Err is the timeout that failed a read, or nil: a parser above may
// report what it made of a cut reply rather than the read's error.
func (t *ReplyTimer) Err() error { return t.err }

func (t *ReplyTimer) check() error {
	if t.err == nil && t.armed && t.limit > 0 && !t.start.IsZero() && time.Since(t.start) > t.limit {
		t.err = &fetch.Error{Kind: fetch.KindNetwork, Op: "read reply", Offset: -1,
			Err: fmt.Errorf("%w: one reply took more than %v from its first byte", fetch.ErrTimeout, t.limit)}
	}
	return t.err
}
