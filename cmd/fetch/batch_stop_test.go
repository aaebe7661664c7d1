package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch/frontier"
	"github.com/fetchproject/fetch/fetch/warc"
)

// responsesByTask counts the response records of a WARC by their
// Fetch-Task.
func responsesByTask(t *testing.T, name string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, m := range members(t, name) {
		if !strings.Contains(m, "WARC-Type: response\r\n") {
			continue
		}
		_, task, _ := strings.Cut(m, warc.TaskField+": ")
		task, _, _ = strings.Cut(task, "\r\n")
		n[task]++
	}
	return n
}

// TestNoRecordAfterFailedCommit: once a task's records are in the WARC
// and its log line is not (here the WARC's sync failed), nothing more goes
// into the WARC. The metadata record of a transfer the stop cut short,
// written after them, made the rerun's repair keep them, and the rerun
// recorded that task a second time.
func TestNoRecordAfterFailedCommit(t *testing.T) {
	var failing atomic.Bool
	failing.Store(true)
	together := barrier(4)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if failing.Load() {
			if r.URL.Path == "/hang" {
				<-r.Context().Done()
				return
			}
			// the four documents end together, so that each has its
			// records to commit after the first commit failed
			together()
		}
		w.Write([]byte("doc " + r.URL.Path + "\n"))
	}))
	defer srv.Close()
	dir := t.TempDir()
	urls := []string{srv.URL + "/hang", srv.URL + "/d0", srv.URL + "/d1", srv.URL + "/d2", srv.URL + "/d3"}
	list := filepath.Join(dir, "list")
	if err := os.WriteFile(list, []byte(strings.Join(urls, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "w.warc.gz")
	args := []string{"-q", "-j", "5", "--per-host", "5", "-O", "--output-dir", filepath.Join(dir, "out"),
		"--log", filepath.Join(dir, "log"), "--warc", out, "-i", list}
	setForTest(t, &syncWARC, func(w *warc.Writer) error {
		if failing.Load() {
			return &os.PathError{Op: "sync", Path: out, Err: syscall.EIO}
		}
		return w.Sync()
	})
	if code, _, stderr := runFetch(t, "", args...); code != 7 {
		t.Fatalf("exit %d, want 7: %s", code, stderr)
	}
	failing.Store(false)
	if code, _, stderr := runFetch(t, "", args...); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	got := responsesByTask(t, out)
	for _, u := range urls {
		if got[u] != 1 {
			t.Errorf("%s: %d response records, want 1", u, got[u])
		}
	}
}

// docServer is an HTTP server whose documents are "doc PATH\n", each
// answered after each (when not nil) returns; it closes when the test ends.
func docServer(t *testing.T, each func()) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if each != nil {
			each()
		}
		w.Write([]byte("doc " + r.URL.Path + "\n"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// warcSyncFails makes every sync of the WARC at out fail with EIO.
func warcSyncFails(t *testing.T, out string) {
	setForTest(t, &syncWARC, func(*warc.Writer) error {
		return &os.PathError{Op: "sync", Path: out, Err: syscall.EIO}
	})
}

// TestNoRecordAfterLogFails: once the log cannot take a task's line (the
// disk is full), the tasks after it, and an attempt cut short, add no
// record to the WARC: the one task whose records stand without their line
// is last, where the rerun cuts it away.
func TestNoRecordAfterLogFails(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0) // every write fails with ENOSPC
	if err != nil {
		t.Skip("no /dev/full here")
	}
	srv := docServer(t, nil)
	dir := t.TempDir()
	out, logName := filepath.Join(dir, "w.warc.gz"), filepath.Join(dir, "log")
	o, s, _, c := commandClient(t, "-O", "--log", logName, "--warc", out, srv.URL+"/a")
	if err := openWARC(o, nil); err != nil {
		t.Fatal(err)
	}
	defer closeWARC(o)
	b := &batch{o: o, s: s, c: c, root: dir}
	if b.log, b.done, b.names, err = openLog(logName, nil, nil); err != nil {
		t.Fatal(err)
	}
	b.log.f.Close()
	b.log.f = full
	defer b.log.close()
	b.hosts = newHostLimiter(2, 0)
	fetched := func(path string) logLine {
		line, _, _ := b.fetchURL(context.Background(), frontier.Task{URL: srv.URL + path}, "", nil, func() {})
		if line.Outcome != "ok" {
			t.Fatalf("%s: %s", path, line.Error)
		}
		return line
	}
	for _, p := range []string{"/a", "/b"} {
		line := fetched(p)
		if err := b.commit(&line); !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s: commit: %v, want the log's ENOSPC", p, err)
		}
	}
	cut := fetched("/c")
	b.record(cut.rec, context.Canceled)
	if err := closeWARC(o); err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, m := range members(t, out) {
		_, ty, _ := strings.Cut(m, "WARC-Type: ")
		ty, _, _ = strings.Cut(ty, "\r\n")
		_, task, _ := strings.Cut(m, warc.TaskField+": ")
		task, _, _ = strings.Cut(task, "\r\n")
		types = append(types, ty+" "+strings.TrimPrefix(task, srv.URL))
	}
	want := "warcinfo ,response /a,request /a"
	if got := strings.Join(types, ","); got != want {
		t.Errorf("records %q, want %q", got, want)
	}
}

// TestJSONShowsLoggedLines: --json puts on standard output the lines the
// log holds; a line the log failed to take (the disk full) went there
// too, saying "ok" for a URL the rerun fetches again.
func TestJSONShowsLoggedLines(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0) // every write fails with ENOSPC
	if err != nil {
		t.Skip("no /dev/full here")
	}
	var out bytes.Buffer
	l, _, _, err := openLog(filepath.Join(t.TempDir(), "log"), &out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.write(logLine{URL: "http://h/a", Outcome: "ok"}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "http://h/a") {
		t.Fatalf("standard output %q, want the logged line", out.String())
	}
	l.f.Close()
	l.f = full
	defer l.close()
	out.Reset()
	for _, u := range []string{"http://h/b", "http://h/c"} {
		if err := l.write(logLine{URL: u, Outcome: "ok"}); !errors.Is(err, syscall.ENOSPC) {
			t.Errorf("%s: %v, want the log's ENOSPC", u, err)
		}
	}
	if out.Len() != 0 {
		t.Errorf("standard output %q, want no line the log does not hold", out.String())
	}
}

// TestStopReportedOnce: a failure that stops the batch (here the WARC's
// sync, which fails again for every task after it) is reported once, with
// a summary that says the batch stopped, not once for each transfer that
// was in flight.
func TestStopReportedOnce(t *testing.T) {
	together := barrier(4)
	srv := docServer(t, together) // the four end together, each with its records to commit
	dir := t.TempDir()
	out := filepath.Join(dir, "w.warc.gz")
	warcSyncFails(t, out)
	args := []string{"-q", "-j", "4", "--per-host", "4", "-O", "--output-dir", filepath.Join(dir, "out"),
		"--log", filepath.Join(dir, "log"), "--warc", out}
	for _, p := range []string{"/d0", "/d1", "/d2", "/d3"} {
		args = append(args, srv.URL+p)
	}
	code, _, stderr := runFetch(t, "", args...)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if code != 7 || len(lines) != 2 || !strings.Contains(lines[0], "input/output error") ||
		!strings.HasSuffix(lines[1], "; stopped: rerun with the same --log to resume") {
		t.Errorf("exit %d, want 7 with one error and the summary:\n%s", code, stderr)
	}
}

// TestSaidAlready: a file that failed fails again as it is closed, with
// its error wrapped otherwise (the journal's, the WARC's): that is not
// reported a second time; another failure is.
func TestSaidAlready(t *testing.T) {
	full := &os.PathError{Op: "write", Path: "log.frontier", Err: syscall.ENOSPC}
	b := &batch{cancel: func() {}}
	if b.saidAlready(full) {
		t.Error("said already before the batch stopped")
	}
	if !b.stop(queueLinksErr(full)) || b.stop(full) {
		t.Error("stop: the first failure is not the one reported")
	}
	if !b.saidAlready(full) || !b.saidAlready(outputErr("--recursive: close", "log.frontier", full)) {
		t.Error("the failure that stopped the batch is reported again")
	}
	if b.saidAlready(outputErr("--warc: write", "w.warc.gz", full)) {
		t.Error("the WARC's disk full too is not reported")
	}
	if b.saidAlready(&os.PathError{Op: "close", Path: "log", Err: syscall.EIO}) {
		t.Error("another failure is not reported")
	}
	if b.saidAlready(&os.PathError{Op: "close", Path: "log", Err: syscall.ENOSPC}) {
		t.Error("the same failure of another file (the log's disk full too) is not reported")
	}

	// as the batch makes them (outputErr), naming the file apart
	b = &batch{cancel: func() {}}
	b.stop(outputErr("--warc: sync", "w.warc.gz", syscall.EIO))
	if !b.saidAlready(outputErr("--warc: close", "w.warc.gz", syscall.EIO)) {
		t.Error("the WARC's failure is reported again when it is closed")
	}
	if b.saidAlready(outputErr("--log: close", "log", syscall.EIO)) {
		t.Error("the log's failure, after the WARC's, is not reported")
	}
}

// TestFullDiskStopsBatch: a document that cannot be written for want of
// room (ENOSPC, here from /dev/full) stops the batch, with one error that
// names it and a summary: the batch went on fetching every document of the
// list, each in vain, each failure a line of its own. The rerun, with room
// made, fetches them all.
func TestFullDiskStopsBatch(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	var hits atomic.Int32
	srv := docServer(t, func() { hits.Add(1) })
	full := fullDisk(t)
	dir := t.TempDir()
	const n = 40
	var list strings.Builder
	for i := range n {
		fmt.Fprintf(&list, "%s/d%02d\n", srv.URL, i)
	}
	listName, logName, out := filepath.Join(dir, "list"), filepath.Join(dir, "log"), filepath.Join(dir, "out")
	if err := os.WriteFile(listName, []byte(list.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-q", "-j", "4", "--per-host", "4", "-O", "--output-dir", out, "--log", logName, "-i", listName}
	code, _, stderr := runFetch(t, "", args...)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	if code != 7 || len(lines) != 2 || !strings.Contains(lines[0], ": write "+out+string(filepath.Separator)+"d") ||
		!strings.HasSuffix(lines[0], ": no space left on device") ||
		!strings.HasSuffix(lines[1], "; stopped: rerun with the same --log to resume") {
		t.Errorf("exit %d, want 7 with one error naming the file and the summary:\n%s", code, stderr)
	}
	var total, ok, failed, left int
	if _, err := fmt.Sscanf(lines[1][strings.Index(lines[1], "fetch: "):], "fetch: %d URLs: %d ok, %d failed", &total, &ok, &failed); err != nil {
		t.Errorf("summary %q: %v", lines[1], err)
	}
	if i := strings.Index(lines[1], " not fetched"); i >= 0 {
		fmt.Sscanf(lines[1][strings.LastIndex(lines[1][:i], " ")+1:], "%d", &left)
	}
	if ok+failed+left != total {
		t.Errorf("the summary accounts for %d of its %d URLs: %s", ok+failed+left, total, lines[1])
	}
	if h := hits.Load(); h > n/2 {
		t.Errorf("%d of %d documents fetched after the disk was full", h, n)
	}
	if _, all := readLog(t, logName); len(all) != 1 || all[0].Outcome != "failed" || all[0].Exit != 7 {
		t.Errorf("the log holds %d lines, want the one failure", len(all))
	}

	full.Store(false)
	if code, _, stderr := runFetch(t, "", args...); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	by, _ := readLog(t, logName)
	for i := range n {
		if l := by[fmt.Sprintf("%s/d%02d", srv.URL, i)]; l.Outcome != "ok" {
			t.Errorf("d%02d: %+v", i, l)
		}
	}
	if ents, _ := os.ReadDir(out); len(ents) != n {
		t.Errorf("%d files in the output directory, want %d", len(ents), n)
	}
}

// TestFullDiskCrawlResumes: a crawl stopped by a full disk fetches, when
// run again with room made, what it could not write: the document that
// met the full disk was acknowledged as done in the journal, as a failed
// URL is, and the rerun fetched nothing.
func TestFullDiskCrawlResumes(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	src := t.TempDir()
	for i := range 5 {
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("f%d", i)), []byte("document\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	full := fullDisk(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	args := []string{"-q", "-r", "-j", "2", "--log", filepath.Join(dir, "log"), "-o", "{path}", "--output-dir", out, "file://" + src + "/"}
	if code, _, stderr := runFetch(t, "", args...); code != 7 {
		t.Fatalf("exit %d, want 7: %s", code, stderr)
	}
	full.Store(false)
	if code, _, stderr := runFetch(t, "", args...); code != 0 {
		t.Fatalf("rerun: exit %d: %s", code, stderr)
	}
	for i := range 5 {
		name := filepath.Join(out, filepath.FromSlash(src), fmt.Sprintf("f%d", i))
		if _, err := os.Stat(name); err != nil {
			t.Errorf("after the rerun: %v", err)
		}
	}
}

// fullDisk gives the batch's documents files on /dev/full, whose writes
// fail with ENOSPC, on a disk with no room left, until the flag it
// returns is cleared.
func fullDisk(t *testing.T) *atomic.Bool {
	var full atomic.Bool
	full.Store(true)
	setForTest(t, &freeSpace, func(string) (uint64, error) { return 0, nil })
	setForTest(t, &newDoc, func(dir, base string) (*docFile, error) {
		if !full.Load() {
			return createDoc(dir, base)
		}
		f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &docFile{File: f}, nil
	})
	return &full
}

// TestStoppedNullLog: a batch stopped with --log /dev/null, which keeps
// nothing to resume from, is not told to rerun with the same --log.
func TestStoppedNullLog(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	fullDisk(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("doc\n"))
	}))
	defer srv.Close()
	code, _, stderr := runFetch(t, "", "-q", "-O", "--output-dir", t.TempDir(), "--log", os.DevNull, srv.URL+"/a", srv.URL+"/b")
	if code != 7 || !strings.HasSuffix(strings.TrimSpace(stderr), "; stopped") {
		t.Errorf("exit %d, want 7 and a summary ending \"; stopped\":\n%s", code, stderr)
	}
}

// TestDocumentLargerThanRoom: a document that finds no room on a disk
// with room left once it is gone (larger than the free space) fails
// alone; the batch goes on. Stopping on it, every rerun stopped at it.
func TestDocumentLargerThanRoom(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full here")
	}
	setForTest(t, &newDoc, func(dir, base string) (*docFile, error) {
		if base != "big" {
			return createDoc(dir, base)
		}
		f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &docFile{File: f}, nil
	})
	setForTest(t, &freeSpace, func(string) (uint64, error) { return 64 << 20, nil })
	srv := docServer(t, nil)
	dir := t.TempDir()
	logName, out := filepath.Join(dir, "log"), filepath.Join(dir, "out")
	code, _, stderr := runFetch(t, "", "-q", "-O", "--output-dir", out, "--log", logName, srv.URL+"/big", srv.URL+"/a", srv.URL+"/b")
	if code != 7 || strings.Contains(stderr, "stopped") {
		t.Errorf("exit %d, want 7 without a stop:\n%s", code, stderr)
	}
	by, _ := readLog(t, logName)
	if l := by[srv.URL+"/big"]; l.Outcome != "failed" || l.Exit != 7 {
		t.Errorf("big: %+v", l)
	}
	for _, p := range []string{"/a", "/b"} {
		if l := by[srv.URL+p]; l.Outcome != "ok" {
			t.Errorf("%s after the document larger than the room: %+v", p, l)
		}
	}
}

// TestDirectorySyncFails: with --log, a document whose directory cannot
// be synced (EIO) is not logged as saved: its name may be lost in a
// crash, and the log would claim it. The failure was ignored.
func TestDirectorySyncFails(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("directories are not synced on Windows")
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("doc\n"))
	}))
	defer srv.Close()
	dir := t.TempDir()
	out, logName := filepath.Join(dir, "out"), filepath.Join(dir, "log")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	setForTest(t, &syncFile, func(f *os.File) error {
		if st, err := f.Stat(); err == nil && st.IsDir() {
			return &os.PathError{Op: "sync", Path: f.Name(), Err: syscall.EIO}
		}
		return f.Sync()
	})
	code, _, stderr := runFetch(t, "", "-q", "-O", "--output-dir", out, "--log", logName, srv.URL+"/a")
	if code != 7 || !strings.Contains(stderr, "input/output error") {
		t.Errorf("exit %d, want 7 naming the failure:\n%s", code, stderr)
	}
	if by, _ := readLog(t, logName); by[srv.URL+"/a"].Outcome != "failed" {
		t.Errorf("the log holds %+v, want the URL failed", by[srv.URL+"/a"])
	}
}

// barrier returns a wait that lets its callers go once n of them wait, or
// after 10 s (a test whose requests never all come fails on what it
// checks, not by hanging).
func barrier(n int32) func() {
	var arrived atomic.Int32
	all := make(chan struct{})
	return func() {
		if arrived.Add(1) == n {
			close(all)
		}
		select {
		case <-all:
		case <-time.After(10 * time.Second):
		}
	}
}

// TestStoppedSummaryCountsOwnFailure: a task whose log line could not be
// committed (here the WARC's sync failed) is no URL that failed: it is
// not logged, and a rerun fetches it. The summary counts the batch's own
// failure apart from the URLs' and the URL among those not fetched; it
// read "0 ok, 1 failed [1 exit 7 (local I/O)], 1 not fetched".
func TestStoppedSummaryCountsOwnFailure(t *testing.T) {
	srv := docServer(t, nil)
	dir := t.TempDir()
	out := filepath.Join(dir, "w.warc.gz")
	warcSyncFails(t, out)
	code, _, stderr := runFetch(t, "", "-q", "-j", "1", "-O", "--output-dir", filepath.Join(dir, "out"),
		"--log", filepath.Join(dir, "log"), "--warc", out, srv.URL+"/a", srv.URL+"/b")
	want := "fetch: 2 URLs: 0 ok, 0 failed, 1 other failure [1 exit 7 (local I/O)], 2 not fetched;"
	if code != 7 || !strings.Contains(stderr, want) {
		t.Errorf("exit %d, want 7 and a summary with %q:\n%s", code, want, stderr)
	}
}
