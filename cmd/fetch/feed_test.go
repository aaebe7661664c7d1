package main

import (
	"context"
	"errors"
	"testing"

	"github.com/fetchproject/fetch/fetch/frontier"
)

// failingAdder is a frontier whose Add fails (a journal's disk full, a
// queue's server gone).
type failingAdder struct{}

func (failingAdder) Add(context.Context, ...frontier.Task) (int, error) {
	return 0, errors.New("the frontier is gone")
}

// TestFeedFailureNotAlreadyDone: seeds the frontier failed to take are
// not counted as already done. They were (len(pending) less the number
// added), and the summary of a worker whose queue had failed said "1
// already done" of a URL nobody had fetched.
func TestFeedFailureNotAlreadyDone(t *testing.T) {
	b := &batch{o: &options{urls: []string{"gopher://h.test/0/a", "gopher://h.test/0/b"}}, adder: failingAdder{}}
	if err := b.feed(context.Background(), nil, func() {}); err == nil {
		t.Fatal("feed reported no failure")
	}
	if n := b.skipped.Load(); n != 0 {
		t.Errorf("%d seeds counted already done after the frontier failed to add them", n)
	}
}
