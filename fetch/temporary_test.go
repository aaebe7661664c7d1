package fetch

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"syscall"
	"testing"
	"time"
)

func TestTemporary(t *testing.T) {
	srv := func(url string, code int) error {
		return &Error{Kind: KindServer, URL: url, Op: "X", Offset: -1, Code: code}
	}
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"refused", &Error{Kind: KindNetwork, Op: "dial", Offset: -1, Err: syscall.ECONNREFUSED}, true},
		{"reset, unclassified", fmt.Errorf("read: %w", &timeoutishErr{}), true},
		{"truncated", ErrTruncated, true},
		{"cancelled", &Error{Kind: KindNetwork, Offset: -1, Err: canceledError{context.Canceled}}, false},
		{"too large", &Error{Kind: KindPolicy, Offset: -1, Err: ErrTooLarge}, false},
		{"line too long", fmt.Errorf("read: %w", ErrLineTooLong), false},
		{"line too long, as a network failure", &Error{Kind: KindNetwork, Offset: -1, Err: ErrLineTooLong}, false},
		{"port policy", ErrPortRefused, false},
		{"malformed", &Error{Kind: KindMalformed, Offset: 0}, false},
		{"local", &Error{Kind: KindLocal, Offset: -1}, false},
		{"FTP 421", srv("ftp://h/f", 421), true},
		{"FTP 450", srv("ftp://h/f", 450), true},
		{"FTP 550", srv("ftp://h/f", 550), false},
		{"NNTP 400", srv("news:<a@b>", 400), true},
		{"NNTP 430 no such article", srv("news:<a@b>", 430), false},
		{"NNTP 411 no such group", srv("nntp://h/g/1", 411), false},
		{"HTTP 503", srv("http://h/", 503), true},
		{"HTTP 429", srv("https://h/", 429), true},
		{"HTTP 404", srv("http://h/", 404), false},
		{"HTTP 403", srv("http://h/", 403), false},
		{"gopher error item", srv("gopher://h/", 0), false},
		{"no such host", &Error{Kind: KindNetwork, Offset: -1, Err: &net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}}, false},
		{"DNS timeout", &Error{Kind: KindNetwork, Offset: -1, Err: &net.DNSError{Err: "timeout", Name: "h", IsTimeout: true}}, true},
		{"untrusted certificate", &Error{Kind: KindNetwork, Offset: -1, Err: &tls.CertificateVerificationError{Err: x509.UnknownAuthorityError{}}}, false},
		{"wrong host's certificate", &Error{Kind: KindNetwork, Offset: -1, Err: fmt.Errorf("tls: %w", x509.HostnameError{Host: "h"})}, false},
	} {
		if got := Temporary(tt.err); got != tt.want {
			t.Errorf("%s: Temporary(%v) = %v", tt.name, tt.err, got)
		}
	}
	e := &Error{Kind: KindServer, URL: "http://h/", Code: 503, Offset: -1, Err: &RetryLater{After: 7 * time.Second}}
	if d, ok := RetryAfter(fmt.Errorf("wrapped: %w", e)); !ok || d != 7*time.Second {
		t.Errorf("RetryAfter: %v %v", d, ok)
	}
	if _, ok := RetryAfter(errors.New("x")); ok {
		t.Error("RetryAfter without one")
	}
}

// timeoutishErr is a net.Error as a reset connection gives.
type timeoutishErr struct{}

func (*timeoutishErr) Error() string   { return "connection reset by peer" }
func (*timeoutishErr) Timeout() bool   { return false }
func (*timeoutishErr) Temporary() bool { return false }

// TestTemporaryThroughGateway: an ftp:// or gopher:// URL fetched whole
// through an HTTP gateway (Options.Proxy, ftp_proxy) fails with the
// gateway's HTTP status, Protocol "http", and the error names the URL
// asked for: Temporary reads the code by HTTP's rules, not the URL's
// scheme's (a gateway's 404 was an FTP 4xx and retried; its 503 for a
// gopher URL was never retried).
func TestTemporaryThroughGateway(t *testing.T) {
	gw := func(url string, code int, cause error) error {
		return &Error{Kind: KindServer, Op: "GET", URL: url, Offset: -1, Protocol: "http", Code: code, Reply: "x", Err: cause}
	}
	for _, tt := range []struct {
		name string
		err  error
		want bool
	}{
		{"gateway 404 for ftp://", gw("ftp://h/f", 404, ErrNotFound), false},
		{"gateway 403 for ftp://", gw("ftp://h/f", 403, ErrAuth), false},
		{"gateway 503 for gopher://", gw("gopher://h/", 503, nil), true},
		{"gateway 500 for ftp://", gw("ftp://h/f", 500, nil), true},
	} {
		if got := Temporary(tt.err); got != tt.want {
			t.Errorf("%s: Temporary(%v) = %v, want %v", tt.name, tt.err, got, tt.want)
		}
	}
}

// TestCancelCauseIsACancellation: a caller that cancels with a cause
// (context.WithCancelCause, as cmd/fetch does when a lease is taken over)
// has cancelled the fetch: the error matches ErrCanceled and
// context.Canceled, and Temporary says false, as for a plain cancel.
func TestCancelCauseIsACancellation(t *testing.T) {
	c := NewClient(Options{})
	c.Register("x-wait", DriverFunc(func(ctx context.Context, req *Request) (*Result, error) {
		<-ctx.Done()
		return nil, &Error{Kind: KindNetwork, Op: "read", Offset: -1, Err: errors.New("use of closed network connection")}
	}))
	ctx, cancel := context.WithCancelCause(context.Background())
	cancel(errors.New("taken over by another worker"))
	_, err := c.Fetch(ctx, "x-wait:a")
	if err == nil {
		t.Fatal("no error")
	}
	if Temporary(err) {
		t.Errorf("a fetch the caller cancelled (with a cause) is Temporary: %v (kind %v)", err, KindOf(err))
	}
	if !errors.Is(err, context.Canceled) && !errors.Is(err, ErrCanceled) {
		t.Errorf("a cancelled fetch matches neither context.Canceled nor ErrCanceled: %v", err)
	}
}
