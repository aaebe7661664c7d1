//go:build integration

package integration

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/nntp"
)

// warcioVersion is the independent WARC reader the files are proved with.
const warcioVersion = "2.4.11"

// warcReader installs warcio (npm) once into the user's cache, beside a
// copy of warcread.mjs, and returns the script's path. A machine without
// it gets it here, so the test needs only node and npm.
func warcReader(t *testing.T) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		cache = os.TempDir()
	}
	dir := filepath.Join(cache, "fetch-tests", "warcio-"+warcioVersion)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "warcio", "package.json")); err != nil {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, "package.json"), []byte(`{"private":true,"type":"module"}`+"\n"), 0o644)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, "npm", "install", "--no-audit", "--no-fund", "--prefix", dir, "warcio@"+warcioVersion)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("npm install warcio@%s: %v\n%s", warcioVersion, err, out)
		}
	}
	src, err := os.ReadFile("warcread.mjs")
	if err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "warcread.mjs")
	if err := os.WriteFile(script, src, 0o644); err != nil {
		t.Fatal(err)
	}
	return script
}

// warcioRecord is one line of warcread.mjs's output.
type warcioRecord struct {
	File, Type, URI, ID, IP, Text string
	ConcurrentTo                  string `json:"concurrentTo"`
	ContentType                   string `json:"contentType"`
	DeclaredPayload               string `json:"declaredPayload"`
	DeclaredBlock                 string `json:"declaredBlock"`
	SHA1                          string `json:"sha1"`
	SHA256                        string `json:"sha256"`
	Length                        int64
}

func readWithWarcio(t *testing.T, files ...string) []warcioRecord {
	t.Helper()
	out, err := exec.Command("node", append([]string{warcReader(t)}, files...)...).Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("warcio: %v\n%s", err, stderr)
	}
	var recs []warcioRecord
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var r warcioRecord
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatalf("warcio output %q: %v", l, err)
		}
		recs = append(recs, r)
	}
	return recs
}

// gzipMembers counts the gzip members of a file: one per record.
func gzipMembers(t *testing.T, name string) int {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	n := 0
	for {
		if _, err := br.Peek(1); err == io.EOF {
			return n
		}
		z, err := gzip.NewReader(br)
		if err != nil {
			t.Fatalf("member %d: %v", n, err)
		}
		z.Multistream(false)
		if _, err := io.Copy(io.Discard, z); err != nil {
			t.Fatalf("member %d: %v", n, err)
		}
		n++
	}
}

func fileSHA(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestWARCEveryScheme runs "fetch --warc" over documents and listings of
// every harness server and reads the file back with warcio: one response
// (HTTP) or resource record per URL, in order, whose payload has the
// SHA-256 of what the server serves; every declared digest matching;
// each request or metadata record linked to it; the 100 MiB document
// recorded by a process of bounded size.
func TestWARCEveryScheme(t *testing.T) {
	for _, s := range []string{"nginx", "vsftpd", "pygopherd", "gophernicus", "inn", "wais", "prospero"} {
		wantServer(t, s)
	}
	content := harnessEnv(t, "FETCH_CONTENT_DIR")
	sums := map[string]string{}
	for _, f := range contentManifest(t) {
		sums[f.Path] = f.SHA256
	}
	httpAddr := serverAddr(t, "FETCH_HTTP_ADDR")
	ftpAddr := serverAddr(t, "FETCH_FTP_VSFTPD_ADDR")
	pyg := serverAddr(t, "FETCH_GOPHER_PYGOPHERD_ADDR")
	gnx := serverAddr(t, "FETCH_GOPHER_GOPHERNICUS_ADDR")
	prosp := serverAddr(t, "FETCH_PROSPERO_ADDR")
	t.Setenv("NNTPSERVER", serverAddr(t, "FETCH_NNTP_ADDR"))

	// The article as INN sends it, dot-stuffing undone, CR LF kept.
	stored := func(id string) string {
		_, raw, err := newsGetRaw(t, newsClient(t, nntp.Config{}, fetch.Options{}), "news:"+id, true)
		if err != nil {
			t.Fatal(err)
		}
		b := bytes.TrimSuffix(raw, []byte(".\r\n"))
		b = bytes.ReplaceAll(b, []byte("\r\n.."), []byte("\r\n."))
		s := sha256.Sum256(b)
		return hex.EncodeToString(s[:])
	}
	// A WAIS document found by a search.
	waisSums := waisCollection(t)
	wl := waisSearch(t, gopherClient(fetch.Options{}), "wais://"+serverAddr(t, "FETCH_WAIS_ADDR")+"/fetch-test?hello+document")
	waisDoc, _, _ := strings.Cut(wl.Entries[0].Name, "   ")

	type item struct {
		url, sha string
		contains string // for listings: a name the raw listing holds
	}
	items := []item{
		{url: "http://" + httpAddr + "/hello.txt", sha: sums["hello.txt"]},
		{url: "http://" + httpAddr + "/pub/data.bin", sha: sums["pub/data.bin"]},
		{url: "ftp://" + ftpAddr + "/1m.bin", sha: sums["1m.bin"]},
		{url: "ftp://" + ftpAddr + "/name%20with%20spaces.txt", sha: sums["name with spaces.txt"]},
		{url: "ftp://" + ftpAddr + "/pub/", contains: "data.bin"},
		{url: "gopher://" + pyg + "/0/about.txt%09%09+", sha: fileSHA(t, "../testdata/harness/gopher/pygopherd/about.txt")},
		{url: "gopher://" + pyg + "/1/", contains: "about.txt"},
		// gophernicus sends its text files in CR LF: the raw bytes are
		// checked on a binary item, the content tree's 1k.bin.
		{url: "gopher://" + gnx + "/9/binary.bin", sha: sums["1k.bin"]},
		{url: "gopher://" + gnx + "/1/", contains: "about.txt"},
		{url: "news:alpha-3-large@fetch.test", sha: stored("alpha-3-large@fetch.test")},
		{url: "file://" + filepath.ToSlash(content) + "/hello.txt", sha: sums["hello.txt"]},
		{url: wl.Entries[0].URL, sha: waisSums[waisDoc]},
		{url: "prospero://" + prosp + "//hello.txt", sha: sums["hello.txt"]},
		{url: "prospero://" + prosp + "//pub/data.bin", sha: sums["pub/data.bin"]},
		// Listings built from a protocol's lines or messages, recorded
		// raw: an overview (OVER), the active list (LIST ACTIVE), a WAIS
		// search's response message, a file: directory's names.
		{url: "news:fetch.test.alpha", contains: "alpha-3-large@fetch.test"},
		{url: "news:*", contains: "fetch.test.alpha "},
		{url: "wais://" + serverAddr(t, "FETCH_WAIS_ADDR") + "/fetch-test?hello+document", contains: "fetch-test"},
		{url: "file://" + filepath.ToSlash(content) + "/pub/", contains: "data.bin\n"},
		{url: "http://" + httpAddr + "/100m.bin", sha: sums["100m.bin"]},
	}

	dir := t.TempDir()
	out := filepath.Join(dir, "all.warc.gz")
	args := []string{"--warc", out, "-q"}
	for i, it := range items {
		args = append(args, "-o", filepath.Join(dir, "out", string(rune('a'+i))), it.url)
	}
	os.Mkdir(filepath.Join(dir, "out"), 0o755)
	// Through rsswrap: a child of this (-race, large) test binary would
	// report the test binary's own resident high-water mark as its own.
	fetchBin := fetchBinary(t)
	cmd := exec.Command(filepath.Join(filepath.Dir(fetchBin), "rsswrap"), append([]string{fetchBin}, args...)...)
	cmd.Env = append(os.Environ(), "FETCH_CONFIG=/dev/null")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("fetch --warc: %v\n%s", err, stderr.String())
	}
	// 100 MiB went through the spool: the process stayed far smaller.
	_, tail, ok := strings.Cut(stderr.String(), "rsswrap: maxrss ")
	rss, err := strconv.ParseInt(strings.TrimSpace(tail), 10, 64)
	if !ok || err != nil {
		t.Fatalf("no maximum resident set reported: %q", stderr.String())
	}
	if rss > 64<<20 {
		t.Errorf("fetch --warc reached %d KiB of memory recording a 100 MiB document", rss>>10)
	}

	recs := readWithWarcio(t, out)
	if n := gzipMembers(t, out); n != len(recs) {
		t.Errorf("the file has %d gzip members, warcio read %d records", n, len(recs))
	}
	for _, r := range recs {
		if r.DeclaredPayload != "" && r.DeclaredPayload != r.SHA1 {
			t.Errorf("%s %s: payload digest %s, warcio's payload has %s", r.Type, r.URI, r.DeclaredPayload, r.SHA1)
		}
		if !strings.HasPrefix(r.ContentType, "application/http") && r.DeclaredBlock != r.SHA1 {
			t.Errorf("%s %s: block digest %s, the block has %s", r.Type, r.URI, r.DeclaredBlock, r.SHA1)
		}
	}
	if len(recs) == 0 || recs[0].Type != "warcinfo" || !strings.Contains(recs[0].Text, "command-line: fetch --warc") {
		t.Fatalf("no warcinfo record first")
	}
	i := 1
	for _, it := range items {
		if i+1 >= len(recs) {
			t.Fatalf("%s: no records (only %d in the file)", it.url, len(recs))
		}
		main, link := recs[i], recs[i+1]
		i += 2
		want, wantLink := "resource", "metadata"
		if strings.HasPrefix(it.url, "http:") {
			want, wantLink = "response", "request"
		}
		if main.Type != want || link.Type != wantLink {
			t.Errorf("%s: records %s, %s; want %s, %s (%s)", it.url, main.Type, link.Type, want, wantLink, link.Text)
			continue
		}
		if link.ConcurrentTo != main.ID || link.URI != main.URI {
			t.Errorf("%s: the %s record is not linked to %s", it.url, link.Type, main.ID)
		}
		if eq, err := fetch.Equal(main.URI, it.url); err != nil || !eq && !strings.HasPrefix(it.url, "prospero:") && !strings.HasPrefix(it.url, "gopher:") {
			t.Errorf("%s: WARC-Target-URI %s", it.url, main.URI)
		}
		if !strings.HasPrefix(it.url, "file:") && main.IP == "" {
			t.Errorf("%s: no WARC-IP-Address", it.url)
		}
		if want == "resource" && link.ContentType != "text/x-"+strings.SplitN(main.URI, ":", 2)[0]+"-control-conversation" {
			t.Errorf("%s: metadata Content-Type %q", it.url, link.ContentType)
		}
		switch {
		case it.sha != "" && main.SHA256 != it.sha:
			t.Errorf("%s: payload SHA-256 %s (%d bytes), the served file's %s", it.url, main.SHA256, main.Length, it.sha)
		case it.contains != "" && !strings.Contains(main.Text, it.contains):
			t.Errorf("%s: raw listing without %q: %q", it.url, it.contains, main.Text)
		}
	}
	if i != len(recs) {
		t.Errorf("%d records, want %d", len(recs), i)
	}
}

// TestWARCUncompressed: "--warc NAME.warc" writes the records as they
// are, no gzip member among them, and warcio reads them: one response or
// resource record a URL, in order, its payload the served bytes, every
// declared digest matching. A batch that resumes with its log appends to
// the same file, which warcio still reads whole.
func TestWARCUncompressed(t *testing.T) {
	for _, s := range []string{"nginx", "vsftpd", "pygopherd"} {
		wantServer(t, s)
	}
	httpAddr := serverAddr(t, "FETCH_HTTP_ADDR")
	ftpAddr := serverAddr(t, "FETCH_FTP_VSFTPD_ADDR")
	pyg := serverAddr(t, "FETCH_GOPHER_PYGOPHERD_ADDR")
	first := []string{"http://" + httpAddr + "/hello.txt", "ftp://" + ftpAddr + "/1m.bin"}
	second := []string{"gopher://" + pyg + "/1/", "http://" + httpAddr + "/pub/data.bin"}
	want := map[string]string{first[0]: contentSHA(t, "hello.txt"), first[1]: contentSHA(t, "1m.bin"), second[1]: contentSHA(t, "pub/data.bin")}

	dir := t.TempDir()
	out := filepath.Join(dir, "batch.warc")
	logName := filepath.Join(dir, "log")
	run := func(urls []string) {
		t.Helper()
		list := filepath.Join(dir, "list")
		os.WriteFile(list, []byte(strings.Join(urls, "\n")+"\n"), 0o644)
		cmd := exec.Command(fetchBinary(t), "--warc", out, "--log", logName, "-q", "-o", "{scheme}/{path}", "--output-dir", filepath.Join(dir, "out"), "-i", list)
		cmd.Env = append(os.Environ(), "FETCH_CONFIG=/dev/null")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("fetch --warc %s: %v\n%s", out, err, b)
		}
	}
	run(first)
	run(append(append([]string{}, first...), second...)) // the first two are done: only the others are fetched

	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b, []byte("WARC/1.1\r\n")) || bytes.Contains(b, []byte{0x1f, 0x8b, 0x08}) {
		t.Fatalf("%s is not an uncompressed WARC file (it starts %q)", out, b[:min(len(b), 16)])
	}
	recs := readWithWarcio(t, out)
	var mains []warcioRecord
	infos := 0
	for _, r := range recs {
		if r.DeclaredPayload != "" && r.DeclaredPayload != r.SHA1 {
			t.Errorf("%s %s: payload digest %s, warcio's payload has %s", r.Type, r.URI, r.DeclaredPayload, r.SHA1)
		}
		switch r.Type {
		case "warcinfo":
			infos++
		case "response", "resource":
			mains = append(mains, r)
		}
	}
	if infos != 2 || len(mains) != 4 {
		// each run opens its part with a warcinfo record
		t.Fatalf("%d warcinfo and %d response or resource records, want 2 and 4 (the resumed batch appends)", infos, len(mains))
	}
	for i, u := range append(append([]string{}, first...), second...) {
		if eq, err := fetch.Equal(mains[i].URI, u); err != nil || !eq && !strings.HasPrefix(u, "gopher:") {
			t.Errorf("record %d: WARC-Target-URI %s, want %s", i, mains[i].URI, u)
		}
		switch sha, doc := want[u]; {
		case doc && mains[i].SHA256 != sha:
			t.Errorf("%s: payload SHA-256 %s, the served file's %s", u, mains[i].SHA256, sha)
		case !doc && !strings.Contains(mains[i].Text, "about.txt"):
			t.Errorf("%s: raw menu without about.txt: %q", u, mains[i].Text)
		}
	}
}
