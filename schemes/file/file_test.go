package file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

func client(cfg Config) *fetch.Client {
	c := fetch.NewClient(fetch.Options{})
	c.Register("file", New(cfg))
	return c
}

func TestFileDocumentAndListing(t *testing.T) {
	dir := t.TempDir()
	names := []string{"plain.txt", "with space.txt", "semi;colon", "per%cent", "hash#mark", "ünï.txt"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("content of "+n), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	os.Mkdir(filepath.Join(dir, "sub dir"), 0o755)
	c := client(Config{})
	ctx := context.Background()

	res, err := c.Fetch(ctx, "file://"+fetch.Escape(dir, "/")+"/")
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != fetch.KindListing || len(res.Listing.Entries) != len(names)+1 {
		t.Fatalf("listing = %+v", res.Listing)
	}
	for _, e := range res.Listing.Entries {
		// Every entry's URL is absolute and fetches what it names.
		r, err := c.Fetch(ctx, e.URL)
		if err != nil {
			t.Fatalf("%s (%s): %v", e.Name, e.URL, err)
		}
		if e.Kind == fetch.EntryDir {
			if r.Kind != fetch.KindListing {
				t.Errorf("%s: kind %s", e.URL, r.Kind)
			}
			continue
		}
		b, err := io.ReadAll(r.Document.Body)
		r.Close()
		if err != nil || string(b) != "content of "+e.Name {
			t.Errorf("%s: %q, %v", e.URL, b, err)
		}
		if r.Document.Size != int64(len(b)) {
			t.Errorf("%s: size %d", e.URL, r.Document.Size)
		}
	}
}

func TestFileHosts(t *testing.T) {
	f := filepath.Join(t.TempDir(), "x.txt")
	os.WriteFile(f, []byte("x"), 0o644)
	c := client(Config{})
	for _, u := range []string{"file://" + f, "file://localhost" + f, "file://LOCALHOST" + f} {
		res, err := c.Fetch(context.Background(), u)
		if err != nil {
			t.Errorf("%s: %v", u, err)
			continue
		}
		if res.Document.MIMEType != "text/plain; charset=utf-8" {
			t.Errorf("%s: type %q", u, res.Document.MIMEType)
		}
		res.Close()
	}
	_, err := c.Fetch(context.Background(), "file://vms.host.edu/disk$user/my/notes/note12345.txt")
	var fe *fetch.Error
	if fetch.KindOf(err) != fetch.KindPolicy || !errors.As(err, &fe) || fe.Setting != "file.Config.FTPFallback" || strings.Contains(err.Error(), "--") {
		t.Errorf("remote host: %v: want a refusal naming the FTP fallback setting, no flag", err)
	}
}

// fallbackClient is a client whose file: driver falls back to FTP and
// whose ftp: driver only notes, in *got, the URL it was asked for.
func fallbackClient(got *string) *fetch.Client {
	c := fetch.NewClient(fetch.Options{})
	c.Register("file", New(Config{FTPFallback: true}))
	c.Register("ftp", fetch.DriverFunc(func(_ context.Context, req *fetch.Request) (*fetch.Result, error) {
		*got = req.URL.String()
		return &fetch.Result{Kind: fetch.KindListing, Listing: &fetch.Listing{}}, nil
	}))
	return c
}

func TestFileFTPFallback(t *testing.T) {
	var got string
	c := fallbackClient(&got)
	if _, err := c.Fetch(context.Background(), "file://ftp.example/pub/a%20b.txt"); err != nil {
		t.Fatal(err)
	}
	if got != "ftp://ftp.example/pub/a%20b.txt" {
		t.Fatalf("fallback fetched %q", got)
	}
}

func TestFileErrors(t *testing.T) {
	c := client(Config{})
	_, err := c.Fetch(context.Background(), "file:///no/such/file/here")
	if !errors.Is(err, fetch.ErrNotFound) || fetch.KindOf(err).ExitCode() != 6 {
		t.Errorf("missing file: %v", err)
	}
	_, err = c.Fetch(context.Background(), "file:///etc/pass%00wd")
	if k := fetch.KindOf(err); k != fetch.KindPolicy && k != fetch.KindMalformed {
		t.Errorf("NUL in path: %v", err)
	}
}

func TestFileResume(t *testing.T) {
	f := filepath.Join(t.TempDir(), "r.bin")
	os.WriteFile(f, []byte("0123456789"), 0o644)
	c := fetch.NewClient(fetch.Options{})
	c.Register("file", New(Config{}))
	req, err := fetch.NewRequest("file://" + f)
	if err != nil {
		t.Fatal(err)
	}
	req.Offset = 4
	res, err := c.Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	b, _ := io.ReadAll(res.Document.Body)
	if string(b) != "456789" || res.Document.Offset != 4 {
		t.Fatalf("%q offset %d", b, res.Document.Offset)
	}
	// At the end: nothing more. Past it: the local copy is no part of
	// the file, and the resume is refused.
	for off, ok := range map[int64]bool{10: true, 11: false} {
		req.Offset = off
		res, err := c.Do(context.Background(), req)
		if ok {
			if err != nil {
				t.Fatalf("offset %d: %v", off, err)
			}
			if b, _ := io.ReadAll(res.Document.Body); len(b) != 0 {
				t.Errorf("offset %d: %q", off, b)
			}
			res.Close()
			continue
		}
		if err == nil {
			res.Close()
			t.Fatalf("offset %d past the end: no error", off)
		}
		if fetch.KindOf(err).ExitCode() != 6 || !strings.Contains(err.Error(), "has 10 bytes") {
			t.Errorf("offset %d: %v", off, err)
		}
	}
}

func TestEndlessFileObeysMaxTime(t *testing.T) {
	c := fetch.NewClient(fetch.Options{MaxTime: 200 * time.Millisecond})
	c.Register("file", New(Config{Special: true})) // a device is opened only when asked for
	res, err := c.Fetch(context.Background(), "file:///dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	start := time.Now()
	_, err = io.Copy(io.Discard, res.Document.Body)
	if err == nil || time.Since(start) > 3*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
}

// TestShrunkFileIsTruncated: the document announces the file's size
// (Document.Size from stat), and a Body that ends short of what was
// announced fails with ErrTruncated (fetch.Document): a file cut while it
// is read (a log emptied with "> file") once ended with io.EOF, and a
// partial copy was a success.
func TestShrunkFileIsTruncated(t *testing.T) {
	f := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(f, make([]byte, 1<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := client(Config{}).Fetch(context.Background(), "file://"+f)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if res.Document.Size != 1<<20 {
		t.Fatalf("size %d", res.Document.Size)
	}
	head := make([]byte, 10)
	if _, err := io.ReadFull(res.Document.Body, head); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(f, 100); err != nil {
		t.Fatal(err)
	}
	rest, err := io.ReadAll(res.Document.Body)
	got := int64(len(head) + len(rest))
	if got < res.Document.Size && !errors.Is(err, fetch.ErrTruncated) {
		t.Errorf("read %d of the %d bytes announced, then err = %v: want an error wrapping fetch.ErrTruncated", got, res.Document.Size, err)
	}
}

// TestDirBound: a directory of more entries than maxDirEntries is refused
// as an over-long FTP or Gopher listing is (fetch.ErrTooLarge, kind
// policy, the bound named), and one of exactly that many is listed whole
// and in order. The bound is lowered so that the test makes about a
// thousand files at most; the larger bound is one past a chunk, so the
// directory is read in more than one.
func TestDirBound(t *testing.T) {
	old := maxDirEntries
	t.Cleanup(func() { maxDirEntries = old })
	for _, bound := range []int{10, dirChunk + 1} {
		maxDirEntries = bound
		dir := t.TempDir()
		for i := range bound {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%05d", i)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		u := "file://" + fetch.Escape(dir, "/") + "/"
		c := client(Config{})
		res, err := c.Fetch(context.Background(), u)
		if err != nil {
			t.Fatalf("bound %d, a directory of %d entries: %v", bound, bound, err)
		}
		if n := len(res.Listing.Entries); n != bound {
			t.Fatalf("bound %d: %d entries listed, want %d", bound, n, bound)
		}
		for i, e := range res.Listing.Entries {
			if want := fmt.Sprintf("f%05d", i); e.Name != want {
				t.Fatalf("bound %d: entry %d is %q, want %q (sorted by name)", bound, i, e.Name, want)
			}
		}

		if err := os.WriteFile(filepath.Join(dir, "one more"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
		res, err = c.Fetch(context.Background(), u)
		want := fmt.Sprintf("limited to %d entries", bound)
		if !errors.Is(err, fetch.ErrTooLarge) || fetch.KindOf(err) != fetch.KindPolicy || !strings.Contains(err.Error(), want) {
			t.Fatalf("bound %d, a directory of %d entries: listing of %d, err %v (kind %v); want %v of kind policy saying %q",
				bound, bound+1, entries(res), err, fetch.KindOf(err), fetch.ErrTooLarge, want)
		}
	}
}

// entries is the number of entries res lists, for a failure's message.
func entries(res *fetch.Result) int {
	if res == nil || res.Listing == nil {
		return 0
	}
	return len(res.Listing.Entries)
}

// TestDirByteBound: a listing is bounded in bytes too (names, and URLs
// that repeat a long directory path), not only in entries.
func TestDirByteBound(t *testing.T) {
	old := maxDirBytes
	t.Cleanup(func() { maxDirBytes = old })
	dir := filepath.Join(t.TempDir(), strings.Repeat("d", 200))
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%02d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	u := "file://" + fetch.Escape(dir, "/") + "/"
	c := client(Config{})
	maxDirBytes = 1 << 20
	if _, err := c.Fetch(context.Background(), u); err != nil {
		t.Fatalf("within the bound: %v", err)
	}
	maxDirBytes = 10 * int64(len(dir)) // ten entries' worth of the path
	res, err := c.Fetch(context.Background(), u)
	if !errors.Is(err, fetch.ErrTooLarge) || fetch.KindOf(err) != fetch.KindPolicy || !strings.Contains(err.Error(), "bytes of names and URLs") {
		t.Fatalf("20 entries under a %d-byte path, bound %d bytes: listing of %d, err %v", len(dir), maxDirBytes, entries(res), err)
	}
}

// TestPortIsMalformedNotPolicy: a file URL with a port is malformed (exit
// 3, naming the port) whatever the port, not refused by the port policy
// first (exit 4), whose advice, --allow-port, would not mend it.
func TestPortIsMalformedNotPolicy(t *testing.T) {
	c := fetch.NewClient(fetch.Options{})
	c.RegisterScheme(Schemes(Config{})...)
	for _, raw := range []string{"file://h:99/x", "file://h:8000/x"} {
		_, err := c.Fetch(context.Background(), raw)
		var fe *fetch.Error
		if !errors.As(err, &fe) || fe.Kind != fetch.KindMalformed || fe.Part != "port" {
			t.Errorf("%s: %v, want a malformed port", raw, err)
		}
	}
}

// TestRemoteHintBrackets: the refusal of another machine's file names
// the ftp: URL the fallback would fetch, an IPv6 host in brackets.
func TestRemoteHintBrackets(t *testing.T) {
	_, err := client(Config{}).Fetch(context.Background(), "file://[::1]/x")
	if err == nil || !strings.Contains(err.Error(), "ftp://[::1]/") {
		t.Errorf("%v; want the hint ftp://[::1]/…", err)
	}
}
