package mailto

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixedDate is the Date of every composed test message.
var fixedDate = time.Date(2026, 11, 5, 14, 30, 0, 0, time.FixedZone("", 3600))

// testDriver returns a driver whose clock, Message-ID, host name and
// environment are fixed.
func testDriver(cfg Config) *Driver {
	d := New(cfg)
	d.now = func() time.Time { return fixedDate }
	d.newID = func() string { return "TESTID.1" }
	d.hostname = func() (string, error) { return "host.example", nil }
	d.username = func() string { return "tester" }
	d.env = func(string) string { return "" }
	return d
}

// traceLog collects a request's trace.
type traceLog struct{ lines []string }

func (t *traceLog) Trace(dir fetch.Direction, line string) {
	t.lines = append(t.lines, string(dir)+" "+line)
}

func (t *traceLog) infos() []string {
	var out []string
	for _, l := range t.lines {
		if strings.HasPrefix(l, "* ") {
			out = append(out, l)
		}
	}
	return out
}

// fetchWith runs d on rawURL through a client, as the command does.
func fetchWith(t *testing.T, d *Driver, opts fetch.Options, rawURL string) (*fetch.Result, error) {
	t.Helper()
	return fetchBody(t, d, opts, nil, rawURL)
}

// fetchBody is fetchWith with a message body on the request.
func fetchBody(t *testing.T, d *Driver, opts fetch.Options, body io.Reader, rawURL string) (*fetch.Result, error) {
	t.Helper()
	c := fetch.NewClient(opts)
	c.Register("mailto", d)
	req, err := fetch.NewRequest(rawURL)
	if err != nil {
		return nil, err
	}
	req.Body = body
	return c.Do(context.Background(), req)
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file\n--- got:\n%s\n--- want:\n%s", name, got, want)
	}
}

// The RFC 6068 §6 examples and the header forms the driver writes. Each
// golden file holds the envelope, the warnings and the exact message.
var composeTests = []struct {
	name string
	url  string
	cfg  Config
	body string // request body (--data); "" means none
}{
	// RFC 6068 §6.1 basic examples
	{name: "rfc6068-basic", url: "mailto:chris@example.com"},
	{name: "rfc6068-subject", url: "mailto:infobot@example.com?subject=current-issue"},
	{name: "rfc6068-body", url: "mailto:infobot@example.com?body=send%20current-issue"},
	{name: "rfc6068-body-crlf", url: "mailto:infobot@example.com?body=send%20current-issue%0D%0Asend%20index"},
	{name: "rfc6068-in-reply-to", url: "mailto:list@example.org?In-Reply-To=%3C3469A91.D10AF4C@example.com%3E"},
	{name: "rfc6068-majordomo", url: "mailto:majordomo@example.com?body=subscribe%20bamboo-l"},
	{name: "rfc6068-cc", url: "mailto:joe@example.com?cc=bob@example.com&body=hello"},
	{name: "rfc6068-percent", url: "mailto:gorby%25kremvax@example.com"},
	{name: "rfc6068-unknown-field", url: "mailto:unlikely%3Faddress@example.com?blat=foop"},
	{name: "rfc6068-ampersand", url: "mailto:Mike%26family@example.org"},
	// RFC 6068 §6.2 examples of complicated escaping
	{name: "rfc6068-quoted-at", url: "mailto:%22not%40me%22@example.org"},
	{name: "rfc6068-quoted-backslash", url: "mailto:%22oh%5C%5Cno%22@example.org"},
	{name: "rfc6068-quoted-ugly", url: "mailto:%22%5C%5C%5C%22it's%5C%20ugly%5C%5C%5C%22%22@example.org"},
	// RFC 6068 §6.3 non-ASCII
	{name: "rfc6068-utf8-subject", url: "mailto:user@example.org?subject=caf%C3%A9"},
	{name: "rfc6068-encoded-word-utf8", url: "mailto:user@example.org?subject=%3D%3Futf-8%3FQ%3Fcaf%3DC3%3DA9%3F%3D"},
	{name: "rfc6068-encoded-word-latin1", url: "mailto:user@example.org?subject=%3D%3Fiso-8859-1%3FQ%3Fcaf%3DE9%3F%3D"},
	{name: "rfc6068-utf8-subject-body", url: "mailto:user@example.org?subject=caf%C3%A9&body=caf%C3%A9"},
	{name: "rfc6068-idn", url: "mailto:user@%E7%B4%8D%E8%B1%86.example.org?subject=Test&body=NATTO"},
	// RFC 6068 §2 address lists
	{name: "list", url: "mailto:addr1@an.example,addr2@an.example"},
	{name: "list-to-field", url: "mailto:?to=addr1@an.example,addr2@an.example"},
	{name: "list-mixed", url: "mailto:addr1@an.example?to=addr2@an.example&cc=addr1@an.example"},
	// Bcc only with AllowBcc; never in the header.
	{name: "bcc-dropped", url: "mailto:a@example.org?bcc=hidden@example.org"},
	{name: "bcc-allowed", url: "mailto:a@example.org?bcc=hidden@example.org", cfg: Config{AllowBcc: true}},
	// Dangerous fields are dropped (RFC 6068 §3, §7).
	{name: "dangerous-fields", url: "mailto:a@example.org?from=boss@example.org&reply-to=x@evil.example&subject=ok&subject=second"},
	{name: "keywords", url: "mailto:a@example.org?keywords=fetch,%20test,%20r%C3%A9sum%C3%A9"},
	// Long UTF-8 subjects become several folded encoded-words.
	{name: "long-subject", url: "mailto:a@example.org?subject=" + strings.Repeat("%C3%A9t%C3%A9%20", 20)},
	// Sender forms.
	{name: "from-name", url: "mailto:a@example.org", cfg: Config{From: "Zoë Example <zoe@example.org>"}},
	{name: "from-name-quoted", url: "mailto:a@example.org", cfg: Config{From: "J. R. \"Bob\" Dobbs <bob@example.org>"}},
	{name: "from-default", url: "mailto:a@example.org", cfg: Config{From: ""}},
	// Bodies from the request: 7bit when plain, quoted-printable otherwise.
	{name: "data-ascii", url: "mailto:a@example.org?subject=Hello", body: "hi\nthere = here\n.\n.. dots stay in a file\n"},
	{name: "data-utf8", url: "mailto:a@example.org?subject=Hello&body=ignored", body: "Grüße aus Köln\r\nzweite Zeile"},
	{name: "data-long-line", url: "mailto:a@example.org", body: strings.Repeat("0123456789", 120) + "\n"},
	{name: "data-control", url: "mailto:a@example.org", body: "tab\there\x00nul\rcr alone\n"},
	{name: "empty-body", url: "mailto:a@example.org?subject=nothing"},
}

func TestComposeGolden(t *testing.T) {
	for _, tt := range composeTests {
		t.Run(tt.name, func(t *testing.T) {
			cfg := tt.cfg
			cfg.DryRun = true
			if cfg.From == "" && tt.name != "from-default" {
				cfg.From = "sender@example.net"
			}
			var tr traceLog
			opts := fetch.Options{Tracer: &tr}
			var body io.Reader
			if tt.body != "" {
				body = strings.NewReader(tt.body)
			}
			res, err := fetchBody(t, testDriver(cfg), opts, body, tt.url)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Close()
			if res.Kind != fetch.KindDocument || res.Document.MIMEType != "message/rfc822" {
				t.Fatalf("result %+v, want a message/rfc822 document", res)
			}
			msg, err := io.ReadAll(res.Document.Body)
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(msg)) != res.Document.Size {
				t.Errorf("Size %d, message has %d bytes", res.Document.Size, len(msg))
			}
			checkMessageShape(t, msg)
			var g bytes.Buffer
			g.WriteString("# " + tt.url + "\n")
			g.WriteString("# recipients: " + res.Document.Meta[fetch.MetaRecipients] + "\n")
			for _, l := range tr.infos() {
				g.WriteString("# " + l + "\n")
			}
			g.Write(msg)
			checkGolden(t, filepath.Join("compose", tt.name+".golden"), g.Bytes())
		})
	}
}

// checkMessageShape checks what every composed message must be: CR LF
// lines of at most 998 octets, 7-bit, a header of known fields.
func checkMessageShape(t *testing.T, msg []byte) {
	t.Helper()
	if !bytes.HasSuffix(msg, []byte("\r\n")) {
		t.Errorf("message does not end in CR LF")
	}
	head, _, ok := bytes.Cut(msg, []byte("\r\n\r\n"))
	if !ok {
		t.Fatalf("no blank line after the header:\n%s", msg)
	}
	for i, line := range strings.Split(strings.TrimSuffix(string(msg), "\r\n"), "\r\n") {
		if len(line) > 998 {
			t.Errorf("line %d has %d octets", i+1, len(line))
		}
		if strings.ContainsAny(line, "\r\n\x00") {
			t.Errorf("line %d holds a bare CR, LF or NUL: %q", i+1, line)
		}
	}
	known := map[string]bool{"From": true, "To": true, "Cc": true, "Subject": true, "Date": true, "Message-Id": true,
		"In-Reply-To": true, "Keywords": true, "Mime-Version": true, "Content-Type": true, "Content-Transfer-Encoding": true}
	for _, line := range strings.Split(string(head), "\r\n") {
		if strings.TrimSpace(line) == "" {
			t.Errorf("header line of white space only: %q", line)
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			continue
		}
		k, _, _ := strings.Cut(line, ":")
		if !known[canonical(k)] {
			t.Errorf("unexpected header field %q", line)
		}
	}
}

func canonical(k string) string {
	parts := strings.Split(strings.ToLower(k), "-")
	for i, p := range parts {
		if p != "" {
			parts[i] = strings.ToUpper(p[:1]) + p[1:]
		}
	}
	return strings.Join(parts, "-")
}

// Header injection through the URL or the configuration is refused before
// anything is composed: exit 4, naming the field (RFC 6068 §7).
func TestInjectionRefused(t *testing.T) {
	tests := []struct {
		url  string
		from string
		part string
	}{
		{url: "mailto:joe@example.com?subject=x%0D%0ABcc:evil@example.com", part: "subject"},
		{url: "mailto:joe@example.com%3E%0D%0ARCPT%20TO:%3Cevil@example.com%3E", part: "to"},
		{url: "mailto:%22joe%0D%0A%22@example.com", part: "to"},
		{url: "mailto:?to=joe@example.com%3E%0D%0ADATA", part: "to"},
		{url: "mailto:a@example.com?cc=b@example.com%0ARCPT%20TO:%3Cc@example.com%3E", part: "cc"},
		{url: "mailto:a@example.com?bcc=b@example.com%0D", part: "bcc"},
		{url: "mailto:a@example.com?In-Reply-To=%3Cx@y%3E%0D%0AX-Evil:1", part: "in-reply-to"},
		{url: "mailto:a@example.com?keywords=a%0Ab", part: "keywords"},
		{url: "mailto:a@example.com?x-mailer=z%0D%0AFrom:%20boss@example.com", part: "x-mailer"},
		{url: "mailto:a@example.com?x%0D%0AFrom=boss@example.com", part: "header name"},
		{url: "mailto:a%00b@example.com", part: "to"},
		{url: "mailto:a@example.com?subject=%00", part: "subject"},
		{url: "mailto:a@example.com", from: "me@example.com\r\nBcc: evil@example.com", part: "from"},
	}
	for _, tt := range tests {
		t.Run(tt.url, func(t *testing.T) {
			from := tt.from
			if from == "" {
				from = "me@example.com"
			}
			srv := newTestServer(t, nil)
			d := testDriver(Config{SMTPServer: srv.addr, From: from, AllowBcc: true})
			_, err := fetchBody(t, d, fetch.Options{}, strings.NewReader("hi\n"), tt.url)
			var fe *fetch.Error
			if !errors.As(err, &fe) {
				t.Fatalf("err = %v, want a *fetch.Error", err)
			}
			if fe.Kind != fetch.KindPolicy || fe.Kind.ExitCode() != 4 || !errors.Is(err, fetch.ErrUnsafeLine) {
				t.Errorf("err = %v (kind %v), want a line-safety refusal, exit 4", err, fe.Kind)
			}
			if fe.Part != tt.part {
				t.Errorf("Part = %q, want %q", fe.Part, tt.part)
			}
			if n := srv.connections(); n != 0 {
				t.Errorf("%d connections reached the server", n)
			}
		})
	}
}

// A body may carry line breaks (RFC 6068 §2): not an injection.
func TestBodyLineBreaksAllowed(t *testing.T) {
	d := testDriver(Config{DryRun: true, From: "me@example.com"})
	res, err := fetchWith(t, d, fetch.Options{}, "mailto:a@example.com?body=one%0D%0ABcc:%20x@example.com%0D%0A")
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(res.Document.Body)
	head, body, _ := bytes.Cut(msg, []byte("\r\n\r\n"))
	if bytes.Contains(head, []byte("Bcc")) || string(body) != "one\r\nBcc: x@example.com\r\n" {
		t.Errorf("message:\n%s", msg)
	}
}

func TestMalformedAddresses(t *testing.T) {
	for _, u := range []string{
		"mailto:joe@example.com%3E",
		"mailto:%3Cjoe@example.com%3E",
		"mailto:joe",
		"mailto:joe@exa%20mple.com",
		"mailto:joe@-example.com",
		"mailto:joe@[1.2.3]",
		"mailto:joe@example.com?In-Reply-To=not-a-message-id",
		"mailto:?subject=nobody",
	} {
		t.Run(u, func(t *testing.T) {
			d := testDriver(Config{DryRun: true, From: "me@example.com"})
			_, err := fetchWith(t, d, fetch.Options{}, u)
			if k := fetch.KindOf(err); k != fetch.KindMalformed {
				t.Errorf("err = %v (kind %v), want KindMalformed", err, k)
			}
		})
	}
}

func TestSenderErrors(t *testing.T) {
	for _, from := range []string{"not an address", "a@example.com, b@example.com", "x@"} {
		d := testDriver(Config{DryRun: true, From: from})
		_, err := fetchWith(t, d, fetch.Options{}, "mailto:a@example.com")
		if k := fetch.KindOf(err); k != fetch.KindUsage {
			t.Errorf("From %q: err = %v (kind %v), want KindUsage", from, err, k)
		}
	}
	d := testDriver(Config{DryRun: true})
	d.env = func(k string) string {
		if k == "EMAIL" {
			return "Env Sender <env@example.com>"
		}
		return ""
	}
	res, err := fetchWith(t, d, fetch.Options{}, "mailto:a@example.com")
	if err != nil {
		t.Fatal(err)
	}
	msg, _ := io.ReadAll(res.Document.Body)
	if !bytes.HasPrefix(msg, []byte("From: Env Sender <env@example.com>\r\n")) {
		t.Errorf("EMAIL not used:\n%s", msg)
	}
}

func TestNoSMTPServer(t *testing.T) {
	d := testDriver(Config{From: "me@example.com"})
	_, err := fetchBody(t, d, fetch.Options{}, strings.NewReader("x"), "mailto:a@example.com")
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Kind != fetch.KindUsage || fe.Setting != "mailto.Config.SMTPServer" || strings.Contains(err.Error(), "--") {
		t.Errorf("err = %v, want a usage error naming the SMTPServer setting, no flag", err)
	}
}

func TestBodyTooLarge(t *testing.T) {
	d := testDriver(Config{DryRun: true, From: "me@example.com"})
	_, err := fetchBody(t, d, fetch.Options{}, io.LimitReader(zeros{}, maxBody+1), "mailto:a@example.com")
	if !errors.Is(err, fetch.ErrTooLarge) || fetch.KindOf(err) != fetch.KindPolicy {
		t.Errorf("err = %v, want ErrTooLarge", err)
	}
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = 'a'
	}
	return len(p), nil
}

func TestEditor(t *testing.T) {
	var shown string
	edit := func(_ context.Context, draft []byte) ([]byte, error) {
		shown = string(draft)
		out := strings.Replace(string(draft), "Subject: Hi\n", "Subject: Hi again\nX-Extra: dropped\n", 1)
		out = strings.Replace(out, "Cc: \n", "Cc: Carol <carol@example.org>,\n dave@example.org\n", 1)
		return []byte(out + "Body written in the editor.\n"), nil
	}
	var tr traceLog
	d := testDriver(Config{DryRun: true, From: "me@example.com", Edit: edit})
	res, err := fetchWith(t, d, fetch.Options{Tracer: &tr}, "mailto:a@example.org?subject=Hi")
	if err != nil {
		t.Fatal(err)
	}
	if want := "From: me@example.com\nTo: a@example.org\nCc: \nSubject: Hi\n\n"; shown != want {
		t.Errorf("draft shown:\n%q\nwant\n%q", shown, want)
	}
	msg, _ := io.ReadAll(res.Document.Body)
	var g bytes.Buffer
	g.WriteString("# recipients: " + res.Document.Meta[fetch.MetaRecipients] + "\n")
	for _, l := range tr.infos() {
		g.WriteString("# " + l + "\n")
	}
	g.Write(msg)
	checkGolden(t, "compose/editor.golden", g.Bytes())
}

func TestEditorErrors(t *testing.T) {
	tests := []struct {
		name, text string
		kind       fetch.Kind
	}{
		{"emptied", "  \n\n", fetch.KindUsage},
		{"no recipient", "From: me@example.com\nTo: \n\nbody\n", fetch.KindUsage},
		{"not a field", "To: a@example.org\nno colon here\nbody\n", fetch.KindUsage},
		{"bad address", "To: a@@example.org\n\nbody\n", fetch.KindUsage},
		{"nul", "To: a@example.org\nSubject: a\x00b\n\nbody\n", fetch.KindPolicy},
		{"bad utf8", "To: a@example.org\n\n\xff\n", fetch.KindUsage},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			edit := func(context.Context, []byte) ([]byte, error) { return []byte(tt.text), nil }
			d := testDriver(Config{DryRun: true, From: "me@example.com", Edit: edit})
			_, err := fetchWith(t, d, fetch.Options{}, "mailto:a@example.org")
			if k := fetch.KindOf(err); k != tt.kind {
				t.Errorf("err = %v (kind %v), want %v", err, k, tt.kind)
			}
		})
	}
	failing := func(context.Context, []byte) ([]byte, error) { return nil, errors.New("editor exited with status 1") }
	d := testDriver(Config{DryRun: true, From: "me@example.com", Edit: failing})
	if _, err := fetchWith(t, d, fetch.Options{}, "mailto:a@example.org"); fetch.KindOf(err) != fetch.KindLocal {
		t.Errorf("failing editor: err = %v, want KindLocal", err)
	}
}

func TestParseAddrSpec(t *testing.T) {
	tests := []struct {
		in, spec string
		ok       bool
	}{
		{"a@example.com", "a@example.com", true},
		{"a.b+c@example.com", "a.b+c@example.com", true},
		{`"a b"@example.com`, `"a b"@example.com`, true},
		{`"a\"b"@example.com`, `"a\"b"@example.com`, true},
		{"a@[127.0.0.1]", "a@[127.0.0.1]", true},
		{"a@[IPv6:::1]", "a@[IPv6:::1]", true},
		{"a@Example.COM", "a@example.com", true},
		{"a@bücher.example", "a@xn--bcher-kva.example", true},
		{"jörg@example.com", "jörg@example.com", true},
		{"a@b@example.com", "", false},
		{"a..b@example.com", "", false},
		{".a@example.com", "", false},
		{"a@example..com", "", false},
		{"a@example.com.", "", false},
		{"a@", "", false},
		{"@example.com", "", false},
		{`""@example.com`, "", false},
		{`"a"b@example.com`, "", false},
		{`"a`, "", false},
		{"a b@example.com", "", false},
		{"a>@example.com", "", false},
		{"a@example.com>", "", false},
		{"a@[1.2.3.4", "", false},
		{"a@[fe80::1]", "", false},
		{"a@[IPv6:1.2.3.4]", "", false},
		{"a@under_score.example", "", false},
		{"a\x00@example.com", "", false},
		{"\"a\tb\"@example.com", "", false},   // RFC 5321 quotes no TAB
		{"\"a\\\tb\"@example.com", "", false}, // nor escapes one
		{"a@\xff.example", "", false},
	}
	for _, tt := range tests {
		a, err := parseAddrSpec(tt.in)
		if (err == nil) != tt.ok {
			t.Errorf("parseAddrSpec(%q) err = %v, want ok=%v", tt.in, err, tt.ok)
			continue
		}
		if tt.ok && a.Spec() != tt.spec {
			t.Errorf("parseAddrSpec(%q) = %q, want %q", tt.in, a.Spec(), tt.spec)
		}
	}
}

func TestFormatPhrase(t *testing.T) {
	for in, want := range map[string]string{
		"Bob":            "Bob",
		"Bob Dobbs":      "Bob Dobbs",
		"J. R. Dobbs":    `"J. R. Dobbs"`,
		`say "hi"`:       `"say \"hi\""`,
		"Zoë":            "=?utf-8?q?Zo=C3=AB?=",
		" padded ":       `" padded "`,
		"=?utf-8?q?x?= ": `"=?utf-8?q?x?= "`,
	} {
		if got := formatPhrase(in); got != want {
			t.Errorf("formatPhrase(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestEmptyBodyWarningWithURLBody: an empty request body with a URL's
// body= (standard input from /dev/null) is warned about as what it is,
// not as a message with "no body= in the URL", which it has.
func TestEmptyBodyWarningWithURLBody(t *testing.T) {
	var tr traceLog
	res, err := fetchBody(t, testDriver(Config{DryRun: true, From: "sender@example.net"}), fetch.Options{Tracer: &tr},
		strings.NewReader(""), "mailto:a@example.org?body=from%20the%20URL")
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	infos := strings.Join(tr.infos(), "\n")
	if !strings.Contains(infos, "the URL's body field is ignored") || !strings.Contains(infos, "the message body is empty") ||
		strings.Contains(infos, "or body= in the URL") {
		t.Errorf("warnings:\n%s", infos)
	}
}
