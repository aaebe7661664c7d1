package gopher

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// spliceAll moves a body into a file as the command does (FileWriter,
// then reading what remains) and returns the file's bytes.
func spliceAll(t *testing.T, body io.Reader) ([]byte, error) {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "doc"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if fw, ok := body.(fetch.FileWriter); ok {
		_, err = fw.WriteToFile(f, -1)
		if errors.Is(err, errors.ErrUnsupported) {
			if runtime.GOOS == "linux" {
				t.Fatalf("a binary item was not spliced: %v", err)
			}
			err = nil
		}
	} else {
		t.Fatalf("%T is not a fetch.FileWriter", body)
	}
	if err == nil {
		_, err = io.Copy(f, body)
	}
	got, rerr := os.ReadFile(f.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	return got, err
}

// TestSplicedItems: a binary item reaches a file whole when spliced (its
// first line and the buffer's bytes written, the rest spliced), and the
// client's size limit holds; a text item is never spliced.
func TestSplicedItems(t *testing.T) {
	var sent bytes.Buffer
	sent.WriteString("first line of a binary file\r\n")
	for i := 0; sent.Len() < 3<<20; i++ {
		sent.WriteByte(byte(i * 13))
	}
	want := sent.Bytes()
	srv := newFake(t, answerWith(string(want)))
	fetchItem := func(t *testing.T, opts fetch.Options, u string) (*fetch.Result, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		t.Cleanup(cancel)
		return client(opts).Fetch(ctx, u)
	}

	res, err := fetchItem(t, fetch.Options{}, srv.url("9/file.bin"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := spliceAll(t, res.Document.Body)
	res.Close()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("spliced %d bytes of %d, %v", len(got), len(want), err)
	}

	res, err = fetchItem(t, fetch.Options{MaxSize: 1 << 20}, srv.url("9/file.bin"))
	if err != nil {
		t.Fatal(err)
	}
	got, err = spliceAll(t, res.Document.Body)
	res.Close()
	if !errors.Is(err, fetch.ErrTooLarge) || len(got) != 1<<20 || !bytes.Equal(got, want[:1<<20]) {
		t.Fatalf("over the limit: %d bytes, %v; want the first MiB and ErrTooLarge", len(got), err)
	}

	res, err = fetchItem(t, fetch.Options{}, srv.url("0/file.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	f, err := os.Create(filepath.Join(t.TempDir(), "text"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if fw, ok := res.Document.Body.(fetch.FileWriter); ok {
		if n, err := fw.WriteToFile(f, -1); n != 0 || !errors.Is(err, errors.ErrUnsupported) {
			t.Fatalf("a text item: WriteToFile = %d, %v; want ErrUnsupported (its line ends are converted)", n, err)
		}
	}
}
