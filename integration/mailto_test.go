//go:build integration

package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gomail "github.com/emersion/go-message/mail"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
	"github.com/fetchproject/fetch/schemes/mailto"
)

// delivered is one message file Exim wrote into the Maildir.
type delivered struct {
	path       string
	raw        []byte
	envelopeTo string
	header     gomail.Header
	body       string
}

// waitDelivered returns the messages in the Maildir whose Message-ID is id,
// once there are want of them (Exim writes one file per recipient).
func waitDelivered(t *testing.T, box, id string, want int) []delivered {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		var out []delivered
		files, _ := filepath.Glob(filepath.Join(box, "new", "*"))
		for _, f := range files {
			raw, err := os.ReadFile(f)
			if err != nil || !bytes.Contains(raw, []byte("<"+id+">")) {
				continue
			}
			r, err := gomail.CreateReader(bytes.NewReader(raw))
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			if got, _ := r.Header.MessageID(); got != id {
				continue
			}
			p, err := r.NextPart()
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			body, err := io.ReadAll(p.Body)
			if err != nil {
				t.Fatalf("%s: %v", f, err)
			}
			out = append(out, delivered{path: f, raw: raw, envelopeTo: r.Header.Get("Envelope-To"), header: r.Header, body: string(body)})
		}
		if len(out) >= want {
			return out
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d messages with Message-ID <%s> in %s/new", len(out), want, id, box)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestMailtoDeliveredByExim sends through the real MTA and reads the
// message back from the mailbox: recipients, subject, body and Message-ID
// arrive intact, and the envelope matches the URL.
func TestMailtoDeliveredByExim(t *testing.T) {
	wantServer(t, "smtp")
	addr := serverAddr(t, "FETCH_SMTP_ADDR")
	box := harnessEnv(t, "FETCH_MAILBOX")
	token := fmt.Sprintf("mailto-%d", time.Now().UnixNano())
	body := "Grüße from fetch, " + token + "\n.a line that starts with a dot\n" + strings.Repeat("long ", 40) + "line\n"

	var trace []string
	opts := fetch.Options{
		Tracer: fetch.TracerFunc(func(d fetch.Direction, l string) { trace = append(trace, string(d)+" "+l) }),
	}
	c := schemes.NewClient(opts, schemes.Config{Mailto: mailto.Config{
		SMTPServer: addr, From: "Fetch Tester <tester@fetch.test>", AllowBcc: true,
	}})
	u := "mailto:user@fetch.test,second@fetch.test?cc=third@fetch.test&bcc=hidden@fetch.test" +
		"&subject=" + token + "%20caf%C3%A9&In-Reply-To=%3Corig-1@fetch.test%3E&keywords=fetch,test&x-evil=dropped"
	res, err := doWith(context.Background(), c, u, func(r *fetch.Request) { r.Body = strings.NewReader(body) })
	if err != nil {
		t.Fatal(err)
	}
	sent := res.Sent
	if res.Kind != fetch.KindSent || sent == nil {
		t.Fatalf("result %+v", res)
	}
	// Exim's final reply carries its queue id: "250 OK id=1abcDE-000001-0X".
	if !strings.HasPrefix(sent.Reply, "250 ") || !strings.Contains(sent.Reply, "id=") {
		t.Errorf("final reply %q has no queue id", sent.Reply)
	}
	wantRcpts := []string{"user@fetch.test", "second@fetch.test", "third@fetch.test", "hidden@fetch.test"}
	if !slices.Equal(sent.Recipients, wantRcpts) || sent.Server != addr {
		t.Errorf("Sent = %+v", sent)
	}
	if !slices.ContainsFunc(trace, func(l string) bool { return strings.HasPrefix(l, "< 220 fetch.test ESMTP") }) {
		t.Errorf("trace lacks Exim's greeting: %q", trace)
	}

	msgs := waitDelivered(t, box, sent.MessageID, len(wantRcpts))
	var envelope []string
	for _, m := range msgs {
		envelope = append(envelope, m.envelopeTo)
		h := m.header
		if s, _ := h.Subject(); s != token+" café" {
			t.Errorf("%s: Subject %q", m.path, s)
		}
		to, _ := h.AddressList("To")
		cc, _ := h.AddressList("Cc")
		from, _ := h.AddressList("From")
		if len(to) != 2 || to[0].Address != "user@fetch.test" || to[1].Address != "second@fetch.test" ||
			len(cc) != 1 || cc[0].Address != "third@fetch.test" ||
			len(from) != 1 || from[0].Name != "Fetch Tester" || from[0].Address != "tester@fetch.test" {
			t.Errorf("%s: From %v To %v Cc %v", m.path, from, to, cc)
		}
		if ids, _ := h.MsgIDList("In-Reply-To"); len(ids) != 1 || ids[0] != "orig-1@fetch.test" {
			t.Errorf("%s: In-Reply-To %v", m.path, ids)
		}
		if h.Get("Keywords") != "fetch, test" {
			t.Errorf("%s: Keywords %q", m.path, h.Get("Keywords"))
		}
		// Bcc recipients and dropped URL fields never reach the header.
		if h.Has("Bcc") || h.Has("X-Evil") || bytes.Contains(m.raw, []byte("hidden@fetch.test>")) {
			t.Errorf("%s leaks a hidden or dropped field:\n%s", m.path, m.raw)
		}
		if m.body != body {
			t.Errorf("%s: body\n%q\nwant\n%q", m.path, m.body, body)
		}
	}
	slices.Sort(envelope)
	want := slices.Clone(wantRcpts)
	slices.Sort(want)
	if !slices.Equal(envelope, want) {
		t.Errorf("delivered to %v, want %v", envelope, want)
	}
}

// TestMailtoRefusedByExim: Exim refuses nobody-here@fetch.test at RCPT;
// the error carries its code and text, exits 6, and nothing is delivered
// to the other recipient either.
func TestMailtoRefusedByExim(t *testing.T) {
	wantServer(t, "smtp")
	addr := serverAddr(t, "FETCH_SMTP_ADDR")
	box := harnessEnv(t, "FETCH_MAILBOX")
	token := fmt.Sprintf("refused-%d", time.Now().UnixNano())
	c := schemes.NewClient(fetch.Options{},
		schemes.Config{Mailto: mailto.Config{SMTPServer: addr, From: "tester@fetch.test"}})
	_, err := doWith(context.Background(), c, "mailto:user@fetch.test,nobody-here@fetch.test?subject="+token,
		func(r *fetch.Request) { r.Body = strings.NewReader("never delivered\n") })
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		t.Fatalf("err = %v", err)
	}
	if fe.Kind.ExitCode() != 6 || fe.Code != 550 || !strings.Contains(fe.Reply, "no such user here") {
		t.Errorf("err = %v (%+v), want exit 6 with Exim's 550 text", err, fe)
	}
	if !strings.Contains(err.Error(), "no such user here") || !strings.Contains(err.Error(), "nobody-here@fetch.test") {
		t.Errorf("message %q", err)
	}
	time.Sleep(300 * time.Millisecond)
	files, _ := filepath.Glob(filepath.Join(box, "new", "*"))
	for _, f := range files {
		if b, _ := os.ReadFile(f); bytes.Contains(b, []byte(token)) {
			t.Errorf("%s was delivered after a refused recipient", f)
		}
	}
}

// TestMailtoInjectionNeverReachesExim: CR LF in a header field or an
// address is refused with exit 4 before any connection.
func TestMailtoInjectionNeverReachesExim(t *testing.T) {
	wantServer(t, "smtp")
	addr := serverAddr(t, "FETCH_SMTP_ADDR")
	for _, u := range []string{
		"mailto:user@fetch.test?subject=x%0D%0ABcc:%20second@fetch.test",
		"mailto:user@fetch.test%3E%0D%0ARCPT%20TO:%3Csecond@fetch.test%3E",
	} {
		dialed := false
		opts := fetch.Options{Tracer: fetch.TracerFunc(func(d fetch.Direction, l string) {
			if strings.HasPrefix(l, "connecting") {
				dialed = true
			}
		})}
		c := schemes.NewClient(opts, schemes.Config{Mailto: mailto.Config{SMTPServer: addr, From: "tester@fetch.test"}})
		_, err := doWith(context.Background(), c, u, func(r *fetch.Request) { r.Body = strings.NewReader("x\n") })
		if fetch.KindOf(err).ExitCode() != 4 || dialed {
			t.Errorf("%s: err = %v, dialed %v; want exit 4 before connecting", u, err, dialed)
		}
	}
}

// TestCLIMailto is the issue's acceptance test: `echo hi | fetch
// --smtp-server ADDR mailto:user@fetch.test?subject=...` lands in the
// mailbox, and a refused recipient exits 6 with Exim's text.
func TestCLIMailto(t *testing.T) {
	wantServer(t, "smtp")
	addr := serverAddr(t, "FETCH_SMTP_ADDR")
	box := harnessEnv(t, "FETCH_MAILBOX")
	token := fmt.Sprintf("cli-%d", time.Now().UnixNano())
	code, stdout, stderr := runCLI(t, "hi\n", "--smtp-server", addr, "--from", "tester@fetch.test", "mailto:user@fetch.test?subject=Hello%20"+token)
	if code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout, stderr)
	}
	deadline := time.Now().Add(10 * time.Second)
	for found := false; !found; {
		files, _ := filepath.Glob(filepath.Join(box, "new", "*"))
		for _, f := range files {
			b, _ := os.ReadFile(f)
			if bytes.Contains(b, []byte("Subject: Hello "+token+"\n")) {
				found = true
				if !bytes.HasSuffix(b, []byte("\n\nhi\n")) {
					t.Errorf("%s: body:\n%s", f, b)
				}
			}
		}
		if !found && time.Now().After(deadline) {
			t.Fatalf("no message with Subject Hello %s in %s/new", token, box)
		}
		time.Sleep(100 * time.Millisecond)
	}

	code, _, stderr = runCLI(t, "hi\n", "--smtp-server", addr, "--from", "tester@fetch.test", "mailto:nobody-here@fetch.test")
	if code != 6 || !strings.Contains(stderr, "no such user here") {
		t.Errorf("refused recipient: exit %d, stderr %q; want 6 with Exim's text", code, stderr)
	}
	code, _, stderr = runCLI(t, "hi\n", "--smtp-server", addr, "mailto:user@fetch.test?subject=x%0D%0ABcc:%20a@fetch.test")
	if code != 4 {
		t.Errorf("injection: exit %d, stderr %q; want 4", code, stderr)
	}
}
