package nntp

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/textproto"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

var update = flag.Bool("update", false, "rewrite the golden transcripts in testdata")

// client is a fetch client with only this driver, for both schemes. Its
// sessions are not pooled, so each fetch's transcript is one connection
// that ends; pool_test.go covers reuse.
func client(opts fetch.Options, cfg Config) *fetch.Client {
	if opts.MaxIdlePerHost == 0 {
		opts.MaxIdlePerHost = -1
	}
	c := fetch.NewClient(opts)
	d := New(cfg)
	c.Register("news", d)
	c.Register("nntp", d)
	return c
}

// recorder is a Tracer that keeps the trace.
type recorder struct {
	mu    sync.Mutex
	lines []string
}

func (r *recorder) Trace(dir fetch.Direction, line string) {
	r.mu.Lock()
	r.lines = append(r.lines, string(dir)+" "+line)
	r.mu.Unlock()
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.lines, "\n")
}

// golden compares got with testdata/name.golden, or rewrites it.
func golden(t *testing.T, name, got string) {
	t.Helper()
	file := filepath.Join("testdata", name+".golden")
	if *update {
		if err := os.WriteFile(file, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("the client sent\n%s\nwant (%s)\n%s", show(got), file, show(string(want)))
	}
}

func show(s string) string { return strings.ReplaceAll(s, "\r\n", "\\r\\n\n") }

// get fetches rawURL and reads a document whole.
func get(t *testing.T, c *fetch.Client, rawURL string) (*fetch.Result, []byte, error) {
	t.Helper()
	return getRaw(t, c, rawURL, false)
}

// getRaw is get with Request.Raw set to raw.
func getRaw(t *testing.T, c *fetch.Client, rawURL string, raw bool) (*fetch.Result, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	req, err := fetch.NewRequest(rawURL)
	if err != nil {
		return nil, nil, err
	}
	req.Raw = raw
	res, err := c.Do(ctx, req)
	if err != nil {
		return nil, nil, err
	}
	defer res.Close()
	if res.Listing != nil {
		// A listing may stream: read it all, as a caller printing it would.
		return res, nil, res.Listing.ReadAll()
	}
	if res.Document == nil {
		return res, nil, nil
	}
	body, err := io.ReadAll(res.Document.Body)
	return res, body, err
}

// urls lists a listing's entry URLs.
func urls(l *fetch.Listing) []string {
	var out []string
	for _, e := range l.Entries {
		out = append(out, e.URL)
	}
	return out
}

// TestTranscripts pins the exact bytes the client sends for each URL form
// and server variant, and checks what it makes of the replies.
func TestTranscripts(t *testing.T) {
	tests := []struct {
		name  string
		fake  fake
		cfg   Config
		opts  fetch.Options
		raw   bool   // Request.Raw
		url   string // %s is the fake's host:port
		check func(t *testing.T, res *fetch.Result, body []byte, f *fake)
	}{
		{
			// RFC 1738 §3.6: news:<message-id> is the article.
			name: "news-message-id",
			fake: fake{caps: readerCaps},
			url:  "news:hello.1@fetch.test",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				want := artHello.local()
				if string(body) != want {
					t.Errorf("body\n%q\nwant\n%q", body, want)
				}
				d := res.Document
				if d.MIMEType != "message/rfc822" || d.Meta[fetch.MetaSubject] != "Hello, news" ||
					d.Meta[fetch.MetaMessageID] != "<hello.1@fetch.test>" || d.Meta[fetch.MetaFrom] != "Alice <alice@fetch.test>" {
					t.Errorf("document %+v", d)
				}
				var hdr textproto.MIMEHeader
				if !d.As(&hdr) || hdr.Get("Subject") != "Hello, news" || hdr.Get("Newsgroups") == "" {
					t.Errorf("As(*textproto.MIMEHeader) gave %v", hdr)
				}
				if !d.ModTime.Equal(time.Date(2026, 11, 2, 10, 0, 0, 0, time.UTC)) {
					t.Errorf("ModTime %v", d.ModTime)
				}
			},
		},
		{
			name: "news-message-id-raw",
			fake: fake{caps: readerCaps},
			raw:  true,
			url:  "news:%3Chello.1@fetch.test%3E", // the <> form is accepted too
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				want := strings.Replace(artHello.text, "\r\n.", "\r\n..", -1) + ".\r\n"
				if string(body) != want {
					t.Errorf("raw body\n%q\nwant\n%q", body, want)
				}
			},
		},
		{
			name: "news-group",
			fake: fake{caps: readerCaps},
			url:  "news:fetch.test.alpha",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				l := res.Listing
				want := []string{"news:hello.1@fetch.test", "news:odd$id%2Fwith%23chars@fetch.test", "news:third@fetch.test"}
				if fmt.Sprint(urls(l)) != fmt.Sprint(want) {
					t.Errorf("URLs %q, want %q", urls(l), want)
				}
				e := l.Entries[1]
				if e.Name != "Grüße" || e.Description != "Björn <bjorn@fetch.test>" || e.Kind != fetch.EntryFile ||
					e.Type != "message/rfc822" || e.Size != int64(len(artWords.text)) ||
					!e.Date.Equal(time.Date(2026, 11, 3, 10, 30, 0, 0, time.UTC)) {
					t.Errorf("entry %+v", e)
				}
			},
		},
		{
			name: "news-group-page",
			fake: fake{caps: readerCaps},
			cfg:  Config{PageSize: 2},
			url:  "news:fetch.test.alpha",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if len(res.Listing.Entries) != 1 || res.Listing.Entries[0].URL != "news:third@fetch.test" {
					t.Errorf("entries %+v (articles 3-4 of which 3 is missing)", res.Listing.Entries)
				}
			},
		},
		{
			name: "news-group-empty",
			fake: fake{caps: readerCaps},
			url:  "news:fetch.test.empty",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if len(res.Listing.Entries) != 0 {
					t.Errorf("entries %+v", res.Listing.Entries)
				}
			},
		},
		{
			// RFC 977 server: no CAPABILITIES, no OVER; XOVER works.
			name: "news-group-xover",
			fake: fake{noOver: true},
			url:  "news:fetch.test.alpha",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if len(res.Listing.Entries) != 3 {
					t.Errorf("entries %+v", res.Listing.Entries)
				}
			},
		},
		{
			name: "news-group-head",
			fake: fake{caps: []string{"READER"}, noXover: true, noOver: true},
			url:  "news:fetch.test.alpha",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				l := res.Listing
				want := []string{"news:hello.1@fetch.test", "news:odd$id%2Fwith%23chars@fetch.test", "news:third@fetch.test"}
				if fmt.Sprint(urls(l)) != fmt.Sprint(want) {
					t.Errorf("URLs %q, want %q", urls(l), want)
				}
				if l.Entries[0].Name != "Hello, news" || l.Entries[0].Size != -1 {
					t.Errorf("entry %+v", l.Entries[0])
				}
			},
		},
		{
			name: "news-group-503",
			fake: fake{caps: readerCaps, noOverview: true},
			url:  "news:fetch.test.beta",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if fmt.Sprint(urls(res.Listing)) != "[news:beta.7@fetch.test]" {
					t.Errorf("URLs %q", urls(res.Listing))
				}
			},
		},
		{
			name: "news-all",
			fake: fake{caps: readerCaps},
			url:  "news:*",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				l := res.Listing
				want := []string{"news:fetch.test.alpha", "news:fetch.test.beta", "news:fetch.test.empty", "news:fetch.test.secret", "news:other.group"}
				if fmt.Sprint(urls(l)) != fmt.Sprint(want) {
					t.Errorf("URLs %q, want %q", urls(l), want)
				}
				if l.Entries[0].Description != "Alpha test group" || l.Entries[0].Kind != fetch.EntryDir || l.Entries[1].Description != "" {
					t.Errorf("entries %+v", l.Entries)
				}
			},
		},
		{
			// RFC 977: LIST without a keyword; no LIST NEWSGROUPS.
			name: "news-all-rfc977",
			fake: fake{noActive: true},
			url:  "news:*",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if len(res.Listing.Entries) != 5 || res.Listing.Entries[0].Description != "" {
					t.Errorf("entries %+v", res.Listing.Entries)
				}
			},
		},
		{
			// RFC 5538 wildmat.
			name: "news-wildmat",
			fake: fake{caps: readerCaps},
			url:  "news:fetch.*.b*",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if fmt.Sprint(urls(res.Listing)) != "[news:fetch.test.beta]" {
					t.Errorf("URLs %q", urls(res.Listing))
				}
			},
		},
		{
			// RFC 5538 §2.2: news://server/group names its server, and
			// the listing's URLs keep it.
			name: "news-server-group",
			fake: fake{caps: readerCaps},
			cfg:  Config{Server: "127.0.0.9:1119"}, // not used
			url:  "news://%s/fetch.test.beta",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				want := "news://" + f.addr() + "/beta.7@fetch.test"
				if fmt.Sprint(urls(res.Listing)) != "["+want+"]" {
					t.Errorf("URLs %q, want %q", urls(res.Listing), want)
				}
				_, b, err := get(t, client(fetch.Options{}, Config{Server: "127.0.0.9:1119"}), want)
				if err != nil || string(b) != artBeta.local() {
					t.Errorf("%s: %v %q", want, err, b)
				}
				f.transcript(t)
			},
		},
		{
			// RFC 1738 §3.7.
			name: "nntp-article",
			fake: fake{caps: readerCaps},
			url:  "nntp://%s/fetch.test.alpha/4",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if string(body) != artThird.local() || res.Document.Meta[fetch.MetaArticleNumber] != "4" {
					t.Errorf("body %q meta %v", body, res.Document.Meta)
				}
			},
		},
		{
			name: "nntp-group",
			fake: fake{caps: readerCaps},
			url:  "nntp://%s/fetch.test.alpha",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				base := "nntp://" + f.addr() + "/fetch.test.alpha/"
				want := []string{base + "1", base + "2", base + "4"}
				if fmt.Sprint(urls(res.Listing)) != fmt.Sprint(want) {
					t.Errorf("URLs %q, want %q", urls(res.Listing), want)
				}
			},
		},
		{
			name: "nntp-all",
			fake: fake{caps: readerCaps},
			url:  "nntp://%s/",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if u := urls(res.Listing); len(u) != 5 || u[1] != "nntp://"+f.addr()+"/fetch.test.beta" {
					t.Errorf("URLs %q", u)
				}
			},
		},
		{
			// INN's innd: CAPABILITIES says MODE-READER, so MODE READER
			// first, then the reader's capabilities.
			name: "mode-reader-capability",
			fake: fake{caps: readerCaps, transitCaps: []string{"IHAVE", "MODE-READER"}, modeSwitch: true},
			url:  "news:beta.7@fetch.test",
		},
		{
			// No CAPABILITIES; GROUP gets 500 in transit mode.
			name: "mode-reader-on-500",
			fake: fake{modeSwitch: true},
			url:  "nntp://%s/fetch.test.beta/7",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if string(body) != artBeta.local() {
					t.Errorf("body %q", body)
				}
			},
		},
		{
			name: "auth-config",
			fake: fake{caps: readerCaps, user: "reader", pass: "s3cret"},
			cfg:  Config{User: "reader", Password: "s3cret"},
			url:  "news:fetch.test.secret",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if fmt.Sprint(urls(res.Listing)) != "[news:secret.1@fetch.test]" {
					t.Errorf("URLs %q", urls(res.Listing))
				}
			},
		},
		{
			// The nntp URL's own login comes before the configuration's.
			name: "auth-url",
			fake: fake{caps: readerCaps, user: "reader", pass: "s3cret"},
			cfg:  Config{User: "other", Password: "wrong"},
			url:  "nntp://reader:s3cret@%s/fetch.test.secret/1",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if string(body) != artSecret.local() {
					t.Errorf("body %q", body)
				}
			},
		},
		{
			name: "auth-prompt",
			fake: fake{caps: readerCaps, user: "reader", pass: "s3cret", authAll: true},
			opts: fetch.Options{Prompter: fetch.Answers{"user": "reader", "password": "s3cret"}},
			url:  "news:secret.1@fetch.test",
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if string(body) != artSecret.local() {
					t.Errorf("body %q", body)
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fake.groups = defaultGroups()
			f := newFake(t, &tc.fake)
			cfg := tc.cfg
			if cfg.Server == "" {
				cfg.Server = f.addr()
			}
			tr := &recorder{}
			tc.opts.Tracer = tr
			c := client(tc.opts, cfg)
			raw := tc.url
			if strings.Contains(raw, "%s") {
				raw = fmt.Sprintf(raw, f.addr())
			}
			res, body, err := getRaw(t, c, raw, tc.raw)
			if err != nil {
				t.Fatalf("fetch %s: %v\ntrace:\n%s", raw, err, tr)
			}
			golden(t, tc.name, f.transcript(t))
			if tc.check != nil {
				tc.check(t, res, body, f)
			}
			if pw := tc.fake.pass; pw != "" && strings.Contains(tr.String(), pw) {
				t.Errorf("the trace shows the password:\n%s", tr)
			}
		})
	}
}

// TestTraceMasksPassword checks -v output hides AUTHINFO PASS.
func TestTraceMasksPassword(t *testing.T) {
	f := newFake(t, &fake{caps: readerCaps, user: "reader", pass: "s3cret", groups: defaultGroups()})
	tr := &recorder{}
	c := client(fetch.Options{Tracer: tr}, Config{Server: f.addr(), User: "reader", Password: "s3cret"})
	if _, _, err := get(t, c, "news:fetch.test.secret"); err != nil {
		t.Fatal(err)
	}
	f.transcript(t)
	if !strings.Contains(tr.String(), "> AUTHINFO PASS ****") || strings.Contains(tr.String(), "s3cret") {
		t.Errorf("trace:\n%s", tr)
	}
}

// TestErrors checks each refusal maps to a clear error of the right kind.
func TestErrors(t *testing.T) {
	tests := []struct {
		name     string
		fake     fake
		cfg      Config
		opts     fetch.Options
		url      string
		kind     fetch.Kind
		is       error
		code     int
		part     string
		noDial   bool
		contains string
	}{
		{name: "no such group", url: "news:no.such.group", kind: fetch.KindServer, is: fetch.ErrNotFound, code: 411, part: "group"},
		{name: "no such message-id", url: "news:missing@fetch.test", kind: fetch.KindServer, is: fetch.ErrNotFound, code: 430, part: "message-id"},
		{name: "no such number", url: "nntp://%s/fetch.test.alpha/3", kind: fetch.KindServer, is: fetch.ErrNotFound, code: 423, part: "article"},
		{name: "nntp no such group", url: "nntp://%s/no.such/3", kind: fetch.KindServer, is: fetch.ErrNotFound, code: 411, part: "group"},
		{name: "auth needed, none given", fake: fake{user: "u", pass: "p"}, url: "news:fetch.test.secret",
			kind: fetch.KindServer, is: fetch.ErrAuth, code: 480},
		{name: "auth rejected", fake: fake{user: "u", pass: "p"}, cfg: Config{User: "u", Password: "bad"}, url: "news:fetch.test.secret",
			kind: fetch.KindServer, is: fetch.ErrAuth, code: 481},
		{name: "greeting 502", fake: fake{greeting: "502 you may not read here"}, url: "news:*",
			kind: fetch.KindServer, is: fetch.ErrAuth, code: 502},
		{name: "greeting 400", fake: fake{greeting: "400 out of service"}, url: "news:*",
			kind: fetch.KindServer, code: 400},
		{name: "CR LF in message-id", url: "news:a%0D%0AQUIT@fetch.test", kind: fetch.KindPolicy, is: fetch.ErrUnsafeLine, part: "message-id", noDial: true},
		{name: "LF in group", url: "news:fetch.test%0Abeta", kind: fetch.KindPolicy, is: fetch.ErrUnsafeLine, part: "group", noDial: true},
		{name: "NUL in nntp group", url: "nntp://%s/fetch%00x/1", kind: fetch.KindPolicy, is: fetch.ErrUnsafeLine, part: "group", noDial: true},
		{name: "CR in nntp article", url: "nntp://%s/fetch.test.alpha/1%0D", kind: fetch.KindPolicy, is: fetch.ErrUnsafeLine, part: "article", noDial: true},
		// an nntp path holds a group, never a message-id, whatever its "@"
		{name: "LF in nntp group with @", url: "nntp://%s/a@b%0A/1", kind: fetch.KindPolicy, is: fetch.ErrUnsafeLine, part: "group", noDial: true},
		{name: "space in message-id", url: "news:a%20b@fetch.test", kind: fetch.KindMalformed, noDial: true},
		{name: "article not a number", url: "nntp://%s/fetch.test.alpha/x", kind: fetch.KindMalformed, noDial: true},
		{name: "news server on the SMTP port", cfg: Config{Server: "127.0.0.1:25"}, url: "news:*", kind: fetch.KindPolicy, is: fetch.ErrPortRefused, noDial: true},
		{name: "bad NNTPSERVER-style server", cfg: Config{Server: "127.0.0.1:99999"}, url: "news:*", kind: fetch.KindUsage, noDial: true},
		{name: "malformed status", fake: fake{greeting: "hello there"}, url: "news:*", kind: fetch.KindServer, contains: "malformed reply"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fake.groups = defaultGroups()
			if tc.fake.caps == nil {
				tc.fake.caps = readerCaps
			}
			f := newFake(t, &tc.fake)
			cfg := tc.cfg
			if cfg.Server == "" {
				cfg.Server = f.addr()
			}
			c := client(tc.opts, cfg)
			raw := strings.Replace(tc.url, "%s", f.addr(), 1)
			_, _, err := get(t, c, raw)
			if err == nil {
				t.Fatal("no error")
			}
			var fe *fetch.Error
			if !errors.As(err, &fe) {
				t.Fatalf("%v is not a *fetch.Error", err)
			}
			if fe.Kind != tc.kind {
				t.Errorf("kind %v, want %v: %v", fe.Kind, tc.kind, err)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("%v is not %v", err, tc.is)
			}
			if fe.Code != tc.code {
				t.Errorf("code %d, want %d: %v", fe.Code, tc.code, err)
			}
			if tc.part != "" && fe.Part != tc.part {
				t.Errorf("part %q, want %q: %v", fe.Part, tc.part, err)
			}
			if tc.contains != "" && !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("%v does not say %q", err, tc.contains)
			}
			if fe.URL == "" {
				t.Errorf("error names no URL: %v", err)
			}
			if tc.cfg.Password != "" && strings.Contains(err.Error(), tc.cfg.Password) {
				t.Errorf("error shows the password: %v", err)
			}
			if tc.noDial {
				f.noConnection(t)
			}
		})
	}
}

// TestHostile injects faults: a block with no ".", a stall (a 1 MiB line:
// TestLineTooLong).
func TestHostile(t *testing.T) {
	tests := []struct {
		name   string
		url    string
		handle func(c *fakeConn, line string) bool
		is     error
	}{
		{
			name:   "article without final dot",
			url:    "news:hello.1@fetch.test",
			handle: cutAfter("ARTICLE", "220 0 <hello.1@fetch.test>", artHello.text),
			is:     fetch.ErrTruncated,
		},
		{
			name:   "article cut inside the header",
			url:    "news:hello.1@fetch.test",
			handle: cutAfter("ARTICLE", "220 0 <hello.1@fetch.test>", "Subject: cut\r\nFrom: x"),
			is:     fetch.ErrTruncated,
		},
		{
			name:   "overview without final dot",
			url:    "news:fetch.test.alpha",
			handle: cutAfter("OVER", "224 overview follows", overviewLine(artHello)+"\r\n"),
			is:     fetch.ErrTruncated,
		},
		{
			name:   "active list without final dot",
			url:    "news:*",
			handle: cutAfter("LIST ACTIVE", "215 list follows", "fetch.test.alpha 4 1 y\r\n"),
			is:     fetch.ErrTruncated,
		},
		{
			name: "stall before the greeting",
			url:  "news:*",
			handle: func(c *fakeConn, line string) bool {
				if line == "" {
					c.flush()
					untilGone(c) // the client gives up on its idle timeout
					return true
				}
				return false
			},
			is: fetch.ErrTimeout,
		},
		{
			name: "stall instead of a reply",
			url:  "news:hello.1@fetch.test",
			handle: func(c *fakeConn, line string) bool {
				if strings.HasPrefix(line, "ARTICLE") {
					c.flush()
					untilGone(c) // the client gives up on its idle timeout
					return true
				}
				return false
			},
			is: fetch.ErrTimeout,
		},
		{
			// Each byte comes inside the idle timeout, so only a
			// bound on the status line as a whole ends it (the
			// trickle alone would last 20 s).
			name: "status line trickled",
			url:  "news:hello.1@fetch.test",
			handle: func(c *fakeConn, line string) bool {
				if !strings.HasPrefix(line, "ARTICLE") {
					return false
				}
				c.w.WriteString("220 0 ")
				for range 200 {
					c.w.WriteString("x")
					if c.w.Flush() != nil {
						return true
					}
					time.Sleep(100 * time.Millisecond)
				}
				c.printf("")
				c.flush()
				return true
			},
			is: fetch.ErrTimeout,
		},
		{
			name: "stall inside an article",
			url:  "news:hello.1@fetch.test",
			handle: func(c *fakeConn, line string) bool {
				if strings.HasPrefix(line, "ARTICLE") {
					c.printf("220 0 <hello.1@fetch.test>")
					c.w.WriteString("Subject: slow\r\n\r\nfirst line\r\n")
					c.flush()
					c.flush()
					untilGone(c) // the client gives up on its idle timeout
					return true
				}
				return false
			},
			is: fetch.ErrTimeout,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, &fake{caps: readerCaps, groups: defaultGroups(), handle: tc.handle})
			const idle = 300 * time.Millisecond
			c := client(fetch.Options{IdleTimeout: idle}, Config{Server: f.addr()})
			start := time.Now()
			_, _, err := get(t, c, tc.url)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tc.is) {
				t.Errorf("%v is not %v", err, tc.is)
			}
			if k := fetch.KindOf(err); k != fetch.KindNetwork && k != fetch.KindServer {
				t.Errorf("kind %v: %v", k, err)
			}
			if d := time.Since(start); d > 30*idle {
				t.Errorf("took %v", d)
			}
		})
	}
}

// TestLineTooLong: a line from the server past wire.DefaultMaxLine, in
// whatever part of the conversation, is refused as a size bound (exit 4)
// whose message names the bound and the part, as the README says of
// every driver; it was a network failure (exit 5).
func TestLineTooLong(t *testing.T) {
	longLine := strings.Repeat("x", 1<<20)
	// answer writes reply, as it is, to the command that starts with
	// verb ("" for the greeting).
	answer := func(verb, reply string) func(c *fakeConn, line string) bool {
		return func(c *fakeConn, line string) bool {
			if verb == "" && line != "" || !strings.HasPrefix(line, verb) {
				return false
			}
			c.w.WriteString(reply)
			return true
		}
	}
	tests := []struct {
		name   string
		url    string
		handle func(c *fakeConn, line string) bool
		says   string
	}{
		{"greeting", "news:*", answer("", "200 "+longLine+"\r\n"), "status line"},
		{"status line of ARTICLE", "news:hello.1@fetch.test",
			answer("ARTICLE", "220 0 <hello.1@fetch.test> "+longLine+"\r\n"), "ARTICLE: status line"},
		{"header line", "news:hello.1@fetch.test",
			answer("ARTICLE", "220 0 <hello.1@fetch.test>\r\nSubject: "+longLine+"\r\n\r\nx\r\n.\r\n"), "article header line"},
		{"line of the body", "news:hello.1@fetch.test",
			answer("ARTICLE", "220 0 <hello.1@fetch.test>\r\nSubject: long\r\n\r\n"+longLine+"\r\n.\r\n"), "article line"},
		{"overview line", "news:fetch.test.alpha",
			answer("OVER", "224 overview follows\r\n1\t"+longLine+"\r\n.\r\n"), "OVER: line of a data block"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, &fake{caps: readerCaps, groups: defaultGroups(), handle: tc.handle})
			c := client(fetch.Options{IdleTimeout: 5 * time.Second}, Config{Server: f.addr()})
			_, _, err := get(t, c, tc.url)
			k := fetch.KindOf(err)
			if !errors.Is(err, fetch.ErrLineTooLong) || k != fetch.KindPolicy || k.ExitCode() != 4 {
				t.Fatalf("err = %v (kind %v, exit %d), want ErrLineTooLong refused by policy (exit 4)", err, k, k.ExitCode())
			}
			for _, want := range []string{tc.says, "more than 65536 bytes"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q does not say %q", err, want)
				}
			}
		})
	}
}

// untilGone holds the connection open without a word until the client
// closes it: a stall that lasts exactly as long as the client waits.
// cutAfter answers the command starting with cmd with status and the
// start of a text, body, and closes the connection there: the text
// never ends.
func cutAfter(cmd, status, body string) func(*fakeConn, string) bool {
	return func(c *fakeConn, line string) bool {
		if !strings.HasPrefix(line, cmd) {
			return false
		}
		c.printf("%s", status)
		c.w.WriteString(body)
		c.flush()
		c.conn.Close()
		return true
	}
}

func untilGone(c *fakeConn) {
	c.conn.SetReadDeadline(time.Now().Add(time.Minute))
	io.Copy(io.Discard, c.conn)
}

// TestHostileBounds: replies that stay within the global block bounds but
// run past what the request can produce are stopped at the request's own
// bound, named in a policy or server error (issue #12, findings 4 and 5).
func TestHostileBounds(t *testing.T) {
	endless := func(c *fakeConn, line func(i int) string) {
		for i := 0; ; i++ {
			c.w.WriteString(line(i) + "\r\n")
			if c.w.Flush() != nil {
				return
			}
		}
	}
	tests := []struct {
		name   string
		url    string
		handle func(c *fakeConn, line string) bool
		kind   fetch.Kind
		says   string
	}{
		{
			// fetch.test.alpha holds articles 1-4: OVER 1-4 can hold four.
			name: "overview longer than its range",
			url:  "news:fetch.test.alpha",
			handle: func(c *fakeConn, line string) bool {
				if !strings.HasPrefix(line, "OVER") {
					return false
				}
				c.printf("224 overview follows")
				endless(c, func(int) string { return overviewLine(artHello) })
				return true
			},
			kind: fetch.KindPolicy,
			says: "ran past the 4 articles the range can hold",
		},
		{
			name: "overview outside its range",
			url:  "news:fetch.test.alpha",
			handle: func(c *fakeConn, line string) bool {
				if !strings.HasPrefix(line, "OVER") {
					return false
				}
				c.printf("224 overview follows")
				a := artHello
				a.num = 5000
				c.w.WriteString(overviewLine(a) + "\r\n.\r\n")
				c.flush()
				return true
			},
			kind: fetch.KindServer,
			says: "past the requested range 1-4 (article 5000)",
		},
		{
			// Long names, so that the bound on names held comes after a
			// few tens of thousands of lines: small work.
			name: "endless active list",
			url:  "news:*",
			handle: func(c *fakeConn, line string) bool {
				if !strings.HasPrefix(line, "LIST ACTIVE") {
					return false
				}
				c.printf("215 list follows")
				pad := strings.Repeat("n", 400)
				endless(c, func(i int) string { return fmt.Sprintf("g%09d.%s 10 1 y", i, pad) })
				return true
			},
			kind: fetch.KindPolicy,
			says: fmt.Sprintf("limited to %d bytes of names", maxGroupNames),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, &fake{caps: readerCaps, groups: defaultGroups(), handle: tc.handle})
			c := client(fetch.Options{IdleTimeout: 5 * time.Second}, Config{Server: f.addr()})
			_, _, err := get(t, c, tc.url)
			if err == nil {
				t.Fatal("no error")
			}
			if k := fetch.KindOf(err); k != tc.kind || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("%v (kind %v), want kind %v saying %q", err, k, tc.kind, tc.says)
			}
		})
	}
}

// TestTrickledReplies: what is read whole before the fetch returns (an
// article's header, read for its metadata; the headers a listing reads
// where the server keeps no overview; the capabilities) takes at
// most the idle timeout from its first byte to its last (the lists of all
// groups groupListTime of them). A server that
// trickled it, each line well within the idle timeout, held the fetch for
// as long as the 256 KiB of a header or the 64 MiB of a block allowed.
func TestTrickledReplies(t *testing.T) {
	trickle := func(c *fakeConn, line string) {
		for c.w.WriteString(line + "\r\n"); c.w.Flush() == nil; c.w.WriteString(line + "\r\n") {
			time.Sleep(10 * time.Millisecond)
		}
	}
	for _, tc := range []struct {
		name   string
		handle func(c *fakeConn, line string) bool
	}{
		{"article header", func(c *fakeConn, line string) bool {
			if !strings.HasPrefix(line, "ARTICLE") {
				return false
			}
			c.printf("220 0 <hello.1@fetch.test>")
			trickle(c, "X-Pad: a")
			return true
		}},
		{"HEAD of a listing without an overview", func(c *fakeConn, line string) bool {
			switch {
			case strings.HasPrefix(line, "OVER"), strings.HasPrefix(line, "XOVER"):
				c.printf("500 unknown command")
				c.flush()
				return true
			case strings.HasPrefix(line, "HEAD"):
				c.printf("221 4 <hello.4@fetch.test>")
				trickle(c, "X-Pad: a")
				return true
			}
			return false
		}},
		{"capabilities", func(c *fakeConn, line string) bool {
			if line != "CAPABILITIES" {
				return false
			}
			c.printf("101 capability list follows")
			trickle(c, "X-PAD")
			return true
		}},
		// The lists of all groups are read whole too (news:*), each
		// within groupListTime idle timeouts.
		{"group list", func(c *fakeConn, line string) bool {
			if !strings.HasPrefix(line, "LIST ACTIVE") {
				return false
			}
			c.printf("215 list follows")
			trickle(c, "fetch.test.a 1 1 y")
			return true
		}},
		{"group descriptions", func(c *fakeConn, line string) bool {
			switch {
			case strings.HasPrefix(line, "LIST ACTIVE"):
				c.printf("215 list follows")
				c.w.WriteString("fetch.test.a 1 1 y\r\n.\r\n")
				c.flush()
				return true
			case strings.HasPrefix(line, "LIST NEWSGROUPS"):
				c.printf("215 descriptions follow")
				trickle(c, "fetch.test.a\tA group")
				return true
			}
			return false
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake(t, &fake{caps: readerCaps, groups: defaultGroups(), handle: tc.handle})
			c := client(fetch.Options{IdleTimeout: time.Second}, Config{Server: f.addr()})
			// Thirty times the bound under test: a fetch still running
			// then was not bounded by it.
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			u := "news:hello.1@fetch.test"
			switch {
			case strings.HasPrefix(tc.name, "HEAD"):
				u = "news:fetch.test.alpha"
			case strings.HasPrefix(tc.name, "group"):
				u = "news:*"
			}
			res, err := c.Fetch(ctx, u)
			if err == nil {
				res.Close()
			}
			if !errors.Is(err, fetch.ErrTimeout) || fetch.KindOf(err) != fetch.KindNetwork || errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("%v (kind %v), want a timeout of the reply", err, fetch.KindOf(err))
			}
		})
	}
}

// TestGroupListSortedWithDescriptions: the packed group list comes out in
// name order, each group with its description (the last one given when
// the server repeats a name; INN's "?" as none), then unreadable lines.
func TestGroupListSortedWithDescriptions(t *testing.T) {
	f := newFake(t, &fake{caps: readerCaps, groups: defaultGroups(), handle: func(c *fakeConn, line string) bool {
		switch {
		case strings.HasPrefix(line, "LIST ACTIVE"):
			c.printf("215 list follows")
			c.w.WriteString("zz.last 1 1 y\r\nbad line\r\naa.first 1 1 y\r\nmm.mid 1 1 y\r\n.\r\n")
		case strings.HasPrefix(line, "LIST NEWSGROUPS"):
			c.printf("215 descriptions follow")
			c.w.WriteString("mm.mid\told\r\nzz.last\t?\r\nmm.mid\tMiddle\r\nab.none\tNo such group\r\naa.first\tFirst\r\n.\r\n")
		default:
			return false
		}
		c.flush()
		return true
	}})
	c := client(fetch.Options{}, Config{Server: f.addr()})
	res, _, err := get(t, c, "news:*")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range res.Listing.Entries {
		got = append(got, fmt.Sprintf("%s %s %q %s", e.Kind, e.Name, e.Description, e.URL))
	}
	want := []string{`dir aa.first "First" news:aa.first`, `dir mm.mid "Middle" news:mm.mid`, `dir zz.last "" news:zz.last`, `raw bad line "" `}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestCancel checks a cancelled context ends a stalled fetch.
func TestCancel(t *testing.T) {
	f := newFake(t, &fake{caps: readerCaps, groups: defaultGroups(), handle: func(c *fakeConn, line string) bool {
		if strings.HasPrefix(line, "GROUP") {
			c.flush()
			untilGone(c)
			return true
		}
		return false
	}})
	c := client(fetch.Options{}, Config{Server: f.addr()})
	const limit = 200 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	start := time.Now()
	_, err := c.Fetch(ctx, "news:fetch.test.alpha")
	if err == nil || time.Since(start) > 20*limit {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
}

// TestNewsServer checks where a news: URL's server comes from.
func TestNewsServer(t *testing.T) {
	tests := []struct {
		cfg, env, port string
		want           string
		wantPort       int
		bad            bool
	}{
		{want: "localhost:119", wantPort: 119},
		{env: "news.example", want: "news.example:119", wantPort: 119},
		{env: "news.example:1119", want: "news.example:1119", wantPort: 1119},
		{env: "news.example", port: "1120", want: "news.example:1120", wantPort: 1120},
		{cfg: "cfg.example", env: "env.example", want: "cfg.example:119", wantPort: 119},
		{cfg: "[::1]:563", want: "[::1]:563", wantPort: 563},
		{cfg: "::1", want: "[::1]:119", wantPort: 119},
		{cfg: "[::1]", want: "[::1]:119", wantPort: 119},
		{cfg: "host:0", bad: true},
		{cfg: "host:x", bad: true},
		{cfg: "a b", bad: true},
		{cfg: "[::1", bad: true},
		{cfg: "::1]", bad: true},
		{cfg: "h\r\n:119", bad: true},
		{cfg: "h\x00", bad: true},
		{env: "h#x:119", bad: true},
		{cfg: "news_1.example-2", want: "news_1.example-2:119", wantPort: 119},
		{env: "h", port: "70000", bad: true},
	}
	for _, tc := range tests {
		t.Run(tc.cfg+"|"+tc.env+"|"+tc.port, func(t *testing.T) {
			t.Setenv("NNTPSERVER", tc.env)
			t.Setenv("NNTPPORT", tc.port)
			u, err := fetch.Parse("news:*")
			if err != nil {
				t.Fatal(err)
			}
			addr, port, err := New(Config{Server: tc.cfg}).newsServer(u)
			if tc.bad {
				if err == nil {
					t.Errorf("no error; got %s", addr)
				}
				return
			}
			if err != nil || addr != tc.want || port != tc.wantPort {
				t.Errorf("got %s %d %v, want %s %d", addr, port, err, tc.want, tc.wantPort)
			}
		})
	}
	// RFC 5538 news://host:port/ names its own server.
	u, err := fetch.Parse("news://news.example:1119/fetch.test.alpha")
	if err != nil {
		t.Fatal(err)
	}
	if addr, _, _ := New(Config{Server: "other"}).newsServer(u); addr != "news.example:1119" {
		t.Errorf("news://host:port/ gave %s", addr)
	}
}

// TestCapabilitiesBound: the capability list, held whole in a map, has a
// bound of its own (1,000 lines), not only a data block's 1,048,576 lines,
// which would take about ten times their size in memory.
func TestCapabilitiesBound(t *testing.T) {
	f := newFake(t, &fake{caps: readerCaps, groups: defaultGroups(), handle: func(c *fakeConn, line string) bool {
		if line != "CAPABILITIES" {
			return false
		}
		c.printf("101 Capability list:")
		for i := 0; i < 1500; i++ {
			fmt.Fprintf(c.w, "X%07d\r\n", i)
		}
		c.w.WriteString("READER\r\n.\r\n")
		return true
	}})
	_, _, err := get(t, client(fetch.Options{}, Config{Server: f.addr()}), "news:hello.1@fetch.test")
	if !errors.Is(err, fetch.ErrTooLarge) || fetch.KindOf(err) != fetch.KindPolicy || !strings.Contains(fmt.Sprint(err), "1000 lines") {
		t.Errorf("a 1,500-line capability list: %v (kind %v); want the bound, exit 4", err, fetch.KindOf(err))
	}
}

// TestCapabilityBytesBound: the capability list is bounded in bytes too
// (64 KiB): 999 lines of 64,000 bytes fit the line bounds, and a list
// read again after MODE READER had two such maps live, 125 MiB for one
// article, one of them kept by the pooled session.
func TestCapabilityBytesBound(t *testing.T) {
	pad := strings.Repeat("a", 64000)
	f := newFake(t, &fake{caps: readerCaps, groups: defaultGroups(), handle: func(c *fakeConn, line string) bool {
		if line != "CAPABILITIES" {
			return false
		}
		c.printf("101 Capability list:")
		for i := 0; i < 999; i++ {
			fmt.Fprintf(c.w, "X%07d %s\r\n", i, pad)
		}
		c.w.WriteString("READER\r\n.\r\n")
		return true
	}})
	_, _, err := get(t, client(fetch.Options{}, Config{Server: f.addr()}), "news:hello.1@fetch.test")
	if !errors.Is(err, fetch.ErrTooLarge) || fetch.KindOf(err) != fetch.KindPolicy || !strings.Contains(fmt.Sprint(err), "65536 bytes") {
		t.Errorf("a 64 MB capability list: %v (kind %v); want the bound, exit 4", err, fetch.KindOf(err))
	}
}

// TestListingIDWithoutAt: a message-id without "@" (RFC 3977 §3.6 allows
// one) gets no URL in a group's listing: news:<id> without "@" names a
// group (RFC 1738 §3.6), so the entry would have listed a group.
func TestListingIDWithoutAt(t *testing.T) {
	art := fakeArticle{num: 1, id: "noat.1", text: crlf(
		"From: a@fetch.test", "Subject: no at", "Date: Mon, 02 Nov 2026 10:00:00 +0000",
		"Message-ID: <noat.1>", "", "Body.")}
	f := newFake(t, &fake{caps: readerCaps, groups: []*fakeGroup{{name: "fetch.test.x", arts: []fakeArticle{art}}}})
	res, _, err := get(t, client(fetch.Options{}, Config{Server: f.addr()}), "news:fetch.test.x")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Listing.Entries) != 1 || res.Listing.Entries[0].URL != "" {
		t.Errorf("entries %+v; want the article without a URL", res.Listing.Entries)
	}
}

// TestListingURLsFetch checks every URL of a group listing fetches the
// article it lists, for both forms.
func TestListingURLsFetch(t *testing.T) {
	f := newFake(t, &fake{caps: readerCaps, groups: defaultGroups()})
	c := client(fetch.Options{}, Config{Server: f.addr()})
	for _, list := range []string{"news:fetch.test.alpha", "nntp://" + f.addr() + "/fetch.test.alpha"} {
		res, _, err := get(t, c, list)
		if err != nil {
			t.Fatal(err)
		}
		f.transcript(t)
		for i, e := range res.Listing.Entries {
			_, body, err := get(t, c, e.URL)
			if err != nil {
				t.Fatalf("%s: %v", e.URL, err)
			}
			f.transcript(t)
			want := []fakeArticle{artHello, artWords, artThird}[i].local()
			if !bytes.Equal(body, []byte(want)) {
				t.Errorf("%s gave %q", e.URL, body)
			}
		}
	}
}

// promptLog is a Prompter that answers from a map and keeps each question.
type promptLog struct {
	mu      sync.Mutex
	answers fetch.Answers
	asked   []fetch.Question
}

func (p *promptLog) Prompt(ctx context.Context, q fetch.Question) (string, error) {
	p.mu.Lock()
	p.asked = append(p.asked, q)
	p.mu.Unlock()
	return p.answers.Prompt(ctx, q)
}

// TestConfigCredentialsStayHome checks Config.User and Config.Password go
// only to the configured server: another server an nntp:// or news://
// URL names, asking 480, never sees them, and gets the URL's own login or
// the prompter's answers instead.
func TestConfigCredentialsStayHome(t *testing.T) {
	const user, pass = "reader", "s3cret"
	home := newFake(t, &fake{caps: readerCaps, user: user, pass: pass, groups: defaultGroups()})
	// The other server would accept the configured login, were it sent.
	other := newFake(t, &fake{caps: readerCaps, user: user, pass: pass, authAll: true, groups: defaultGroups()})
	cfg := Config{Server: home.addr(), User: user, Password: pass}

	for _, raw := range []string{
		"nntp://" + other.addr() + "/fetch.test.secret/1",
		"nntp://" + other.addr() + "/fetch.test.secret",
		"nntp://" + other.addr() + "/",
		"news://" + other.addr() + "/fetch.test.secret",
		"news://" + other.addr() + "/secret.1@fetch.test",
	} {
		t.Run(raw, func(t *testing.T) {
			_, _, err := get(t, client(fetch.Options{}, cfg), raw)
			if !errors.Is(err, fetch.ErrAuth) {
				t.Errorf("err %v, want ErrAuth", err)
			}
			if sent := other.transcript(t); strings.Contains(sent, pass) || strings.Contains(sent, "AUTHINFO") {
				t.Errorf("the other server was sent the configured login:\n%s", show(sent))
			}
		})
	}

	t.Run("URL user, prompted password", func(t *testing.T) {
		p := &promptLog{answers: fetch.Answers{"password": "typed"}}
		_, _, err := get(t, client(fetch.Options{Prompter: p}, cfg), "nntp://"+user+"@"+other.addr()+"/fetch.test.secret/1")
		if !errors.Is(err, fetch.ErrAuth) {
			t.Errorf("err %v, want ErrAuth (481 to the typed password)", err)
		}
		sent := other.transcript(t)
		if strings.Contains(sent, pass) || !strings.Contains(sent, "AUTHINFO PASS typed\r\n") {
			t.Errorf("the other server was sent:\n%s", show(sent))
		}
		if len(p.asked) != 1 || p.asked[0].Field != "password" || !strings.Contains(p.asked[0].Label, other.addr()) {
			t.Errorf("questions %+v, want one password question naming %s", p.asked, other.addr())
		}
	})

	t.Run("prompted login", func(t *testing.T) {
		p := &promptLog{answers: fetch.Answers{"user": "u2", "password": "p2"}}
		_, _, err := get(t, client(fetch.Options{Prompter: p}, cfg), "news://"+other.addr()+"/fetch.test.secret")
		if !errors.Is(err, fetch.ErrAuth) {
			t.Errorf("err %v, want ErrAuth", err)
		}
		if sent := other.transcript(t); strings.Contains(sent, pass) || !strings.Contains(sent, "AUTHINFO USER u2\r\nAUTHINFO PASS p2\r\n") {
			t.Errorf("the other server was sent:\n%s", show(sent))
		}
		if len(p.asked) != 2 || !strings.Contains(p.asked[0].Label, other.addr()) {
			t.Errorf("questions %+v, want user and password questions naming %s", p.asked, other.addr())
		}
	})

	// The configured server itself, by either form, gets them.
	for _, raw := range []string{"news:fetch.test.secret", "nntp://" + home.addr() + "/fetch.test.secret/1", "news://" + home.addr() + "/fetch.test.secret"} {
		t.Run("home "+raw, func(t *testing.T) {
			if _, _, err := get(t, client(fetch.Options{}, cfg), raw); err != nil {
				t.Fatal(err)
			}
			if sent := home.transcript(t); !strings.Contains(sent, "AUTHINFO PASS "+pass+"\r\n") {
				t.Errorf("the configured server was sent:\n%s", show(sent))
			}
		})
	}
}

// TestHeadsHighMarkMaxInt64 checks a group whose high mark is MaxInt64,
// listed through HEAD (no overview, every article gone), asks for at most
// a page of articles, each in the group's range, and ends: stepping an
// article number up to MaxInt64 would wrap around and never stop.
func TestHeadsHighMarkMaxInt64(t *testing.T) {
	var mu sync.Mutex
	var heads []string
	f := newFake(t, &fake{caps: readerCaps, groups: defaultGroups(), handle: func(c *fakeConn, line string) bool {
		verb, arg, _ := strings.Cut(line, " ")
		switch verb {
		case "GROUP":
			c.printf("211 1 0 9223372036854775807 g")
		case "OVER", "XOVER":
			c.printf("503 overview not available")
		case "HEAD":
			mu.Lock()
			heads = append(heads, arg)
			n := len(heads)
			mu.Unlock()
			if n > 1000 { // enough to know the loop runs away
				c.conn.Close()
				return true
			}
			c.printf("423 no such article")
		default:
			return false
		}
		return true
	}})
	for _, page := range []int{0, 3} {
		heads = nil
		c := client(fetch.Options{}, Config{Server: f.addr(), PageSize: page})
		res, _, err := get(t, c, "news:g")
		if err != nil {
			t.Fatalf("page %d: %v", page, err)
		}
		f.transcript(t)
		if len(res.Listing.Entries) != 0 {
			t.Errorf("page %d: entries %v", page, res.Listing.Entries)
		}
		want := page
		if want == 0 {
			want = DefaultPageSize
		}
		if len(heads) != want {
			t.Errorf("page %d: %d HEAD commands, want %d", page, len(heads), want)
		}
		for i, h := range heads {
			if w := strconv.FormatInt(math.MaxInt64-int64(want)+1+int64(i), 10); h != w {
				t.Errorf("page %d: HEAD %d is %q, want %q", page, i, h, w)
				break
			}
		}
	}
}

// noOverview is a server whose group g has articles 1 to 100 and no
// overview: header writes the header of article arg (and its end), after
// its status line.
func noOverview(t *testing.T, header func(c *fakeConn, arg string)) *fake {
	return newFake(t, &fake{caps: readerCaps, groups: defaultGroups(), handle: func(c *fakeConn, line string) bool {
		verb, arg, _ := strings.Cut(line, " ")
		switch verb {
		case "GROUP":
			c.printf("211 100 1 100 g")
		case "OVER", "XOVER":
			c.printf("503 overview not available")
		case "HEAD":
			c.printf("221 %s <%s@fetch.test>", arg, arg)
			header(c, arg)
		default:
			return false
		}
		return true
	}})
}

// TestHeadsKeepShownFields: a group listed through HEAD (no overview)
// keeps of each article's header only the fields its entry shows, each
// cut at maxHeadField. The whole of each header's first maxHeaderBytes
// was kept until the listing returned: a hundred headers with a folded
// Subject of a few hundred KiB held 25 MiB, and twice that resident.
func TestHeadsKeepShownFields(t *testing.T) {
	subject := "Subject: s" + strings.Repeat("\r\n "+strings.Repeat("x", 1000), 300)
	from := "From: " + strings.Repeat("f", 2*maxHeadField)
	f := noOverview(t, func(c *fakeConn, arg string) {
		c.block(crlf("Message-ID: <"+arg+"@fetch.test>", "Date: Mon, 02 Nov 2026 10:00:00 +0000", from, subject))
	})
	c := client(fetch.Options{}, Config{Server: f.addr()})
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res, _, err := get(t, c, "news:g")
	if err != nil {
		t.Fatal(err)
	}
	runtime.GC()
	runtime.ReadMemStats(&after)
	es := res.Listing.Entries
	if len(es) != DefaultPageSize {
		t.Fatalf("%d entries, want %d", len(es), DefaultPageSize)
	}
	for i, e := range es {
		if len(e.Name) > maxHeadField || !strings.HasPrefix(e.Name, "s xxx") {
			t.Errorf("entry %d: a name of %d bytes (%.20q), want the Subject's first %d", i, len(e.Name), e.Name, maxHeadField)
		}
		if len(e.Description) > maxHeadField || !strings.HasPrefix(e.Description, "fff") {
			t.Errorf("entry %d: a description of %d bytes, want the From's first %d", i, len(e.Description), maxHeadField)
		}
		if want := fmt.Sprintf("news:%d@fetch.test", i+1); e.URL != want || e.Date.IsZero() {
			t.Errorf("entry %d: URL %q and date %v, want %q and the Date", i, e.URL, e.Date, want)
		}
	}
	// The entries hold about 800 KiB; the headers were 25 MiB.
	if held := int64(after.HeapAlloc) - int64(before.HeapAlloc); held > 8<<20 {
		t.Errorf("a listing of %d headers holds %d MiB", len(es), held>>20)
	}
	runtime.KeepAlive(res)
}

// TestHeadsTimedAsAWhole: a group listed through HEAD (no overview) is
// read within headsTime idle timeouts in all. Each header was timed on
// its own only: a hundred of them, each answered a while after its
// status line, held the fetch for a hundred whiles with nothing shown.
func TestHeadsTimedAsAWhole(t *testing.T) {
	const idle = 500 * time.Millisecond
	var mu sync.Mutex
	heads := 0
	f := noOverview(t, func(c *fakeConn, _ string) {
		mu.Lock()
		heads++
		mu.Unlock()
		c.printf("Subject: s")
		c.flush()
		// Far within the idle timeout, as each header is.
		time.Sleep(idle / 10)
		c.printf("From: f")
		c.printf(".")
	})
	c := client(fetch.Options{IdleTimeout: idle}, Config{Server: f.addr()})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	res, err := c.Fetch(ctx, "news:g")
	took := time.Since(start)
	if err == nil {
		res.Close()
	}
	if !errors.Is(err, fetch.ErrTimeout) || fetch.KindOf(err) != fetch.KindNetwork || !strings.Contains(err.Error(), "headers") {
		t.Fatalf("%v (kind %v), want a timeout of the headers", err, fetch.KindOf(err))
	}
	// Four times the bound: a busy machine may run late, but not
	// through the hundred headers' 5 s.
	if limit := headsTime * idle; took > 4*limit {
		t.Errorf("the fallback failed after %v, bounded to %v", took, limit)
	}
	mu.Lock()
	defer mu.Unlock()
	if heads >= DefaultPageSize {
		t.Errorf("all %d headers were asked for", heads)
	}
}
