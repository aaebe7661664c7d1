package wire

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// slowReader returns one byte a call, sleeping gap before each.
type slowReader struct{ gap time.Duration }

func (r slowReader) Read(p []byte) (int, error) {
	time.Sleep(r.gap)
	p[0] = 'x'
	return 1, nil
}

// A reply is timed from its first byte: reads fail once the limit has
// passed since then, and nothing is timed outside Begin and End.
func TestReplyTimer(t *testing.T) {
	const gap = 20 * time.Millisecond
	tm := NewReplyTimer(slowReader{gap})
	b := make([]byte, 1)
	// Outside a reply: no bound however long it reads.
	for range 5 {
		if _, err := tm.Read(b); err != nil {
			t.Fatalf("read outside a reply: %v", err)
		}
	}
	tm.Begin(3 * gap)
	var err error
	n := 0
	begun := time.Now() // no later than the reply's first byte
	for ; n < 100 && err == nil; n++ {
		_, err = tm.Read(b)
	}
	took := time.Since(begun)
	if !errors.Is(err, fetch.ErrTimeout) || fetch.KindOf(err) != fetch.KindNetwork {
		t.Fatalf("after %d reads of a reply bounded to %v: err = %v, want a timeout", n, 3*gap, err)
	}
	// Judged by the clock, not by the number of reads: a busy machine
	// may sleep well past gap, so that fewer reads fill the limit.
	if took <= 3*gap {
		t.Errorf("the reply failed after %d reads and %v, before its limit of %v", n, took, 3*gap)
	}
	// The timeout stays: the reply was cut, and so is the stream.
	tm.End()
	if _, err2 := tm.Read(b); err2 != err || tm.Err() != err {
		t.Fatalf("after the timeout: %v, Err() %v", err2, tm.Err())
	}
	// On a stream whose replies keep time, each starts its own clock.
	tm = NewReplyTimer(slowReader{gap})
	for range 3 {
		tm.Begin(3 * gap)
		if _, err := tm.Read(b); err != nil {
			t.Fatalf("a reply of one read: %v", err)
		}
		tm.End()
		time.Sleep(4 * gap) // between replies: not timed
	}
	if tm.Err() != nil {
		t.Fatal(tm.Err())
	}
	tm.Begin(0) // no bound
	for range 5 {
		if _, err := tm.Read(b); err != nil {
			t.Fatalf("a reply without a bound: %v", err)
		}
	}
	var _ io.Reader = tm
}
