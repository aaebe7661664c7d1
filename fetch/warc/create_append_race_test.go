package warc_test

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch/warc"
)

// TestCreateRacingAppend: a Create and an Append of one rotating series,
// started together, never both get a writer. When Create let go of the
// old files' locks before removing them, an Append could lock the last
// of them in between, find the series unchanged and go on from it in a
// file of its own while Create started the series again beside it.
func TestCreateRacingAppend(t *testing.T) {
	opts := warc.Options{MaxSize: 1, Software: "fetch/test"}
	deadline := time.Now().Add(5 * time.Second)
	rounds, both := 0, 0
	for ; rounds < 1000 && time.Now().Before(deadline) && both == 0; rounds++ {
		path := filepath.Join(t.TempDir(), "r.warc.gz")
		// An earlier run's series of three files.
		w, err := warc.Create(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 {
			b, err := w.NewBlock(true)
			if err != nil {
				t.Fatal(err)
			}
			b.Write([]byte("ok"))
			if err := w.Write(&warc.Header{Type: "resource", TargetURI: "http://h/"}, b); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
		var a, b *warc.Writer
		var aerr, berr error
		var wg sync.WaitGroup
		start := make(chan struct{})
		wg.Add(2)
		go func() { defer wg.Done(); <-start; a, aerr = warc.Create(path, opts) }()
		go func() { defer wg.Done(); <-start; b, berr = warc.Append(path, opts) }()
		close(start)
		wg.Wait()
		if aerr == nil && berr == nil {
			both++
			t.Errorf("round %d: Create (writing %v) and Append (writing %v) both have a writer of the series", rounds, a.Files(), b.Files())
		}
		for _, x := range []*warc.Writer{a, b} {
			if x != nil {
				x.Close()
			}
		}
	}
	t.Logf("%d rounds", rounds)
}
