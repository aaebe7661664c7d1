package frontier_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch/frontier"
	"github.com/fetchproject/fetch/fetch/frontier/frontiertest"
)

func TestJournal(t *testing.T) {
	frontiertest.Run(t, func(t *testing.T, seeds []frontier.Task) frontier.Frontier {
		j, err := frontier.OpenJournal(filepath.Join(t.TempDir(), "crawl.frontier"), nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Add(context.Background(), seeds...); err != nil {
			t.Fatal(err)
		}
		return j
	})
}

// TestJournalPrivate: a new journal is its owner's alone: it holds the
// URLs as given, a seed's password among them.
func TestJournalPrivate(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix permissions")
	}
	path := filepath.Join(t.TempDir(), "log.frontier")
	j, err := frontier.OpenJournal(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Add(context.Background(), frontier.Task{URL: "ftp://joe:s3cret@host/pub/"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("journal mode %v, %v; want none for group or others", fi.Mode(), err)
	}
}

// A crawl stopped with a task leased and not done, its last line torn,
// resumes: the seen set holds, the leased task comes back, done ones do not.
func TestJournalResume(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crawl.frontier")
	j := openJournal(t, path)
	var seeds []frontier.Task
	for i := range 4 {
		seeds = append(seeds, frontier.Task{URL: fmt.Sprintf("gopher://h.test/0/%d", i)})
	}
	j.Add(ctx, seeds...)
	a, _ := j.Next(ctx)
	b, _ := j.Next(ctx)
	if err := a.Done(ctx, []frontier.Task{{URL: "gopher://h.test/1/found", Depth: 1}, seeds[3]}); err != nil {
		t.Fatal(err)
	}
	_ = b // leased, never done: the process dies here
	// (no Close: a kill) — and a torn line at the end
	f, _ := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"add":"gopher://h.test/0/torn`)
	f.Close()

	j2 := openJournal(t, path)
	defer j2.Close()
	// queued again: b's seed, seeds 2 and 3 and the link found
	if want := int64(3*len(seeds[0].URL) + len("gopher://h.test/1/found")); j2.Size() != want {
		t.Errorf("resumed: the queue's URLs take %d bytes, want %d", j2.Size(), want)
	}
	if n, _ := j2.Add(ctx, seeds...); n != 0 {
		t.Errorf("re-adding the seeds queued %d, want 0 (seen)", n)
	}
	var got []string
	for {
		l, err := j2.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, l.Task().URL)
		l.Done(ctx, nil)
	}
	want := []string{b.Task().URL, "gopher://h.test/0/2", "gopher://h.test/0/3", "gopher://h.test/1/found"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after resuming: %v, want %v", got, want)
	}
	if j2.Seen() != 5 {
		t.Errorf("seen %d, want 5", j2.Seen())
	}
	// the torn line was cut away: the file is whole lines again
	if data, _ := os.ReadFile(path); len(data) > 0 && data[len(data)-1] != '\n' {
		t.Errorf("the journal does not end with a whole line")
	}
}

// TestJournalFailedQueuedAgain: a task whose lease reported a failure
// (Outcome(false)) is journaled as failed and queued again by the next
// run that opens the journal, not by the run that failed it; once done
// it is not queued again. A rerun of a crawl fetched no failed URL.
func TestJournalFailedQueuedAgain(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crawl.frontier")
	j := openJournal(t, path)
	j.Add(ctx, frontier.Task{URL: "gopher://h.test/1/a", Depth: 2}, frontier.Task{URL: "gopher://h.test/1/b"})
	for range 2 {
		l, err := j.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if l.Task().URL == "gopher://h.test/1/a" {
			l.(frontier.Outcomer).Outcome(false)
		}
		if err := l.Done(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if j.Len() != 0 {
		t.Errorf("%d queued after both were done, want 0: a failed task is not tried again in its run", j.Len())
	}
	j.Close()
	for run := range 2 {
		j2 := openJournal(t, path)
		var got []frontier.Task
		for j2.Len() > 0 {
			l, err := j2.Next(ctx)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, l.Task())
			l.Done(ctx, nil) // succeeds this time
		}
		j2.Close()
		want := "[{gopher://h.test/1/a 2}]"
		if run == 1 {
			want = "[]"
		}
		if fmt.Sprint(got) != want {
			t.Errorf("run %d after the failure: queued %v, want %s", run+1, got, want)
		}
	}
}

// FuzzJournal: whatever the file holds, opening it never panics, and what
// it keeps opens again to the same queue.
func FuzzJournal(f *testing.F) {
	f.Add([]byte("{\"add\":\"gopher://h/0/a\"}\n{\"add\":\"gopher://h/0/b\",\"depth\":2}\n{\"done\":\"gopher://h/0/a\"}\n"))
	f.Add([]byte("{\"add\":\"x\"}\n{\"done\""))
	f.Add([]byte("{\"addb\":\"Z29waGVyOi8vaC8wL+k=\"}\n{\"doneb\":\"Z29waGVyOi8vaC8wL+k=\"}\n"))
	f.Add([]byte("{\"add\":\"gopher://h/0/a\"}\n{\"done\":\"gopher://h/0/a\",\"failed\":true}\n"))
	f.Add([]byte("{}\n"))
	f.Add([]byte("\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "j")
		if err := os.WriteFile(path, data, 0o666); err != nil {
			t.Fatal(err)
		}
		j, err := frontier.OpenJournal(path, nil)
		if err != nil {
			return
		}
		n, seen, size := j.Len(), j.Seen(), j.Size()
		j.Close()
		j2, err := frontier.OpenJournal(path, nil)
		if err != nil {
			t.Fatalf("reopening: %v", err)
		}
		defer j2.Close()
		if j2.Len() != n || j2.Seen() != seen || j2.Size() != size {
			t.Fatalf("reopened: %d queued (%d bytes), %d seen; first %d (%d bytes), %d", j2.Len(), j2.Size(), j2.Seen(), n, size, seen)
		}
		var sum int64
		for range n {
			l, err := j2.Next(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			sum += int64(len(l.Task().URL))
		}
		if sum != size || j2.Size() != 0 {
			t.Fatalf("the queue's URLs take %d bytes, Size said %d (%d once leased, want 0)", sum, size, j2.Size())
		}
	})
}

// A long URL full of '&' (escaped by json.Marshal to six bytes each) and
// one whose control bytes escape past the bound must not cost the crawl
// the events journaled after them.
func TestJournalLongEscapedURL(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crawl.frontier")
	j := openJournal(t, path)
	amp := "gopher://h.test/1/" + strings.Repeat("&<>", 10000)   // 30 KB
	ctl := "gopher://h.test/1/" + strings.Repeat("\x01", 30000)  // 180 KB as JSON: a list line can be
	huge := "gopher://h.test/1/" + strings.Repeat("\x01", 70000) // 420 KB as JSON: no list line can be
	n, err := j.Add(ctx, frontier.Task{URL: amp}, frontier.Task{URL: ctl}, frontier.Task{URL: huge}, frontier.Task{URL: "gopher://h.test/0/a"})
	if err != nil {
		t.Fatal(err)
	}
	if n != 3 {
		t.Errorf("Add queued %d, want 3 (the URL too long as JSON refused)", n)
	}
	l, err := j.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l.Task().URL != amp {
		t.Fatalf("first task %.40q, want the long one", l.Task().URL)
	}
	if err := l.Done(ctx, []frontier.Task{{URL: "gopher://h.test/0/b", Depth: 1}}); err != nil {
		t.Fatal(err)
	}
	j2 := reopen(t, j, path)
	got := drain(t, j2)
	want := []string{ctl, "gopher://h.test/0/a", "gopher://h.test/0/b"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("after resuming: %.80q, want %.80q", got, want)
	}
	if j2.Seen() != 4 {
		t.Errorf("seen %d, want 4", j2.Seen())
	}
}

// Whole lines that are not events (garbage, an over-long line) are
// skipped and kept; only an unterminated last line is cut.
func TestJournalSkipsDamagedLines(t *testing.T) {
	path := filepath.Join(t.TempDir(), "crawl.frontier")
	data := "{\"add\":\"gopher://h.test/0/a\"}\n" +
		"not json\n" +
		"\n" +
		"{\"add\":\"" + strings.Repeat("x", 500<<10) + "\"}\n" + // past maxJournalLine
		"{\"add\":\"gopher://h.test/0/b\"}\n" +
		"{\"done\":\"gopher://h.test/0/a\"}\n" +
		"{\"add\":\"gopher://h.test/0/c\"}\n"
	torn := "{\"add\":\"gopher://h.test/0/torn"
	if err := os.WriteFile(path, []byte(data+torn), 0o666); err != nil {
		t.Fatal(err)
	}
	j := openJournal(t, path)
	got := drain(t, j)
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	want := []string{"gopher://h.test/0/b", "gopher://h.test/0/c"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("replayed %q, want %q", got, want)
	}
	b, _ := os.ReadFile(path)
	if !strings.HasPrefix(string(b), data) || strings.Contains(string(b), torn) {
		t.Errorf("the journal's whole lines were not kept, or its torn tail not cut")
	}
}

// drain leases and finishes every task of f, returning their URLs in order.
func drain(t *testing.T, f frontier.Frontier) []string {
	t.Helper()
	ctx := context.Background()
	var got []string
	for {
		l, err := f.Next(ctx)
		if err == io.EOF {
			return got
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, l.Task().URL)
		if err := l.Done(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
}

// URLs that are not UTF-8 resume byte for byte: two that differ only in
// a bad byte stay two tasks, and the done of one does not finish the other.
func TestJournalNonUTF8URL(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crawl.frontier")
	j := openJournal(t, path)
	u1, u2 := "gopher://h.test/0/caf\xe9", "gopher://h.test/0/caf\xe8"
	if n, err := j.Add(ctx, frontier.Task{URL: u1}, frontier.Task{URL: u2, Depth: 2}); err != nil || n != 2 {
		t.Fatalf("Add = %d, %v", n, err)
	}
	l, err := j.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Done(ctx, nil); err != nil {
		t.Fatal(err)
	}
	j2 := reopen(t, j, path)
	if n, _ := j2.Add(ctx, frontier.Task{URL: u1}, frontier.Task{URL: u2}); n != 0 {
		t.Errorf("re-adding both queued %d, want 0 (seen)", n)
	}
	l2, err := j2.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := l2.Task(); got != (frontier.Task{URL: u2, Depth: 2}) {
		t.Errorf("resumed %q at depth %d, want %q at depth 2", got.URL, got.Depth, u2)
	}
	l2.Done(ctx, nil)
	if got := drain(t, j2); len(got) != 0 {
		t.Errorf("then %q, want nothing", got)
	}
}

// openJournal opens the journal at path; an error ends the test.
func openJournal(t *testing.T, path string) *frontier.Journal {
	t.Helper()
	j, err := frontier.OpenJournal(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	return j
}

// reopen closes j, as a crawl that stops does, and opens the journal at
// path again; the new one is closed when the test ends.
func reopen(t *testing.T, j *frontier.Journal, path string) *frontier.Journal {
	t.Helper()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	j2 := openJournal(t, path)
	t.Cleanup(func() { j2.Close() })
	return j2
}

// TestJournalLeftOut: links recorded as left out are counted again when
// the journal is opened anew, and the record is no task.
func TestJournalLeftOut(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j")
	j, err := frontier.OpenJournal(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := j.Add(context.Background(), frontier.Task{URL: "gopher://h/1"}); err != nil {
		t.Fatal(err)
	}
	if err := j.Left(3); err != nil {
		t.Fatal(err)
	}
	if err := j.Left(4); err != nil {
		t.Fatal(err)
	}
	if n := j.LeftOut(); n != 7 {
		t.Errorf("LeftOut %d in the run, want 7", n)
	}
	j.Close()
	j, err = frontier.OpenJournal(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if n, q, seen := j.LeftOut(), j.Len(), j.Seen(); n != 7 || q != 1 || seen != 1 {
		t.Errorf("reopened: %d left out, %d queued, %d seen; want 7, 1, 1", n, q, seen)
	}
}
