package main

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
	"github.com/fetchproject/fetch/schemes/gopher"
)

// TestCrawlMaxURLsCountsOnlyNewLinks: --max-urls counts new URLs only.
// A listing's links were cut to the room left before de-duplication, so
// links already seen (a menu's link back to its parent, a seed listed
// again) used up the room and new links were dropped as "over
// --max-urls" although fewer URLs than the bound were queued.
func TestCrawlMaxURLsCountsOnlyNewLinks(t *testing.T) {
	src := t.TempDir()
	for i := range 10 {
		if err := os.WriteFile(filepath.Join(src, fmt.Sprintf("f%d", i)), []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out := t.TempDir()
	logName := filepath.Join(out, "log")
	args := []string{"-r", "--max-urls", "5", "-j", "1", "--output-dir", out, "--log", logName, "-q",
		"file://" + src + "/", "file://" + src + "/f0", "file://" + src + "/f1"}
	if code, _, stderr := runFetch(t, "", args...); code != 0 {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	if _, all := readLog(t, logName); len(all) != 5 {
		var urls []string
		for _, l := range all {
			urls = append(urls, l.URL)
		}
		t.Errorf("--max-urls 5 with 10 files to find: %d URLs logged, want 5: %v", len(all), urls)
	}
}

// TestCrawlSpanHostsKeepsToRemoteSchemes: a link to a scheme that names
// a local file, a message or a session (a Direct scheme) is followed only
// from a listing of its own scheme (a file: directory's entries). With
// --span-hosts, a gopher server's "h" item URL:file:///... made the
// crawler copy this machine's files into its output and WARC,
// URL:mailto:... sent mail (with an SMTP server configured) and
// URL:telnet://... opened sessions.
func TestCrawlSpanHostsKeepsToRemoteSchemes(t *testing.T) {
	reg := schemes.Registry()
	menu := "hSecrets\tURL:file:///etc/passwd\tgopher.example\t70\r\n" +
		"hMail\tURL:mailto:someone@example.org\tgopher.example\t70\r\n" +
		"hSession\tURL:telnet://bbs.example/\tgopher.example\t70\r\n" +
		"hLogin\tURL:rlogin://bbs.example/\tgopher.example\t70\r\n" +
		"hWeb\tURL:http://www.example.org/\tgopher.example\t70\r\n" +
		"0Doc\t/doc.txt\tother.example\t70\r\n.\r\n"
	l, err := gopher.ParseMenu(strings.NewReader(menu), "gopher.example", 70)
	if err != nil {
		t.Fatal(err)
	}
	parent, err := reg.Parse("gopher://gopher.example/1/")
	if err != nil {
		t.Fatal(err)
	}
	var queued []string
	lk := &links{s: newScope(&crawlOptions{depth: 5, spanHosts: true}, reg), parent: parent}
	for l.Next() {
		lk.visit(l.Entry())
	}
	for _, f := range lk.found {
		queued = append(queued, f.URL)
	}
	want := []string{"http://www.example.org/", "gopher://other.example/0/doc.txt"}
	if strings.Join(queued, " ") != strings.Join(want, " ") {
		t.Errorf("--span-hosts queued %q, want only %q", queued, want)
	}
	// A file: directory's own entries are still followed.
	dir, err := reg.Parse("file:///srv/")
	if err != nil {
		t.Fatal(err)
	}
	lk = &links{s: newScope(&crawlOptions{depth: 5, spanHosts: true}, reg), parent: dir}
	lk.visit(fetch.Entry{URL: "file:///srv/a.txt", Kind: fetch.EntryFile})
	if len(lk.found) != 1 {
		t.Errorf("a file: directory's entry was not followed")
	}
}

// TestCrawlSkipsGopherPlusForms: a Gopher+ item with a "?" form (an +ASK
// item, EntryForm) is not followed whatever its type: fetching it asks
// its questions (a prompt in the middle of a crawl, or a failure).
func TestCrawlSkipsGopherPlusForms(t *testing.T) {
	reg := schemes.Registry()
	menu := "0Ask me\t/ask\tgopher.example\t70\t?\r\n" +
		"0Plain\t/doc\tgopher.example\t70\t+\r\n.\r\n"
	l, err := gopher.ParseMenu(strings.NewReader(menu), "gopher.example", 70)
	if err != nil {
		t.Fatal(err)
	}
	s := newScope(&crawlOptions{depth: 5}, reg)
	var followed []string
	for l.Next() {
		if e := l.Entry(); s.follows(e) {
			followed = append(followed, e.Name+" ("+string(e.Kind)+")")
		}
	}
	if len(followed) != 1 || followed[0] != "Plain (file)" {
		t.Errorf("followed %q, want only the plain document", followed)
	}
}

// serveGopher serves menus and documents by selector on loopback until
// the test ends (pages gets the server's port, for its menus), and counts
// the requests for each selector.
func serveGopher(t *testing.T, pages func(port int) map[string]string) (port int, hits func(sel string) int) {
	var mu sync.Mutex
	count := map[string]int{}
	var content map[string]string
	addr := serveTCP(t, func(c net.Conn) {
		line, err := bufio.NewReader(c).ReadString('\n')
		if err != nil {
			return
		}
		sel := strings.TrimRight(line, "\r\n")
		mu.Lock()
		count[sel]++
		body, ok := content[sel]
		mu.Unlock()
		if !ok {
			body = "3not found\t\terror.host\t1\r\n.\r\n"
		}
		io.WriteString(c, body)
	})
	_, p, _ := net.SplitHostPort(addr)
	port, _ = strconv.Atoi(p)
	mu.Lock()
	content = pages(port)
	mu.Unlock()
	return port, func(sel string) int {
		mu.Lock()
		defer mu.Unlock()
		return count[sel]
	}
}

// TestCrawlGopherRootOnce: gopher://host/ and gopher://host/1 are one URL
// (RFC 1738 §3.4: an empty gopher path is type 1, selector empty). The
// crawl's seen set told them apart, so a hole whose menus link "Home"
// (type 1, empty selector) had its root menu fetched, written and
// archived twice.
func TestCrawlGopherRootOnce(t *testing.T) {
	port, hits := serveGopher(t, func(port int) map[string]string {
		return map[string]string{
			"":     fmt.Sprintf("1Home\t\t127.0.0.1\t%d\r\n0Doc\t/doc\t127.0.0.1\t%d\r\n.\r\n", port, port),
			"/doc": "hello\r\n",
		}
	})
	out := t.TempDir()
	logName := filepath.Join(out, "log")
	code, _, stderr := runFetch(t, "", "-r", "-j", "1", "--output-dir", out, "--log", logName, "-q",
		"--warc", filepath.Join(out, "a.warc"), fmt.Sprintf("gopher://127.0.0.1:%d/", port))
	if code != 0 {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	_, all := readLog(t, logName)
	if len(all) != 2 || hits("") != 1 {
		var urls []string
		for _, l := range all {
			urls = append(urls, l.URL)
		}
		t.Errorf("the root menu was asked for %d times; %d URLs logged, want 2: %v", hits(""), len(all), urls)
	}
}

// TestLinksCarryParentPassword: a listing's entries never carry the
// password (an FTP driver keeps it for its own process), so a link queued
// from a listing that logged in with one gets it when it names the same
// login: a resumed crawl (which skips the listing, done) or another worker
// of a shared queue could not log in otherwise.
func TestLinksCarryParentPassword(t *testing.T) {
	reg := schemes.Registry()
	parent, err := reg.Parse("ftp://joe:s3cret@h.example:2121/pub/")
	if err != nil {
		t.Fatal(err)
	}
	l := &links{s: newScope(&crawlOptions{depth: 5}, reg), parent: parent}
	for link, want := range map[string]string{
		"ftp://joe@h.example:2121/pub/a":       "ftp://joe:s3cret@h.example:2121/pub/a",
		"ftp://joe@H.EXAMPLE:2121/pub/b":       "ftp://joe:s3cret@h.example:2121/pub/b",
		"ftp://joe:other@h.example:2121/pub/c": "ftp://joe:other@h.example:2121/pub/c", // its own
		"ftp://ann@h.example:2121/pub/d":       "ftp://ann@h.example:2121/pub/d",       // another login
		"ftp://joe@h.example/pub/e":            "ftp://joe@h.example/pub/e",            // another port
		"ftp://joe@g.example:2121/pub/f":       "ftp://joe@g.example:2121/pub/f",       // another host
		"ftp://h.example:2121/pub/g":           "ftp://h.example:2121/pub/g",           // anonymous
	} {
		if got := l.withPassword(link); got != want {
			t.Errorf("withPassword(%q) = %q, want %q", link, got, want)
		}
	}
	anon, _ := reg.Parse("ftp://joe@h.example:2121/pub/")
	l = &links{s: newScope(&crawlOptions{depth: 5}, reg), parent: anon}
	if got := l.withPassword("ftp://joe@h.example:2121/pub/a"); got != "ftp://joe@h.example:2121/pub/a" {
		t.Errorf("a parent without a password gave %q", got)
	}
}

// TestCrawlFragmentOnce: a fragment is never sent to a server (RFC 1630),
// so links that differ only in it name one document. A menu linking
// "doc#x", "doc#y" and "doc" had the document fetched, written and logged
// three times; a seed with a fragment and a menu's link to it without one,
// twice. A gopher selector's "#" is data (a menu writes it as %23): that
// document is fetched with it.
func TestCrawlFragmentOnce(t *testing.T) {
	port, hits := serveGopher(t, func(port int) map[string]string {
		doc := fmt.Sprintf("gopher://127.0.0.1:%d/0/doc", port)
		return map[string]string{
			"": fmt.Sprintf("1Home\t\t127.0.0.1\t%d\r\n", port) +
				fmt.Sprintf("hPart x\tURL:%s#x\t127.0.0.1\t%d\r\n", doc, port) +
				fmt.Sprintf("hPart y\tURL:%s#y\t127.0.0.1\t%d\r\n", doc, port) +
				fmt.Sprintf("0Whole\t/doc\t127.0.0.1\t%d\r\n", port) +
				fmt.Sprintf("0Hash\t/a#b\t127.0.0.1\t%d\r\n.\r\n", port),
			"/doc": "hello\r\n",
			"/a#b": "a selector with a hash\r\n",
		}
	})
	out := t.TempDir()
	logName := filepath.Join(out, "log")
	code, _, stderr := runFetch(t, "", "-r", "-j", "2", "--output-dir", out, "--log", logName, "-q",
		fmt.Sprintf("gopher://127.0.0.1:%d/#top", port))
	if code != 0 {
		t.Fatalf("exit %d, %s", code, stderr)
	}
	_, all := readLog(t, logName)
	var urls []string
	for _, l := range all {
		urls = append(urls, l.URL)
		if strings.Contains(l.URL, "#") && !strings.HasSuffix(l.URL, "/#top") {
			t.Errorf("a link was queued with its fragment: %s", l.URL)
		}
	}
	if hits("") != 1 || hits("/doc") != 1 || hits("/a#b") != 1 || len(all) != 3 {
		t.Errorf("the menu was asked for %d times, the document %d, the selector with a hash %d; %d URLs logged, want 1, 1, 1 and 3: %v",
			hits(""), hits("/doc"), hits("/a#b"), len(all), urls)
	}
}
