//go:build integration

package integration

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
)

// The crawl tests (issue 18) crawl the harness's whole gopher hole on both
// servers and the FTP tree of vsftpd into a WARC with --recursive, read the
// WARC back with warcio, and check the documents against the files the
// servers serve; then a second crawl with the same log fetches nothing, and
// a crawl killed midway resumes to the same result.

// crawlSeeds are the roots the crawl starts from.
func crawlSeeds(t *testing.T) []string {
	return []string{
		"gopher://" + serverAddr(t, "FETCH_GOPHER_PYGOPHERD_ADDR") + "/",
		"gopher://" + serverAddr(t, "FETCH_GOPHER_GOPHERNICUS_ADDR") + "/",
		"ftp://" + serverAddr(t, "FETCH_FTP_VSFTPD_ADDR") + "/",
	}
}

// canonical is the crawl's de-duplication key of a URL.
func canonical(t *testing.T, raw string) string {
	t.Helper()
	reg := schemes.NewClient(fetch.Options{}, schemes.Config{}).Registry()
	u, err := reg.Parse(raw)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return reg.Key(u)
}

// servedDocuments maps the canonical URL of each document the crawl must
// find to the SHA-256 of the bytes its server sends: every file of the
// FTP tree, and the gopher documents whose source is in
// testdata/harness/gopher (gophernicus sends text with CR LF line ends).
func servedDocuments(t *testing.T) map[string]string {
	t.Helper()
	want := map[string]string{}
	ftpAddr := serverAddr(t, "FETCH_FTP_VSFTPD_ADDR")
	for _, f := range contentManifest(t) {
		want[canonical(t, "ftp://"+ftpAddr+"/"+escapePath(f.Path))] = f.SHA256
		if f.Path == "1k.bin" {
			// both holes serve it as binary.bin (integration/servers)
			for _, v := range []string{"FETCH_GOPHER_PYGOPHERD_ADDR", "FETCH_GOPHER_GOPHERNICUS_ADDR"} {
				want[canonical(t, "gopher://"+serverAddr(t, v)+"/9/binary.bin")] = f.SHA256
			}
		}
	}
	sum := func(b []byte) string { h := sha256.Sum256(b); return hex.EncodeToString(h[:]) }
	for _, h := range []struct{ env, dir string }{
		{"FETCH_GOPHER_PYGOPHERD_ADDR", "pygopherd"},
		{"FETCH_GOPHER_GOPHERNICUS_ADDR", "gophernicus"},
	} {
		for _, sel := range []string{"about.txt", "doc.txt", "menu/nested.txt", "menu/deeper/leaf.txt"} {
			b, err := os.ReadFile(filepath.Join("..", "testdata", "harness", "gopher", h.dir, sel))
			if err != nil {
				continue // not in this hole
			}
			if h.dir == "gophernicus" {
				b = bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n"))
			}
			want[canonical(t, "gopher://"+serverAddr(t, h.env)+"/0/"+sel)] = sum(b)
		}
	}
	return want
}

// gopherPlain drops a Gopher+ request's tail ("%09%09+"), so that a
// document pygopherd's Gopher+ menus list matches its plain URL.
func gopherPlain(raw string) string {
	if i := strings.Index(raw, "%09"); i > 0 && strings.HasPrefix(raw, "gopher:") {
		return raw[:i]
	}
	return raw
}

// crawlRecords reads the WARC files with warcio and returns the resource
// records by canonical URL (Gopher+ tails dropped), failing on a URL
// recorded twice.
func crawlRecords(t *testing.T, files ...string) map[string]warcioRecord {
	t.Helper()
	out := map[string]warcioRecord{}
	seen := map[string]bool{}
	for _, r := range readWithWarcio(t, files...) {
		if r.Type != "resource" {
			continue
		}
		if r.SHA1 != r.DeclaredPayload {
			t.Errorf("%s: payload digest %s, warcio computes %s", r.URI, r.DeclaredPayload, r.SHA1)
		}
		if k := canonical(t, r.URI); seen[k] {
			t.Errorf("%s recorded twice", r.URI)
		} else {
			seen[k] = true
		}
		out[canonical(t, gopherPlain(r.URI))] = r
	}
	return out
}

func checkServed(t *testing.T, recs map[string]warcioRecord) {
	t.Helper()
	for u, sum := range servedDocuments(t) {
		r, ok := recs[u]
		switch {
		case !ok:
			t.Errorf("%s: not in the WARC", u)
		case r.SHA256 != sum:
			t.Errorf("%s: payload SHA-256 %s, the server's file %s", u, r.SHA256, sum)
		}
	}
}

// crawlLog reads a crawl's log: URL → outcome lines, failing on a URL
// logged ok twice.
func crawlLog(t *testing.T, logs ...string) map[string]batchLogLine {
	t.Helper()
	out := map[string]batchLogLine{}
	for _, name := range logs {
		for _, l := range readBatchLog(t, name) {
			if prev, ok := out[l.URL]; ok && prev.Outcome == "ok" && l.Outcome == "ok" {
				t.Errorf("%s logged ok twice", l.URL)
			}
			out[l.URL] = l
		}
	}
	return out
}

// checkCrawl checks a finished crawl's logs and WARC files together: every
// URL logged ok once, every document recorded once with the bytes its
// server serves, each logged URL in the WARC. It returns the log by URL.
func checkCrawl(t *testing.T, logs, warcs []string) map[string]batchLogLine {
	t.Helper()
	logged := crawlLog(t, logs...)    // fails on a URL logged ok twice
	recs := crawlRecords(t, warcs...) // fails on a document recorded twice
	checkServed(t, recs)
	for u, l := range logged {
		if l.Outcome != "ok" {
			t.Errorf("%s: %s", u, l.Error)
		}
		if _, ok := recs[canonical(t, gopherPlain(u))]; !ok {
			t.Errorf("%s logged but not in the WARC", u)
		}
	}
	if len(recs) != len(logged) {
		t.Errorf("%d resource records, %d URLs logged", len(recs), len(logged))
	}
	return logged
}

func TestCrawlToWARC(t *testing.T) {
	wantServer(t, "pygopherd")
	wantServer(t, "gophernicus")
	wantServer(t, "vsftpd")
	dir := t.TempDir()
	args := append([]string{"-r", "--depth", "20", "-j", "4", "-q", "--output-dir", filepath.Join(dir, "out"),
		"--log", filepath.Join(dir, "crawl.log"), "--warc", filepath.Join(dir, "crawl.warc.gz")}, crawlSeeds(t)...)
	code, _, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("crawl: exit %d\n%s", code, stderr)
	}
	logged := checkCrawl(t, []string{filepath.Join(dir, "crawl.log")}, []string{filepath.Join(dir, "crawl.warc.gz")})
	recs := crawlRecords(t, filepath.Join(dir, "crawl.warc.gz"))
	// Never followed: the type 7 search of pygopherd's menu.
	for u := range logged {
		if strings.Contains(u, "/7/") {
			t.Errorf("a search was followed: %s", u)
		}
	}

	// Again with the same log: nothing is fetched, the WARC keeps its
	// records (and gains a warcinfo for the run).
	code, _, stderr = runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("second crawl: exit %d\n%s", code, stderr)
	}
	if again := crawlLog(t, filepath.Join(dir, "crawl.log")); len(again) != len(logged) || countLines(filepath.Join(dir, "crawl.log")) != len(logged) {
		t.Errorf("the second crawl logged %d lines more", countLines(filepath.Join(dir, "crawl.log"))-len(logged))
	}
	if n := len(crawlRecords(t, filepath.Join(dir, "crawl.warc.gz"))); n != len(recs) {
		t.Errorf("after the second crawl the WARC has %d resources, want %d", n, len(recs))
	}
}

// A crawl killed with SIGKILL midway and run again with the same log ends
// with every document once, as an uninterrupted crawl has it, and no
// temporary files.
func TestCrawlKilledResumes(t *testing.T) {
	wantServer(t, "pygopherd")
	wantServer(t, "gophernicus")
	wantServer(t, "vsftpd")
	dir := t.TempDir()
	logName := filepath.Join(dir, "crawl.log")
	warcName := filepath.Join(dir, "crawl.warc.gz")
	args := append([]string{"-r", "--depth", "20", "-j", "3", "-q", "--delay", "0.02", "--output-dir", filepath.Join(dir, "out"),
		"--log", logName, "--warc", warcName}, crawlSeeds(t)...)
	before := killAfterLogged(t, args, logName, 40)
	code, _, stderr := runCLI(t, "", args...)
	if code != 0 {
		t.Fatalf("resumed crawl: exit %d\n%s", code, stderr)
	}
	logged := checkCrawl(t, []string{logName}, []string{warcName})
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), ".fetch-part.") {
			t.Errorf("temporary file left: %s", p)
		}
		return nil
	})
	t.Logf("killed after %d of %d URLs", before, len(logged))
}

// A crawl of an FTP directory that logs in with a password, killed once
// the directory's listing is logged, resumes: the queued files carry the
// password (a listing's entries name the user alone), which the log and
// stderr never show.
func TestCrawlPasswordResumes(t *testing.T) {
	wantServer(t, "vsftpd")
	user, pass := harnessEnv(t, "FETCH_FTP_USER"), harnessEnv(t, "FETCH_FTP_PASS")
	dir := t.TempDir()
	logName := filepath.Join(dir, "crawl.log")
	out := filepath.Join(dir, "out")
	seed := "ftp://" + user + ":" + pass + "@" + serverAddr(t, "FETCH_FTP_VSFTPD_ADDR") + "/batch/"
	args := []string{"-r", "-j", "1", "-q", "--output-dir", out, "--log", logName, seed}
	// --delay holds the first file back after the listing, so the kill
	// lands between the two.
	before := killAfterLogged(t, append([]string{"--delay", "2"}, args...), logName, 1)
	code, _, stderr := runCLI(t, "", args...)
	lines := readBatchLog(t, logName)
	ok := 0
	for _, l := range lines {
		if l.Outcome == "ok" {
			ok++
		}
	}
	want := 1 // the listing
	for _, f := range contentManifest(t) {
		if strings.HasPrefix(f.Path, "batch/") {
			want++
		}
	}
	if code != 0 || ok != want || len(lines) != want {
		t.Errorf("resumed crawl: exit %d, %d of %d URLs ok, want %d (%d logged before the kill)\n%s", code, ok, len(lines), want, before, stderr)
	}
	if b, _ := os.ReadFile(logName); strings.Contains(string(b), pass) || strings.Contains(stderr, pass) {
		t.Errorf("the password reached the log or stderr")
	}
}

// killAfterLogged runs fetch with args, kills it with SIGKILL once its
// log holds n lines, and returns how many it held then.
func killAfterLogged(t *testing.T, args []string, logName string, n int) int {
	t.Helper()
	cmd := exec.Command(fetchBinary(t), args...)
	cmd.Env = append(os.Environ(), "FETCH_CONFIG=/dev/null")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(2 * time.Minute)
	for countLines(logName) < n && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	got := countLines(logName)
	if got < n {
		t.Fatalf("the crawl logged only %d lines in two minutes", got)
	}
	return got
}

// A crawl follows a news group to its articles and a Prospero directory
// tree to its files.
func TestCrawlNewsAndProspero(t *testing.T) {
	wantServer(t, "inn")
	wantServer(t, "prospero")
	dir := t.TempDir()
	t.Setenv("NNTPSERVER", serverAddr(t, "FETCH_NNTP_ADDR"))
	logName := filepath.Join(dir, "news.log")
	if code, _, stderr := runCLI(t, "", "-r", "-q", "--output-dir", dir, "--log", logName, "news:fetch.test.alpha"); code != 0 {
		t.Fatalf("news crawl: exit %d\n%s", code, stderr)
	}
	news := crawlLog(t, logName)
	for _, id := range []string{"alpha-1@fetch.test", "alpha-2-dots@fetch.test", "alpha-3-large@fetch.test", "alpha-4-utf8@fetch.test"} {
		if l, ok := news["news:"+id]; !ok || l.Outcome != "ok" {
			t.Errorf("article %s not fetched by the crawl: %+v", id, l)
		}
	}

	logName = filepath.Join(dir, "prospero.log")
	root := "prospero://" + serverAddr(t, "FETCH_PROSPERO_ADDR") + "//"
	if code, _, stderr := runCLI(t, "", "-r", "--depth", "20", "-q", "--output-dir", dir, "--log", logName, root); code != 0 {
		t.Fatalf("prospero crawl: exit %d\n%s", code, stderr)
	}
	got := map[string]string{}
	for u, l := range crawlLog(t, logName) {
		if l.Outcome != "ok" {
			t.Errorf("%s: %s", u, l.Error)
		}
		got[u] = l.SHA256
	}
	// prosperod's tree (integration/prosperod): files of the content
	// tree, and a directory "big" of 400 files filling many packets.
	for _, f := range contentManifest(t) {
		if f.Path != "hello.txt" && f.Path != "name with spaces.txt" && f.Path != "pub/data.bin" {
			continue
		}
		if sum, ok := got[root+escapePath(f.Path)]; !ok {
			t.Errorf("%s not fetched by the crawl", f.Path)
		} else if sum != f.SHA256 {
			t.Errorf("%s: SHA-256 %s, the served file's %s", f.Path, sum, f.SHA256)
		}
	}
	big := 0
	for u := range got {
		if strings.HasPrefix(u, root+"big/") {
			big++
		}
	}
	if big != 400 {
		t.Errorf("%d files of the directory big fetched, want 400", big)
	}
}
