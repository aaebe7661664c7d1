//go:build integration

package integration

// The prospero driver against the harness's Prospero server
// (integration/prosperod, started by integration/servers/prospero.sh),
// whose objects are reached through vsftpd (AFTP methods, paths relative
// to the anonymous root, which is the content tree) and pygopherd (GOPHER
// methods).

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	"github.com/fetchproject/fetch/schemes"
)

func prosperoClient() *fetch.Client {
	return schemes.NewClient(fetch.Options{IdleTimeout: 20 * time.Second}, schemes.Config{})
}

// contentSHA is the SHA-256 of a file of the content tree.
func contentSHA(t *testing.T, name string) string {
	t.Helper()
	for _, f := range contentManifest(t) {
		if f.Path == name {
			return f.SHA256
		}
	}
	t.Fatalf("%s is not in the content manifest", name)
	return ""
}

// TestProsperoAFTP: a prospero URL resolves to the FTP file the server
// names and fetches it byte-identical to the content tree.
func TestProsperoAFTP(t *testing.T) {
	wantServer(t, "prospero")
	wantServer(t, "vsftpd")
	addr := serverAddr(t, "FETCH_PROSPERO_ADDR")
	c := prosperoClient()
	for hso, file := range map[string]string{
		"//hello.txt":                "hello.txt",
		"//1m.bin":                   "1m.bin",
		"//pub/data.bin":             "pub/data.bin",
		"//name%20with%20spaces.txt": "name with spaces.txt",
		"//semi%3Bcolon.txt":         "semi;colon.txt",
		"//prefer-aftp.txt":          "hello.txt", // an AFS method first: skipped
		"//moved.txt":                "hello.txt", // FORWARDED
		"//ftp-area/hello.txt":       "hello.txt", // AFTP after PROSPERO-CONTENTS and LOCAL
	} {
		u := "prospero://" + addr + hso
		if got, want := fetchSHA(t, c, u), contentSHA(t, file); got != want {
			t.Errorf("%s: SHA-256 %s, want %s (%s)", u, got, want, file)
		}
	}
}

// TestProsperoInfo: the document's metadata lists every access method,
// the chosen AFTP one marked, before anything is fetched.
func TestProsperoInfo(t *testing.T) {
	wantServer(t, "prospero")
	addr := serverAddr(t, "FETCH_PROSPERO_ADDR")
	res, err := prosperoClient().Fetch(context.Background(), "prospero://"+addr+"//hello.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	m := res.Document.Meta
	ftp := "ftp://127.0.0.1:18021/hello.txt;type=i"
	if m["prospero.chosen"] != "AFTP "+ftp || !strings.HasSuffix(m["prospero.method.01"], ftp+" [chosen]") ||
		!strings.HasPrefix(m["prospero.method.02"], "PROSPERO-CONTENTS") || !strings.HasPrefix(m["prospero.method.03"], "LOCAL") {
		t.Errorf("meta %v", m)
	}
}

// TestProsperoGopher: an object whose method is GOPHER (type and
// selector in one field, quoted from its "/") comes from pygopherd.
func TestProsperoGopher(t *testing.T) {
	wantServer(t, "prospero")
	wantServer(t, "pygopherd")
	addr := serverAddr(t, "FETCH_PROSPERO_ADDR")
	want, err := os.ReadFile("../testdata/harness/gopher/pygopherd/doc.txt")
	if err != nil {
		t.Fatal(err)
	}
	u := "prospero://" + addr + "//gopher/doc.txt"
	if got := fetchSHA(t, prosperoClient(), u); got != sum(want) {
		t.Errorf("%s: SHA-256 %s, want that of doc.txt", u, got)
	}
}

// TestProsperoContents: an object offered only through PROSPERO-CONTENTS
// (and LOCAL) is read through Prospero's CONTENTS attribute.
func TestProsperoContents(t *testing.T) {
	wantServer(t, "prospero")
	addr := serverAddr(t, "FETCH_PROSPERO_ADDR")
	u := "prospero://" + addr + "//contents-only.txt"
	if got, want := fetchSHA(t, prosperoClient(), u), contentSHA(t, "hello.txt"); got != want {
		t.Errorf("%s: SHA-256 %s, want %s", u, got, want)
	}
}

// TestProsperoListing: directories list as prospero:// entries, EXTERNAL
// links as the URL of their cached method; a 400-link directory spans
// several 16-packet windows; the entries fetch.
func TestProsperoListing(t *testing.T) {
	wantServer(t, "prospero")
	wantServer(t, "vsftpd")
	addr := serverAddr(t, "FETCH_PROSPERO_ADDR")
	c := prosperoClient()
	list := func(hso string) map[string]fetch.Entry {
		t.Helper()
		u := "prospero://" + addr + hso
		res, err := c.Fetch(context.Background(), u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if res.Listing == nil {
			t.Fatalf("%s: a %s, not a listing", u, res.Kind)
		}
		if err := res.Listing.ReadAll(); err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		fetchtest.CheckEntryURLs(t, u, res.Listing)
		m := map[string]fetch.Entry{}
		for _, e := range res.Listing.Entries {
			m[e.Name] = e
		}
		return m
	}
	root := list("//")
	if e := root["hello.txt"]; e.Kind != fetch.EntryFile || e.URL != "prospero://"+addr+"//hello.txt" {
		t.Errorf("hello.txt: %+v", e)
	}
	if e := root["pub"]; e.Kind != fetch.EntryDir || e.URL != "prospero://"+addr+"//pub" {
		t.Errorf("pub: %+v", e)
	}
	if e := root["doc.txt"]; e.URL != "gopher://127.0.0.1:18070/0/doc.txt" {
		t.Errorf("doc.txt (EXTERNAL, GOPHER): %+v", e)
	}
	pub := list("//pub")
	readme := pub["README"]
	if readme.URL != "ftp://127.0.0.1:18021/pub/README;type=a" {
		t.Errorf("README (EXTERNAL, AFTP): %+v", readme)
	}
	if got, want := fetchSHA(t, c, readme.URL), contentSHA(t, "pub/README"); got != want {
		t.Errorf("%s: SHA-256 %s, want %s", readme.URL, got, want)
	}
	if got, want := fetchSHA(t, c, pub["data.bin"].URL), contentSHA(t, "pub/data.bin"); got != want {
		t.Errorf("%s: SHA-256 %s, want %s", pub["data.bin"].URL, got, want)
	}
	big := list("//big")
	if len(big) != 400 {
		t.Errorf("/big lists %d entries, want 400", len(big))
	}
	e := big["file-400 with a long name to fill the packets.txt"]
	if got, want := fetchSHA(t, c, e.URL), contentSHA(t, "hello.txt"); got != want {
		t.Errorf("%s: SHA-256 %s, want %s", e.URL, got, want)
	}
}

// TestProsperoErrors: the server's refusals become clear errors of the
// server kind (exit 6); a method naming port 25 is refused by policy.
func TestProsperoErrors(t *testing.T) {
	wantServer(t, "prospero")
	addr := serverAddr(t, "FETCH_PROSPERO_ADDR")
	c := prosperoClient()
	_, err := c.Fetch(context.Background(), "prospero://"+addr+"//no/such/object")
	if !errors.Is(err, fetch.ErrNotFound) || fetch.KindOf(err) != fetch.KindServer || !strings.Contains(err.Error(), "FAILURE NOT-FOUND") {
		t.Errorf("unknown object: %v", err)
	}
	_, err = c.Fetch(context.Background(), "prospero://"+addr+"/hello.txt")
	if fetch.KindOf(err) != fetch.KindServer || !strings.Contains(err.Error(), "FAILURE NOT-AUTHORIZED") || !strings.Contains(err.Error(), `leading "/"`) {
		t.Errorf("name without a slash: %v", err)
	}
	_, err = c.Fetch(context.Background(), "prospero://"+addr+"//loop")
	if fetch.KindOf(err) != fetch.KindServer || !strings.Contains(err.Error(), "Prospero hops") {
		t.Errorf("forwarding loop: %v", err)
	}
	res, err := c.Fetch(context.Background(), "prospero://"+addr+"//port25.txt")
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = sha256Of(res.Document.Body)
	res.Close()
	if !errors.Is(err, fetch.ErrPortRefused) {
		t.Errorf("a method on port 25: %v", err)
	}
}

// TestProsperoCLI: the command fetches through the method and --info
// lists the methods without fetching.
func TestProsperoCLI(t *testing.T) {
	wantServer(t, "prospero")
	wantServer(t, "vsftpd")
	addr := serverAddr(t, "FETCH_PROSPERO_ADDR")
	code, out, stderr := runCLI(t, "", "prospero://"+addr+"//hello.txt")
	want, err := os.ReadFile(filepath.Join(harnessEnv(t, "FETCH_CONTENT_DIR"), "hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if code != 0 || string(out) != string(want) {
		t.Errorf("exit %d, output %q, stderr %s", code, out, stderr)
	}
	code, out, _ = runCLI(t, "", "--info", "prospero://"+addr+"//hello.txt")
	if code != 0 || !strings.Contains(string(out), "[chosen]") || !strings.Contains(string(out), "PROSPERO-CONTENTS") {
		t.Errorf("--info: exit %d, %s", code, out)
	}
	code, _, stderr = runCLI(t, "", "prospero://"+addr+"//no/such/object")
	if code != 6 || !strings.Contains(stderr, "FAILURE NOT-FOUND") {
		t.Errorf("not found: exit %d, %s", code, stderr)
	}
}
