package frontier_test

import (
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch/frontier"
	"github.com/fetchproject/fetch/fetch/frontier/frontiertest"
)

func TestMemory(t *testing.T) {
	frontiertest.Run(t, func(t *testing.T, seeds []frontier.Task) frontier.Frontier {
		m := frontier.NewMemory(func(s string) string { return s })
		m.Add(context.Background(), seeds...)
		return m
	})
}

// TestMemoryWakes: each change a waiter waits for wakes it: an Add wakes
// Next, a release of Hold ends the frontier, a Next makes room for
// WaitRoom, and Close ends every wait. (The wait channel is replaced only
// when someone holds it, so a waiter that took it before a change must
// still see that change.)
func TestMemoryWakes(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m := frontier.NewMemory(nil)
	release := m.Hold()
	type next struct {
		l   frontier.Lease
		err error
	}
	nexts := make(chan next)
	pull := func() {
		go func() {
			l, err := m.Next(ctx)
			nexts <- next{l, err}
		}()
	}
	for i := range 50 { // waiters before and after each change
		pull()
		if i%2 == 0 {
			time.Sleep(time.Millisecond)
		}
		m.Add(ctx, frontier.Task{URL: fmt.Sprint(i)})
		n := <-nexts
		if n.err != nil {
			t.Fatalf("Next after Add %d: %v", i, n.err)
		}
		if err := n.l.Done(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	pull()
	time.Sleep(time.Millisecond)
	release()
	if n := <-nexts; n.err != io.EOF {
		t.Fatalf("Next after the hold's release: %v, want io.EOF", n.err)
	}

	m = frontier.NewMemory(nil)
	m.Add(ctx, frontier.Task{URL: "a"}, frontier.Task{URL: "b"})
	room := make(chan error)
	go func() { room <- m.WaitRoom(ctx, 2, -1) }()
	time.Sleep(time.Millisecond)
	if _, err := m.Next(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-room; err != nil {
		t.Fatalf("WaitRoom after Next: %v", err)
	}
	go func() { room <- m.WaitRoom(ctx, 1, -1) }()
	time.Sleep(time.Millisecond)
	m.Close()
	if err := <-room; err != nil {
		t.Fatalf("WaitRoom after Close: %v", err)
	}
	if _, err := m.Next(ctx); err != frontier.ErrClosed {
		t.Fatalf("Next after Close: %v, want ErrClosed", err)
	}
}

// TestMemorySize: Size is the bytes of the URLs queued and not leased,
// and WaitRoom waits for room in tasks and in bytes (a queue of a few long
// URLs is as full as one of many short ones).
func TestMemorySize(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	m := frontier.NewMemory(func(s string) string { return s })
	long := strings.Repeat("x", 1000)
	m.Add(ctx, frontier.Task{URL: "a" + long}, frontier.Task{URL: "b" + long}, frontier.Task{URL: "a" + long})
	if m.Size() != 2002 || m.Len() != 2 {
		t.Fatalf("%d queued in %d bytes, want 2 in 2002 (a duplicate takes none)", m.Len(), m.Size())
	}
	room := make(chan error, 1)
	go func() { room <- m.WaitRoom(ctx, 100, 1500) }() // room for tasks, not for bytes
	select {
	case err := <-room:
		t.Fatalf("WaitRoom returned (%v) with 2002 bytes queued, bound 1500", err)
	case <-time.After(50 * time.Millisecond):
	}
	l, err := m.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := <-room; err != nil {
		t.Fatalf("WaitRoom after Next: %v", err)
	}
	if m.Size() != 1001 {
		t.Errorf("after a Next: %d bytes, want 1001", m.Size())
	}
	l.Done(ctx, []frontier.Task{{URL: "c"}})
	if m.Size() != 1002 {
		t.Errorf("after a lease's links: %d bytes, want 1002", m.Size())
	}
	if err := m.WaitRoom(ctx, 3, -1); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := m.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if m.Size() != 0 {
		t.Errorf("empty: %d bytes, want 0", m.Size())
	}
}
