package warc_test

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/filelock"
	"github.com/fetchproject/fetch/fetch/warc"
)

// TestSecondWriterRefused: while a Writer writes a file, Create and
// Append of the same file (or of its series) fail with ErrLocked and
// leave what the first wrote as it is; once it is closed they go ahead.
// Two runs given one WARC used to cut each other's records.
func TestSecondWriterRefused(t *testing.T) {
	c := fetch.NewClient(fetch.Options{})
	c.Register("ftp", fake(func() io.Reader { return strings.NewReader(strings.Repeat("x", 3000)) }, nil))
	for _, maxSize := range []int64{0, 1000} {
		dir := t.TempDir()
		path := filepath.Join(dir, "run.warc.gz")
		opts := warc.Options{MaxSize: maxSize, Software: "fetch/test"}
		first, err := warc.Create(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		for range 3 { // rotates, with maxSize
			if err := recordFetch(t, first, c, "ftp://127.0.0.1/x"); err != nil {
				t.Fatal(err)
			}
		}
		if err := first.Sync(); err != nil {
			t.Fatal(err)
		}
		files := first.Files()
		before := map[string][]byte{}
		for _, f := range files {
			before[f], _ = os.ReadFile(f)
		}
		for name, open := range map[string]func(string, warc.Options) (*warc.Writer, error){"Create": warc.Create, "Append": warc.Append} {
			if w, err := open(path, opts); !errors.Is(err, filelock.ErrLocked) {
				if w != nil {
					w.Close()
				}
				t.Errorf("MaxSize %d: %s while another Writer writes the file: %v; want ErrLocked", maxSize, name, err)
			}
			for _, f := range files {
				if now, err := os.ReadFile(f); err != nil || !bytes.Equal(now, before[f]) {
					t.Errorf("MaxSize %d: %s refused, but %s changed (%d bytes, was %d; %v)", maxSize, name, filepath.Base(f), len(now), len(before[f]), err)
				}
			}
		}
		if err := first.Close(); err != nil {
			t.Fatal(err)
		}
		w, err := warc.Append(path, opts)
		if err != nil {
			t.Fatalf("MaxSize %d: Append after the first Writer closed: %v", maxSize, err)
		}
		w.Close()
		if maxSize > 0 && len(files) < 2 {
			t.Errorf("no rotation: %v", files)
		}
	}
}
