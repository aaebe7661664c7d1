package warc_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/fetchproject/fetch/fetch/filelock"
	"github.com/fetchproject/fetch/fetch/warc"
)

// TestSeriesWithoutStem: a rotating WARC named with nothing before its
// ending (--warc DIR/.warc.gz, files DIR/-00000.warc.gz, …) is found by
// Create and Append as any other series. The listing took the stem's
// last element and directory by filepath.Base and filepath.Dir, which
// read "DIR/" as the name "DIR" in its parent: no file of the series was
// ever found, so a second writer, while the first still wrote, and an
// Append after it, started the series again at file 0 over its records.
func TestSeriesWithoutStem(t *testing.T) {
	for _, plain := range []bool{false, true} {
		dir := filepath.Join(t.TempDir(), "d")
		if err := os.Mkdir(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		opts := warc.Options{MaxSize: 1, Software: "fetch/test", Uncompressed: plain}
		path := filepath.Join(dir, ".warc.gz")
		if plain {
			path = filepath.Join(dir, ".warc")
		}
		first, err := warc.Create(path, opts)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // rotates: files 0, 1 and 2
			b, err := first.NewBlock(true)
			if err != nil {
				t.Fatal(err)
			}
			b.Write([]byte("recorded"))
			if err := first.Write(&warc.Header{Type: "resource", TargetURI: "http://h/"}, b); err != nil {
				t.Fatal(err)
			}
		}
		files := first.Files()
		before := map[string][]byte{}
		for _, f := range files {
			before[f], _ = os.ReadFile(f)
		}
		unchanged := func(when string) {
			t.Helper()
			for _, f := range files {
				if now, err := os.ReadFile(f); err != nil || !bytes.Equal(now, before[f]) {
					t.Errorf("uncompressed %v: %s: %s changed (%d bytes, was %d; %v)", plain, when, filepath.Base(f), len(now), len(before[f]), err)
				}
			}
		}
		for name, open := range map[string]func(string, warc.Options) (*warc.Writer, error){"Create": warc.Create, "Append": warc.Append} {
			if w, err := open(path, opts); !errors.Is(err, filelock.ErrLocked) {
				if w != nil {
					t.Errorf("uncompressed %v: %s while another Writer writes the series got a Writer of %v", plain, name, w.Files())
					w.Close()
				} else {
					t.Errorf("uncompressed %v: %s while another Writer writes the series: %v; want ErrLocked", plain, name, err)
				}
			}
			unchanged(name + " while the series is written")
		}
		if err := first.Close(); err != nil {
			t.Fatal(err)
		}
		w, err := warc.Append(path, opts)
		if err != nil {
			t.Fatalf("uncompressed %v: Append after the first Writer closed: %v", plain, err)
		}
		w.Close()
		unchanged("Append after the first Writer closed")
		last := files[len(files)-1]
		if got := w.Files(); len(got) != 1 || got[0] != last[:len(last)-len(opts.Ext())-5]+"00003"+opts.Ext() {
			t.Errorf("uncompressed %v: Append wrote %v after %v, want the series' next file", plain, got, files)
		}
	}
}

// TestRotationSparesAnotherWritersFile: a rotating Writer does not empty
// a file it did not start. Here a run given the series' next name as a
// WARC of its own (--warc r-00001.warc.gz beside --warc r.warc.gz
// --warc-max-size) wrote it while the series was at file 0, then ended;
// the rotation that came to that name opened it, found it unlocked and
// truncated the other run's records. The same open, with no lock to
// meet, let a Create or Append of a series with no file yet empty file
// 0 that another of them had begun and written meanwhile.
func TestRotationSparesAnotherWritersFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.warc.gz")
	a, err := warc.Create(path, warc.Options{MaxSize: 1, Software: "fetch/test", CommandLine: "writer-A"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	other := filepath.Join(dir, "r-00001.warc.gz")
	b, err := warc.Create(other, warc.Options{Software: "fetch/test", CommandLine: "writer-B"})
	if err != nil {
		t.Fatal(err)
	}
	blk, err := b.NewBlock(true)
	if err != nil {
		t.Fatal(err)
	}
	blk.Write([]byte("B's document"))
	if err := b.Write(&warc.Header{Type: "resource", TargetURI: "http://h/b"}, blk); err != nil {
		t.Fatal(err)
	}
	if err := b.Close(); err != nil {
		t.Fatal(err)
	}
	before, _ := os.ReadFile(other)

	blk, err = a.NewBlock(true)
	if err != nil {
		t.Fatal(err)
	}
	blk.Write([]byte("A's document"))
	err = a.Write(&warc.Header{Type: "resource", TargetURI: "http://h/a"}, blk)
	if after, _ := os.ReadFile(other); !bytes.Equal(after, before) || !gzContains(after, "B's document") {
		t.Errorf("A's rotation rewrote %s, another writer's file: %d bytes, was %d; A's write: %v", filepath.Base(other), len(after), len(before), err)
	}
	if err == nil {
		t.Errorf("A went on writing after its rotation found its next file begun by another writer: %v", a.Files())
	}
}
