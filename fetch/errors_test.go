package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// silentServer accepts connections and never writes; it returns the
// address.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns := make(chan net.Conn, 16)
	go func() {
		defer close(conns)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns <- c
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		for c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// readingDriver dials the URL's host and reads until the read fails.
var readingDriver = DriverFunc(func(ctx context.Context, req *Request) (*Result, error) {
	c, err := req.Dial(ctx, req.URL.HostPort(0))
	if err != nil {
		return nil, err
	}
	defer c.Close()
	_, err = io.ReadAll(c)
	return nil, &Error{Kind: KindNetwork, Op: "read reply", Offset: -1, Err: err}
})

// TestTimeLimitsReportedAsWhatTheyAre: the idle timeout, the client's
// maximum time, the caller's deadline and a cancellation each say what
// they are, and none pretends to be another.
func TestTimeLimitsReportedAsWhatTheyAre(t *testing.T) {
	addr := silentServer(t)
	raw := "x-slow://" + addr + "/"
	const bound = 200 * time.Millisecond
	tests := []struct {
		name    string
		opts    Options
		ctx     func() (context.Context, context.CancelFunc)
		is      error
		isNot   error
		say     string
		setting string
	}{
		{"idle", Options{IdleTimeout: bound}, func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			ErrTimeout, ErrMaxTime, "idle timeout", ""},
		{"max time", Options{IdleTimeout: time.Hour, MaxTime: bound}, func() (context.Context, context.CancelFunc) { return context.WithCancel(context.Background()) },
			ErrMaxTime, nil, "time limit for the whole fetch", "Options.MaxTime"},
		{"caller deadline", Options{IdleTimeout: time.Hour}, func() (context.Context, context.CancelFunc) {
			return context.WithTimeout(context.Background(), bound)
		}, context.DeadlineExceeded, ErrMaxTime, "deadline", ""},
		{"cancel", Options{IdleTimeout: time.Hour}, func() (context.Context, context.CancelFunc) {
			ctx, cancel := context.WithCancel(context.Background())
			time.AfterFunc(bound, cancel)
			return ctx, cancel
		}, ErrCanceled, ErrTimeout, "cancelled", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := NewClient(tt.opts)
			c.Register("x-slow", readingDriver)
			ctx, cancel := tt.ctx()
			defer cancel()
			_, err := c.Fetch(ctx, raw)
			if err == nil {
				t.Fatal("no error from a silent server")
			}
			msg := err.Error()
			if !errors.Is(err, tt.is) || tt.isNot != nil && errors.Is(err, tt.isNot) {
				t.Errorf("%v: want errors.Is %v and not %v", err, tt.is, tt.isNot)
			}
			if !strings.Contains(msg, tt.say) {
				t.Errorf("%q does not say %q", msg, tt.say)
			}
			if tt.name != "idle" && strings.Contains(msg, "idle") {
				t.Errorf("%q blames the idle timeout", msg)
			}
			if n := strings.Count(msg, raw); n != 1 {
				t.Errorf("%q names the URL %d times, want once", msg, n)
			}
			if strings.Contains(msg, "--") {
				t.Errorf("%q names a command-line flag", msg)
			}
			var fe *Error
			if !errors.As(err, &fe) || fe.Setting != tt.setting || KindOf(err) != KindNetwork {
				t.Errorf("%#v: want kind network and setting %q", err, tt.setting)
			}
		})
	}
}

// TestErrorsNameTheURLOnce: the client fills the URL into errors that have
// none, and an error that repeats it says it once.
func TestErrorsNameTheURLOnce(t *testing.T) {
	const raw = "x-err://host.test/a"
	tests := map[string]func(u string) error{
		"plain":  func(string) error { return errors.New("boom") },
		"no URL": func(string) error { return &Error{Kind: KindServer, Op: "GET", Offset: -1, Err: errors.New("boom")} },
		"twice": func(u string) error {
			return &Error{Kind: KindServer, Op: "GET", URL: u, Offset: -1, Err: &Error{Kind: KindServer, URL: u, Offset: -1, Err: errors.New("boom")}}
		},
		"wrapped text": func(u string) error {
			return &Error{Kind: KindServer, URL: u, Offset: -1, Err: fmt.Errorf("%s: boom", u)}
		},
	}
	for name, mk := range tests {
		c := NewClient(Options{})
		c.Register("x-err", DriverFunc(func(_ context.Context, req *Request) (*Result, error) {
			return nil, mk(req.URL.Redacted())
		}))
		_, err := c.Fetch(context.Background(), raw)
		if err == nil || strings.Count(err.Error(), raw) != 1 || !strings.Contains(err.Error(), "boom") {
			t.Errorf("%s: %v: want the URL once and the cause", name, err)
		}
	}

	// A body that fails mid-read (an HTTP body error) names the URL too.
	c := NewClient(Options{})
	c.Register("x-err", DriverFunc(func(_ context.Context, req *Request) (*Result, error) {
		return &Result{Kind: KindDocument, Document: &Document{Body: io.NopCloser(io.MultiReader(strings.NewReader("ab"), errReader{})), Size: -1}}, nil
	}))
	res, err := c.Fetch(context.Background(), raw)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	_, err = io.ReadAll(res.Document.Body)
	if err == nil || strings.Count(err.Error(), raw) != 1 || KindOf(err) != KindNetwork {
		t.Errorf("body error %v: want the URL once, kind network", err)
	}
}

type errReader struct{}

func (errReader) Read([]byte) (int, error) { return 0, errors.New("connection reset") }

// TestUnknownSchemeSuggestsNearest: an unknown scheme is a malformed URL
// (exit 3) that lists the schemes and names the nearest.
func TestUnknownSchemeSuggestsNearest(t *testing.T) {
	c := NewClient(Options{})
	for _, s := range []string{"http", "https", "ftp", "gopher"} {
		c.Register(s, &recorder{})
	}
	_, err := c.Fetch(context.Background(), "htp://host/")
	if KindOf(err) != KindMalformed || KindOf(err).ExitCode() != 3 || !errors.Is(err, ErrUnknownScheme) {
		t.Fatalf("%v: want a malformed URL (exit 3)", err)
	}
	for _, want := range []string{"did you mean http:", "ftp, gopher, http, https"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
	_, err = c.Fetch(context.Background(), "zzzzzz://host/")
	if err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("%v: suggested a scheme for a word far from all", err)
	}
	for w, want := range map[string]string{"htp": "http", "gophr": "gopher", "ftpp": "ftp", "xyzzy": "", "htpt": "http", "gohper": "gopher", "tfp": "ftp"} {
		if got := Nearest(w, []string{"ftp", "gopher", "http", "https"}); got != want {
			t.Errorf("Nearest(%q) = %q, want %q", w, got, want)
		}
	}
}

// TestLineTooLongIsASizeBound: a server's line past its bound is a size
// refusal (exit 4) like ErrTooLarge, however a driver wraps it, and the
// end of the fetch's context does not turn it into a timeout.
func TestLineTooLongIsASizeBound(t *testing.T) {
	err := fmt.Errorf("status line: %w (more than 65536 bytes)", ErrLineTooLong)
	if k := KindOf(err); k != KindPolicy || k.ExitCode() != 4 {
		t.Errorf("KindOf(%v) = %v (exit %d), want refused by policy (exit 4)", err, k, k.ExitCode())
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := finish(ctx, "nntp://h/g", &Error{Kind: KindPolicy, Op: "OVER", Offset: -1, Err: err})
	if !errors.Is(got, ErrLineTooLong) || KindOf(got) != KindPolicy {
		t.Errorf("finish after the context ended = %v (kind %v), want the line's refusal", got, KindOf(got))
	}
}

// TestOverBoundKindWhateverTheDriver: a reply refused for a size bound is
// a refusal by policy, exit 4, whatever kind the driver gave it (KindOf
// once returned the driver's kind first: exit 5).
func TestOverBoundKindWhateverTheDriver(t *testing.T) {
	for _, err := range []error{
		&Error{Kind: KindNetwork, Op: "LIST", Offset: -1, Err: fmt.Errorf("listing line: %w", ErrLineTooLong)},
		&Error{Kind: KindNetwork, Op: "read", Offset: -1, Err: ErrTooLarge},
	} {
		if k := KindOf(err); k != KindPolicy {
			t.Errorf("KindOf(%v) = %v (exit %d), want refused by policy (exit 4)", err, k, k.ExitCode())
		}
	}
}

// TestErrorEscapesControlsInURL: a URL given with a raw line break or
// another control character is shown percent-encoded, so that the message
// stays one line (its second line could pass for another message); the
// offset still points at the first of them, and a cause that names the
// URL again loses it either way.
func TestErrorEscapesControlsInURL(t *testing.T) {
	const raw = "http://h/a\nfetch: b\r\x1b\x7f"
	_, perr := Parse(raw)
	var fe *Error
	if !errors.As(perr, &fe) {
		t.Fatalf("Parse(%q) = %v, want an *Error", raw, perr)
	}
	msg := perr.Error()
	if strings.ContainsAny(msg, "\n\r\x1b\x7f") || !strings.HasPrefix(msg, "http://h/a%0Afetch: b%0D%1B%7F: ") {
		t.Errorf("message %q: want the URL with its controls percent-encoded", msg)
	}
	if want := strings.IndexByte(raw, '\n'); fe.Offset != want || msg[fe.Offset:fe.Offset+3] != "%0A" {
		t.Errorf("offset %d in %q, want %d, at the shown %%0A", fe.Offset, msg, want)
	}
	for _, inner := range []string{raw, "http://h/a%0Afetch: b%0D%1B%7F"} {
		e := &Error{Kind: KindServer, URL: raw, Offset: -1, Err: fmt.Errorf("%s: boom", inner)}
		if got := e.Error(); strings.Count(got, "fetch: b") != 1 {
			t.Errorf("cause naming %q again: %q, want the URL once", inner, got)
		}
	}
}
