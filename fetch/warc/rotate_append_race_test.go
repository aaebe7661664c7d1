package warc_test

import (
	"io"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch/warc"
)

// As TestCreateDuringRotation, with Append: it must fail every
// time while A writes the series, and leave A's files as they are.
func TestAppendDuringRotation(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.warc.gz")
	opts := warc.Options{MaxSize: 1, Software: "fetch/test", CommandLine: "writer-A"}
	a, err := warc.Create(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	opts.CommandLine = "writer-B"
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
	stop.Store(true)
	aerr := <-done
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
