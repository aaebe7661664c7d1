package main

import (
	"bytes"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch/fetchtest"
)

// TestWARCCommand runs --warc over a file that is read, one that is only
// described (--info: not read, so not recorded as complete) and an FTP
// URL with a password that fails to connect: the file holds warcinfo with
// the password masked, a resource and its metadata, then two metadata
// records saying why the others are not there.
func TestWARCCommand(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc.txt")
	os.WriteFile(doc, []byte("line one\r\nline two\r\n"), 0o644)
	_, port, _ := net.SplitHostPort(fetchtest.RefusedAddr(t)) // nothing answers there
	out := filepath.Join(dir, "run.warc.gz")
	ftpURL := "ftp://user:hunter2@127.0.0.1:" + port + "/f"
	code, _, stderr := runFetch(t, "", "--warc", out, "-q", "--allow-port", port, "-o", filepath.Join(dir, "copy"), "file://"+doc, ftpURL)
	if code == 0 {
		t.Fatalf("the FTP fetch did not fail: %s", stderr)
	}
	code, _, stderr = runFetch(t, "", "--warc", filepath.Join(dir, "info.warc.gz"), "--info", "file://"+doc)
	if code != 0 {
		t.Fatalf("--info: exit %d: %s", code, stderr)
	}

	all := members(t, out)
	if len(all) != 4 {
		t.Fatalf("%d records, want warcinfo, resource, metadata, metadata", len(all))
	}
	if !strings.Contains(all[0], "WARC-Type: warcinfo") || !strings.Contains(all[0], "ftp://user:****@127.0.0.1") {
		t.Errorf("warcinfo: %q", all[0])
	}
	if !strings.Contains(all[1], "WARC-Type: resource") || !strings.HasSuffix(all[1], "\r\n\r\nline one\r\nline two\r\n\r\n\r\n") {
		t.Errorf("resource not the raw file (CR LF kept): %q", all[1])
	}
	if !strings.Contains(all[2], "Content-Type: text/x-file-control-conversation") {
		t.Errorf("metadata: %q", all[2])
	}
	// The target is a URI without the password, not one with a
	// made-up password.
	if !strings.Contains(all[3], "WARC-Target-URI: ftp://user@127.0.0.1:") {
		t.Errorf("failure record's target: %q", all[3])
	}
	if !strings.Contains(all[3], "WARC-Type: metadata") || !strings.Contains(all[3], "* fetch failed: ") || !strings.Contains(all[3], "text/x-ftp-control-conversation") {
		t.Errorf("failure record: %q", all[3])
	}
	for _, r := range all {
		if strings.Contains(r, "hunter2") {
			t.Errorf("the password is in the WARC: %q", r)
		}
	}
	info := members(t, filepath.Join(dir, "info.warc.gz"))
	if len(info) != 2 || strings.Contains(info[1], "WARC-Type: resource") || !strings.Contains(info[1], "not read to its end") {
		t.Errorf("--info recorded %d records: %q", len(info), info)
	}
}

// members returns each gzip member of a file as text.
func members(t *testing.T, name string) []string {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	r := bytes.NewReader(b)
	var out []string
	for r.Len() > 0 {
		z, err := gzip.NewReader(r)
		if err != nil {
			t.Fatal(err)
		}
		z.Multistream(false)
		m, err := io.ReadAll(z)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(m))
	}
	return out
}

// A batch records every transfer in the one WARC, each resource whole with
// its conversation, and a failed URL as a failure record only.
func TestWARCBatch(t *testing.T) {
	dir := t.TempDir()
	var urls []string
	for i := range 6 {
		f := filepath.Join(dir, "doc"+strconv.Itoa(i)+".txt")
		os.WriteFile(f, []byte(strings.Repeat("document "+strconv.Itoa(i)+"\n", 200)), 0o644)
		urls = append(urls, "file://"+f)
	}
	urls = append(urls, "file://"+filepath.Join(dir, "missing.txt"))
	out := filepath.Join(dir, "batch.warc.gz")
	args := append([]string{"-q", "-j", "3", "-O", "--output-dir", filepath.Join(dir, "out"), "--warc", out}, urls...)
	code, _, stderr := runFetch(t, "", args...)
	if code != 6 {
		t.Fatalf("exit %d, want 6 for the missing file: %s", code, stderr)
	}
	resources, failures := map[string]bool{}, 0
	for _, r := range members(t, out)[1:] {
		switch {
		case strings.Contains(r, "WARC-Type: resource"):
			for i := range 6 {
				if strings.Contains(r, "doc"+strconv.Itoa(i)+".txt\r\n") && strings.HasSuffix(r, strings.Repeat("document "+strconv.Itoa(i)+"\n", 200)+"\r\n\r\n") {
					resources["doc"+strconv.Itoa(i)] = true
				}
			}
		case strings.Contains(r, "* fetch failed: "):
			failures++
		}
	}
	if len(resources) != 6 || failures != 1 {
		t.Errorf("%d whole resources of 6, %d failure records of 1", len(resources), failures)
	}
}

// docURL writes "document I" into dir/docI.txt and returns its file: URL.
func docURL(t *testing.T, dir string, i int) string {
	t.Helper()
	f := filepath.Join(dir, "doc"+strconv.Itoa(i)+".txt")
	if err := os.WriteFile(f, []byte("document "+strconv.Itoa(i)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return "file://" + f
}

// TestWARCResume: a batch rerun with the same --log keeps the first run's
// records and adds the second's (it does not empty the file it skips the
// URLs of).
func TestWARCResume(t *testing.T) {
	dir := t.TempDir()
	doc := func(i int) string { return docURL(t, dir, i) }
	out := filepath.Join(dir, "crawl.warc.gz")
	common := []string{"-q", "-O", "--output-dir", filepath.Join(dir, "out"), "--log", filepath.Join(dir, "log"), "--warc", out}
	if code, _, stderr := runFetch(t, "", append(common, doc(0), doc(1))...); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runFetch(t, "", append(common, doc(0), doc(1), doc(2))...); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	var types []string
	resources := 0
	for _, r := range members(t, out) {
		for _, ty := range []string{"warcinfo", "resource", "metadata"} {
			if strings.Contains(r, "WARC-Type: "+ty+"\r\n") {
				types = append(types, ty)
				if ty == "resource" {
					resources++
				}
			}
		}
	}
	if resources != 3 || types[0] != "warcinfo" || strings.Count(strings.Join(types, " "), "warcinfo") != 2 {
		t.Errorf("records %v: want both runs' warcinfo and three resources", types)
	}
}

// TestWARCNewLogKeepsRecords: a run with a new --log appends to an
// existing WARC file and cuts nothing of it, even records whose URLs its
// log does not hold (they are another run's).
func TestWARCNewLogKeepsRecords(t *testing.T) {
	dir := t.TempDir()
	doc := func(i int) string { return docURL(t, dir, i) }
	out := filepath.Join(dir, "mixed.warc.gz")
	if code, _, stderr := runFetch(t, "", "-q", "--warc", out, "-o", filepath.Join(dir, "first"), doc(0)); code != 0 {
		t.Fatalf("first run: exit %d: %s", code, stderr)
	}
	if code, _, stderr := runFetch(t, "", "-q", "-O", "--output-dir", filepath.Join(dir, "out"), "--log", filepath.Join(dir, "new.log"), "--warc", out, doc(1)); code != 0 {
		t.Fatalf("second run: exit %d: %s", code, stderr)
	}
	resources := 0
	for _, r := range members(t, out) {
		if strings.Contains(r, "WARC-Type: resource\r\n") {
			resources++
		}
	}
	if resources != 2 {
		t.Errorf("%d resource records, want both runs' 2", resources)
	}
}

// TestWARCKeepsNoCredentials: the request record of a fetch through an
// HTTP gateway with a password, and with -H credentials, keeps the
// headers' names and schemes but not the password or token, which did
// reach the gateway and the server.
func TestWARCKeepsNoCredentials(t *testing.T) {
	var proxyAuth, auth string
	proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proxyAuth, auth = r.Header.Get("Proxy-Authorization"), r.Header.Get("Authorization")
		io.WriteString(w, "via the gateway")
	}))
	defer proxy.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "p.warc.gz")
	gateway := strings.Replace(proxy.URL, "http://", "http://user:hunter2@", 1)
	code, _, stderr := runFetch(t, "", "-q", "--proxy", gateway, "-H", "Authorization: Bearer t0ken", "--warc", out, "-o", filepath.Join(dir, "doc"), "http://example.test/")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	if proxyAuth == "" || auth != "Bearer t0ken" {
		t.Fatalf("the gateway got Proxy-Authorization %q, Authorization %q", proxyAuth, auth)
	}
	secret := strings.TrimPrefix(proxyAuth, "Basic ")
	found := false
	for _, r := range members(t, out) {
		if strings.Contains(r, secret) || strings.Contains(r, "hunter2") || strings.Contains(r, "t0ken") {
			t.Errorf("a credential is in the WARC: %q", r)
		}
		found = found || strings.Contains(r, "Proxy-Authorization: Basic ****\r\n") && strings.Contains(r, "Authorization: Bearer ****\r\n")
	}
	if !found {
		t.Error("no request record with the masked headers")
	}
}

// TestMaskedCommandLineHeaders: the warcinfo record's command line keeps
// every -H header's name, and of a credential header's value at most the
// scheme word of an Authorization ("Bearer ****"); other values stay.
func TestMaskedCommandLineHeaders(t *testing.T) {
	got := maskedCommandLine([]string{
		"-H", "Authorization: Bearer t0ken", "-H", "Authorization: s3cret", "-H", "Cookie: session=c00kie",
		"--header=X-Api-Key: k3y", "-H", "x-auth-token: abc d3f", "-H", "Accept-Language: en",
		"http://example.test/",
	})
	for _, secret := range []string{"t0ken", "s3cret", "c00kie", "k3y", "d3f", "abc"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q is in the command line %q", secret, got)
		}
	}
	want := "fetch -H Authorization: Bearer **** -H Authorization: **** -H Cookie: **** --header=X-Api-Key: **** -H x-auth-token: **** -H Accept-Language: en http://example.test/"
	if got != want {
		t.Errorf("command line\n%q, want\n%q", got, want)
	}
}

// TestWARCResumeKeepsRedirect: the last URL of a batch redirected; a rerun
// with the same --log fetches nothing and must keep that URL's records
// (each hop's records name the hop, the log names the URL asked for).
func TestWARCResumeKeepsRedirect(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/start" {
			http.Redirect(w, r, "/end", http.StatusMovedPermanently)
			return
		}
		io.WriteString(w, "landed\n")
	}))
	defer srv.Close()
	dir := t.TempDir()
	out := filepath.Join(dir, "redirect.warc.gz")
	args := []string{"-q", "-O", "--output-dir", filepath.Join(dir, "out"), "--log", filepath.Join(dir, "log"), "--warc", out, srv.URL + "/start"}
	responses := func() []string {
		var got []string
		for _, r := range members(t, out) {
			if strings.Contains(r, "WARC-Type: response\r\n") {
				_, u, _ := strings.Cut(r, "WARC-Target-URI: "+srv.URL)
				u, _, _ = strings.Cut(u, "\r\n")
				got = append(got, u)
			}
		}
		return got
	}
	for run := 1; run <= 2; run++ {
		if code, _, stderr := runFetch(t, "", args...); code != 0 {
			t.Fatalf("run %d: exit %d: %s", run, code, stderr)
		}
		if got := strings.Join(responses(), " "); got != "/start /end" {
			t.Errorf("after run %d: responses for %q, want the two hops /start /end", run, got)
		}
	}
}

// TestWARCFlagErrors: --warc-max-size without --warc is a usage error
// (it was ignored), and a --warc file that cannot be created is named as
// --warc's.
func TestWARCFlagErrors(t *testing.T) {
	u := fileURL(t, "doc.txt", "doc\n")
	code, out, e := runFetch(t, "", "--warc-max-size", "1M", u)
	if code != 2 || out != "" || !strings.Contains(e, "--warc-max-size goes with --warc") {
		t.Errorf("--warc-max-size alone: exit %d, %q %q", code, out, e)
	}
	dir := t.TempDir()
	code, out, e = runFetch(t, "", "-O", "--output-dir", dir, "--warc-max-size", "1M", u)
	if code != 2 || !strings.Contains(e, "--warc-max-size goes with --warc") {
		t.Errorf("--warc-max-size alone in a batch: exit %d, %q %q", code, out, e)
	}
	for _, args := range [][]string{{u}, {"-O", "--output-dir", dir, u}} {
		code, out, e = runFetch(t, "", append([]string{"--warc", dir}, args...)...)
		if code != 7 || out != "" || !strings.HasPrefix(e, "fetch: --warc: ") {
			t.Errorf("--warc DIR %v: exit %d, %q %q", args, code, out, e)
		}
	}
}
