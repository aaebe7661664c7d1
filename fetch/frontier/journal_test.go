package frontier_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
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

// A crawl stopped with a task leased and not done, its last line torn,
// resumes: the seen set holds, the leased task comes back, done ones do not.
func TestJournalResume(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "crawl.frontier")
	j, err := frontier.OpenJournal(path, nil)
	if err != nil {
		t.Fatal(err)
	}
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

	j2, err := frontier.OpenJournal(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
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

// FuzzJournal: whatever the file holds, opening it never panics, and what
// it keeps opens again to the same queue.
func FuzzJournal(f *testing.F) {
	f.Add([]byte("{\"add\":\"gopher://h/0/a\"}\n{\"add\":\"gopher://h/0/b\",\"depth\":2}\n{\"done\":\"gopher://h/0/a\"}\n"))
	f.Add([]byte("{\"add\":\"x\"}\n{\"done\""))
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
		n, seen := j.Len(), j.Seen()
		j.Close()
		j2, err := frontier.OpenJournal(path, nil)
		if err != nil {
			t.Fatalf("reopening: %v", err)
		}
		defer j2.Close()
		if j2.Len() != n || j2.Seen() != seen {
			t.Fatalf("reopened: %d queued, %d seen; first %d, %d", j2.Len(), j2.Seen(), n, seen)
		}
	})
}
