//go:build integration

package redisq_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch/frontier"
	"github.com/fetchproject/fetch/fetch/frontier/redisq"
)

// TestAddWithinHoldsAcrossWorkers: two workers (two handles on one
// queue) adding found links at once under one limit queue no more than
// it in all, the seeds counted: a limit each process counted for itself
// let K workers queue K times it. The calls give more links than one
// script call takes, and the workers' links overlap, as two listings of
// one site do.
func TestAddWithinHoldsAcrossWorkers(t *testing.T) {
	const limit, seeds, callers, links = 1000, 3, 4, 600
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	raw := queueURL(t)
	workers := []*redisq.Queue{open(t, raw, redisq.Options{}), open(t, raw, redisq.Options{})}
	var given []frontier.Task
	for i := range seeds {
		given = append(given, frontier.Task{URL: fmt.Sprintf("gopher://h.test/1/seed%d", i)})
	}
	if n, err := workers[0].Add(ctx, given...); err != nil || n != seeds {
		t.Fatalf("seeds: %d queued, %v", n, err)
	}

	var mu sync.Mutex
	added, over := 0, 0
	var wg sync.WaitGroup
	for w, q := range workers {
		for c := range callers {
			wg.Go(func() {
				// Each caller's links start 300 after the one before
				// it: half of them another caller's too.
				first := (w*callers + c) * links / 2
				var found []frontier.Task
				for i := range links {
					found = append(found, frontier.Task{URL: fmt.Sprintf("gopher://h.test/0/f%d", first+i), Depth: 1})
				}
				n, o, err := q.AddWithin(ctx, limit, found...)
				if err != nil {
					t.Error(err)
				}
				mu.Lock()
				added, over = added+n, over+o
				mu.Unlock()
			})
		}
	}
	wg.Wait()

	rdb := admin(t)
	defer rdb.Close()
	name := workers[0].Name()
	seen, err := rdb.SCard(ctx, name+":seen").Result()
	if err != nil {
		t.Fatal(err)
	}
	queued, err := rdb.XLen(ctx, name).Result()
	if err != nil {
		t.Fatal(err)
	}
	if seen != limit || queued != limit || added != limit-seeds {
		t.Errorf("limit %d, %d seeds: %d seen, %d queued, the workers reported %d queued; want %d, %d and %d",
			limit, seeds, seen, queued, added, limit, limit, limit-seeds)
	}
	if over == 0 {
		t.Errorf("%d links offered past the limit, none reported left out", callers*len(workers)*links)
	}

	// Full: a link already queued is neither queued again nor left out;
	// a new one is left out, by either worker.
	n, o, err := workers[1].AddWithin(ctx, limit, frontier.Task{URL: "gopher://h.test/1/seed0"},
		frontier.Task{URL: "gopher://h.test/0/new"})
	if err != nil || n != 0 || o != 1 {
		t.Errorf("a seen link and a new one past the limit: %d queued, %d left out, %v; want 0, 1", n, o, err)
	}
	// A worker given a larger limit holds the shared count to its own.
	n, o, err = workers[0].AddWithin(ctx, limit+1, frontier.Task{URL: "gopher://h.test/0/new"},
		frontier.Task{URL: "gopher://h.test/0/newer"})
	if err != nil || n != 1 || o != 1 {
		t.Errorf("two new links with room for one: %d queued, %d left out, %v; want 1, 1", n, o, err)
	}
}

// TestAddWithinCountsAKeyOnce: a URL offered twice in one call past the
// limit (a listing that links it twice, or twice but for the fragment)
// is one URL left out, as a crawl of one process counts it: the script
// counted every task it left out, so --max-urls's count in a worker's
// summary said two.
func TestAddWithinCountsAKeyOnce(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q := open(t, queueURL(t), redisq.Options{})
	if n, err := q.Add(ctx, frontier.Task{URL: "gopher://h.test/1/seed"}); err != nil || n != 1 {
		t.Fatalf("seed: %d queued, %v", n, err)
	}
	link := frontier.Task{URL: "gopher://h.test/0/a", Depth: 1}
	n, o, err := q.AddWithin(ctx, 1, link, link, frontier.Task{URL: "gopher://h.test/0/b", Depth: 1})
	if err != nil || n != 0 || o != 2 {
		t.Errorf("a link twice and another past the limit: %d queued, %d left out, %v; want 0, 2", n, o, err)
	}
	// Below the limit the first copy is queued and the second is seen.
	n, o, err = q.AddWithin(ctx, 10, link, link)
	if err != nil || n != 1 || o != 0 {
		t.Errorf("a link twice under the limit: %d queued, %d left out, %v; want 1, 0", n, o, err)
	}
}
