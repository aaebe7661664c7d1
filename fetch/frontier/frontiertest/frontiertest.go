// Package frontiertest is the conformance suite every Frontier passes:
// each task handed out once, found tasks de-duplicated, io.EOF only when
// nothing is queued or leased, and a blocked Next that honours its context.
package frontiertest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch/frontier"
)

// Open returns a new, empty frontier holding seeds, de-duplicated by the
// URL as written (the suite's URLs are canonical already). The suite
// closes it.
type Open func(t *testing.T, seeds []frontier.Task) frontier.Frontier

// Run runs the suite. Timeouts are generous: a frontier on a server may be
// slow on a busy machine, and only a hang fails.
func Run(t *testing.T, open Open) {
	t.Run("Drain", func(t *testing.T) { testDrain(t, open) })
	t.Run("Dedup", func(t *testing.T) { testDedup(t, open) })
	t.Run("WaitsForLeases", func(t *testing.T) { testWaits(t, open) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, open) })
	t.Run("Cancel", func(t *testing.T) { testCancel(t, open) })
}

const patience = time.Minute

func seeds(n int) []frontier.Task {
	var ts []frontier.Task
	for i := range n {
		ts = append(ts, frontier.Task{URL: fmt.Sprintf("gopher://h.test/1/s%d", i)})
	}
	return ts
}

func ctx(t *testing.T) context.Context {
	c, cancel := context.WithTimeout(context.Background(), patience)
	t.Cleanup(cancel)
	return c
}

// drain takes every task one worker at a time, adding what found returns.
func drain(t *testing.T, f frontier.Frontier, found func(frontier.Task) []frontier.Task) []frontier.Task {
	t.Helper()
	c := ctx(t)
	var got []frontier.Task
	for {
		l, err := f.Next(c)
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		got = append(got, l.Task())
		var more []frontier.Task
		if found != nil {
			more = found(l.Task())
		}
		if err := l.Done(c, more); err != nil {
			t.Fatalf("Done: %v", err)
		}
	}
}

func testDrain(t *testing.T, open Open) {
	in := seeds(5)
	f := open(t, in)
	defer f.Close()
	got := drain(t, f, nil)
	if len(got) != len(in) {
		t.Fatalf("got %d tasks, want %d: %v", len(got), len(in), got)
	}
	seen := map[string]bool{}
	for _, g := range got {
		if seen[g.URL] {
			t.Errorf("%s handed out twice", g.URL)
		}
		seen[g.URL] = true
	}
	for _, s := range in {
		if !seen[s.URL] {
			t.Errorf("%s never handed out", s.URL)
		}
	}
}

func testDedup(t *testing.T, open Open) {
	in := seeds(3)
	f := open(t, in)
	defer f.Close()
	// Every task finds every seed again and one child of its own, which
	// finds its parent again: only the children are new.
	got := drain(t, f, func(task frontier.Task) []frontier.Task {
		more := append([]frontier.Task(nil), in...)
		if task.Depth == 0 {
			more = append(more, frontier.Task{URL: task.URL + "/child", Depth: 1})
		} else {
			more = append(more, frontier.Task{URL: task.URL, Depth: 2})
		}
		return more
	})
	if len(got) != 2*len(in) {
		t.Fatalf("got %d tasks, want %d: %v", len(got), 2*len(in), got)
	}
	children := 0
	for _, g := range got {
		if g.Depth == 1 {
			children++
		}
	}
	if children != len(in) {
		t.Errorf("%d children handed out, want %d: %v", children, len(in), got)
	}
}

func testWaits(t *testing.T, open Open) {
	f := open(t, seeds(1))
	defer f.Close()
	c := ctx(t)
	first, err := f.Next(c)
	if err != nil {
		t.Fatal(err)
	}
	// With a lease outstanding the frontier is not drained: a second
	// Next waits, and gets what the lease finds.
	type result struct {
		l   frontier.Lease
		err error
	}
	second := make(chan result, 1)
	go func() {
		l, err := f.Next(c)
		second <- result{l, err}
	}()
	select {
	case r := <-second:
		t.Fatalf("Next with a lease outstanding returned %v, %v", r.l, r.err)
	case <-time.After(200 * time.Millisecond):
	}
	child := frontier.Task{URL: first.Task().URL + "/found", Depth: 1}
	if err := first.Done(c, []frontier.Task{child}); err != nil {
		t.Fatal(err)
	}
	var r result
	select {
	case r = <-second:
	case <-time.After(patience):
		t.Fatal("Next did not return after Done added a task")
	}
	if r.err != nil || r.l.Task() != child {
		t.Fatalf("Next = %v, %v; want %v", r.l, r.err, child)
	}
	if err := r.l.Done(c, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := f.Next(c); err != io.EOF {
		t.Fatalf("Next after all Done = %v, want io.EOF", err)
	}
}

func testConcurrent(t *testing.T, open Open) {
	const width, fanout = 8, 3
	in := seeds(width)
	f := open(t, in)
	defer f.Close()
	c := ctx(t)
	var mu sync.Mutex
	count := map[string]int{}
	var wg sync.WaitGroup
	for range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				l, err := f.Next(c)
				if err == io.EOF {
					return
				}
				if err != nil {
					t.Errorf("Next: %v", err)
					return
				}
				task := l.Task()
				mu.Lock()
				count[task.URL]++
				mu.Unlock()
				var found []frontier.Task
				if task.Depth < 2 {
					// Children shared between parents: "/k0".."/k2"
					// under the same seed-independent root collide.
					for k := range fanout {
						found = append(found, frontier.Task{URL: fmt.Sprintf("gopher://h.test/1/d%d/k%d", task.Depth+1, k), Depth: task.Depth + 1})
					}
				}
				if err := l.Done(c, found); err != nil {
					t.Errorf("Done: %v", err)
					return
				}
			}
		}()
	}
	wg.Wait()
	want := width + 2*fanout
	if len(count) != want {
		t.Errorf("%d distinct tasks, want %d", len(count), want)
	}
	for u, n := range count {
		if n != 1 {
			t.Errorf("%s handed out %d times", u, n)
		}
	}
}

func testCancel(t *testing.T, open Open) {
	f := open(t, seeds(1))
	defer f.Close()
	l, err := f.Next(ctx(t))
	if err != nil {
		t.Fatal(err)
	}
	c, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	if _, err := f.Next(c); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Next with a lease outstanding and a deadline = %v, want the deadline", err)
	}
	if err := l.Done(ctx(t), nil); err != nil {
		t.Fatal(err)
	}
}
