//go:build integration

package integration

// The gopher driver against pygopherd (Gopher+: attributes, views, +ASK,
// a type 7 search) and gophernicus (a gophermap, generated listings, a CGI
// search), serving the holes in testdata/harness/gopher (see
// integration/servers/pygopherd.sh and gophernicus.sh).

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
	"github.com/fetchproject/fetch/schemes/gopher"
)

// gopherPixel is the 1×1 GIF the harness writes into both holes.
const gopherPixel = "GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00,\x00\x00\x00\x00\x01\x00\x01\x00\x00\x02\x02D\x01\x00;"

// gopherHole is one server and the files its hole was made from.
type gopherHole struct {
	server string // name in FETCH_SERVERS
	env    string // address variable
	dir    string // testdata/harness/gopher/<server>
	// crlfText: the server rewrites the line ends of text (type 0) to CR LF.
	crlfText bool
}

var gopherHoles = []gopherHole{
	{"pygopherd", "FETCH_GOPHER_PYGOPHERD_ADDR", "../testdata/harness/gopher/pygopherd", false},
	{"gophernicus", "FETCH_GOPHER_GOPHERNICUS_ADDR", "../testdata/harness/gopher/gophernicus", true},
}

func gopherClient(opts fetch.Options) *fetch.Client {
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = 20 * time.Second
	}
	return schemes.NewClient(opts, schemes.Config{})
}

// expected returns the bytes an item of the hole should deliver, or false
// for selectors that are not files (searches, generated pages).
func (h gopherHole) expected(t *testing.T, typ byte, selector string) ([]byte, bool) {
	t.Helper()
	switch selector {
	case "/binary.bin":
		b, err := os.ReadFile(filepath.Join(harnessEnv(t, "FETCH_CONTENT_DIR"), "1k.bin"))
		if err != nil {
			t.Fatal(err)
		}
		return b, true
	case "/pixel.gif":
		return []byte(gopherPixel), true
	}
	name := strings.ReplaceAll(selector, "#040", " ") // gophernicus' escape for a space
	b, err := os.ReadFile(filepath.Join(h.dir, filepath.FromSlash(name)))
	if err != nil {
		return nil, false
	}
	if typ == '0' {
		// Text comes in local line ends (LF) whatever the server sent.
		b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	}
	return b, true
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// TestGopherCrawl fetches the root menu of each hole and follows every link
// on that server: menus must parse, searches must answer, and every
// document that comes from a file must match it by SHA-256.
func TestGopherCrawl(t *testing.T) {
	for _, h := range gopherHoles {
		t.Run(h.server, func(t *testing.T) {
			wantServer(t, h.server)
			addr := serverAddr(t, h.env)
			c := gopherClient(fetch.Options{})
			root := "gopher://" + addr + "/"
			queue := []string{root}
			seen := map[string]bool{root: true}
			var docs, menus, searches, compared int
			for len(queue) > 0 {
				u := queue[0]
				queue = queue[1:]
				pu, err := fetch.Parse(u)
				if err != nil {
					t.Fatalf("%s: %v", u, err)
				}
				g, err := gopher.ParseURL(pu)
				if err != nil {
					t.Fatalf("%s: %v", u, err)
				}
				res, err := doWith(context.Background(), c, u, func(r *fetch.Request) { r.Query = "fetch query" })
				if err == nil {
					err = res.Listing.ReadAll() // a menu streams
				}
				if err != nil {
					t.Errorf("%s: %v", u, err)
					continue
				}
				switch res.Kind {
				case fetch.KindListing:
					menus++
					if g.Type == '7' {
						searches++
						if !listingHas(res.Listing, "You searched for: fetch query") {
							t.Errorf("%s: search result %+v", u, res.Listing.Entries)
						}
					}
					for _, e := range res.Listing.Entries {
						switch e.Kind {
						case fetch.EntryText, fetch.EntryError:
							if e.URL != "" {
								t.Errorf("%s: text entry with a URL: %+v", u, e)
							}
							continue
						case fetch.EntryRaw:
							t.Errorf("%s: unparsed line %q", u, e.Raw)
							continue
						}
						eu, err := fetch.Parse(e.URL)
						if err != nil {
							t.Errorf("%s: entry %q: URL %q: %v", u, e.Name, e.URL, err)
							continue
						}
						if eu.Scheme != "gopher" || eu.HostPort(70) != addr {
							continue // another server: the link only has to parse
						}
						key := eu.String()
						if !seen[key] {
							seen[key] = true
							queue = append(queue, key)
						}
					}
				case fetch.KindDocument:
					docs++
					body, err := io.ReadAll(res.Document.Body)
					res.Close()
					if err != nil {
						t.Errorf("%s: after %d bytes: %v", u, len(body), err)
						continue
					}
					if res.Document.Size >= 0 && int64(len(body)) != res.Document.Size {
						t.Errorf("%s: announced %d bytes, read %d", u, res.Document.Size, len(body))
					}
					if want, ok := h.expected(t, g.Type, g.Selector); ok {
						compared++
						if sum(body) != sum(want) {
							t.Errorf("%s: SHA-256 %s, want %s (the file)\n got %q\nwant %q", u, sum(body), sum(want), clip(body), clip(want))
						}
					}
				default:
					t.Errorf("%s: result kind %s", u, res.Kind)
				}
			}
			t.Logf("%s: %d menus (%d searches), %d documents, %d compared with their files", h.server, menus, searches, docs, compared)
			if menus < 3 || searches < 1 || docs < 5 || compared < 5 {
				t.Errorf("crawl too small: %d menus, %d searches, %d documents, %d compared", menus, searches, docs, compared)
			}
		})
	}
}

func clip(b []byte) []byte {
	if len(b) > 80 {
		return b[:80]
	}
	return b
}

func listingHas(l *fetch.Listing, name string) bool {
	for _, e := range l.Entries {
		if e.Name == name {
			return true
		}
	}
	return false
}

// TestGopherBinaryMatchesCurl: a type 9 file fetched with fetch is byte
// identical to curl's copy of the same URL.
func TestGopherBinaryMatchesCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		t.Fatal("curl is needed to compare with: apt-get install curl")
	}
	for _, h := range gopherHoles {
		t.Run(h.server, func(t *testing.T) {
			wantServer(t, h.server)
			u := "gopher://" + serverAddr(t, h.env) + "/9/binary.bin"
			ours := fetchSHA(t, gopherClient(fetch.Options{}), u)
			out, err := exec.Command(curl, "-sS", "--max-time", "20", u).Output()
			if err != nil {
				t.Fatalf("curl %s: %v", u, err)
			}
			if ours != sum(out) {
				t.Errorf("fetch %s, curl %s", ours, sum(out))
			}
			want, _ := h.expected(t, '9', "/binary.bin")
			if ours != sum(want) {
				t.Errorf("fetch %s, file %s", ours, sum(want))
			}
		})
	}
}

// TestGopherCLIMenuLinks: the command prints a menu as lines whose last tab
// field is a URL, and each of those URLs on the same server can be pasted
// back into fetch.
func TestGopherCLIMenuLinks(t *testing.T) {
	for _, h := range gopherHoles {
		t.Run(h.server, func(t *testing.T) {
			wantServer(t, h.server)
			addr := serverAddr(t, h.env)
			code, out, stderr := runCLI(t, "", "gopher://"+addr+"/")
			if code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			n := 0
			for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				_, u, ok := strings.Cut(line, "\t")
				if !ok || !strings.HasPrefix(u, "gopher://"+addr+"/") || strings.HasPrefix(line, "search") {
					continue
				}
				n++
				if code, _, stderr := runCLI(t, "", "-o", filepath.Join(t.TempDir(), "out"), u); code != 0 {
					t.Errorf("fetch %s: exit %d: %s", u, code, stderr)
				}
			}
			if n < 4 {
				t.Errorf("only %d links in:\n%s", n, out)
			}
		})
	}
}

func TestGopherSearch(t *testing.T) {
	for _, tc := range []struct {
		h    gopherHole
		path string
	}{{gopherHoles[0], "7/search"}, {gopherHoles[1], "7/cgi-bin/search"}} {
		t.Run(tc.h.server, func(t *testing.T) {
			wantServer(t, tc.h.server)
			base := "gopher://" + serverAddr(t, tc.h.env) + "/" + tc.path
			// The search words in the URL, from --query, and from the prompter.
			for _, c := range []struct {
				url   string
				query string // Request.Query
				opts  fetch.Options
			}{
				{base + "%09gopher%20words", "", fetch.Options{}},
				{base, "gopher words", fetch.Options{}},
				{base, "", fetch.Options{Prompter: fetch.Answers{"query": "gopher words"}}},
			} {
				res, err := doWith(context.Background(), gopherClient(c.opts), c.url, func(r *fetch.Request) { r.Query = c.query })
				if err == nil {
					err = res.Listing.ReadAll() // a menu streams
				}
				if err != nil {
					t.Fatalf("%s: %v", c.url, err)
				}
				if res.Kind != fetch.KindListing || !listingHas(res.Listing, "You searched for: gopher words") {
					t.Errorf("%s: %+v", c.url, res.Listing)
				}
				if !strings.HasSuffix(res.URL.String(), "%09gopher%20words") {
					t.Errorf("result URL %s", res.URL)
				}
			}
			// No words and nobody to ask: a usage error before connecting.
			_, err := gopherClient(fetch.Options{}).Fetch(context.Background(), base)
			if !errors.Is(err, fetch.ErrNoAnswer) {
				t.Errorf("no query: %v", err)
			}
		})
	}
}

// TestGopherPlus covers pygopherd's Gopher+ side: the default view, an
// attribute block, the attributes of a directory, an alternate view taken
// from +VIEWS, and raw replies.
func TestGopherPlus(t *testing.T) {
	h := gopherHoles[0]
	wantServer(t, h.server)
	addr := serverAddr(t, h.env)
	c := gopherClient(fetch.Options{})
	about, _ := h.expected(t, '0', "/about.txt")

	// "+": a "+N" reply of exactly the file.
	res, err := c.Fetch(context.Background(), "gopher://"+addr+"/0/about.txt%09%09+")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(res.Document.Body)
	res.Close()
	if err != nil || !bytes.Equal(body, about) {
		t.Errorf("default view: %q, %v", body, err)
	}

	// "!": the item's attributes, parsed.
	res, err = c.Fetch(context.Background(), "gopher://"+addr+"/0/about.txt%09%09!")
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	attrs, ok := gopher.DocumentAttributes(res.Document)
	if !ok || len(attrs) != 1 {
		t.Fatalf("attributes: %+v", res.Document)
	}
	a := attrs[0]
	abstract, _ := os.ReadFile(filepath.Join(h.dir, "about.txt.abstract"))
	if a.Abstract != strings.TrimSpace(string(abstract)) {
		t.Errorf("abstract %q, want %q", a.Abstract, abstract)
	}
	if a.Info == nil || a.Info.Selector != "/about.txt" || a.ModDate.IsZero() {
		t.Errorf("info %+v, mod date %v", a.Info, a.ModDate)
	}
	if len(a.Admin) == 0 || a.Admin[0].Value != "fetch tests <fetch@fetch.test>" {
		t.Errorf("admin %+v", a.Admin)
	}
	if len(a.Views) == 0 || a.Views[0].Type != "text/plain" || a.Views[0].URL == "" {
		t.Fatalf("views %+v", a.Views)
	}
	var rendered strings.Builder
	gopher.RenderAttributes(&rendered, attrs)
	if !strings.Contains(rendered.String(), "Second line of the abstract.") {
		t.Errorf("rendered:\n%s", rendered.String())
	}

	// The alternate view named by +VIEWS.
	res, err = c.Fetch(context.Background(), a.Views[0].URL)
	if err != nil {
		t.Fatal(err)
	}
	body, err = io.ReadAll(res.Document.Body)
	res.Close()
	if err != nil || !bytes.Equal(body, about) || res.Document.MIMEType != "text/plain" || res.Document.Meta["gopher+.view"] != "text/plain" {
		t.Errorf("view %s: %q %q %v", a.Views[0].URL, body, res.Document.MIMEType, err)
	}

	// "$": the attributes of every item of the root menu.
	res, err = c.Fetch(context.Background(), "gopher://"+addr+"/1%09%09$")
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	all, ok := gopher.DocumentAttributes(res.Document)
	if !ok {
		t.Fatal("no attributes for $")
	}
	var sawForm, sawAbout bool
	for _, a := range all {
		if a.Info != nil && a.Info.Selector == "/form" && len(a.Ask) == 3 {
			sawForm = true
		}
		if a.Info != nil && a.Info.Selector == "/about.txt" && a.Abstract != "" {
			sawAbout = true
		}
	}
	if !sawForm || !sawAbout {
		t.Errorf("$ attributes lack the form or the abstract: %+v", all)
	}

	// --raw: the bytes as received, length line included.
	res, err = doWith(context.Background(), gopherClient(fetch.Options{}), "gopher://"+addr+"/0/about.txt%09%09+", func(r *fetch.Request) { r.Raw = true })
	if err != nil {
		t.Fatal(err)
	}
	body, err = io.ReadAll(res.Document.Body)
	res.Close()
	want := append([]byte("+147\r\n"), about...)
	if err != nil || !bytes.Equal(body, want) {
		t.Errorf("raw: %q, %v", body, err)
	}
}

// TestGopherAskForm answers pygopherd's +ASK form (form.ask: Ask, AskP,
// Choose) from --form values and from a prompter.
func TestGopherAskForm(t *testing.T) {
	h := gopherHoles[0]
	wantServer(t, h.server)
	u := "gopher://" + serverAddr(t, h.env) + "/0/form%09%09?"
	want, _ := h.expected(t, '0', "/form")
	for _, tc := range []struct {
		form map[string]string // Request.Form
		opts fetch.Options
	}{
		{form: map[string]string{"What is your name?": "Tester", "Password?": "pw", "Pick a colour": "green"}},
		{opts: fetch.Options{Prompter: fetch.Answers{"1": "Tester", "2": "pw", "3": "3"}}},
	} {
		var trace strings.Builder
		opts := tc.opts
		opts.Tracer = fetch.TracerFunc(func(d fetch.Direction, l string) { trace.WriteString(string(d) + " " + l + "\n") })
		res, err := doWith(context.Background(), gopherClient(opts), u, func(r *fetch.Request) { r.Form = tc.form })
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(res.Document.Body)
		res.Close()
		if err != nil || !bytes.Equal(body, want) {
			t.Errorf("form reply %q, %v", body, err)
		}
		if !strings.Contains(trace.String(), "> +-1\n> Tester\n> ****\n") || strings.Contains(trace.String(), "> pw") {
			t.Errorf("trace:\n%s", trace.String())
		}
	}
	// A required answer with nobody to give it.
	_, err := gopherClient(fetch.Options{}).Fetch(context.Background(), u)
	if !errors.Is(err, fetch.ErrNoAnswer) {
		t.Errorf("unanswered form: %v", err)
	}
}

func TestGopherNotFound(t *testing.T) {
	wantServer(t, "pygopherd")
	addr := serverAddr(t, gopherHoles[0].env)
	c := gopherClient(fetch.Options{})
	for _, path := range []string{"0/nonexistent", "9/nonexistent", "1/nonexistent", "0/nonexistent%09%09+"} {
		_, err := c.Fetch(context.Background(), "gopher://"+addr+"/"+path)
		if fetch.KindOf(err) != fetch.KindServer || !errors.Is(err, fetch.ErrNotFound) {
			t.Errorf("%s: %v", path, err)
		}
	}
	_, err := c.Fetch(context.Background(), "gopher://"+addr+"/0/nonexistent%09%09+")
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Code != 1 || !strings.Contains(fe.Reply, "does not exist") {
		t.Errorf("Gopher+ error: %#v", err)
	}
	code, _, stderr := runCLI(t, "", "gopher://"+addr+"/0/nonexistent")
	if code != 6 {
		t.Errorf("exit %d, want 6: %s", code, stderr)
	}
}

// TestGophernicusMenu checks the parts of gophernicus's gophermap that
// convert to other schemes and its title line.
func TestGophernicusMenu(t *testing.T) {
	h := gopherHoles[1]
	wantServer(t, h.server)
	res, err := gopherClient(fetch.Options{}).Fetch(context.Background(), "gopher://"+serverAddr(t, h.env)+"/")
	if err == nil {
		err = res.Listing.ReadAll() // a menu streams
	}
	if err != nil {
		t.Fatal(err)
	}
	l := res.Listing
	if l.Title != "fetch test hole (gophernicus)" {
		t.Errorf("title %q", l.Title)
	}
	var link, other bool
	for _, e := range l.Entries {
		if e.Kind == fetch.EntryLink && e.URL == "http://127.0.0.1:18080/" {
			link = true
		}
		if e.URL == "gopher://127.0.0.1:18070/0/about.txt" {
			other = true
		}
	}
	if !link || !other {
		t.Errorf("URL: link %v, other-server link %v in %+v", link, other, l.Entries)
	}

	// gophernicus answers "$" ("selector<tab>$", no empty search) with the
	// menu's own attributes in a "+-1" block.
	res, err = gopherClient(fetch.Options{}).Fetch(context.Background(), "gopher://"+serverAddr(t, h.env)+"/1%09%09$")
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	attrs, ok := gopher.DocumentAttributes(res.Document)
	if !ok || len(attrs) != 1 || attrs[0].Info == nil || attrs[0].Info.Type != '1' || len(attrs[0].Views) == 0 {
		t.Errorf("$ attributes: %+v", attrs)
	}
}

// TestGopherTextLineEnds: the same text item is byte-identical from both
// servers' line ends (gophernicus sends CR LF, pygopherd LF): LF, as the
// file holds it; --raw keeps what the server sent.
func TestGopherTextLineEnds(t *testing.T) {
	for _, h := range gopherHoles {
		t.Run(h.server, func(t *testing.T) {
			wantServer(t, h.server)
			u := "gopher://" + serverAddr(t, h.env) + "/0/about.txt"
			file, err := os.ReadFile(filepath.Join(h.dir, "about.txt"))
			if err != nil {
				t.Fatal(err)
			}
			code, out, stderr := runCLI(t, "", u)
			if code != 0 || !bytes.Equal(out, file) || bytes.Contains(out, []byte("\r\n")) {
				t.Errorf("exit %d, %q (%s), want the file %q", code, out, stderr, file)
			}
			code, out, _ = runCLI(t, "", "--raw", u)
			if code != 0 || bytes.Contains(out, []byte("\r\n")) != h.crlfText {
				t.Errorf("--raw: exit %d, %q: CR LF %v, want %v", code, out, bytes.Contains(out, []byte("\r\n")), h.crlfText)
			}
		})
	}
}

// TestGopherPlusFallback: pygopherd answers "!+ABSTRACT" and "$+ABSTRACT"
// with the document (or everything); gophernicus answers "$+VIEWS" with
// every block and "!" on a file with the file. The driver asks for "!" or
// "$" and keeps the named blocks, and never passes a document off as
// attributes.
func TestGopherPlusFallback(t *testing.T) {
	py, nic := gopherHoles[0], gopherHoles[1]
	t.Run(py.server, func(t *testing.T) {
		wantServer(t, py.server)
		addr := serverAddr(t, py.env)
		abstract, _ := os.ReadFile(filepath.Join(py.dir, "about.txt.abstract"))
		for _, path := range []string{"0/about.txt%09%09!+ABSTRACT", "1%09%09$+ABSTRACT"} {
			res, err := gopherClient(fetch.Options{}).Fetch(context.Background(), "gopher://"+addr+"/"+path)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			res.Close()
			attrs, ok := gopher.DocumentAttributes(res.Document)
			if !ok || len(attrs) == 0 {
				t.Fatalf("%s: not attributes: %+v", path, res.Document)
			}
			var found bool
			for _, a := range attrs {
				for _, b := range a.Blocks {
					if b.Name != "+INFO" && b.Name != "+ABSTRACT" {
						t.Errorf("%s: block %s was not asked for", path, b.Name)
					}
				}
				if a.Info != nil && a.Info.Selector == "/about.txt" && a.Abstract == strings.TrimSpace(string(abstract)) {
					found = true
				}
			}
			if !found {
				t.Errorf("%s: no abstract of /about.txt in %+v", path, attrs)
			}
		}
		// The command shows the abstract, not the document.
		code, out, stderr := runCLI(t, "", "gopher://"+addr+"/0/about.txt%09%09!+ABSTRACT")
		if code != 0 || !strings.Contains(string(out), "Second line of the abstract.") || strings.Contains(string(out), "It is served in Gopher+ mode") {
			t.Errorf("CLI: exit %d, %q, %s", code, out, stderr)
		}
	})
	t.Run(nic.server, func(t *testing.T) {
		wantServer(t, nic.server)
		addr := serverAddr(t, nic.env)
		res, err := gopherClient(fetch.Options{}).Fetch(context.Background(), "gopher://"+addr+"/1%09%09$+VIEWS")
		if err != nil {
			t.Fatal(err)
		}
		res.Close()
		attrs, ok := gopher.DocumentAttributes(res.Document)
		if !ok || len(attrs) != 1 || len(attrs[0].Views) == 0 {
			t.Fatalf("$+VIEWS: %+v", attrs)
		}
		// gophernicus has no attributes for a file: an error, not the file.
		_, err = gopherClient(fetch.Options{}).Fetch(context.Background(), "gopher://"+addr+"/0/about.txt%09%09!+ABSTRACT")
		if fetch.KindOf(err) != fetch.KindServer || !strings.Contains(err.Error(), "attribute") {
			t.Errorf("!+ABSTRACT on a file: %v", err)
		}
	})
}

// TestGopherRemoteName: -O on a Gopher+ URL as pygopherd's menus list them
// names the file after the selector, without the Gopher+ tail.
func TestGopherRemoteName(t *testing.T) {
	h := gopherHoles[0]
	wantServer(t, h.server)
	dir := t.TempDir()
	cmd := exec.Command(fetchBinary(t), "-O", "gopher://"+serverAddr(t, h.env)+"/0/about.txt%09%09+")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "FETCH_CONFIG=/dev/null")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	want, _ := h.expected(t, '0', "/about.txt")
	got, err := os.ReadFile(filepath.Join(dir, "about.txt"))
	if err != nil || !bytes.Equal(got, want) {
		t.Errorf("about.txt: %q, %v", got, err)
	}
}
