package warc_test

import (
	"bytes"
	"compress/gzip"
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch/warc"
)

// rotatingWriter creates a series at path with a Writer that rotates
// after every transfer, and writes transfers in the background until the
// function it returns is called, which returns the first error writing
// (the Writer is left open).
func rotatingWriter(t *testing.T, path string) (*warc.Writer, func() error) {
	t.Helper()
	opts := warc.Options{MaxSize: 1, Software: "fetch/test", CommandLine: "writer-A"}
	a, err := warc.Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	done := make(chan error, 1)
	go func() {
		for !stop.Load() {
			tr := a.Begin("http", "http://h/", nil)
			sent, recv := tr.Exchange("http://h/", nil)
			io.WriteString(sent, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
			io.WriteString(recv, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			if err := tr.End("", "", nil); err != nil {
				done <- err
				return
			}
		}
		done <- nil
	}()
	return a, func() error {
		stop.Store(true)
		return <-done
	}
}

// TestCreateDuringRotation: while Writer A writes a rotating series,
// Create of the same series by another Writer fails (ErrLocked) every
// time. When A's rotation closed file N before it locked file N+1, and
// Create locked only the files it had listed before, a Create that came
// in between succeeded, removed A's files and started the series again
// under A.
func TestCreateDuringRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.warc.gz")
	a, stop := rotatingWriter(t, path)
	opts := warc.Options{MaxSize: 1, Software: "fetch/test", CommandLine: "writer-B"}
	deadline := time.Now().Add(8 * time.Second)
	tries, won := 0, 0
	for time.Now().Before(deadline) && won == 0 {
		tries++
		b, err := warc.Create(path, opts)
		if err == nil {
			won++
			files, _ := filepath.Glob(filepath.Join(dir, "r-*.warc.gz"))
			b.Close()
			first, _ := os.ReadFile(a.Files()[0])
			t.Errorf("try %d: Create succeeded while Writer A was writing the series (A had written %d files, %d on disk now); A's first file %s now holds B's warcinfo: %v",
				tries, len(a.Files()), len(files), filepath.Base(a.Files()[0]), gzContains(first, "writer-B"))
		}
	}
	aerr := stop()
	a.Close()
	t.Logf("%d Create attempts, %d succeeded; A's last error: %v", tries, won, aerr)
}

// TestAppendDuringRotation: as TestCreateDuringRotation, with Append,
// which must fail every time while A writes the series, and leave A's
// files as they are. When Append locked only the series' last file, it
// could lock the file A had just created and not yet locked, and go on
// writing there while A's rotation failed.
func TestAppendDuringRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.warc.gz")
	a, stop := rotatingWriter(t, path)
	opts := warc.Options{MaxSize: 1, Software: "fetch/test", CommandLine: "writer-B"}
	deadline := time.Now().Add(8 * time.Second)
	tries, won := 0, 0
	for time.Now().Before(deadline) && won == 0 {
		tries++
		b, err := warc.Append(path, opts)
		if err == nil {
			won++
			t.Errorf("try %d: Append succeeded while Writer A was writing the series; B writes %v, A has written %d files", tries, b.Files(), len(a.Files()))
			b.Close()
		}
	}
	aerr := stop()
	a.Close()
	if aerr != nil {
		t.Errorf("writer A failed: %v", aerr)
	}
	for _, f := range a.Files() {
		if fi, err := os.Stat(f); err != nil || fi.Size() == 0 {
			t.Errorf("A's file %s is now empty or gone (%v)", filepath.Base(f), err)
		}
	}
	t.Logf("%d Append attempts, %d succeeded", tries, won)
}

func gzContains(b []byte, s string) bool {
	z, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return false
	}
	all, _ := io.ReadAll(z)
	return bytes.Contains(all, []byte(s))
}
