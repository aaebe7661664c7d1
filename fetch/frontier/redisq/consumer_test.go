//go:build integration

package redisq_test

import (
	"context"
	"io"
	"sort"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fetchproject/fetch/fetch/frontier"
	"github.com/fetchproject/fetch/fetch/frontier/redisq"
)

// consumers are the group's consumers of the queue stream, by name, with
// the count of entries pending with each.
func consumers(t *testing.T, rdb *redis.Client, stream string) map[string]int64 {
	t.Helper()
	cs, err := rdb.XInfoConsumers(context.Background(), stream, redisq.Group).Result()
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]int64{}
	for _, c := range cs {
		m[c.Name] = c.Pending
	}
	return m
}

// names are the keys of m, sorted, for a message.
func names(m map[string]int64) []string {
	var s []string
	for k := range m {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// A worker that drains the queue leaves no consumer behind: the default
// name is new at every run, and the group kept one consumer per run of
// every worker for ever.
func TestConsumerDeletedWhenDrained(t *testing.T) {
	raw := queueURL(t)
	ctx := context.Background()
	rdb := admin(t)
	defer rdb.Close()
	q := open(t, raw, redisq.Options{IdleExit: 300 * time.Millisecond})
	q.Add(ctx, frontier.Task{URL: "gopher://h.test/0/a"}, frontier.Task{URL: "gopher://h.test/0/b"})
	for {
		l, err := q.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if err := l.Done(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if cs := consumers(t, rdb, q.Name()); cs[q.Consumer()] != 0 || len(cs) != 1 {
		t.Fatalf("before Close the group has %v; want %s alone, with nothing pending", cs, q.Consumer())
	}
	if err := q.Close(); err != nil {
		t.Fatal(err)
	}
	if cs := consumers(t, rdb, q.Name()); len(cs) != 0 {
		t.Errorf("after the worker drained the queue and closed, the group has consumers %v", names(cs))
	}
}

// A worker stopped before the queue is drained (Ctrl-C) leaves the group
// too once every lease it took is Done.
func TestConsumerDeletedWhenStoppedAfterDone(t *testing.T) {
	raw := queueURL(t)
	ctx := context.Background()
	rdb := admin(t)
	defer rdb.Close()
	q := open(t, raw, redisq.Options{Consumer: "w1", IdleExit: time.Hour})
	q.Add(ctx, frontier.Task{URL: "gopher://h.test/0/a"}, frontier.Task{URL: "gopher://h.test/0/b"})
	l, err := q.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Done(ctx, nil); err != nil {
		t.Fatal(err)
	}
	q.Close()
	if cs := consumers(t, rdb, q.Name()); len(cs) != 0 {
		t.Errorf("after w1 finished its one lease and closed, the group has consumers %v", names(cs))
	}
}

// A worker that leaves while it holds a lease keeps its consumer: deleting
// it would drop the lease's entry from the pending list, and no other
// worker would ever take the task over.
func TestConsumerWithPendingKept(t *testing.T) {
	raw := queueURL(t)
	rdb := admin(t)
	defer rdb.Close()
	q, l := leaseOne(t, raw, time.Hour, "gopher://h.test/0/held")
	id := l.(*redisq.Lease).ID()
	q.Close() // interrupted with the task not Done
	if cs := consumers(t, rdb, q.Name()); len(cs) != 1 || cs["a"] != 1 {
		t.Errorf("after a closed holding one lease, the group has %v; want a with 1 pending", cs)
	}
	if got := owner(t, rdb, q.Name(), id); got != "a" {
		t.Errorf("the held task is pending with %q, want a", got)
	}
}

// A worker that takes over a dead worker's last task deletes the dead
// worker's consumer, and that of a worker gone with nothing pending, both
// idle past the claim timeout; a consumer still owning a task stays.
func TestStaleConsumerDeletedOnTakeover(t *testing.T) {
	raw := queueURL(t)
	ctx := context.Background()
	rdb := admin(t)
	defer rdb.Close()
	const claim = 500 * time.Millisecond
	dead, _ := leaseOne(t, raw, claim, "gopher://h.test/0/abandoned")
	dead.Close() // killed: its consumer "a" owns the task
	stream := dead.Name()
	// "idle" was killed with nothing pending
	if err := rdb.XGroupCreateConsumer(ctx, stream, redisq.Group, "idle").Err(); err != nil {
		t.Fatal(err)
	}
	// "busy" is alive and holds a task; by the takeover both have been
	// idle past live's claim timeout, but a consumer that owns an entry
	// is never deleted.
	busy := open(t, raw, redisq.Options{Consumer: "busy", ClaimTimeout: time.Hour, IdleExit: time.Hour})
	busy.Add(ctx, frontier.Task{URL: "gopher://h.test/0/long"})
	bl, err := busy.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cs := consumers(t, rdb, stream); len(cs) != 3 {
		t.Fatalf("before the takeover the group has %v; want a, busy and idle", cs)
	}

	time.Sleep(claim)
	live := open(t, raw, redisq.Options{Consumer: "live", ClaimTimeout: claim, IdleExit: time.Hour})
	l, err := live.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l.Task().URL != "gopher://h.test/0/abandoned" {
		t.Fatalf("live took %s, want the abandoned task", l.Task().URL)
	}
	cs := consumers(t, rdb, stream)
	if len(cs) != 2 || cs["live"] != 1 || cs["busy"] != 1 {
		t.Errorf("after the takeover the group has %v; want live and busy, each with 1 pending", cs)
	}
	l.Done(ctx, nil)
	bl.Done(ctx, nil)
}

// TestHoldDefersIdleExit: while a producer holds the queue, Next waits
// however long it stays empty, and the idle time starts again at the
// release: a worker reading its seeds from a slow pipe left before they
// came.
func TestHoldDefersIdleExit(t *testing.T) {
	const idle = 200 * time.Millisecond
	q := open(t, queueURL(t), redisq.Options{IdleExit: idle})
	release := q.Hold()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	got := make(chan error, 1)
	go func() {
		l, err := q.Next(ctx)
		if err == nil {
			err = l.Done(ctx, nil)
		}
		got <- err
	}()
	select {
	case err := <-got:
		t.Fatalf("Next returned (%v) while the queue was held", err)
	case <-time.After(5 * idle):
	}
	if _, err := q.Add(ctx, frontier.Task{URL: "gopher://h.test/0/seed"}); err != nil {
		t.Fatal(err)
	}
	release()
	if err := <-got; err != nil {
		t.Fatalf("the seed added under the hold: %v", err)
	}
	start := time.Now()
	if _, err := q.Next(ctx); err != io.EOF {
		t.Fatalf("after the release and the seed done: %v, want io.EOF", err)
	}
	if d := time.Since(start); d < idle {
		t.Errorf("io.EOF after %v, before the idle exit of %v", d, idle)
	}
}
