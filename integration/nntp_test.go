//go:build integration

package integration

// The news: and nntp: driver against INN (integration/servers/inn.sh), which
// the harness seeds with the groups fetch.test.alpha, .beta and .secret
// (readable only after AUTHINFO) and the articles of testdata/harness/news.

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
	"github.com/fetchproject/fetch/schemes/nntp"
)

// postedArticle is one of the articles the harness posted to INN.
type postedArticle struct {
	file   string
	id     string   // Message-ID without "<>"
	header []string // the posted header fields, continuation lines joined with CR LF
	body   []byte   // the posted body in NNTP's CR LF form
}

// postedArticles reads testdata/harness/news/*.eml (LF line ends).
func postedArticles(t *testing.T) []postedArticle {
	t.Helper()
	files, err := filepath.Glob("../testdata/harness/news/*.eml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no posted articles in testdata/harness/news: %v", err)
	}
	var out []postedArticle
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		head, body, ok := strings.Cut(string(data), "\n\n")
		if !ok {
			t.Fatalf("%s has no blank line after its header", f)
		}
		a := postedArticle{file: filepath.Base(f), body: []byte(strings.ReplaceAll(body, "\n", "\r\n"))}
		for _, l := range strings.Split(head, "\n") {
			if (l[0] == ' ' || l[0] == '\t') && len(a.header) > 0 {
				a.header[len(a.header)-1] += "\r\n" + l
				continue
			}
			a.header = append(a.header, l)
			if name, v, _ := strings.Cut(l, ":"); strings.EqualFold(name, "Message-ID") {
				a.id = strings.Trim(strings.TrimSpace(v), "<>")
			}
		}
		out = append(out, a)
	}
	return out
}

// newsClient is a client whose news server is INN, as --nntp-server or the
// configuration file would set it.
func newsClient(t *testing.T, cfg nntp.Config, opts fetch.Options) *fetch.Client {
	t.Helper()
	if cfg.Server == "" {
		cfg.Server = serverAddr(t, "FETCH_NNTP_ADDR")
	}
	return schemes.NewClient(opts, schemes.Config{NNTP: cfg})
}

// newsGet fetches u and reads a document whole.
func newsGet(t *testing.T, c *fetch.Client, u string) (*fetch.Result, []byte, error) {
	t.Helper()
	return newsGetRaw(t, c, u, false)
}

// newsGetRaw is newsGet with Request.Raw set to raw.
func newsGetRaw(t *testing.T, c *fetch.Client, u string, raw bool) (*fetch.Result, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := doWith(ctx, c, u, func(r *fetch.Request) { r.Raw = raw })
	if err != nil {
		return nil, nil, err
	}
	defer res.Close()
	if res.Listing != nil {
		return res, nil, res.Listing.ReadAll() // a listing may stream
	}
	if res.Document == nil {
		return res, nil, nil
	}
	b, err := io.ReadAll(res.Document.Body)
	return res, b, err
}

// checkArticle compares an article INN served with the one posted. INN
// adds header fields when it accepts a post (Path, Organization,
// Injection-Info, Xref, ...) and may reorder the posted ones, so the
// header is compared field by field: every posted field must be there,
// byte for byte. The body must be identical, which covers dot-stuffing
// (02-alpha-dots has lines ".", ".x" and "..x"), an 8-bit UTF-8 body and a
// 100 KiB article.
func checkArticle(t *testing.T, a postedArticle, got []byte) {
	t.Helper()
	// Without Raw an article comes in local line ends (LF); INN's are CR LF.
	if bytes.Contains(got, []byte("\r\n")) {
		t.Errorf("%s: CR LF line ends in an article fetched without Raw", a.file)
	}
	got = bytes.ReplaceAll(got, []byte("\n"), []byte("\r\n"))
	head, body, ok := bytes.Cut(got, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("%s: no blank line in what INN served:\n%q", a.file, got)
	}
	if !bytes.Equal(body, a.body) {
		t.Errorf("%s: body differs from the posted one\ngot  %q\nwant %q", a.file, clipBytes(body), clipBytes(a.body))
	}
	fields := "\r\n" + string(head) + "\r\n"
	for _, h := range a.header {
		if !strings.Contains(fields, "\r\n"+h+"\r\n") {
			t.Errorf("%s: posted header field %q missing from\n%s", a.file, h, head)
		}
	}
}

func clipBytes(b []byte) []byte {
	if len(b) > 300 {
		return append(b[:300:300], "..."...)
	}
	return b
}

// TestNewsArticleByMessageID fetches every public article as news:<id>
// and compares it with what was posted; news: reads its server from
// Config.Server here and from NNTPSERVER in TestCLINews.
func TestNewsArticleByMessageID(t *testing.T) {
	wantServer(t, "inn")
	c := newsClient(t, nntp.Config{}, fetch.Options{})
	n := 0
	for _, a := range postedArticles(t) {
		if strings.Contains(a.file, "secret") {
			continue
		}
		t.Run(a.file, func(t *testing.T) {
			res, got, err := newsGet(t, c, "news:"+fetch.Escape(a.id, "@"))
			if err != nil {
				t.Fatal(err)
			}
			checkArticle(t, a, got)
			d := res.Document
			if d.MIMEType != "message/rfc822" || d.Meta[fetch.MetaMessageID] != "<"+a.id+">" || d.ModTime.IsZero() {
				t.Errorf("document %+v", d)
			}
		})
		n++
	}
	if n < 5 {
		t.Fatalf("only %d public articles", n)
	}
}

// TestNewsRaw checks Request.Raw delivers the article as INN sent it:
// dot-stuffed, with the final "." line.
func TestNewsRaw(t *testing.T) {
	wantServer(t, "inn")
	c := newsClient(t, nntp.Config{}, fetch.Options{})
	_, got, err := newsGetRaw(t, c, "news:alpha-2-dots@fetch.test", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"\r\n..this line starts with a single dot\r\n", "\r\n...this line starts with two dots\r\n", "\r\n..\r\n"} {
		if !bytes.Contains(got, []byte(want)) {
			t.Errorf("raw article lacks %q:\n%s", want, got)
		}
	}
	if !bytes.HasSuffix(got, []byte("\r\n.\r\n")) {
		t.Errorf("raw article does not end with the \".\" line: %q", clipBytes(got[max(0, len(got)-50):]))
	}
}

// TestNewsGroupListing lists fetch.test.alpha and fetches every URL in it.
func TestNewsGroupListing(t *testing.T) {
	wantServer(t, "inn")
	c := newsClient(t, nntp.Config{}, fetch.Options{})
	posted := map[string]postedArticle{}
	for _, a := range postedArticles(t) {
		posted[a.id] = a
	}
	res, _, err := newsGet(t, c, "news:fetch.test.alpha")
	if err != nil {
		t.Fatal(err)
	}
	l := res.Listing
	var ids []string
	for _, e := range l.Entries {
		id := strings.TrimPrefix(e.URL, "news:")
		ids = append(ids, id)
		if e.Kind != fetch.EntryFile || e.Type != "message/rfc822" || e.Size <= 0 || e.Date.IsZero() || e.Name == "" || e.Description == "" {
			t.Errorf("entry %+v", e)
		}
		r2, got, err := newsGet(t, c, e.URL)
		if err != nil {
			t.Errorf("%s: %v", e.URL, err)
			continue
		}
		if a, ok := posted[id]; ok {
			checkArticle(t, a, got)
		} else {
			t.Errorf("%s was not posted by the harness", e.URL)
		}
		if int64(len(got)) != e.Size {
			t.Logf("%s: listing says %d bytes, article is %d", e.URL, e.Size, len(got))
		}
		if r2.Document.Meta[fetch.MetaSubject] != e.Name {
			t.Errorf("%s: listing names it %q, its Subject is %q", e.URL, e.Name, r2.Document.Meta[fetch.MetaSubject])
		}
	}
	want := []string{"alpha-1@fetch.test", "alpha-2-dots@fetch.test", "alpha-3-large@fetch.test", "alpha-4-utf8@fetch.test", "cross-1@fetch.test"}
	if strings.Join(ids, " ") != strings.Join(want, " ") {
		t.Errorf("listing ids %q, want %q", ids, want)
	}
	// The UTF-8 subject and author are decoded from RFC 2047 words.
	if l.Entries[3].Name != "Grüße aus Unicode" || !strings.HasPrefix(l.Entries[3].Description, "Jürgen Tester") {
		t.Errorf("entry 4: %+v", l.Entries[3])
	}

	// A page of the two newest articles.
	c2 := newsClient(t, nntp.Config{PageSize: 2}, fetch.Options{})
	res, _, err = newsGet(t, c2, "news:fetch.test.alpha")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(res.Listing.Entries); n != 2 || res.Listing.Entries[1].URL != "news:cross-1@fetch.test" {
		t.Errorf("page of 2: %+v", res.Listing.Entries)
	}
}

// TestNewsAllGroups lists news:* and a wildmat.
func TestNewsAllGroups(t *testing.T) {
	wantServer(t, "inn")
	c := newsClient(t, nntp.Config{}, fetch.Options{})
	res, _, err := newsGet(t, c, "news:*")
	if err != nil {
		t.Fatal(err)
	}
	found := map[string]fetch.Entry{}
	for _, e := range res.Listing.Entries {
		found[e.URL] = e
	}
	for _, g := range []string{"fetch.test.alpha", "fetch.test.beta"} {
		e, ok := found["news:"+g]
		if !ok || e.Kind != fetch.EntryDir || e.Name != g || e.Description == "" {
			t.Errorf("news:* lacks %s (entry %+v)", g, e)
		}
		if _, _, err := newsGet(t, c, e.URL); err != nil {
			t.Errorf("%s: %v", e.URL, err)
		}
	}

	res, _, err = newsGet(t, c, "news:fetch.test.*")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range res.Listing.Entries {
		names = append(names, e.Name)
	}
	if strings.Join(names, " ") != "fetch.test.alpha fetch.test.beta" {
		t.Errorf("news:fetch.test.* lists %q (fetch.test.secret is hidden before AUTHINFO)", names)
	}
}

// TestNNTPNumberForm uses nntp://host:port/group[/number] (RFC 1738 §3.7).
func TestNNTPNumberForm(t *testing.T) {
	wantServer(t, "inn")
	addr := serverAddr(t, "FETCH_NNTP_ADDR")
	c := newsClient(t, nntp.Config{}, fetch.Options{})
	posted := map[string]postedArticle{}
	for _, a := range postedArticles(t) {
		posted[a.id] = a
	}
	res, _, err := newsGet(t, c, "nntp://"+addr+"/fetch.test.beta")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Listing.Entries) != 2 {
		t.Fatalf("fetch.test.beta: %+v", res.Listing.Entries)
	}
	for i, e := range res.Listing.Entries {
		want := "nntp://" + addr + "/fetch.test.beta/" + string(rune('1'+i))
		if e.URL != want {
			t.Errorf("entry %d URL %s, want %s", i, e.URL, want)
		}
		r2, got, err := newsGet(t, c, e.URL)
		if err != nil {
			t.Fatalf("%s: %v", e.URL, err)
		}
		id := strings.Trim(r2.Document.Meta[fetch.MetaMessageID], "<>")
		a, ok := posted[id]
		if !ok {
			t.Fatalf("%s is %q, not a posted article", e.URL, id)
		}
		checkArticle(t, a, got)
	}

	res, _, err = newsGet(t, c, "nntp://"+addr+"/")
	if err != nil {
		t.Fatal(err)
	}
	ok := false
	for _, e := range res.Listing.Entries {
		ok = ok || e.URL == "nntp://"+addr+"/fetch.test.alpha"
	}
	if !ok {
		t.Errorf("nntp://%s/ does not list fetch.test.alpha: %+v", addr, res.Listing.Entries)
	}
}

// TestNewsAuthinfo reads fetch.test.secret, which INN opens only after
// AUTHINFO USER/PASS.
func TestNewsAuthinfo(t *testing.T) {
	wantServer(t, "inn")
	addr := serverAddr(t, "FETCH_NNTP_ADDR")
	user, pass := harnessEnv(t, "FETCH_NNTP_USER"), harnessEnv(t, "FETCH_NNTP_PASS")
	var secret postedArticle
	for _, a := range postedArticles(t) {
		if strings.Contains(a.file, "secret") {
			secret = a
		}
	}

	// Without credentials: 480, exit 6, with the reason.
	_, _, err := newsGet(t, newsClient(t, nntp.Config{}, fetch.Options{}), "news:fetch.test.secret")
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Kind.ExitCode() != 6 || !errors.Is(err, fetch.ErrAuth) || fe.Code != 480 {
		t.Fatalf("without credentials: %v", err)
	}

	// Wrong password: 481.
	_, _, err = newsGet(t, newsClient(t, nntp.Config{User: user, Password: "wrong"}, fetch.Options{}), "news:fetch.test.secret")
	if !errors.As(err, &fe) || fe.Kind.ExitCode() != 6 || !errors.Is(err, fetch.ErrAuth) || fe.Code != 481 {
		t.Fatalf("wrong password: %v", err)
	}

	// Configured credentials, and a trace that never shows the password.
	var trace strings.Builder
	tr := fetch.TracerFunc(func(d fetch.Direction, l string) { trace.WriteString(string(d) + " " + l + "\n") })
	c := newsClient(t, nntp.Config{User: user, Password: pass}, fetch.Options{Tracer: tr})
	res, _, err := newsGet(t, c, "news:fetch.test.secret")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Listing.Entries) != 1 || res.Listing.Entries[0].URL != "news:"+secret.id {
		t.Errorf("fetch.test.secret: %+v", res.Listing.Entries)
	}
	if strings.Contains(trace.String(), pass) || !strings.Contains(trace.String(), "> AUTHINFO PASS ****") {
		t.Errorf("trace:\n%s", trace.String())
	}

	// The nntp URL's own login; the prompter's answers.
	for _, tc := range []struct {
		name string
		url  string
		opts fetch.Options
	}{
		{"url login", "nntp://" + user + ":" + pass + "@" + addr + "/fetch.test.secret/1", fetch.Options{}},
		{"prompter", "nntp://" + addr + "/fetch.test.secret/1", fetch.Options{Prompter: fetch.Answers{"user": user, "password": pass}}},
	} {
		_, got, err := newsGet(t, newsClient(t, nntp.Config{}, tc.opts), tc.url)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		checkArticle(t, secret, got)
	}
}

// TestNewsMissing checks missing articles and groups exit 6.
func TestNewsMissing(t *testing.T) {
	wantServer(t, "inn")
	addr := serverAddr(t, "FETCH_NNTP_ADDR")
	c := newsClient(t, nntp.Config{}, fetch.Options{})
	for _, tc := range []struct {
		url  string
		code int
	}{
		{"news:no-such-article@fetch.test", 430},
		{"nntp://" + addr + "/fetch.test.alpha/999", 423},
		{"news:fetch.test.nosuch", 411},
		{"nntp://" + addr + "/fetch.test.nosuch/1", 411},
	} {
		_, _, err := newsGet(t, c, tc.url)
		var fe *fetch.Error
		if !errors.As(err, &fe) || fe.Kind.ExitCode() != 6 || !errors.Is(err, fetch.ErrNotFound) || fe.Code != tc.code {
			t.Errorf("%s: %v, want exit 6 with reply %d", tc.url, err, tc.code)
		}
	}
	// A message-id with a decoded CR LF never reaches INN: exit 4.
	_, _, err := newsGet(t, c, "news:x%0D%0AQUIT@fetch.test")
	if fetch.KindOf(err).ExitCode() != 4 || !errors.Is(err, fetch.ErrUnsafeLine) {
		t.Errorf("CR LF in message-id: %v", err)
	}
}

// TestCLINews runs the fetch command with NNTPSERVER pointing at INN: it
// prints the article as INN stores it, in local line ends, and lists news:*.
func TestCLINews(t *testing.T) {
	wantServer(t, "inn")
	t.Setenv("NNTPSERVER", serverAddr(t, "FETCH_NNTP_ADDR"))
	raw := newsClient(t, nntp.Config{}, fetch.Options{})
	for _, id := range []string{"alpha-2-dots@fetch.test", "alpha-3-large@fetch.test", "alpha-4-utf8@fetch.test"} {
		code, out, stderr := runCLI(t, "", "news:"+id)
		if code != 0 {
			t.Fatalf("fetch news:%s: exit %d: %s", id, code, stderr)
		}
		// INN's stored form, undone of dot-stuffing, is what it sends in
		// reply to ARTICLE; compare with a raw fetch unstuffed here.
		_, stored, err := newsGetRaw(t, raw, "news:"+id, true)
		if err != nil {
			t.Fatal(err)
		}
		want := bytes.TrimSuffix(stored, []byte(".\r\n"))
		want = bytes.ReplaceAll(want, []byte("\r\n.."), []byte("\r\n."))
		want = bytes.ReplaceAll(want, []byte("\r\n"), []byte("\n")) // local line ends
		if !bytes.Equal(out, want) {
			t.Errorf("fetch news:%s printed\n%q\nwant\n%q", id, clipBytes(out), clipBytes(want))
		}
	}
	code, out, stderr := runCLI(t, "", "news:*")
	if code != 0 || !bytes.Contains(out, []byte("news:fetch.test.alpha")) || !bytes.Contains(out, []byte("news:fetch.test.beta")) {
		t.Errorf("fetch news:*: exit %d\n%s\n%s", code, out, stderr)
	}
	code, _, stderr = runCLI(t, "", "news:no-such-article@fetch.test")
	if code != 6 {
		t.Errorf("missing article: exit %d: %s", code, stderr)
	}
}
