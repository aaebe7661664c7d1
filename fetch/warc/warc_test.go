package warc_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/base32"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/warc"
	"github.com/fetchproject/fetch/schemes/file"
	"github.com/fetchproject/fetch/schemes/gopher"
	fhttp "github.com/fetchproject/fetch/schemes/http"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// record is one record read back by readWARC, which checks the framing
// (one gzip member per record, Content-Length, the CR LF CR LF after the
// block) and both digests.
type record struct {
	head   []string // header lines in order, without the version line
	fields map[string]string
	block  []byte
}

func readWARC(t *testing.T, name string) []record {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var out []record
	if b, _ := br.Peek(5); string(b) == "WARC/" {
		return readPlain(t, br)
	}
	for {
		if _, err := br.Peek(1); err == io.EOF {
			return out
		}
		z, err := gzip.NewReader(br)
		if err != nil {
			t.Fatalf("record %d: %v", len(out), err)
		}
		z.Multistream(false) // one member: exactly one record
		member, err := io.ReadAll(z)
		if err != nil {
			t.Fatalf("record %d: %v", len(out), err)
		}
		out = append(out, parseRecord(t, member, len(out)))
	}
}

// readPlain reads the records of an uncompressed file, each its header,
// Content-Length bytes of block and CR LF CR LF, up to the file's end.
func readPlain(t *testing.T, br *bufio.Reader) []record {
	t.Helper()
	var out []record
	for {
		if _, err := br.Peek(1); err == io.EOF {
			return out
		}
		var head bytes.Buffer
		for {
			line, err := br.ReadString('\n')
			if err != nil {
				t.Fatalf("record %d: header: %v", len(out), err)
			}
			head.WriteString(line)
			if line == "\r\n" {
				break
			}
		}
		var n int
		for _, l := range strings.Split(head.String(), "\r\n") {
			if v, ok := strings.CutPrefix(l, "Content-Length: "); ok {
				n, _ = strconv.Atoi(v)
			}
		}
		rest := make([]byte, n+4)
		if _, err := io.ReadFull(br, rest); err != nil {
			t.Fatalf("record %d: block: %v", len(out), err)
		}
		out = append(out, parseRecord(t, append(head.Bytes(), rest...), len(out)))
	}
}

func parseRecord(t *testing.T, m []byte, i int) record {
	t.Helper()
	head, rest, ok := bytes.Cut(m, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("record %d: no end of header", i)
	}
	lines := strings.Split(string(head), "\r\n")
	if lines[0] != "WARC/1.1" {
		t.Fatalf("record %d: version line %q", i, lines[0])
	}
	r := record{head: lines[1:], fields: map[string]string{}}
	for _, l := range lines[1:] {
		k, v, _ := strings.Cut(l, ": ")
		r.fields[k] = v
	}
	n, err := strconv.Atoi(r.fields["Content-Length"])
	if err != nil || n+4 != len(rest) || string(rest[n:]) != "\r\n\r\n" {
		t.Fatalf("record %d: Content-Length %q for %d bytes after the header", i, r.fields["Content-Length"], len(rest))
	}
	r.block = rest[:n]
	if got := digest(r.block); got != r.fields["WARC-Block-Digest"] {
		t.Errorf("record %d: block digest %s, header says %s", i, got, r.fields["WARC-Block-Digest"])
	}
	if want, ok := r.fields["WARC-Payload-Digest"]; ok {
		if got := digest(r.payload()); got != want {
			t.Errorf("record %d: payload digest %s, header says %s", i, got, want)
		}
	}
	return r
}

func (r record) payload() []byte {
	ct := r.fields["Content-Type"]
	switch {
	case strings.HasPrefix(ct, "application/http; msgtype=response"):
		// As net/http reads a response: lines ending in LF alone too,
		// and interim (1xx) responses before the final one.
		rd := bytes.NewReader(r.block)
		br := bufio.NewReader(rd)
		for {
			resp, err := http.ReadResponse(br, nil)
			if err != nil {
				return nil
			}
			if resp.StatusCode/100 != 1 || resp.StatusCode == 101 {
				break
			}
		}
		return r.block[len(r.block)-rd.Len()-br.Buffered():]
	case strings.HasPrefix(ct, "application/http"):
		_, body, _ := bytes.Cut(r.block, []byte("\r\n\r\n"))
		return body
	}
	return r.block
}

func digest(b []byte) string {
	s := sha1.Sum(b)
	return "sha1:" + base32.StdEncoding.EncodeToString(s[:])
}

// fixed makes dates and ids reproducible for golden files.
func fixed() (func() time.Time, func() string) {
	var n atomic.Int64
	base := time.Date(2026, 11, 23, 12, 0, 0, 123456000, time.UTC)
	return func() time.Time { return base }, func() string { return fmt.Sprintf("<urn:uuid:00000000-0000-4000-8000-%012d>", n.Add(1)) }
}

func newWriter(t testing.TB, name string, maxSize int64) *warc.Writer {
	t.Helper()
	now, id := fixed()
	w, err := warc.Create(filepath.Join(t.TempDir(), name), warc.Options{MaxSize: maxSize, Software: "fetch/test", CommandLine: "fetch --warc x.warc.gz URL", Now: now, NewID: id})
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// fake is a driver that hands body to the Capture as a document
// arriving from remote, tracing a conversation with a masked password.
func fake(body func() io.Reader, fail error) fetch.Driver {
	return fetch.DriverFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
		req.Trace(fetch.DirSent, "USER anonymous")
		req.Trace(fetch.DirSent, "PASS ****")
		req.Trace(fetch.DirReceived, "230 Login successful.")
		remote := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 21}
		r := req.CapturePayload(body(), remote)
		if fail != nil {
			r = io.MultiReader(r, errReader{fail})
		}
		return &fetch.Result{Kind: fetch.KindDocument, Document: &fetch.Document{Body: io.NopCloser(r), MIMEType: "text/plain", Size: -1}}, nil
	})
}

type errReader struct{ err error }

func (e errReader) Read([]byte) (int, error) { return 0, e.err }

// record fetches u through c into w as the command does: Capture and
// Tracer on the request, the body read to its end, then End.
func recordFetch(t *testing.T, w *warc.Writer, c *fetch.Client, u string) error {
	t.Helper()
	req, err := fetch.NewRequest(u)
	if err != nil {
		t.Fatal(err)
	}
	tr := w.Begin(req.URL.Scheme, req.URL.Redacted(), nil)
	req.Capture, req.Tracer = tr, tr
	final, ctype := "", ""
	res, err := c.Do(context.Background(), req)
	if err == nil {
		final = res.URL.Redacted()
		if res.Document != nil {
			ctype = res.Document.MIMEType
			_, err = io.Copy(io.Discard, res.Document.Body)
		} else if res.Listing != nil {
			ctype = "application/gopher-menu"
		}
		res.Close()
	}
	if werr := tr.End(final, ctype, err); werr != nil {
		t.Fatal(werr)
	}
	return err
}

func TestResourceAndConversation(t *testing.T) {
	w := newWriter(t, "a.warc.gz", 0)
	c := fetch.NewClient(fetch.Options{})
	c.Register("ftp", fake(func() io.Reader { return strings.NewReader("one\r\ntwo\r\n") }, nil))
	if err := recordFetch(t, w, c, "ftp://user:secret@127.0.0.1/a.txt"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	recs := readWARC(t, w.Files()[0])
	if len(recs) != 3 {
		t.Fatalf("%d records, want warcinfo, resource, metadata", len(recs))
	}
	info, res, meta := recs[0], recs[1], recs[2]
	if info.fields["WARC-Type"] != "warcinfo" || !bytes.Contains(info.block, []byte("software: fetch/test")) {
		t.Errorf("warcinfo: %v %q", info.fields, info.block)
	}
	if res.fields["WARC-Type"] != "resource" || string(res.block) != "one\r\ntwo\r\n" {
		t.Errorf("resource: %v %q", res.fields, res.block)
	}
	if res.fields["WARC-IP-Address"] != "127.0.0.1" || res.fields["WARC-Target-URI"] != "ftp://user:****@127.0.0.1/a.txt" {
		t.Errorf("resource header: %v", res.fields)
	}
	if meta.fields["WARC-Concurrent-To"] != res.fields["WARC-Record-ID"] || meta.fields["Content-Type"] != "text/x-ftp-control-conversation" {
		t.Errorf("metadata header: %v", meta.fields)
	}
	want := "> USER anonymous\r\n> PASS ****\r\n< 230 Login successful.\r\n"
	if string(meta.block) != want {
		t.Errorf("conversation %q, want %q", meta.block, want)
	}
	for _, r := range recs {
		if bytes.Contains(r.block, []byte("secret")) || strings.Contains(strings.Join(r.head, "\n"), "secret") {
			t.Errorf("the password is in a %s record", r.fields["WARC-Type"])
		}
	}
}

func TestFailedTransferHasNoResource(t *testing.T) {
	w := newWriter(t, "f.warc.gz", 0)
	c := fetch.NewClient(fetch.Options{})
	c.Register("gopher", fake(func() io.Reader { return strings.NewReader("partial") }, errors.New("connection reset")))
	if err := recordFetch(t, w, c, "gopher://127.0.0.1/0x"); err == nil {
		t.Fatal("the fake's read error was lost")
	}
	w.Close()
	recs := readWARC(t, w.Files()[0])
	if len(recs) != 2 || recs[1].fields["WARC-Type"] != "metadata" {
		t.Fatalf("want warcinfo and one metadata record, got %d records", len(recs))
	}
	if !bytes.Contains(recs[1].block, []byte("* fetch failed: ")) || !bytes.Contains(recs[1].block, []byte("connection reset")) {
		t.Errorf("metadata does not say the fetch failed: %q", recs[1].block)
	}
	if _, ok := recs[1].fields["WARC-Concurrent-To"]; ok {
		t.Error("the failure record points at a record that does not exist")
	}
}

func TestHTTPExactBytes(t *testing.T) {
	body := strings.Repeat("payload\n", 1000)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			http.Redirect(rw, r, "/new", http.StatusFound)
			return
		}
		rw.Header()["Date"] = nil
		rw.Header().Set("Content-Type", "text/plain")
		io.WriteString(rw, body) // chunked: no Content-Length is set
	}))
	defer srv.Close()
	c := httpClient(srv.Listener.Addr().(*net.TCPAddr).Port)
	w := newWriter(t, "h.warc.gz", 0)
	if err := recordFetch(t, w, c, srv.URL+"/old"); err != nil {
		t.Fatal(err)
	}
	if err := recordFetch(t, w, c, srv.URL+"/new"); err != nil { // a pooled connection
		t.Fatal(err)
	}
	w.Close()
	recs := readWARC(t, w.Files()[0])
	var types []string
	for _, r := range recs {
		types = append(types, r.fields["WARC-Type"]+" "+strings.TrimPrefix(r.fields["WARC-Target-URI"], srv.URL))
	}
	want := "warcinfo ,response /old,request /old,response /new,request /new,response /new,request /new"
	if strings.Join(types, ",") != want {
		t.Fatalf("records:\n%s\nwant\n%s", strings.Join(types, ","), want)
	}
	for _, r := range recs[1:] {
		if r.fields["WARC-Type"] == "request" {
			if !bytes.HasPrefix(r.block, []byte("GET /")) || !bytes.HasSuffix(r.block, []byte("\r\n\r\n")) {
				t.Errorf("request block %q", r.block)
			}
			continue
		}
		if r.fields["WARC-IP-Address"] != "127.0.0.1" {
			t.Errorf("IP %q", r.fields["WARC-IP-Address"])
		}
	}
	resp := recs[5]
	// Chunked as on the wire: the payload is not the decoded body.
	if !bytes.Contains(resp.block, []byte("Transfer-Encoding: chunked")) || bytes.Equal(resp.payload(), []byte(body)) {
		t.Errorf("the response was not kept as sent: %q", resp.block[:min(200, len(resp.block))])
	}
	if recs[6].fields["WARC-Concurrent-To"] != resp.fields["WARC-Record-ID"] {
		t.Error("request not linked to its response")
	}
}

func TestRotation(t *testing.T) {
	w := newWriter(t, "r.warc.gz", 1000)
	c := fetch.NewClient(fetch.Options{})
	c.Register("ftp", fake(func() io.Reader { return strings.NewReader(strings.Repeat("x", 3000)) }, nil))
	for range 3 {
		if err := recordFetch(t, w, c, "ftp://127.0.0.1/x"); err != nil {
			t.Fatal(err)
		}
	}
	w.Close()
	files := w.Files()
	if len(files) < 2 {
		t.Fatalf("files %v: no rotation at 1000 bytes", files)
	}
	total := 0
	for i, f := range files {
		if want := fmt.Sprintf("r-%05d.warc.gz", i); filepath.Base(f) != want {
			t.Errorf("file %d is %s, want %s", i, filepath.Base(f), want)
		}
		recs := readWARC(t, f)
		if recs[0].fields["WARC-Type"] != "warcinfo" || recs[0].fields["WARC-Filename"] != filepath.Base(f) {
			t.Errorf("%s does not start with its warcinfo", f)
		}
		for _, r := range recs {
			if r.fields["WARC-Type"] == "resource" {
				total++
			}
		}
	}
	if total != 3 {
		t.Errorf("%d resource records in all, want 3", total)
	}
}

func TestConcurrentTransfers(t *testing.T) {
	w := newWriter(t, "c.warc.gz", 64<<10)
	c := fetch.NewClient(fetch.Options{})
	c.Register("ftp", fetch.DriverFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
		n := len(req.URL.Path)
		r := req.CapturePayload(strings.NewReader(strings.Repeat(req.URL.Path, 2000/n+1)), nil)
		return &fetch.Result{Kind: fetch.KindDocument, Document: &fetch.Document{Body: io.NopCloser(r), Size: -1}}, nil
	}))
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range 5 {
				if err := recordFetch(t, w, c, fmt.Sprintf("ftp://127.0.0.1/f%d-%d", i, j)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	w.Close()
	seen := map[string]bool{}
	for _, f := range w.Files() {
		for _, r := range readWARC(t, f) {
			if r.fields["WARC-Type"] != "resource" {
				continue
			}
			u := r.fields["WARC-Target-URI"]
			p := strings.TrimPrefix(u, "ftp://127.0.0.1/")
			if !bytes.HasPrefix(r.block, []byte(p+p)) {
				t.Errorf("%s holds another transfer's bytes: %q", u, r.block[:20])
			}
			seen[u] = true
		}
	}
	if len(seen) != 80 {
		t.Errorf("%d distinct resources, want 80", len(seen))
	}
}

// TestLargeDocumentBoundedMemory records a 256 MiB document: the block
// is spooled to disk, so what the test allocates stays far below it.
func TestLargeDocumentBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("256 MiB through gzip")
	}
	size := largeSize
	w := newWriter(t, "big.warc.gz", 0)
	c := fetch.NewClient(fetch.Options{})
	c.Register("gopher", fake(func() io.Reader { return io.LimitReader(newPattern(), size) }, nil))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	if err := recordFetch(t, w, c, "gopher://127.0.0.1/9big"); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	w.Close()
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 32<<20 {
		t.Errorf("recording %d bytes allocated %d bytes", size, alloc)
	}
	// The record is whole: its length and its payload digest.
	f, _ := os.Open(w.Files()[0])
	defer f.Close()
	br := bufio.NewReader(f)
	z, _ := gzip.NewReader(br)
	z.Multistream(false)
	io.Copy(io.Discard, z) // warcinfo
	z.Reset(br)
	z.Multistream(false)
	hb := bufio.NewReader(z)
	var length string
	for {
		l, err := hb.ReadString('\n')
		if err != nil {
			t.Fatal(err)
		}
		if v, ok := strings.CutPrefix(l, "Content-Length: "); ok {
			length = strings.TrimSpace(v)
		}
		if l == "\r\n" {
			break
		}
	}
	h := sha1.New()
	n, _ := io.Copy(h, io.LimitReader(hb, size))
	if length != strconv.FormatInt(size, 10) || n != size {
		t.Errorf("Content-Length %s, block %d bytes; want %d", length, n, size)
	}
	hh := sha1.New()
	io.Copy(hh, io.LimitReader(newPattern(), size))
	want := "sha1:" + base32.StdEncoding.EncodeToString(hh.Sum(nil))
	if got := "sha1:" + base32.StdEncoding.EncodeToString(h.Sum(nil)); got != want {
		t.Errorf("block digest %s, want %s", got, want)
	}
}

// pattern is an endless, cheaply generated, not all-zero byte stream,
// the same whatever the sizes of the reads.
type pattern struct{ n *int }

func newPattern() pattern { return pattern{new(int)} }

func (g pattern) Read(p []byte) (int, error) {
	for i := range p {
		k := *g.n + i
		p[i] = byte(k*7 + k>>9)
	}
	*g.n += len(p)
	return len(p), nil
}

// TestGoldenHeaders pins the WARC headers each scheme's transfer writes
// (dates and ids fixed, ports normalised): http, gopher and file through
// their real drivers against in-process servers; ftp, nntp, wais and
// prospero through a driver handing a document to the capture as theirs do.
func TestGoldenHeaders(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "doc.txt"), []byte("a file\n"), 0o644)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header()["Date"] = nil
		rw.Header().Set("Content-Type", "text/plain")
		rw.Header().Set("Content-Length", "6")
		io.WriteString(rw, "hello\n")
	}))
	defer srv.Close()
	tsrv := httptest.NewTLSServer(srv.Config.Handler)
	defer tsrv.Close()
	gl, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer gl.Close()
	go func() {
		for {
			c, err := gl.Accept()
			if err != nil {
				return
			}
			bufio.NewReader(c).ReadString('\n')
			io.WriteString(c, "iWelcome\t\terror.host\t1\r\n0Doc\t/doc\t127.0.0.1\t70\r\n.\r\n")
			c.Close()
		}
	}()
	pol := &fetch.PortPolicy{}
	pol.Allow(srv.Listener.Addr().(*net.TCPAddr).Port, gl.Addr().(*net.TCPAddr).Port, tsrv.Listener.Addr().(*net.TCPAddr).Port)
	c := fetch.NewClient(fetch.Options{Policy: pol})
	c.Register("http", fhttp.New(fhttp.Config{UserAgent: "fetch-test"}))
	c.Register("https", fhttp.New(fhttp.Config{UserAgent: "fetch-test", Insecure: true}))
	c.Register("gopher", gopher.New(gopher.Config{}))
	c.Register("file", file.New(file.Config{}))
	doc := func() io.Reader { return strings.NewReader("document\r\n") }
	for _, s := range []string{"ftp", "news", "nntp", "wais", "prospero"} {
		c.Register(s, fake(doc, nil))
	}
	urls := []string{
		srv.URL + "/hello.txt",
		tsrv.URL + "/hello.txt",
		"gopher://" + gl.Addr().String() + "/1",
		"file://" + filepath.ToSlash(dir) + "/doc.txt",
		"file://" + filepath.ToSlash(dir) + "/",
		"ftp://127.0.0.1/pub/doc.txt",
		"news:123@example.org",
		"nntp://127.0.0.1/comp.test/1",
		"wais://127.0.0.1/db/TEXT/1",
		"prospero://127.0.0.1/doc",
	}
	w := newWriter(t, "g.warc.gz", 0)
	for _, u := range urls {
		if err := recordFetch(t, w, c, u); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
	}
	w.Close()
	var out strings.Builder
	norm := strings.NewReplacer(srv.Listener.Addr().String(), "127.0.0.1:HTTPPORT", tsrv.Listener.Addr().String(), "127.0.0.1:HTTPSPORT", gl.Addr().String(), "127.0.0.1:GOPHERPORT", filepath.ToSlash(dir), "/TMP")
	varies := regexp.MustCompile(`^(WARC-Block-Digest: ).*`)
	for _, r := range readWARC(t, w.Files()[0]) {
		out.WriteString("WARC/1.1\n")
		for _, l := range r.head {
			// Blocks naming a port or a directory (requests, the
			// conversation's "connecting to") differ from run to run.
			if typ := r.fields["WARC-Type"]; (typ == "request" || typ == "warcinfo" || typ == "metadata") && varies.MatchString(l) {
				l = varies.ReplaceAllString(l, "${1}(varies)")
			}
			out.WriteString(norm.Replace(l) + "\n")
		}
		out.WriteString("\n")
	}
	golden := filepath.Join("testdata", "headers.golden")
	if *update {
		os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(golden, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test -update)", err)
	}
	if out.String() != string(want) {
		t.Errorf("headers differ from %s (go test -update rewrites it):\n%s", golden, out.String())
	}
}

// TestHTTPSPlainText: an https exchange is recorded as its plain text, the
// HTTP/1.1 bytes inside TLS, not left out.
func TestHTTPSPlainText(t *testing.T) {
	body := "secret-free payload over TLS\n"
	srv := httptest.NewTLSServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		rw.Header()["Date"] = nil
		rw.Header().Set("Content-Type", "text/plain")
		rw.Header().Set("Content-Length", strconv.Itoa(len(body)))
		io.WriteString(rw, body)
	}))
	defer srv.Close()
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	pol := &fetch.PortPolicy{}
	pol.Allow(port)
	c := fetch.NewClient(fetch.Options{Policy: pol})
	c.Register("https", fhttp.New(fhttp.Config{UserAgent: "fetch-test", Insecure: true}))
	w := newWriter(t, "s.warc.gz", 0)
	if err := recordFetch(t, w, c, srv.URL+"/doc"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	recs := readWARC(t, w.Files()[0])
	var types []string
	for _, r := range recs {
		types = append(types, r.fields["WARC-Type"])
	}
	if strings.Join(types, " ") != "warcinfo response request" {
		t.Fatalf("records %v, want warcinfo response request", types)
	}
	resp, req := recs[1], recs[2]
	if !bytes.HasPrefix(resp.block, []byte("HTTP/1.1 200 OK\r\n")) || string(resp.payload()) != body {
		t.Errorf("response block %q", resp.block)
	}
	if !bytes.HasPrefix(req.block, []byte("GET /doc HTTP/1.1\r\n")) {
		t.Errorf("request block %q", req.block)
	}
	if resp.fields["WARC-Target-URI"] != srv.URL+"/doc" || resp.fields["WARC-IP-Address"] != "127.0.0.1" {
		t.Errorf("response header %v", resp.fields)
	}
}

// TestCreateRotationStaleSeries: Create truncates the file it is given;
// with rotation it starts the series NAME-00000... again and removes the
// later files of an earlier, longer run, which would otherwise read as
// part of this run's series (and a later Append would go on after them).
func TestCreateRotationStaleSeries(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "r.warc.gz")
	for _, n := range []int{3, 1} {
		w, err := warc.Create(path, warc.Options{MaxSize: 1, Software: "fetch/test"})
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i < n; i++ {
			tr := w.Begin("http", "http://h/", nil)
			sent, recv := tr.Exchange("http://h/", nil)
			io.WriteString(sent, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
			io.WriteString(recv, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
			if err := tr.End("", "", nil); err != nil {
				t.Fatal(err)
			}
		}
		w.Close()
	}
	series, _ := filepath.Glob(filepath.Join(dir, "r-*.warc.gz"))
	if len(series) != 2 {
		t.Errorf("after a run that wrote 2 files the series holds %d: %v", len(series), series)
	}
}

// TestRedirectBodyRecordedWhole: a redirect hop's response record holds
// the whole response: a 302 whose body is larger than what net/http
// drains before following the redirect was recorded cut short, though
// the record looked complete. One past the driver's bound fails the
// transfer rather than archive a part.
func TestRedirectBodyRecordedWhole(t *testing.T) {
	big := strings.Repeat("moved\n", 5000) // 30000 bytes
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			rw.Header().Set("Location", "/new")
			rw.Header().Set("Content-Length", strconv.Itoa(len(big)))
			rw.WriteHeader(http.StatusFound)
			io.WriteString(rw, big)
			return
		}
		io.WriteString(rw, "new")
	}))
	defer srv.Close()
	c := httpClient(srv.Listener.Addr().(*net.TCPAddr).Port)
	w := newWriter(t, "h.warc.gz", 0)
	if err := recordFetch(t, w, c, srv.URL+"/old"); err != nil {
		t.Fatal(err)
	}
	w.Close()
	for _, r := range readWARC(t, w.Files()[0]) {
		if r.fields["WARC-Type"] != "response" || !strings.HasSuffix(r.fields["WARC-Target-URI"], "/old") {
			continue
		}
		if r.fields["WARC-Truncated"] != "" {
			return
		}
		if got := len(r.payload()); got != len(big) {
			t.Errorf("the 302's response record holds %d of its %d body bytes and no WARC-Truncated field", got, len(big))
		}
		return
	}
	t.Fatal("no response record for /old")
}

func TestRedirectBodyTooLarge(t *testing.T) {
	huge := strings.Repeat("m", 2<<20)
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/old" {
			rw.Header().Set("Location", "/new")
			rw.WriteHeader(http.StatusFound)
			io.WriteString(rw, huge)
			return
		}
		io.WriteString(rw, "new")
	}))
	defer srv.Close()
	c := httpClient(srv.Listener.Addr().(*net.TCPAddr).Port)
	w := newWriter(t, "h.warc.gz", 0)
	defer w.Close()
	err := recordFetch(t, w, c, srv.URL+"/old")
	if !errors.Is(err, fetch.ErrTooLarge) || fetch.KindOf(err) != fetch.KindPolicy {
		t.Fatalf("a 2 MiB redirect body under an archive: %v (kind %v), want too large, refused by policy", err, fetch.KindOf(err))
	}
}

// rawHTTP serves each connection the bytes of resp after reading a
// request's header.
func rawHTTP(t *testing.T, resp string) (string, int) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					l, err := br.ReadString('\n')
					if err != nil || l == "\r\n" {
						break
					}
				}
				io.WriteString(c, resp)
			}()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	return fmt.Sprintf("http://127.0.0.1:%d/", port), port
}

// TestPayloadDigestHTTPBody: WARC-Payload-Digest of a response is
// the digest of its body (WARC 1.1 §5.9, the entity after the HTTP
// header), whatever line ends the server's header used (net/http accepts
// LF alone) and after any interim 1xx response (net/http skips 103).
func TestPayloadDigestHTTPBody(t *testing.T) {
	for name, resp := range map[string]string{
		"LF header":   "HTTP/1.1 200 OK\nContent-Type: text/plain\nContent-Length: 5\nConnection: close\n\nhello",
		"103 interim": "HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\nConnection: close\r\n\r\nhello",
	} {
		u, port := rawHTTP(t, resp)
		c := httpClient(port)
		w := newWriter(t, "p.warc.gz", 0)
		if err := recordFetch(t, w, c, u); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		w.Close()
		for _, r := range readWARC(t, w.Files()[0]) {
			if r.fields["WARC-Type"] == "response" {
				if got, want := r.fields["WARC-Payload-Digest"], digest([]byte("hello")); got != want {
					t.Errorf("%s: WARC-Payload-Digest %s, want the body's %s", name, got, want)
				}
			}
		}
	}
}

// TestEndTwice: a second End writes nothing and reports it, rather than
// panic on the blocks the first one wrote.
func TestEndTwice(t *testing.T) {
	for _, scheme := range []string{"http", "ftp"} {
		w := newWriter(t, scheme+".warc.gz", 0)
		tr := w.Begin(scheme, scheme+"://h/", nil)
		if scheme == "http" {
			sent, recv := tr.Exchange("http://h/", nil)
			io.WriteString(sent, "GET / HTTP/1.1\r\nHost: h\r\n\r\n")
			io.WriteString(recv, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
		} else {
			io.WriteString(tr.Payload(nil), "ok")
		}
		if err := tr.End("", "text/plain", nil); err != nil {
			t.Fatal(err)
		}
		if err := tr.End("", "text/plain", nil); err == nil {
			t.Errorf("%s: a second End reported nothing", scheme)
		}
		w.Close()
		if n := len(readWARC(t, w.Files()[0])); n != 3 {
			t.Errorf("%s: %d records, want warcinfo and the transfer's two", scheme, n)
		}
	}
}

// TestDiscard: a discarded transfer writes no record, then or at End.
func TestDiscard(t *testing.T) {
	w := newWriter(t, "d.warc.gz", 0)
	tr := w.Begin("ftp", "ftp://h/", nil)
	io.WriteString(tr.Payload(nil), "ok")
	tr.Discard()
	if err := tr.End("", "text/plain", nil); err == nil {
		t.Error("End after Discard reported nothing")
	}
	w.Close()
	if n := len(readWARC(t, w.Files()[0])); n != 1 {
		t.Errorf("%d records, want the warcinfo alone", n)
	}
}

// TestHeaderControlCharacters: a value holding CR LF, from a library's
// caller, is written %-encoded and adds no field of its own.
func TestHeaderControlCharacters(t *testing.T) {
	w := newWriter(t, "c.warc.gz", 0)
	tr := w.Begin("ftp", "ftp://h/a", nil)
	io.WriteString(tr.Payload(nil), "ok")
	if err := tr.End("ftp://h/a\r\nWARC-Type: forged", "text/plain\r\nX-Forged: 1", nil); err != nil {
		t.Fatal(err)
	}
	w.Close()
	for _, r := range readWARC(t, w.Files()[0]) {
		if r.fields["X-Forged"] != "" || r.fields["WARC-Type"] == "forged" {
			t.Errorf("a forged field: %v", r.fields)
		}
		if r.fields["WARC-Type"] == "resource" && r.fields["WARC-Target-URI"] != "ftp://h/a%0D%0AWARC-Type: forged" {
			t.Errorf("WARC-Target-URI %q", r.fields["WARC-Target-URI"])
		}
	}
}

// httpClient is a client with the http driver that may reach port.
func httpClient(port int) *fetch.Client {
	pol := &fetch.PortPolicy{}
	pol.Allow(port)
	c := fetch.NewClient(fetch.Options{Policy: pol})
	c.Register("http", fhttp.New(fhttp.Config{UserAgent: "fetch-test"}))
	return c
}
