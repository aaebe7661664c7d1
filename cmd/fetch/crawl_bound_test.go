package main

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"

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
				Len() int
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
			b := &batch{o: o, s: stdio{err: &stderr}, adder: fr, queuedNow: fr.Len, scope: newScope(&o.crawl, schemes.Registry())}
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
