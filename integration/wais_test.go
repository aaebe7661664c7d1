//go:build integration

package integration

// The wais driver against fetch's own WAIS server (integration/waisd),
// which reproduces freeWAIS-sf's observed behaviour, serving the
// collection testdata/harness/wais/gen-collection.sh generates (see
// integration/servers/wais.sh).

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/wais"
	"github.com/fetchproject/fetch/schemes/wais/apdu"
)

// waisCollection generates the served collection afresh and returns the
// SHA-256 of each file of database fetch-test by name.
func waisCollection(t *testing.T) map[string]string {
	t.Helper()
	dir := t.TempDir()
	out, err := exec.Command("../testdata/harness/wais/gen-collection.sh", dir).CombinedOutput()
	if err != nil {
		t.Fatalf("gen-collection.sh: %v: %s", err, out)
	}
	files, err := filepath.Glob(filepath.Join(dir, "fetch-test", "*"))
	if err != nil || len(files) < 5 {
		t.Fatalf("collection: %v %v", files, err)
	}
	sums := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := sha256.Sum256(b)
		sums[filepath.Base(f)] = hex.EncodeToString(s[:])
	}
	return sums
}

func waisSearch(t *testing.T, c *fetch.Client, u string) *fetch.Listing {
	t.Helper()
	res, err := c.Fetch(context.Background(), u)
	if err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	if res.Listing == nil {
		t.Fatalf("%s: a %s, want a listing", u, res.Kind)
	}
	return res.Listing
}

// TestWAISSearchAndRetrieve searches, then fetches every result URL and
// compares it with the served file.
func TestWAISSearchAndRetrieve(t *testing.T) {
	wantServer(t, "wais")
	addr := serverAddr(t, "FETCH_WAIS_ADDR")
	sums := waisCollection(t)
	c := gopherClient(fetch.Options{})
	seen := map[string]bool{}
	for _, words := range []string{"collection", "hello+document", "bytes", "empty", "page"} {
		u := "wais://" + addr + "/fetch-test?" + words
		l := waisSearch(t, c, u)
		if len(l.Entries) == 0 {
			t.Fatalf("%s: no entries", u)
		}
		for _, e := range l.Entries {
			// freeWAIS headlines of plain files: "name   /directory/"
			name, dir, ok := strings.Cut(e.Name, "   ")
			if !ok || !strings.HasSuffix(dir, "/fetch-test/") {
				t.Errorf("%s: headline %q is not \"name   /directory/\"", u, e.Name)
				continue
			}
			want, ok := sums[name]
			if !ok {
				t.Errorf("%s: entry %q names no served file", u, e.Name)
				continue
			}
			if !strings.Contains(e.Description, "score ") || e.Score == nil || e.ID == "" || e.Type == "" || e.Size < 0 {
				t.Errorf("%s: entry %+v lacks score, document id, types or size", u, e)
			}
			if got := fetchSHA(t, c, e.URL); got != want {
				t.Errorf("%s: %s has SHA-256 %s, the served file %s", u, e.URL, got, want)
			}
			seen[name] = true
		}
	}
	for name := range sums {
		if !seen[name] {
			t.Errorf("no search found %s", name)
		}
	}
}

// TestWAISLongDocument retrieves the document of many slices and checks
// its facts.
func TestWAISLongDocument(t *testing.T) {
	wantServer(t, "wais")
	addr := serverAddr(t, "FETCH_WAIS_ADDR")
	sums := waisCollection(t)
	c := gopherClient(fetch.Options{})
	l := waisSearch(t, c, "wais://"+addr+"/fetch-test?long")
	if len(l.Entries) != 1 || !strings.HasPrefix(l.Entries[0].Name, "long.txt   ") {
		t.Fatalf("search for long: %+v", l.Entries)
	}
	e := l.Entries[0]
	if e.Size != 248000 || e.Size <= 10*wais.DefaultChunkSize {
		t.Fatalf("long.txt: size %d, want 248000 (many slices)", e.Size)
	}
	if got := fetchSHA(t, c, e.URL); got != sums["long.txt"] {
		t.Fatalf("long.txt: SHA-256 %s, want %s", got, sums["long.txt"])
	}
	res, err := c.Fetch(context.Background(), e.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	d := res.Document
	if d.MIMEType != "text/plain" || d.Meta["length"] != "248000" || !strings.HasPrefix(d.Meta["headline"], "long.txt   /") {
		t.Errorf("facts of long.txt: %+v", d)
	}
}

// TestWAISNoMatch: the server answers a search without hits with its
// catalog, shown as such; the catalog is retrievable.
func TestWAISNoMatch(t *testing.T) {
	wantServer(t, "wais")
	addr := serverAddr(t, "FETCH_WAIS_ADDR")
	c := gopherClient(fetch.Options{})
	l := waisSearch(t, c, "wais://"+addr+"/fetch-test?xyzzyplugh")
	if len(l.Entries) != 1 || !strings.HasPrefix(l.Entries[0].Name, "Catalog of database fetch-test") ||
		!strings.Contains(l.Title, "no document matched") {
		t.Fatalf("no-match listing: %q %+v", l.Title, l.Entries)
	}
	res, err := c.Fetch(context.Background(), l.Entries[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
}

// TestWAISUnknownDatabase: an S1 diagnostic, exit 6, naming the database.
func TestWAISUnknownDatabase(t *testing.T) {
	wantServer(t, "wais")
	addr := serverAddr(t, "FETCH_WAIS_ADDR")
	_, err := gopherClient(fetch.Options{}).Fetch(context.Background(), "wais://"+addr+"/no-such-db?word")
	var d *wais.Diagnostic
	if fetch.KindOf(err) != fetch.KindServer || !errors.As(err, &d) || d.Code != "S1" || !strings.Contains(d.Text, "no-such-db") {
		t.Fatalf("unknown database: %v", err)
	}
	code, _, stderr := runCLI(t, "", "wais://"+addr+"/no-such-db?word")
	if code != 6 || !strings.Contains(stderr, "S1") || !strings.Contains(stderr, "no-such-db") {
		t.Fatalf("fetch exit %d, stderr %q; want 6 naming the S1 diagnostic", code, stderr)
	}
}

// TestWAISCommand: the command lists a search, retrieves a document to a
// file and shows --info without the body.
func TestWAISCommand(t *testing.T) {
	wantServer(t, "wais")
	addr := serverAddr(t, "FETCH_WAIS_ADDR")
	sums := waisCollection(t)
	code, out, stderr := runCLI(t, "", "wais://"+addr+"/fetch-test?hello")
	if code != 0 {
		t.Fatalf("search: exit %d: %s", code, stderr)
	}
	line := strings.SplitN(string(out), "\n", 2)[0]
	_, u, ok := strings.Cut(line, "\t")
	if !ok || !strings.HasPrefix(u, "wais://") {
		t.Fatalf("listing line %q has no URL", line)
	}
	dest := filepath.Join(t.TempDir(), "doc")
	if code, _, stderr := runCLI(t, "", "-o", dest, u); code != 0 {
		t.Fatalf("retrieve: exit %d: %s", code, stderr)
	}
	b, _ := os.ReadFile(dest)
	s := sha256.Sum256(b)
	if hex.EncodeToString(s[:]) != sums["hello.txt"] {
		t.Fatalf("retrieved %q, not hello.txt", b)
	}
	code, out, stderr = runCLI(t, "", "--info", u)
	if code != 0 || !strings.Contains(string(out), "headline: hello.txt   /") || !strings.Contains(string(out), "type: text/plain") ||
		strings.Contains(string(out), "Hello from") {
		t.Fatalf("--info: exit %d, %q %s", code, out, stderr)
	}
	code, out, _ = runCLI(t, "", "--query", "hello", "wais://"+addr+"/fetch-test")
	if code != 0 || !strings.Contains(string(out), "hello.txt") {
		t.Fatalf("--query: exit %d, %q", code, out)
	}
}

// TestWAISResumeAndLynxURL: against the server, a document resumed at an
// offset (-C) is the file's tail, and the same document named in Lynx's
// URL form (db/wtype/length/type=value;...) is the whole file.
func TestWAISResumeAndLynxURL(t *testing.T) {
	wantServer(t, "wais")
	addr := serverAddr(t, "FETCH_WAIS_ADDR")
	dir := t.TempDir()
	if out, err := exec.Command("../testdata/harness/wais/gen-collection.sh", dir).CombinedOutput(); err != nil {
		t.Fatalf("gen-collection.sh: %v: %s", err, out)
	}
	file, err := os.ReadFile(filepath.Join(dir, "fetch-test", "long.txt"))
	if err != nil {
		t.Fatal(err)
	}
	c := gopherClient(fetch.Options{})
	l := waisSearch(t, c, "wais://"+addr+"/fetch-test?long")
	if len(l.Entries) != 1 {
		t.Fatalf("search for long: %+v", l.Entries)
	}
	e := l.Entries[0]

	const offset = 100_001 // within a slice, not at its start
	u, err := c.Parse(e.URL)
	if err != nil {
		t.Fatal(err)
	}
	res, err := c.Do(context.Background(), &fetch.Request{URL: u, Offset: offset})
	if err != nil {
		t.Fatalf("%s from %d: %v", e.URL, offset, err)
	}
	sum, n, err := sha256Of(res.Document.Body)
	res.Close()
	tail := sha256.Sum256(file[offset:])
	if err != nil || res.Document.Offset != offset || sum != hex.EncodeToString(tail[:]) {
		t.Errorf("%s from %d: offset %d, %d bytes (want %d), %v; the tail differs: %v",
			e.URL, offset, res.Document.Offset, n, len(file)-offset, err, sum != hex.EncodeToString(tail[:]))
	}

	// Lynx's form: the document id written field by field, in order.
	w, err := wais.ParseURL(u)
	if err != nil {
		t.Fatal(err)
	}
	id, ok := apdu.ParseDocID([]byte(w.WPath))
	if !ok {
		t.Fatalf("%s: the document id is not freeWAIS's", e.URL)
	}
	var fields strings.Builder
	for tag := apdu.DocIDOriginalServer; tag <= apdu.DocIDCopyright; tag++ {
		if v, ok := id.Fields[tag]; ok {
			fmt.Fprintf(&fields, "%d=%s;", tag, fetch.Escape(v, "/"))
		}
	}
	lynx := fmt.Sprintf("wais://%s/fetch-test/%s/%d/%s", addr, w.WType, len(file), fields.String())
	whole := sha256.Sum256(file)
	if got := fetchSHA(t, c, lynx); got != hex.EncodeToString(whole[:]) {
		t.Errorf("%s: SHA-256 %s, the file's %x", lynx, got, whole)
	}
}
