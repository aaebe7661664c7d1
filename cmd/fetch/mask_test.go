package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSchemelessLoginSlashesLater: a scheme-less login
// "user:password@host/path" whose path or query holds "//" (a URL in a
// query, "a//b") has its password masked too: only "//" right after the
// scheme is an authority fetch.RedactedText masks. Any "//" in the text
// left the whole password shown.
func TestSchemelessLoginSlashesLater(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"joe:SECRETpw@host/r?to=http://x/", "joe:****@host/r?to=http://x/"},
		{"joe:SECRETpw@host/a//b", "joe:****@host/a//b"},
		{"joe:SECRETpw@host//", "joe:****@host//"},
		{"j o:SECRETpw@h/a//b", "j o:****@h/a//b"},
	} {
		if got := redactArg(c.in); got != c.want {
			t.Errorf("redactArg(%q) = %q, want %q", c.in, got, c.want)
		}
		_, _, stderr := runFetch(t, "", c.in)
		if strings.Contains(stderr, "SECR") || strings.Contains(stderr, "RETpw") {
			t.Errorf("fetch %q: stderr %q shows the password", c.in, stderr)
		}
	}
	// what RedactedText masks after "//" is not masked again
	for _, c := range []struct{ in, want string }{
		{"joe://u:SECRETpw@h/a@b", "joe://u:****@h/a@b"},
		{"<x y://u:SECRETpw@h/>", "<x y://u:****@h/>"},
	} {
		if got := redactArg(c.in); got != c.want {
			t.Errorf("redactArg(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestWrappedKnownSchemeKept: a URL of a scheme fetch has, in the
// wrappers the parser takes ("<...>", "URL:", white space), keeps its
// text: a news: message-id is no login. Masked, it hid the message-id's
// left part, and two articles "<news:1@h>" and "<news:2@h>" read as one
// URL in a batch's log (a rerun skipped the second as done).
func TestWrappedKnownSchemeKept(t *testing.T) {
	for _, in := range []string{
		"<news:1234@example.com>",
		"URL:news:1234@example.com",
		"<URL:news:1234@example.com>",
		" news:1234@example.com",
		"<mailto:joe@example.com>",
	} {
		if got := redactArg(in); got != in {
			t.Errorf("redactArg(%q) = %q, want it as given", in, got)
		}
	}
	// a login under a wrapper is still masked
	for _, c := range []struct{ in, want string }{
		{"<joe:SECRETpw@host/a b>", "<joe:****@host/a b>"},
		{"URL:joe:SECRETpw@host/a b", "URL:****@host/a b"},
	} {
		if got := redactArg(c.in); got != c.want {
			t.Errorf("redactArg(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestWrappedNewsBatchNotCollapsed: two news articles in a list,
// written in the RFC 1738 wrapper, are two URLs to a batch: each gets its
// own log line (both fail here: no news server has them). Their
// message-ids masked to one text made the second "already done".
func TestWrappedNewsBatchNotCollapsed(t *testing.T) {
	t.Chdir(t.TempDir())
	_, _, stderr := runFetch(t, "<news:1@example.com>\n<news:2@example.com>\n", "-j", "1", "-O", "--log", "log", "-i", "-")
	if strings.Contains(stderr, "already done") || !strings.Contains(stderr, "2 failed") {
		t.Errorf("two articles: %s", stderr)
	}
}

// TestSchemelessLoginElsewhere: "user:password@host/path" (curl's form,
// whose scheme would be "user") is masked wherever the command repeats
// it, as on stderr: in a WARC (the task, the target, the failure), in the
// log and --json line of a list line too long to take, and a value run
// into a flag ("-HCookie:...") is not repeated in the usage error.
func TestSchemelessLoginElsewhere(t *testing.T) {
	dir := t.TempDir()
	w := filepath.Join(dir, "w.warc")
	runFetch(t, "", "--warc", w, "joe:SECRETpw@127.0.0.1/x")
	if b, err := os.ReadFile(w); err != nil || strings.Contains(string(b), "SECRET") || !strings.Contains(string(b), "joe:****@127.0.0.1/x") {
		t.Errorf("WARC (%v) shows the password or not the masked task:\n%s", err, b)
	}

	logName := filepath.Join(dir, "log")
	list := "joe:SECRETpw@127.0.0.1/" + strings.Repeat("a", 70000) + "\n"
	_, stdout, _ := runFetch(t, list, "-q", "-i", "-", "-O", "--output-dir", filepath.Join(dir, "out"), "--json", "--log", logName)
	b, _ := os.ReadFile(logName)
	if strings.Contains(string(b), "SECRET") || strings.Contains(stdout, "SECRET") || !strings.Contains(string(b), "joe:****@") {
		t.Errorf("the long line's password is shown, or the line is not logged:\nlog %.300s\nstdout %.300s", b, stdout)
	}

	for _, arg := range []string{"-HAuthorization: Bearer SECRETpw", "-HCookie:SECRETpw", "--hdr:SECRETpw"} {
		code, _, stderr := runFetch(t, "", arg, "http://127.0.0.1:1/")
		if code != 2 || strings.Contains(stderr, "SECRET") {
			t.Errorf("%q: exit %d, stderr %q", arg, code, stderr)
		}
	}
}
