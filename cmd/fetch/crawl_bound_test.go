package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch/frontier"
	"github.com/fetchproject/fetch/schemes"
)

// TestQueueBoundSeenLinksNotOver: a link to a URL the crawl has
// queued already takes no room, so when the queue is at its bound (or the
// crawl at --max-urls) it is not a link left out: it is neither counted
// in the summary nor, for the queue's bound, a warning and exit 4. A
// menu's link back to its parent, found while the queue held exactly its
// bound, made a complete crawl exit 4 and say links were not queued.
func TestQueueBoundSeenLinksNotOver(t *testing.T) {
	task := func(name string) frontier.Task {
		return frontier.Task{URL: "gopher://example.org/0/" + name, Depth: 1}
	}
	for _, kind := range []string{"memory", "journal"} {
		for _, maxURLs := range []int64{0, 2} {
			name := fmt.Sprintf("%s/max-urls=%d", kind, maxURLs)
			lowQueueCap(t, 2)
			var stderr strings.Builder
			o := &options{}
			o.crawl.maxURLs = maxURLs
			key := func(s string) string { return s }
			var fr interface {
				frontier.Adder
				heldQueue
			}
			if kind == "memory" {
				fr = frontier.NewMemory(key)
			} else {
				j, err := frontier.OpenJournal(filepath.Join(t.TempDir(), "log.frontier"), key)
				if err != nil {
					t.Fatal(err)
				}
				defer j.Close()
				fr = j
			}
			b := &batch{o: o, s: stdio{err: &stderr}, adder: fr, held: fr, scope: newScope(&o.crawl, schemes.Registry())}
			// the seeds fill the queue (and --max-urls 2) exactly
			n, err := fr.Add(t.Context(), task("a"), task("b"))
			if err != nil || n != 2 {
				t.Fatalf("%s: seeds: %d, %v", name, n, err)
			}
			b.read.Add(int64(n))
			// links back to what is queued: nothing is left out
			if err := b.addFound(t.Context(), []frontier.Task{task("a"), task("b"), task("a")}); err != nil {
				t.Fatal(err)
			}
			if over := b.scope.overQueue.Load() + b.scope.overMax.Load(); over != 0 || b.worst.Load() != 0 || stderr.Len() != 0 {
				t.Errorf("%s: links to queued URLs only: %d left out, status %d, %q; want none, 0 and no warning",
					name, over, b.worst.Load(), stderr.String())
			}
			if s := b.crawlSummary(); s != "" {
				t.Errorf("%s: links to queued URLs only: the summary says %q", name, s)
			}
			// one new link among them (twice): one left out
			if err := b.addFound(t.Context(), []frontier.Task{task("a"), task("c"), task("b"), task("c")}); err != nil {
				t.Fatal(err)
			}
			got, want := b.scope.overQueue.Load(), int64(1)
			if maxURLs > 0 {
				got = b.scope.overMax.Load() // --max-urls is met first
			}
			if got != want {
				t.Errorf("%s: one new link past the bound: %d counted, want %d (summary %q)", name, got, want, b.crawlSummary())
			}
		}
	}
}

// TestCrawlQueueBytesBound: the queue's bound counts the bytes of its URLs
// too. A server writing links as long as a listing's line allows filled a
// queue bounded by its number of tasks alone with a million 64 KiB URLs.
func TestCrawlQueueBytesBound(t *testing.T) {
	lowQueueBytes(t, 1000)
	b, m, stderr := crawlBatch(&options{})
	link := func(i int) frontier.Task {
		u := fmt.Sprintf("gopher://example.org/0/%03d/", i)
		return frontier.Task{URL: u + strings.Repeat("x", 300-len(u)), Depth: 1}
	}
	var found []frontier.Task
	for i := range 20 {
		found = append(found, link(i))
	}
	if err := b.addFound(t.Context(), found); err != nil {
		t.Fatal(err)
	}
	if m.Len() != 3 || m.Size() != 900 || b.scope.overQueue.Load() != 17 {
		t.Errorf("20 links of 300 bytes into 1000: %d queued (%d bytes), %d left out; want 3 (900), 17",
			m.Len(), m.Size(), b.scope.overQueue.Load())
	}
	if !strings.Contains(stderr.String(), "queue is full (its bound: 1000000 URLs or 1000 B of them)") {
		t.Errorf("the warning: %q", stderr.String())
	}
	// a fetched task makes room for as many bytes as its URL's
	if _, err := m.Next(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := b.addFound(t.Context(), []frontier.Task{link(20), link(21)}); err != nil {
		t.Fatal(err)
	}
	if m.Len() != 3 || b.scope.overQueue.Load() != 18 {
		t.Errorf("after one is fetched: %d queued, %d left out; want 3, 18", m.Len(), b.scope.overQueue.Load())
	}
	if s := b.crawlSummary(); !strings.Contains(s, "18 over the queue's bound of 1000000 URLs or 1000 B of them") {
		t.Errorf("the summary says %q", s)
	}
}

// TestCrawlSeedsWaitForRoom: a crawl's seeds are added as its queue makes
// room, half its bound at most, not all at once: a list of millions of
// seeds was held whole in memory, whatever the queue's bound.
func TestCrawlSeedsWaitForRoom(t *testing.T) {
	const seeds = 100
	lowQueueCap(t, 8) // seeds wait below 4 and come 2 at a time
	o := &options{}
	o.crawl.recursive = true
	for i := range seeds {
		o.urls = append(o.urls, fmt.Sprintf("gopher://example.org/0/seed%d", i))
	}
	b, m, _ := crawlBatch(o)
	fed := make(chan error, 1)
	release := m.Hold() // as runBatch holds it, before the feed starts
	go func() { fed <- b.feed(t.Context(), nil, release) }()
	got := map[string]int{}
	most := 0
	for {
		l, err := m.Next(t.Context())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		most = max(most, m.Len()) // the queue at any moment: at most 5
		got[l.Task().URL]++
		if err := l.Done(t.Context(), nil); err != nil {
			t.Fatal(err)
		}
	}
	if err := <-fed; err != nil {
		t.Fatal(err)
	}
	if most > 5 {
		t.Errorf("%d seeds queued at once, want at most 5 (below 4, then 2 more)", most)
	}
	if len(got) != seeds {
		t.Errorf("%d seeds fetched, want %d", len(got), seeds)
	}
	for u, n := range got {
		if n != 1 {
			t.Errorf("%s fetched %d times", u, n)
		}
	}
}

// TestCrawlSeedsTakeMaxURLsFirst: with --max-urls the seeds do not wait
// for room in the queue, so that they take the limit's room before the
// links found. Seeds that waited let the links found meanwhile take it,
// and the seeds read after were queued past the limit (1,488 URLs for
// --max-urls 1000).
func TestCrawlSeedsTakeMaxURLsFirst(t *testing.T) {
	lowQueueCap(t, 1024) // without --max-urls, seeds would wait below 512
	const seeds, maxURLs = 1000, 1000
	o := &options{}
	o.crawl.recursive = true
	o.crawl.maxURLs = maxURLs
	for i := range seeds {
		o.urls = append(o.urls, fmt.Sprintf("gopher://example.org/0/seed%d", i))
	}
	b, m, _ := crawlBatch(o)
	release := m.Hold()
	fed := make(chan error, 1)
	go func() { fed <- b.feed(t.Context(), nil, release) }()
	// nothing is fetched yet: the seeds must not wait for room
	select {
	case err := <-fed:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(time.Minute):
		t.Fatalf("the seeds wait for room in the queue (%d queued): with --max-urls they take its room first", m.Len())
	}
	fetched := 0
	for i := 0; ; i++ {
		l, err := m.Next(t.Context())
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		fetched++
		var found []frontier.Task
		for k := range 5 {
			found = append(found, frontier.Task{URL: fmt.Sprintf("gopher://example.org/1/link%d-%d", i, k), Depth: 1})
		}
		if err := b.addFound(t.Context(), found); err != nil {
			t.Fatal(err)
		}
		l.Done(t.Context(), nil)
	}
	if fetched != maxURLs {
		t.Errorf("--max-urls %d with %d seeds: %d URLs fetched, want the %d seeds", maxURLs, seeds, fetched, seeds)
	}
}

// TestCrawlSeenLinkTakesNoBytes: a link to a URL the crawl has seen takes
// no room in bytes either. A long one first (a menu's link back to its
// parent) left out a short new link that fitted.
func TestCrawlSeenLinkTakesNoBytes(t *testing.T) {
	lowQueueBytes(t, 1000)
	b, m, _ := crawlBatch(&options{})
	long := func(name string) frontier.Task {
		u := "gopher://example.org/1/" + name
		return frontier.Task{URL: u + strings.Repeat("x", 300-len(u)), Depth: 1}
	}
	parent := long("parent")
	m.Add(t.Context(), parent)
	if _, err := m.Next(t.Context()); err != nil { // the parent is being fetched: seen, not queued
		t.Fatal(err)
	}
	m.Add(t.Context(), long("a"), long("b"), long("c")) // 900 of 1000 bytes
	short := frontier.Task{URL: "gopher://example.org/0/s", Depth: 1}
	if err := b.addFound(t.Context(), []frontier.Task{parent, short}); err != nil {
		t.Fatal(err)
	}
	if m.Len() != 4 || b.scope.overQueue.Load() != 0 || b.worst.Load() != 0 {
		t.Errorf("%d queued (%d bytes), %d left out, status %d: want the short link queued (the parent takes no room)",
			m.Len(), m.Size(), b.scope.overQueue.Load(), b.worst.Load())
	}
}
