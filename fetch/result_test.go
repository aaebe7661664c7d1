package fetch

import (
	"context"
	"errors"
	"io"
	"testing"
)

// fakeStream gives n entries, then err (io.EOF for a clean end).
type fakeStream struct {
	n, i   int
	err    error
	closed int
}

func (f *fakeStream) Next() (Entry, error) {
	if f.i >= f.n {
		return Entry{}, f.err
	}
	f.i++
	return Entry{Name: string(rune('a' + f.i - 1)), Size: -1}, nil
}

func (f *fakeStream) Close() error { f.closed++; return nil }

func names(l *Listing) (s string) {
	for l.Next() {
		s += l.Entry().Name
	}
	return s
}

func TestListingHeldWhole(t *testing.T) {
	l := &Listing{Entries: []Entry{{Name: "x"}, {Name: "y"}}}
	if l.Streaming() {
		t.Error("a listing of Entries streams")
	}
	if got := names(l); got != "xy" || l.Err() != nil {
		t.Errorf("got %q, %v", got, l.Err())
	}
	if l.Next() {
		t.Error("Next after the end")
	}
}

func TestListingStream(t *testing.T) {
	s := &fakeStream{n: 3, err: io.EOF}
	cancelled := 0
	l := NewStreamListing("t", s)
	l.Guard(func(err error) error { return err }, func() { cancelled++ })
	if cancelled != 0 {
		t.Fatal("the context was released while the stream is open")
	}
	if got := names(l); got != "abc" || l.Err() != nil {
		t.Errorf("got %q, %v", got, l.Err())
	}
	if s.closed != 1 || cancelled != 1 {
		t.Errorf("after a clean end: closed %d times, context released %d times", s.closed, cancelled)
	}
	l.Close()
	if s.closed != 1 || cancelled != 1 {
		t.Errorf("Close after the end closed again: %d, %d", s.closed, cancelled)
	}
}

func TestListingStreamError(t *testing.T) {
	cause := errors.New("boom")
	s := &fakeStream{n: 2, err: cause}
	l := NewStreamListing("", s)
	l.Guard(listingError(context.Background(), "gopher://h/"), func() {})
	var got []string
	var last error
	for e, err := range l.All() {
		if err != nil {
			last = err
			break
		}
		got = append(got, e.Name)
	}
	var fe *Error
	if len(got) != 2 || !errors.Is(last, cause) || !errors.As(last, &fe) || fe.Kind != KindNetwork || fe.URL != "gopher://h/" {
		t.Errorf("entries %q, error %v", got, last)
	}
	if s.closed != 1 {
		t.Errorf("closed %d times after an error", s.closed)
	}
}

func TestListingCloseEarlyAndReadAll(t *testing.T) {
	s := &fakeStream{n: 1000, err: io.EOF}
	l := NewStreamListing("", s)
	l.Next()
	r := &Result{Kind: KindListing, Listing: l}
	r.Close()
	if s.closed != 1 || l.Next() {
		t.Errorf("after Result.Close: closed %d, Next still gives entries", s.closed)
	}

	s = &fakeStream{n: 5, err: io.EOF}
	l = NewStreamListing("", s)
	if err := l.ReadAll(); err != nil || len(l.Entries) != 5 || l.Streaming() || s.closed != 1 {
		t.Errorf("ReadAll: %v, %d entries, streaming %v, closed %d", err, len(l.Entries), l.Streaming(), s.closed)
	}
	if got := names(l); got != "abcde" {
		t.Errorf("Next after ReadAll: %q", got)
	}
}
