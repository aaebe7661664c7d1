package main

import (
	"bufio"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/frontier"
	"github.com/fetchproject/fetch/schemes"
)

// TestLinksQueuedAsRead: a long listing's links are queued every
// linkBatch as it is read, so a crawl never holds a whole million-entry
// menu; what is left at the end is under one batch.
func TestLinksQueuedAsRead(t *testing.T) {
	reg := schemes.Registry()
	parent, err := reg.Parse("gopher://example.org/1/")
	if err != nil {
		t.Fatal(err)
	}
	const n = 2*linkBatch + 100
	var batches []int
	var queued int
	l := &links{s: newScope(&crawlOptions{depth: 5}, reg), parent: parent, flush: func(ts []frontier.Task) error {
		batches = append(batches, len(ts))
		queued += len(ts)
		return nil
	}}
	for i := range n {
		l.visit(fetch.Entry{URL: fmt.Sprintf("gopher://example.org/0/f%d", i), Item: "0", Kind: fetch.EntryFile})
	}
	if len(batches) != 2 || batches[0] != linkBatch || batches[1] != linkBatch {
		t.Errorf("queued in batches of %v, want two of %d", batches, linkBatch)
	}
	if queued+len(l.found) != n || len(l.found) != n-2*linkBatch {
		t.Errorf("%d queued and %d left, want %d in all and %d left", queued, len(l.found), n, n-2*linkBatch)
	}
	if l.flushErr() != nil {
		t.Errorf("flushErr: %v", l.flushErr())
	}
}

// TestLongLinksQueuedSooner: links of a line's full length are queued
// once they hold linkBatchBytes, not after linkBatch of them (64 MiB of
// one listing's links, for each transfer running).
func TestLongLinksQueuedSooner(t *testing.T) {
	reg := schemes.Registry()
	parent, err := reg.Parse("gopher://example.org/1/")
	if err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("x", 60<<10)
	most := 0
	l := &links{s: newScope(&crawlOptions{depth: 5}, reg), parent: parent, flush: func(ts []frontier.Task) error {
		size := 0
		for _, t := range ts {
			size += len(t.URL)
		}
		most = max(most, size)
		return nil
	}}
	for i := range 100 {
		l.visit(fetch.Entry{URL: fmt.Sprintf("gopher://example.org/0/%d%s", i, long), Item: "0", Kind: fetch.EntryFile})
		if l.size >= linkBatchBytes {
			t.Fatalf("after %d links, %d bytes of them held", i+1, l.size)
		}
	}
	if most == 0 || most > linkBatchBytes+len(long)+100 {
		t.Errorf("the largest batch queued held %d bytes of URLs, want at most about %d", most, linkBatchBytes)
	}
}

// TestLinksQueueFailure: once queueing fails, the listing keeps no more
// links (they would only grow) and the failure is reported.
func TestLinksQueueFailure(t *testing.T) {
	reg := schemes.Registry()
	parent, err := reg.Parse("gopher://example.org/1/")
	if err != nil {
		t.Fatal(err)
	}
	boom := errors.New("queue is down")
	calls := 0
	l := &links{s: newScope(&crawlOptions{depth: 5}, reg), parent: parent, flush: func([]frontier.Task) error {
		calls++
		return boom
	}}
	for i := range 3 * linkBatch {
		l.visit(fetch.Entry{URL: fmt.Sprintf("gopher://example.org/0/f%d", i), Item: "0", Kind: fetch.EntryFile})
	}
	if calls != 1 || len(l.found) != 0 || !errors.Is(l.flushErr(), boom) {
		t.Errorf("%d flushes, %d links kept, error %v; want 1, 0 and %v", calls, len(l.found), l.flushErr(), boom)
	}
}

// fileTree makes dirs directories of files files each ("x" each) and
// returns the directories' file: URLs, the seeds of a crawl.
func fileTree(t *testing.T, dirs, files int) []string {
	t.Helper()
	src := t.TempDir()
	var seeds []string
	for d := range dirs {
		dir := filepath.Join(src, fmt.Sprintf("d%d", d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range files {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d", f)), []byte("x"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		seeds = append(seeds, "file://"+dir+"/")
	}
	return seeds
}

// TestMaxURLsWithWorkers: --max-urls holds with several workers listing
// at once: each takes its room from what the others left, and the seeds
// count before any link does.
func TestMaxURLsWithWorkers(t *testing.T) {
	seeds := fileTree(t, 8, 40)
	for run := range 10 {
		out := t.TempDir()
		logName := filepath.Join(out, "log")
		args := append([]string{"-r", "--max-urls", "20", "-j", "8", "--per-host", "8", "--output-dir", out, "--log", logName, "-q"}, seeds...)
		if code, _, stderr := runFetch(t, "", args...); code != 0 {
			t.Fatalf("run %d: exit %d, %s", run, code, stderr)
		}
		if _, all := readLog(t, logName); len(all) != 20 {
			t.Fatalf("run %d: %d URLs logged with --max-urls 20", run, len(all))
		}
	}
}

// TestMaxURLsAfterResume: --max-urls counts the URLs a killed crawl's
// earlier run queued (its journal), not only the rerun's: a rerun got a
// whole new allowance and logged twice the bound.
func TestMaxURLsAfterResume(t *testing.T) {
	src := t.TempDir()
	sub := filepath.Join(src, "a")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"f1", "f2", "f3"} {
		if err := os.WriteFile(filepath.Join(sub, f), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	logName := filepath.Join(out, "log")
	args := []string{"-r", "--max-urls", "2", "--output-dir", out, "--log", logName, "-q", "file://" + src + "/"}
	if code, _, stderr := runFetch(t, "", args...); code != 0 {
		t.Fatalf("first run: exit %d, %s", code, stderr)
	}
	if _, all := readLog(t, logName); len(all) != 2 {
		t.Fatalf("first run logged %d URLs, want 2", len(all))
	}
	// As a kill after the seed was fetched and while a/ was: the journal
	// holds the seed's add, a/'s add and the seed's done; the log the
	// seed's line.
	keep := func(name string, n int) {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.SplitAfter(string(b), "\n")
		if len(lines) < n {
			t.Fatalf("%s has %d lines: %q", name, len(lines), b)
		}
		if err := os.WriteFile(name, []byte(strings.Join(lines[:n], "")), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	keep(logName+".frontier", 3)
	keep(logName, 1)
	if code, _, stderr := runFetch(t, "", args...); code != 0 {
		t.Fatalf("rerun: exit %d, %s", code, stderr)
	}
	if _, all := readLog(t, logName); len(all) != 2 {
		t.Errorf("--max-urls 2, yet after a resume the log holds %d URLs", len(all))
	}
}

// TestCrawlJournalKeepsEveryListLine: a list line whose URL is long once
// written as JSON (control bytes take six bytes each) is journaled and
// reported like any other; it was left out of the journal, and so out of
// the run, without a log line and with exit 0.
func TestCrawlJournalKeepsEveryListLine(t *testing.T) {
	dir := t.TempDir()
	list := filepath.Join(dir, "list")
	if err := os.WriteFile(list, []byte("http://127.0.0.1/"+strings.Repeat("\x01", 30000)+"x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, withLog := range []bool{false, true} {
		out := t.TempDir()
		args := []string{"-r", "-i", list, "--output-dir", out, "-q", "--json"}
		if withLog {
			args = append(args, "--log", filepath.Join(out, "log"))
		}
		if code, stdout, _ := runFetch(t, "", args...); code != 3 || !strings.Contains(stdout, `"outcome":"failed"`) {
			t.Errorf("--log %v: exit %d, %d bytes of log lines; want the URL's failure, exit 3", withLog, code, len(stdout))
		}
	}
}

// TestCrawlFlagsNeedRecursive: a crawl flag without --recursive is a
// usage error for one URL as for a batch; it was ignored without a word.
func TestCrawlFlagsNeedRecursive(t *testing.T) {
	doc := filepath.Join(t.TempDir(), "doc.txt")
	if err := os.WriteFile(doc, []byte("hi\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"--depth", "3"}, {"--span-hosts"}, {"--include", "x"}, {"--exclude", "x"}, {"--max-urls", "9"}, {"--follow-types", "7"}} {
		for _, batch := range []bool{false, true} {
			a := append(args, "file://"+filepath.ToSlash(doc))
			if batch {
				a = append(a, "-O", "--output-dir", t.TempDir())
			}
			code, out, e := runFetch(t, "", a...)
			if code != 2 || out != "" || !strings.Contains(e, args[0]+" goes with --recursive") {
				t.Errorf("%v: exit %d, out %q, stderr %q", a, code, out, e)
			}
		}
	}
}

// lowQueueCap lowers the crawl's queue bound for a test.
func lowQueueCap(t *testing.T, n int) { setForTest(t, &queueCap, n) }

// lowQueueBytes lowers the bytes bound of the crawl's queue for a test.
func lowQueueBytes(t *testing.T, n int64) { setForTest(t, &queueBytesCap, n) }

// setForTest sets *v to x until the test ends.
func setForTest[T any](t *testing.T, v *T, x T) {
	old := *v
	*v = x
	t.Cleanup(func() { *v = old })
}

// crawlBatch is a batch of a crawl whose frontier is a Memory, its
// standard error kept, for tests of how links are queued.
func crawlBatch(o *options) (*batch, *frontier.Memory, *strings.Builder) {
	var stderr strings.Builder
	m := frontier.NewMemory(func(s string) string { return s })
	b := &batch{o: o, s: stdio{err: &stderr}, fr: m, adder: m, held: m, scope: newScope(&o.crawl, schemes.Registry())}
	return b, m, &stderr
}

// TestCrawlQueueBoundHolds: links found while the queue holds queueCap
// tasks are counted, not queued, however many listings offer them; the
// first time is a warning (none with -q) and a policy failure.
func TestCrawlQueueBoundHolds(t *testing.T) {
	lowQueueCap(t, 5)
	for _, quiet := range []bool{false, true} {
		b, m, stderr := crawlBatch(&options{quiet: quiet})
		offer := func(from, n int) {
			var found []frontier.Task
			for i := range n {
				found = append(found, frontier.Task{URL: fmt.Sprintf("gopher://example.org/0/f%d", from+i), Depth: 1})
			}
			if err := b.addFound(t.Context(), found); err != nil {
				t.Fatal(err)
			}
		}
		offer(0, 3)
		offer(3, 20)
		offer(23, 20)
		if m.Len() != 5 || b.scope.overQueue.Load() != 38 {
			t.Errorf("quiet %v: %d queued and %d left out, want 5 and 38", quiet, m.Len(), b.scope.overQueue.Load())
		}
		warned := strings.Count(stderr.String(), "queue is full (its bound: 5 URLs or 128.0 MiB of them)")
		if b.worst.Load() != int64(fetch.KindPolicy.ExitCode()) || quiet && warned != 0 || !quiet && warned != 1 {
			t.Errorf("quiet %v: status %d and %d warnings: %q", quiet, b.worst.Load(), warned, stderr.String())
		}
		if s := b.crawlSummary(); !strings.Contains(s, "38 over the queue's bound of 5") {
			t.Errorf("quiet %v: the summary says %q", quiet, s)
		}
	}
}

// TestCrawlQueueBoundServer: a server that makes up new links without end
// (each of its menus links menuLinks menus never seen) grew the crawl's
// queue without bound when no --max-urls was given. The queue stops at its
// bound: the links past it are not fetched, the run says so once and in
// its summary, and exits 4, as for a size bound passed. The bound is in
// tasks and in the bytes of their URLs: with links 4 KB long, the second
// is met first.
func TestCrawlQueueBoundServer(t *testing.T) {
	const menuLinks, jobs, pad = 500, 1, 4000
	for _, long := range []bool{false, true} {
		t.Run(fmt.Sprintf("long=%v", long), func(t *testing.T) {
			testCrawlQueueBoundServer(t, menuLinks, jobs, long, pad)
		})
	}
}

func testCrawlQueueBoundServer(t *testing.T, menuLinks, jobs int, long bool, pad int) {
	bound := 5
	if long {
		lowQueueBytes(t, int64(bound*pad+pad/2)) // five links, not six
	} else {
		lowQueueCap(t, bound)
	}
	addr := serveTCP(t, func(c net.Conn) {
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return
		}
		sel := strings.TrimRight(line, "\r\n")
		host, port, _ := net.SplitHostPort(c.LocalAddr().String())
		tail := ""
		if long {
			tail = "/" + strings.Repeat("x", pad)
		}
		w := bufio.NewWriter(c)
		for i := range menuLinks {
			fmt.Fprintf(w, "1Menu %d\t%s/%d%s\t%s\t%s\r\n", i, sel, i, tail, host, port)
		}
		w.WriteString(".\r\n")
		w.Flush()
	})
	for _, quiet := range []bool{false, true} {
		out := t.TempDir()
		logName := filepath.Join(out, "log")
		args := []string{"-r", "--depth", "1", "-j", strconv.Itoa(jobs), "--output-dir", out, "--log", logName, "gopher://" + addr + "/1"}
		if quiet {
			args = append(args, "-q")
		}
		code, _, stderr := runFetch(t, "", args...)
		if code != fetch.KindPolicy.ExitCode() {
			t.Fatalf("quiet %v: exit %d, want 4: %s", quiet, code, stderr)
		}
		_, all := readLog(t, logName)
		queued := len(all) - 1 // the seed's menu aside
		// The dispatcher leases up to its backlog (64 + 4 a job) ahead of
		// the workers: those are out of the queue, and room is made.
		if most := bound + 64 + 4*jobs + jobs; queued > most {
			t.Errorf("quiet %v: %d links queued, want at most %d", quiet, queued, most)
		}
		want := fmt.Sprintf("%d over the queue's bound of %s", menuLinks-queued, queueBound())
		if !strings.Contains(stderr, want) {
			t.Errorf("quiet %v: the summary does not say %q: %s", quiet, want, stderr)
		}
		warned := strings.Count(stderr, "warning: the crawl's queue is full (its bound: "+queueBound()+")")
		if quiet && warned != 0 || !quiet && warned != 1 {
			t.Errorf("quiet %v: %d warnings: %s", quiet, warned, stderr)
		}
		if quiet {
			continue
		}
		// Run again on the same log: the links left out are not in the
		// journal and their menu is done, so the crawl stays incomplete,
		// and this run says so too (it exited 0 with nothing to do).
		code, _, stderr = runFetch(t, "", args...)
		left := fmt.Sprintf("an earlier run of this crawl left %d links out", menuLinks-queued)
		if code != fetch.KindPolicy.ExitCode() || !strings.Contains(stderr, left) || !strings.Contains(stderr, want) {
			t.Errorf("the rerun: exit %d, want 4 saying %q and %q: %s", code, left, want, stderr)
		}
	}
}
