package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// controls are what a hostile server or URL would use to steer a
// terminal: ESC, BEL, CR and the C1 CSI.
const controls = "\x1b\x07\r\u009b"

// smtpReplying is a one-message SMTP server on loopback: it refuses every
// recipient with refuse when that is not empty, else accepts the message
// with the final reply done.
func smtpReplying(t *testing.T, refuse, done string) string {
	return smtpCounting(t, refuse, done, nil)
}

// smtpCounting is smtpReplying counting in sent, when not nil, the
// messages it accepts.
func smtpCounting(t *testing.T, refuse, done string, sent *atomic.Int32) string {
	return serveTCP(t, func(c net.Conn) {
		r := bufio.NewReader(c)
		io.WriteString(c, "220 fake ESMTP\r\n")
		inData := false
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if inData {
				if line == ".\r\n" {
					inData = false
					if sent != nil {
						sent.Add(1)
					}
					io.WriteString(c, "250 "+done+"\r\n")
				}
				continue
			}
			switch verb := strings.ToUpper(strings.TrimSpace(line)); {
			case strings.HasPrefix(verb, "EHLO"):
				io.WriteString(c, "250-fake\r\n250-SMTPUTF8\r\n250 8BITMIME\r\n")
			case strings.HasPrefix(verb, "RCPT") && refuse != "":
				io.WriteString(c, "550 "+refuse+"\r\n")
			case verb == "DATA":
				inData = true
				io.WriteString(c, "354 go ahead\r\n")
			case verb == "QUIT":
				io.WriteString(c, "221 bye\r\n")
				return
			default:
				io.WriteString(c, "250 ok\r\n")
			}
		}
	})
}

// TestSentLineHidesControls: the "sent to" line quotes the recipients
// (percent-decoded from the URL) and the server's final reply; their
// control characters do not reach the terminal.
func TestSentLineHidesControls(t *testing.T) {
	addr := smtpReplying(t, "", "queued \x1b]0;owned\x07 as 1")
	code, _, stderr := runFetch(t, "", "--smtp-server", addr, "--from", "me@fetch.test", "--data", "x",
		"mailto:a%C2%9B2J@fetch.test")
	if code != 0 || !strings.Contains(stderr, "sent to") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
	if strings.ContainsAny(stderr, controls) {
		t.Errorf("control characters reach the terminal: %q", stderr)
	}
	if !strings.Contains(stderr, "queued ?]0;owned? as 1") {
		t.Errorf("the reply is not shown with its controls replaced: %q", stderr)
	}
}

// TestErrorMessageHidesControls: an error quotes the server's reply; on
// the terminal its controls are replaced (a multi-line reply keeps its
// line breaks), while --json keeps the text, escaped by JSON.
func TestErrorMessageHidesControls(t *testing.T) {
	addr := smtpReplying(t, "no \x1b]0;owned\x07 such user", "")
	code, _, stderr := runFetch(t, "", "--smtp-server", addr, "--from", "me@fetch.test", "--data", "x", "mailto:a@fetch.test")
	if code == 0 || !strings.Contains(stderr, "no ?]0;owned? such user") {
		t.Fatalf("exit %d, stderr %q; want a failure quoting the reply", code, stderr)
	}
	if strings.ContainsAny(stderr, controls) {
		t.Errorf("control characters reach the terminal: %q", stderr)
	}

	err := &fetch.Error{Kind: fetch.KindServer, Op: "RETR", Offset: -1, Code: 550, Reply: "line one\x1b[2J\nline two\r\u009b"}
	var b bytes.Buffer
	report(stdio{err: &b}, &options{}, err)
	if got, want := b.String(), "fetch: RETR: server refused: server said 550 line one?[2J\nline two??\n"; got != want {
		t.Errorf("report wrote %q, want %q", got, want)
	}

	b.Reset()
	report(stdio{err: &b}, &options{jsonOut: true}, err)
	var line struct{ Error string }
	if jerr := json.Unmarshal(b.Bytes(), &line); jerr != nil || !strings.Contains(line.Error, err.Reply) {
		t.Errorf("--json: %q (%v); want the reply as the server sent it", b.String(), jerr)
	}
}

// TestPromptHidesControls: a question's label, choices and default come
// from a URL or a server (a Gopher+ form); asked at the terminal, their
// control characters are replaced.
func TestPromptHidesControls(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	io.WriteString(w, "1\n")
	var out bytes.Buffer
	p := &terminalPrompter{in: r, out: &out, canAsk: true}
	ans, err := p.Prompt(context.Background(), fetch.Question{
		Field:   "confirm",
		Label:   "Send to a\u009b2J@fetch.test via \x1b]0;owned\x07?",
		Choices: []string{"yes\x1b[1A", "no"},
		Default: "no\r",
	})
	if err != nil || ans != "yes\x1b[1A" {
		t.Fatalf("answer %q, %v", ans, err)
	}
	if strings.ContainsAny(out.String(), controls) {
		t.Errorf("control characters reach the terminal: %q", out.String())
	}
}

// TestMapWriterAsStringsMap: text written to a mapWriter in pieces comes
// out as strings.Map maps it whole, wherever the pieces split its
// characters, whether valid UTF-8 or not (the rendering of a Gopher+
// attribute reply streams through one).
func TestMapWriterAsStringsMap(t *testing.T) {
	texts := []string{
		"",
		"plain text\n\twith a tab\n",
		"esc \x1b]0;owned\x07 csi \u009b2J cr\r\n",
		"é € 𝄞 and U+FFFD \ufffd",
		"cut \xe2\x82 and \xf0\x9d\x84 stray \x80\xbf lone \xff end",
		"ends cut \xf0\x9d",
		"ends cut \xe2",
		"\xed\xa0\x80 a surrogate",
	}
	for _, text := range texts {
		want := strings.Map(printableText, text)
		// Every split into two pieces, and one write a byte.
		for i := 0; i <= len(text); i++ {
			var out bytes.Buffer
			m := &mapWriter{w: &out, mapping: printableText}
			for _, piece := range []string{text[:i], text[i:]} {
				if n, err := m.Write([]byte(piece)); n != len(piece) || err != nil {
					t.Fatalf("write %q: %d, %v", piece, n, err)
				}
			}
			if err := m.Flush(); err != nil {
				t.Fatal(err)
			}
			if out.String() != want {
				t.Errorf("%q split at %d: %q, want %q", text, i, out.String(), want)
			}
		}
		var out bytes.Buffer
		m := &mapWriter{w: &out, mapping: printableText}
		for i := range len(text) {
			m.Write([]byte{text[i]})
		}
		m.Flush()
		if out.String() != want {
			t.Errorf("%q a byte at a time: %q, want %q", text, out.String(), want)
		}
	}
}
