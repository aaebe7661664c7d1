package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch/frontier"
	"github.com/fetchproject/fetch/fetch/warc"
)

// TestAttemptRecordsWaitForCommit: the records of an attempt that gets no
// log line (one tried again, one cut short) wait while another task
// commits, so they never come between its records and its log line.
func TestAttemptRecordsWaitForCommit(t *testing.T) {
	var hits atomic.Int32
	unblock := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		switch {
		case r.URL.Path == "/hang":
			select {
			case <-r.Context().Done():
			case <-unblock:
			}
		case n == 1:
			w.Header().Set("Retry-After", "0")
			w.WriteHeader(http.StatusServiceUnavailable)
		default:
			w.Write([]byte("fine\n"))
		}
	}))
	defer srv.Close()
	defer close(unblock)
	for _, tc := range []struct {
		name, path  string
		interrupted bool
	}{{"retried", "/flaky", false}, {"cut short", "/hang", true}} {
		t.Run(tc.name, func(t *testing.T) {
			hits.Store(0)
			dir := t.TempDir()
			out := filepath.Join(dir, "w.warc.gz")
			o, s, _, c := commandClient(t, "-O", "--retry", "1", "--warc", out, srv.URL+tc.path)
			if err := openWARC(o, nil); err != nil {
				t.Fatal(err)
			}
			defer closeWARC(o)
			b := &batch{o: o, s: s, c: c, root: dir}
			b.log, b.done, b.names, _ = openLog("", nil, nil)
			b.hosts = newHostLimiter(1, 0)
			size := func() int64 {
				st, err := os.Stat(out)
				if err != nil {
					t.Fatal(err)
				}
				return st.Size()
			}
			before := size()

			b.commitMu.Lock() // another task committing
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			type result struct {
				line        logLine
				interrupted bool
			}
			res := make(chan result, 1)
			go func() {
				line, _, interrupted := b.fetchURL(ctx, frontier.Task{URL: srv.URL + tc.path}, "", nil, func() {})
				res <- result{line, interrupted}
			}()
			for deadline := time.Now().Add(10 * time.Second); hits.Load() == 0; time.Sleep(time.Millisecond) {
				if time.Now().After(deadline) {
					b.commitMu.Unlock()
					t.Fatal("the server saw no request")
				}
			}
			if tc.interrupted {
				cancel()
			}
			// Long enough for a record written without the lock to show.
			for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); time.Sleep(5 * time.Millisecond) {
				if size() != before {
					t.Errorf("a record was written while another task was committing")
					break
				}
			}
			b.commitMu.Unlock()
			var r result
			select {
			case r = <-res:
			case <-time.After(30 * time.Second):
				t.Fatal("fetchURL did not end")
			}
			if r.interrupted != tc.interrupted {
				t.Errorf("interrupted %v, want %v", r.interrupted, tc.interrupted)
			}
			if !tc.interrupted {
				if r.line.Outcome != "ok" || r.line.Attempts != 2 {
					t.Errorf("outcome %q after %d attempts, want ok after 2", r.line.Outcome, r.line.Attempts)
				}
				if err := b.commit(&r.line); err != nil {
					t.Fatal(err)
				}
			}
			closeWARC(o)
			var types []string
			for _, m := range members(t, out) {
				_, ty, _ := strings.Cut(m, "WARC-Type: ")
				ty, _, _ = strings.Cut(ty, "\r\n")
				types = append(types, ty)
			}
			want := "warcinfo metadata response request"
			if tc.interrupted {
				want = "warcinfo metadata"
			}
			if got := strings.Join(types, " "); got != want {
				t.Errorf("records %q, want %q", got, want)
			}
		})
	}
}

// TestWARCSyncedBeforeLogLine: with a log, each task's records are synced
// to disk before its log line is written: after a crash a line that says
// "ok" without its records on disk would keep the task from being fetched
// and recorded again (the rerun cuts a torn record away and trusts the
// log).
func TestWARCSyncedBeforeLogLine(t *testing.T) {
	srv := docServer(t, nil)
	dir := t.TempDir()
	logName := filepath.Join(dir, "log")
	var synced []int // the log's lines at each sync
	setForTest(t, &syncWARC, func(w *warc.Writer) error {
		b, _ := os.ReadFile(logName)
		synced = append(synced, strings.Count(string(b), "\n"))
		return w.Sync()
	})
	urls := []string{srv.URL + "/a", srv.URL + "/b", srv.URL + "/c"}
	code, _, stderr := runFetch(t, "", append([]string{"-q", "-O", "--output-dir", filepath.Join(dir, "out"), "--log", logName, "--warc", filepath.Join(dir, "w.warc.gz")}, urls...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if len(synced) != len(urls) {
		t.Fatalf("%d syncs for %d tasks", len(synced), len(urls))
	}
	for i, n := range synced {
		if n != i {
			t.Errorf("sync %d came with %d log lines written, want %d (before its own)", i, n, i)
		}
	}
}
