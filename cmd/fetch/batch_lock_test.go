package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch/filelock"
)

// holdLock locks name as another run writing it would, until the test
// ends or the function it returns is called.
func holdLock(t *testing.T, name string) (release func()) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	if err := filelock.TryLock(f); err != nil {
		t.Fatal(err)
	}
	return func() { f.Close() }
}

// TestBatchRefusesLockedFiles: a run whose --log or --warc another run is
// writing (a cron job started again before the last ended) stops with
// exit 7 and a message saying so, having changed neither file (but for
// a line its own log had cut short) and fetched nothing. Two such runs
// cut each other's records: the WARC was left unreadable and the log held
// each URL twice.
func TestBatchRefusesLockedFiles(t *testing.T) {
	srv, hits := pathServer(t, 0) // hits: connections, one a run
	dir := t.TempDir()
	logName, warcName := filepath.Join(dir, "run.log"), filepath.Join(dir, "run.warc.gz")
	out := filepath.Join(dir, "out")
	args := []string{"-O", "--output-dir", out, "--log", logName, "--warc", warcName, srv.URL + "/a", srv.URL + "/b"}
	if code, _, stderr := runFetch(t, "", args[:len(args)-1]...); code != 0 {
		t.Fatalf("first run: exit %d, %q", code, stderr)
	}
	// The first run's log ends in a line cut short, as a kill leaves it:
	// a run that may go on cuts it away, one that may not leaves it.
	f, _ := os.OpenFile(logName, os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"url":"` + srv.URL + `/b","outc`)
	f.Close()
	for _, locked := range []string{logName, warcName} {
		t.Run(filepath.Base(locked), func(t *testing.T) {
			logBefore, _ := os.ReadFile(logName)
			warcBefore, _ := os.ReadFile(warcName)
			holdLock(t, locked)
			hits.Store(0)
			code, _, stderr := runFetch(t, "", args...)
			flag := map[string]string{logName: "--log", warcName: "--warc"}[locked]
			if code != 7 || !strings.Contains(stderr, flag+" ") || !strings.Contains(stderr, "another fetch is writing it") {
				t.Errorf("exit %d, %q; want 7 and the %s named as in use", code, stderr, flag)
			}
			if hits.Load() != 0 {
				t.Errorf("%d requests made by a run that could not keep their records", hits.Load())
			}
			// Its own log, which no other run writes when only the WARC
			// is locked, may have lost the line cut short, no more.
			whole := logBefore[:bytes.LastIndexByte(logBefore, '\n')+1]
			if b, _ := os.ReadFile(logName); !bytes.Equal(b, logBefore) && (locked == logName || !bytes.Equal(b, whole)) {
				t.Errorf("the log changed:\n%s\nwas\n%s", b, logBefore)
			}
			if b, _ := os.ReadFile(warcName); !bytes.Equal(b, warcBefore) {
				t.Errorf("the WARC changed: %d bytes, was %d", len(b), len(warcBefore))
			}
		})
	}
	// Once the other run has ended the batch goes on where the log left
	// it: only /b is fetched.
	hits.Store(0)
	if code, _, stderr := runFetch(t, "", args...); code != 0 || hits.Load() != 1 {
		t.Errorf("after the lock was released: exit %d, %d requests, %q; want 0 and one", code, hits.Load(), stderr)
	}
}

// TestBatchRefusedLeavesNothing: a run refused because another run is
// writing its WARC leaves behind neither the log nor the output directory
// it was to create, and removes no temporary file from an output
// directory the other run may be writing. The empty log it used to leave
// made its next run a resumed one, which cut the earlier run's last
// transfers from the WARC's end as if they were its own killed ones.
func TestBatchRefusedLeavesNothing(t *testing.T) {
	srv, hits := pathServer(t, 0) // hits: connections, one a run
	dir := t.TempDir()
	warcName := filepath.Join(dir, "run.warc.gz")
	// The earlier run: two documents in the WARC, its own log.
	first := []string{"-O", "--output-dir", filepath.Join(dir, "out1"), "--log", filepath.Join(dir, "run1.log"), "--warc", warcName, srv.URL + "/a", srv.URL + "/b"}
	if code, _, stderr := runFetch(t, "", first...); code != 0 {
		t.Fatalf("first run: exit %d, %q", code, stderr)
	}
	warcBefore, _ := os.ReadFile(warcName)

	// A temporary file as a run of this process id writing out1 would
	// leave it (another container's PID 1, say).
	stale := filepath.Join(dir, "out1", tempPrefix+strconv.Itoa(os.Getpid())+".x")
	if err := os.WriteFile(stale, []byte("in progress"), 0o666); err != nil {
		t.Fatal(err)
	}
	release := holdLock(t, warcName)
	log2, out2 := filepath.Join(dir, "run2.log"), filepath.Join(dir, "new", "out2")
	second := []string{"-O", "--output-dir", out2, "--log", log2, "--warc", warcName, srv.URL + "/c"}
	if code, _, stderr := runFetch(t, "", second...); code != 7 {
		t.Errorf("exit %d, %q; want 7 (the WARC in use)", code, stderr)
	}
	for _, name := range []string{log2, filepath.Join(dir, "new")} {
		if _, err := os.Stat(name); err == nil {
			t.Errorf("the refused run left %s behind", name)
		}
	}
	// The same, writing into the other run's output directory.
	third := []string{"-O", "--output-dir", filepath.Join(dir, "out1"), "--log", log2, "--warc", warcName, srv.URL + "/c"}
	if code, _, stderr := runFetch(t, "", third...); code != 7 {
		t.Errorf("exit %d, %q; want 7 (the WARC in use)", code, stderr)
	}
	if _, err := os.Stat(stale); err != nil {
		t.Errorf("the refused run removed the other run's temporary file: %v", err)
	}
	os.Remove(stale)

	// Once the WARC is free the second run adds its transfer and keeps
	// the first run's.
	release()
	hits.Store(0)
	if code, _, stderr := runFetch(t, "", second...); code != 0 || hits.Load() != 1 {
		t.Fatalf("after the lock was released: exit %d, %d requests, %q", code, hits.Load(), stderr)
	}
	if b, _ := os.ReadFile(warcName); !bytes.HasPrefix(b, warcBefore) {
		t.Errorf("the WARC lost the first run's records: %d bytes, %d before the second run", len(b), len(warcBefore))
	}
}
