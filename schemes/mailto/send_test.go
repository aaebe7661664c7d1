package mailto

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/fetchproject/fetch/fetch"
)

// sendVia sends rawURL with body through d and returns the result.
func sendVia(t *testing.T, d *Driver, opts fetch.Options, rawURL, body string) (*fetch.Result, error) {
	t.Helper()
	return fetchBody(t, d, opts, strings.NewReader(body), rawURL)
}

// The exact bytes a send puts on the wire, for each URL form.
func TestSendTranscripts(t *testing.T) {
	tests := []struct {
		name, url string
		cfg       Config
	}{
		{name: "simple", url: "mailto:user@fetch.test?subject=Hello"},
		{name: "list-cc", url: "mailto:a@fetch.test,b@fetch.test?cc=c@fetch.test&to=a@fetch.test"},
		{name: "bcc-allowed", url: "mailto:a@fetch.test?bcc=hidden@fetch.test", cfg: Config{AllowBcc: true}},
		{name: "quoted-local", url: "mailto:%22not%40me%22@fetch.test"},
		{name: "auth-loopback", url: "mailto:user@fetch.test", cfg: Config{User: "fetchuser", Password: "s3cret"}},
		{name: "dot-stuffing", url: "mailto:user@fetch.test?body=.%0D%0A..%0D%0A.x"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newTestServer(t, func(ts *testServer) { ts.user, ts.pass = "fetchuser", "s3cret" })
			cfg := tt.cfg
			cfg.SMTPServer, cfg.From = srv.addr, "sender@fetch.test"
			var tr traceLog
			body := "hi\n"
			if strings.Contains(tt.url, "body=") {
				body = ""
			}
			opts := fetch.Options{Tracer: &tr}
			var res *fetch.Result
			var err error
			if body == "" {
				res, err = fetchWith(t, testDriver(cfg), opts, tt.url)
			} else {
				res, err = sendVia(t, testDriver(cfg), opts, tt.url, body)
			}
			if err != nil {
				t.Fatal(err)
			}
			if res.Kind != fetch.KindSent || res.Sent == nil {
				t.Fatalf("result %+v, want sent", res)
			}
			if res.Sent.Reply != "250 2.0.0 OK id=1fetch-TEST01-00" || res.Sent.Server != srv.addr || res.Sent.MessageID != "TESTID.1@fetch.test" {
				t.Errorf("Sent = %+v", res.Sent)
			}
			mails := srv.received()
			if len(mails) != 1 {
				t.Fatalf("server received %d messages", len(mails))
			}
			if len(mails[0].To) != len(res.Sent.Recipients) {
				t.Errorf("server got RCPT %v, result says %v", mails[0].To, res.Sent.Recipients)
			}
			for _, l := range tr.lines {
				if strings.Contains(l, "s3cret") || strings.Contains(l, "AGZldGNodXNlcgBzM2NyZXQ") {
					t.Errorf("password in trace: %q", l)
				}
			}
			checkGolden(t, "send/"+tt.name+".golden", srv.transcript(0))
		})
	}
}

// What go-smtp's server received equals what a dry run composes.
func TestSentEqualsDryRun(t *testing.T) {
	srv := newTestServer(t, nil)
	u := "mailto:user@fetch.test?subject=caf%C3%A9&cc=x@fetch.test"
	res, err := sendVia(t, testDriver(Config{SMTPServer: srv.addr, From: "me@fetch.test"}), fetch.Options{}, u, "Grüße\n")
	if err != nil {
		t.Fatal(err)
	}
	dry, err := sendVia(t, testDriver(Config{DryRun: true, From: "me@fetch.test"}), fetch.Options{}, u, "Grüße\n")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := io.ReadAll(dry.Document.Body)
	if got := srv.received()[0].Data; !bytes.Equal(got, want) {
		t.Errorf("received:\n%s\ndry run:\n%s", got, want)
	}
	if strings.Join(res.Sent.Recipients, ",") != "user@fetch.test,x@fetch.test" {
		t.Errorf("recipients %v", res.Sent.Recipients)
	}
}

// A refused recipient ends the transaction: exit 6 with the server's
// code and text, and no message for anyone.
func TestRecipientRefused(t *testing.T) {
	srv := newTestServer(t, func(ts *testServer) {
		ts.refuse["nobody-here@fetch.test"] = &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1},
			Message: "nobody-here@fetch.test: no such user here"}
	})
	d := testDriver(Config{SMTPServer: srv.addr, From: "me@fetch.test"})
	_, err := sendVia(t, d, fetch.Options{}, "mailto:ok@fetch.test,nobody-here@fetch.test", "hi\n")
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v", err)
	}
	if fe.Kind != fetch.KindServer || fe.Kind.ExitCode() != 6 || fe.Code != 550 ||
		!strings.Contains(fe.Reply, "no such user here") || !errors.Is(err, fetch.ErrNotFound) {
		t.Errorf("err = %v (%+v), want exit 6 with the server's 550 text", err, fe)
	}
	if !strings.Contains(err.Error(), "nobody-here@fetch.test") || !strings.HasPrefix(err.Error(), "mailto:") {
		t.Errorf("message %q should name the URL and the recipient", err)
	}
	if n := len(srv.received()); n != 0 {
		t.Errorf("%d messages delivered after a refused recipient", n)
	}
	if tr := string(srv.transcript(0)); strings.Contains(tr, "DATA") || !strings.Contains(tr, "RSET") {
		t.Errorf("transcript:\n%s", tr)
	}
}

func TestDataRefused(t *testing.T) {
	srv := newTestServer(t, func(ts *testServer) {
		ts.dataErr = &smtp.SMTPError{Code: 554, EnhancedCode: smtp.EnhancedCode{5, 6, 0}, Message: "message looks like spam"}
	})
	_, err := sendVia(t, testDriver(Config{SMTPServer: srv.addr, From: "me@fetch.test"}), fetch.Options{}, "mailto:a@fetch.test", "x\n")
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Kind != fetch.KindServer || fe.Code != 554 || fe.Reply != "message looks like spam" {
		t.Errorf("err = %v, want the 554 reply", err)
	}
}

func TestAuth(t *testing.T) {
	srv := newTestServer(t, func(ts *testServer) { ts.user, ts.pass = "fetchuser", "right" })
	d := testDriver(Config{SMTPServer: srv.addr, From: "me@fetch.test", User: "fetchuser", Password: "wrong"})
	var tr traceLog
	_, err := sendVia(t, d, fetch.Options{Tracer: &tr}, "mailto:a@fetch.test", "x\n")
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Kind != fetch.KindServer || fe.Code != 535 || !errors.Is(err, fetch.ErrAuth) {
		t.Errorf("err = %v, want a 535 ErrAuth", err)
	}
	if strings.Contains(err.Error(), "wrong") {
		t.Errorf("password in error: %v", err)
	}
	found := false
	for _, l := range tr.lines {
		if strings.HasPrefix(l, "> AUTH PLAIN") {
			found = true
			if l != "> AUTH PLAIN ****" {
				t.Errorf("trace line %q", l)
			}
		}
	}
	if !found {
		t.Errorf("no AUTH in the trace: %q", tr.lines)
	}

	// A server that offers no AUTH while a user is configured.
	plain := newTestServer(t, nil)
	d = testDriver(Config{SMTPServer: plain.addr, From: "me@fetch.test", User: "u", Password: "p"})
	if _, err := sendVia(t, d, fetch.Options{}, "mailto:a@fetch.test", "x\n"); fetch.KindOf(err) != fetch.KindServer {
		t.Errorf("no AUTH offered: err = %v", err)
	}
}

// The password never goes in clear text to a server off this machine.
func TestAuthNeedsTLSOffLoopback(t *testing.T) {
	d := testDriver(Config{SMTPServer: "mail.fetch.invalid:587", From: "me@fetch.test", User: "u", Password: "p"})
	_, err := sendVia(t, d, fetch.Options{Dialer: failDialer{t}}, "mailto:a@fetch.test", "x\n")
	if fetch.KindOf(err) != fetch.KindPolicy {
		t.Errorf("err = %v, want KindPolicy", err)
	}
}

// Through a proxy (--socks5) a loopback server is on the proxy's machine:
// the password would cross the network, so STARTTLS is required there too.
func TestAuthNeedsTLSThroughProxy(t *testing.T) {
	for _, server := range []string{"127.0.0.1:587", "[::1]:587", "localhost:587"} {
		d := testDriver(Config{SMTPServer: server, From: "me@fetch.test", User: "u", Password: "p"})
		_, err := sendVia(t, d, fetch.Options{Dialer: failDialer{t}}, "mailto:a@fetch.test", "x\n")
		if fetch.KindOf(err) != fetch.KindPolicy || !strings.Contains(err.Error(), "STARTTLS") {
			t.Errorf("%s through a proxy: err = %v, want KindPolicy asking for STARTTLS", server, err)
		}
	}
}

type failDialer struct{ t *testing.T }

func (f failDialer) DialContext(context.Context, string, string) (net.Conn, error) {
	f.t.Error("dialed")
	return nil, errors.New("no")
}

func TestStartTLS(t *testing.T) {
	srv := newTestServer(t, func(ts *testServer) {
		withTLS(ts)
		ts.user, ts.pass = "fetchuser", "s3cret"
	})
	var tr traceLog
	d := testDriver(Config{SMTPServer: srv.addr, From: "me@fetch.test", StartTLS: true, TLSInsecure: true, User: "fetchuser", Password: "s3cret"})
	res, err := sendVia(t, d, fetch.Options{Tracer: &tr}, "mailto:a@fetch.test?subject=over%20TLS", "secret text\n")
	if err != nil {
		t.Fatal(err)
	}
	if m := srv.received(); len(m) != 1 || !m[0].TLS {
		t.Fatalf("received %+v, want one message over TLS", m)
	}
	if res.Sent.Reply != "250 2.0.0 OK id=1fetch-TEST01-00" {
		t.Errorf("reply %q", res.Sent.Reply)
	}
	// The trace shows the clear-text lines on both sides of the handshake.
	joined := strings.Join(tr.lines, "\n")
	for _, want := range []string{"> STARTTLS", "* TLS ", "> EHLO [127.0.0.1]", "> AUTH PLAIN ****", "> MAIL FROM:<me@fetch.test>", "> Subject: over TLS"} {
		if !strings.Contains(joined, want) {
			t.Errorf("trace lacks %q:\n%s", want, joined)
		}
	}
	if strings.Count(joined, "> EHLO") != 2 {
		t.Errorf("want EHLO before and after STARTTLS:\n%s", joined)
	}

	// Without TLSInsecure the self-signed certificate is refused.
	d = testDriver(Config{SMTPServer: srv.addr, From: "me@fetch.test", StartTLS: true})
	if _, err := sendVia(t, d, fetch.Options{}, "mailto:a@fetch.test", "x\n"); fetch.KindOf(err) != fetch.KindNetwork {
		t.Errorf("unverified certificate: err = %v", err)
	}
}

func TestStartTLSNotOffered(t *testing.T) {
	srv := newTestServer(t, nil)
	d := testDriver(Config{SMTPServer: srv.addr, From: "me@fetch.test", StartTLS: true, TLSInsecure: true})
	_, err := sendVia(t, d, fetch.Options{}, "mailto:a@fetch.test", "x\n")
	if fetch.KindOf(err) != fetch.KindServer || !strings.Contains(err.Error(), "STARTTLS") {
		t.Errorf("err = %v", err)
	}
	if len(srv.received()) != 0 {
		t.Error("sent without TLS")
	}
}

// A server that pipelines a reply behind its STARTTLS answer would have
// it read as if it came over TLS (CVE-2011-0411): refused.
func TestStartTLSInjection(t *testing.T) {
	addr := rawServer(t, func(c net.Conn) {
		r := bufio.NewReader(c)
		io.WriteString(c, "220 evil ESMTP\r\n")
		r.ReadString('\n')
		io.WriteString(c, "250-evil\r\n250 STARTTLS\r\n")
		r.ReadString('\n')
		io.WriteString(c, "220 go ahead\r\n250 injected\r\n")
		r.ReadString('\n')
	})
	d := testDriver(Config{SMTPServer: addr, From: "me@fetch.test", StartTLS: true, TLSInsecure: true})
	_, err := sendVia(t, d, fetch.Options{}, "mailto:a@fetch.test", "x\n")
	if fetch.KindOf(err) != fetch.KindServer || !strings.Contains(err.Error(), "RFC 3207") {
		t.Errorf("err = %v", err)
	}
}

// A multi-line reply that never ends (the greeting or the EHLO reply),
// read by our reader before TLS or by go-smtp without it, stops at
// smtpMaxReplyLines with a policy error naming the bound instead of
// growing without bound (issue #12, findings 1 and 2).
func TestEndlessMultilineReply(t *testing.T) {
	const giveUp = 4 * 4096 // lines; far past the client's bound
	// after first, line without end
	endlessAfter := func(c net.Conn, first, line string) {
		io.WriteString(c, first)
		chunk := []byte(strings.Repeat(line, 256))
		for sent := 0; sent < giveUp; sent += 256 {
			if _, err := c.Write(chunk); err != nil {
				return // the client hung up
			}
		}
		io.WriteString(c, first[:3]+" end\r\n")
		bufio.NewReader(c).ReadString('\n')
	}
	endless := func(c net.Conn, code string) { endlessAfter(c, code+"-hi\r\n", code+"-more\r\n") }
	tenThousand := func(c net.Conn) { // a whole reply, but too long
		io.WriteString(c, "220 hi\r\n")
		bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, strings.Repeat("250-ext\r\n", 9999)+"250 end\r\n")
		bufio.NewReader(c).ReadString('\n')
	}
	for _, tt := range []struct {
		name     string
		handle   func(c net.Conn)
		startTLS bool
	}{
		{"greeting", func(c net.Conn) { endless(c, "220") }, true},
		{"EHLO", func(c net.Conn) {
			io.WriteString(c, "220 hi\r\n")
			bufio.NewReader(c).ReadString('\n')
			endless(c, "250")
		}, true},
		{"greeting under go-smtp", func(c net.Conn) { endless(c, "220") }, false},
		{"EHLO under go-smtp", func(c net.Conn) {
			io.WriteString(c, "220 hi\r\n")
			bufio.NewReader(c).ReadString('\n')
			endless(c, "250")
		}, false},
		{"10000-line EHLO under go-smtp", tenThousand, false},
		// net/textproto takes a line of another code, or a short one,
		// after "xyz-" as more of the reply: the guard must too, or it
		// counts each as a reply of its own and never stops them.
		{"other codes under go-smtp", func(c net.Conn) { endlessAfter(c, "554-hi\r\n", "221 more\r\n") }, false},
		{"short lines under go-smtp", func(c net.Conn) { endlessAfter(c, "220-hi\r\n", "x\r\n") }, false},
		// A first line with no valid code continues the reply with
		// code 0 for net/textproto: no line ends it, "abc x" neither.
		{"no valid code under go-smtp", func(c net.Conn) { endlessAfter(c, "abc-hi\r\nabc x\r\n", "x\r\n") }, false},
		{"code under 100 under go-smtp", func(c net.Conn) { endlessAfter(c, "099-hi\r\n099 x\r\n", "x\r\n") }, false},
		{"10000-line EHLO", tenThousand, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr := rawServer(t, tt.handle)
			d := testDriver(Config{SMTPServer: addr, From: "me@fetch.test", StartTLS: tt.startTLS, TLSInsecure: true})
			_, err := sendVia(t, d, fetch.Options{IdleTimeout: 10 * time.Second}, "mailto:a@fetch.test", "x\n")
			if fetch.KindOf(err) != fetch.KindPolicy || !errors.Is(err, fetch.ErrTooLarge) || !strings.Contains(err.Error(), "limited to 4096 lines") {
				t.Errorf("err = %v (kind %v), want a policy error naming the line bound", err, fetch.KindOf(err))
			}
		})
	}
}

// A reply that trickles, each byte within the idle timeout, is given up
// once it has taken the timeout as a whole (issue #12, finding 1: the
// timeout never fired while bytes kept coming).
func TestTricklingReply(t *testing.T) {
	const idle = 300 * time.Millisecond
	const lines = 400 // at idle/6 each: 20 s, far past the bound under test
	for _, startTLS := range []bool{false, true} {
		addr := rawServer(t, func(c net.Conn) {
			io.WriteString(c, "220 hi\r\n")
			bufio.NewReader(c).ReadString('\n')
			for range lines {
				if _, err := io.WriteString(c, "250-slow\r\n"); err != nil {
					return // the client gave up
				}
				time.Sleep(idle / 6)
			}
			io.WriteString(c, "250 done\r\n")
		})
		trickled(t, addr, startTLS, idle, lines)
	}
	// lines of another code after "220-": more of the greeting for
	// go-smtp's reader, so one reply, and timed as one
	addr := rawServer(t, func(c net.Conn) {
		io.WriteString(c, "220-hi\r\n")
		for range lines {
			if _, err := io.WriteString(c, "221 slow\r\n"); err != nil {
				return
			}
			time.Sleep(idle / 6)
		}
		io.WriteString(c, "220 done\r\n")
	})
	trickled(t, addr, false, idle, lines)
}

// trickled sends a message through the server at addr, which trickles a
// reply of lines lines at idle/6 each, and checks that the reply's
// timeout ends it, well before the trickle does.
func trickled(t *testing.T, addr string, startTLS bool, idle time.Duration, lines int) {
	t.Helper()
	d := testDriver(Config{SMTPServer: addr, From: "me@fetch.test", StartTLS: startTLS, TLSInsecure: true})
	start := time.Now()
	_, err := sendVia(t, d, fetch.Options{IdleTimeout: idle}, "mailto:a@fetch.test", "x\n")
	took := time.Since(start)
	if !errors.Is(err, fetch.ErrTimeout) || fetch.KindOf(err) != fetch.KindNetwork || !strings.Contains(err.Error(), "one reply took more than") {
		t.Errorf("StartTLS %v: err = %v (kind %v), want the reply's timeout", startTLS, err, fetch.KindOf(err))
	}
	if took > time.Duration(lines)*idle/6/2 {
		t.Errorf("StartTLS %v: gave up after %v, half the trickle", startTLS, took)
	}
}

// Hostile and broken servers: each failure has its kind, and nothing hangs.
func TestHostileServers(t *testing.T) {
	tests := []struct {
		name   string
		handle func(c net.Conn)
		kind   fetch.Kind
	}{
		{"silent", untilGone, fetch.KindNetwork},
		{"closes", func(c net.Conn) {}, fetch.KindNetwork},
		{"refuses greeting", func(c net.Conn) { io.WriteString(c, "554 go away\r\n"); time.Sleep(200 * time.Millisecond) }, fetch.KindServer},
		{"garbage", func(c net.Conn) {
			io.WriteString(c, "HTTP/1.1 400 Bad Request\r\n\r\n")
			time.Sleep(200 * time.Millisecond)
		}, fetch.KindServer},
		{"endless line", func(c net.Conn) {
			io.WriteString(c, "220 ")
			for range 100 {
				if _, err := c.Write(bytes.Repeat([]byte("x"), 1000)); err != nil {
					return
				}
			}
		}, fetch.KindPolicy},
		{"drops after MAIL", func(c net.Conn) {
			r := bufio.NewReader(c)
			io.WriteString(c, "220 hi\r\n")
			r.ReadString('\n')
			io.WriteString(c, "250 hi\r\n")
			r.ReadString('\n')
		}, fetch.KindNetwork},
		{"hangs after DATA", func(c net.Conn) {
			r := bufio.NewReader(c)
			io.WriteString(c, "220 hi\r\n")
			for _, reply := range []string{"250 hi", "250 ok", "250 ok", "354 go"} {
				r.ReadString('\n')
				io.WriteString(c, reply+"\r\n")
			}
			untilGone(c)
		}, fetch.KindNetwork},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			addr := rawServer(t, tt.handle)
			d := testDriver(Config{SMTPServer: addr, From: "me@fetch.test"})
			start := time.Now()
			const idle = 300 * time.Millisecond
			_, err := sendVia(t, d, fetch.Options{IdleTimeout: idle}, "mailto:a@fetch.test", "x\n")
			if k := fetch.KindOf(err); k != tt.kind {
				t.Errorf("err = %v (kind %v), want %v", err, k, tt.kind)
			}
			if time.Since(start) > 20*idle {
				t.Errorf("took %v", time.Since(start))
			}
		})
	}
}

func TestContextCancel(t *testing.T) {
	addr := rawServer(t, untilGone)
	c := fetch.NewClient(fetch.Options{})
	c.Register("mailto", testDriver(Config{SMTPServer: addr, From: "me@fetch.test"}))
	const limit = 200 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	req, err := fetch.NewRequest("mailto:a@fetch.test")
	if err != nil {
		t.Fatal(err)
	}
	req.Body = strings.NewReader("x")
	start := time.Now()
	_, err = c.Do(ctx, req)
	if err == nil || time.Since(start) > 20*limit {
		t.Errorf("err = %v after %v", err, time.Since(start))
	}
}

func TestConfirm(t *testing.T) {
	for _, tt := range []struct {
		answer string
		sent   bool
	}{{"yes", true}, {"y", true}, {"no", false}, {"", false}} {
		srv := newTestServer(t, nil)
		d := testDriver(Config{SMTPServer: srv.addr, From: "me@fetch.test", Confirm: true})
		asked := ""
		p := promptFunc(func(_ context.Context, q fetch.Question) (string, error) {
			asked = q.Label
			if q.Field != "confirm" || strings.Join(q.Choices, "/") != "yes/no" {
				t.Errorf("question %+v", q)
			}
			return tt.answer, nil
		})
		_, err := sendVia(t, d, fetch.Options{Prompter: p}, "mailto:a@fetch.test?subject=Hi", "x\n")
		if (err == nil) != tt.sent || len(srv.received()) == 1 != tt.sent {
			t.Errorf("answer %q: err = %v, received %d", tt.answer, err, len(srv.received()))
		}
		if !tt.sent && srv.connections() != 0 {
			t.Errorf("answer %q: connected anyway", tt.answer)
		}
		if !strings.Contains(asked, "a@fetch.test") || !strings.Contains(asked, srv.addr) {
			t.Errorf("question %q should name the recipients and the server", asked)
		}
	}
}

type promptFunc func(context.Context, fetch.Question) (string, error)

func (f promptFunc) Prompt(ctx context.Context, q fetch.Question) (string, error) { return f(ctx, q) }

func TestBadServerAddress(t *testing.T) {
	for _, s := range []string{"nohostport", ":25", "host:0", "host:99999", "host:smtp"} {
		d := testDriver(Config{SMTPServer: s, From: "me@fetch.test"})
		if _, err := sendVia(t, d, fetch.Options{Dialer: failDialer{t}}, "mailto:a@fetch.test", "x\n"); fetch.KindOf(err) != fetch.KindUsage {
			t.Errorf("%q: err = %v, want KindUsage", s, err)
		}
	}
}

func TestAuthMask(t *testing.T) {
	m := authMask()
	for _, tt := range [][2]string{
		{"EHLO [127.0.0.1]", "EHLO [127.0.0.1]"},
		{"AUTH PLAIN AGZvbwBiYXI=", "AUTH PLAIN ****"},
		{"AUTH LOGIN", "AUTH LOGIN"},
		{"Zm9v", "****"},
		{"YmFy", "****"},
		{"MAIL FROM:<a@b>", "MAIL FROM:<a@b>"},
		{"Zm9v", "Zm9v"},
	} {
		if got := m(tt[0]); got != tt[1] {
			t.Errorf("mask(%q) = %q, want %q", tt[0], got, tt[1])
		}
	}
}

// A local part beyond ASCII needs SMTPUTF8 (RFC 6531): asked for when
// the server offers it, a clear server refusal when it does not.
func TestSMTPUTF8(t *testing.T) {
	srv := newTestServer(t, nil)
	d := testDriver(Config{SMTPServer: srv.addr, From: "me@fetch.test"})
	if _, err := sendVia(t, d, fetch.Options{}, "mailto:j%C3%B6rg@fetch.test", "x\n"); err != nil {
		t.Fatal(err)
	}
	tr := string(srv.transcript(0))
	if !strings.Contains(tr, "MAIL FROM:<me@fetch.test> BODY=8BITMIME SMTPUTF8\r\n") || !strings.Contains(tr, "RCPT TO:<jörg@fetch.test>\r\n") ||
		!strings.Contains(tr, "\r\nTo: jörg@fetch.test\r\n") {
		t.Errorf("transcript:\n%s", tr)
	}

	old := newTestServer(t, func(ts *testServer) { ts.srv.EnableSMTPUTF8 = false })
	d = testDriver(Config{SMTPServer: old.addr, From: "me@fetch.test"})
	_, err := sendVia(t, d, fetch.Options{}, "mailto:j%C3%B6rg@fetch.test", "x\n")
	if fetch.KindOf(err) != fetch.KindServer || !strings.Contains(err.Error(), "SMTPUTF8") {
		t.Errorf("err = %v", err)
	}
}

// untilGone says nothing until the client hangs up: a silence that lasts
// exactly as long as the client waits, whatever the machine's speed.
func untilGone(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(time.Minute))
	io.Copy(io.Discard, c)
}

// TestReplyLineTooLong: a reply line past smtpMaxLine, read by go-smtp or
// by our reader before TLS, in the greeting or a later reply, is refused
// as a size bound (exit 4) whose message names the bound and the line,
// as the README says of every driver.
func TestReplyLineTooLong(t *testing.T) {
	long := strings.Repeat("x", 4000)
	greeting := func(c net.Conn) { io.WriteString(c, "220 "+long+"\r\n"); untilGone(c) }
	ehlo := func(c net.Conn) {
		io.WriteString(c, "220 hi\r\n")
		bufio.NewReader(c).ReadString('\n')
		io.WriteString(c, "250-"+long+"\r\n250 end\r\n")
		untilGone(c)
	}
	for _, tt := range []struct {
		name     string
		handle   func(c net.Conn)
		startTLS bool // read by this driver's own reader before TLS, else by go-smtp
	}{
		{"greeting", greeting, true},
		{"greeting under go-smtp", greeting, false},
		{"EHLO reply", ehlo, true},
		{"EHLO reply under go-smtp", ehlo, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr := rawServer(t, tt.handle)
			d := testDriver(Config{SMTPServer: addr, From: "me@fetch.test", StartTLS: tt.startTLS, TLSInsecure: true})
			_, err := sendVia(t, d, fetch.Options{IdleTimeout: 10 * time.Second}, "mailto:a@fetch.test", "x\n")
			k := fetch.KindOf(err)
			if !errors.Is(err, fetch.ErrLineTooLong) || k != fetch.KindPolicy || k.ExitCode() != 4 {
				t.Fatalf("err = %v (kind %v, exit %d), want ErrLineTooLong refused by policy (exit 4)", err, k, k.ExitCode())
			}
			if !strings.Contains(err.Error(), "an SMTP reply line is limited to 2000 bytes") {
				t.Errorf("%q does not name the bound", err)
			}
		})
	}
}

// TestUTF8InReplyToAsksSMTPUTF8: an In-Reply-To from the URL may hold
// UTF-8 (go-message's msg-id parser accepts it) and is written into the
// header raw, so the transaction says SMTPUTF8 (RFC 6531 §3.2, RFC 6532
// §3); only an address's local part asked for it before.
func TestUTF8InReplyToAsksSMTPUTF8(t *testing.T) {
	srv := newTestServer(t, nil)
	d := testDriver(Config{SMTPServer: srv.addr, From: "me@fetch.test"})
	if _, err := sendVia(t, d, fetch.Options{}, "mailto:a@fetch.test?in-reply-to=%3C%C3%A9t%C3%A9@example.org%3E", "x\n"); err != nil {
		return // refused: fine
	}
	tr := string(srv.transcript(0))
	_, data, _ := strings.Cut(tr, "DATA\r\n")
	head, _, _ := strings.Cut(data, "\r\n\r\n")
	eightBit := strings.IndexFunc(head, func(r rune) bool { return r >= 0x80 }) >= 0
	if eightBit && !strings.Contains(tr, " SMTPUTF8\r\n") {
		t.Errorf("a header beyond ASCII was sent without SMTPUTF8:\n%s", tr)
	}
}
