package fetch

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"
)

// Temporary reports whether err is a failure that asking again later may
// cure, so that a batch can retry it: the connection was refused, reset,
// dropped or timed out (KindNetwork), or the server said "not now" in its
// own terms:
//
//   - FTP: any 4xx reply, the transient negative completions of
//     RFC 959 §4.2 (421 closing, 425/426 data connection, 450/451/452);
//   - NNTP: 400, service temporarily unavailable (RFC 3977 §3.2.1);
//   - HTTP: 408, 429, 500, 502, 503, 504 (RFC 9110 §15.5.9, §15.6; RFC 6585 §4),
//     as curl's --retry counts them.
//
// Everything else is permanent: a refusal by policy, a malformed URL, a
// local I/O error, FTP 5xx, HTTP 404, NNTP "no such article", a Gopher
// error item, a fetch the caller cancelled, and two network failures that
// asking again does not change: a host name the DNS says does not exist,
// and a server certificate that does not verify.
func Temporary(err error) bool {
	if err == nil || errors.Is(err, ErrCanceled) || errors.Is(err, ErrMaybeDone) || overBound(err) {
		return false
	}
	switch KindOf(err) {
	case KindNetwork:
		return !permanentNetwork(err)
	case KindServer:
	default:
		return false
	}
	var fe *Error
	if !errors.As(err, &fe) || fe.Code == 0 {
		return false
	}
	proto := fe.Protocol
	if proto == "" {
		proto, _, _ = strings.Cut(fe.URL, ":")
	}
	switch proto {
	case "ftp", "file":
		return fe.Code >= 400 && fe.Code < 500
	case "news", "nntp":
		return fe.Code == 400
	case "http", "https":
		switch fe.Code {
		case 408, 429, 500, 502, 503, 504:
			return true
		}
	}
	return false
}

// permanentNetwork reports a network failure that will not go away by
// itself: no such host (an NXDOMAIN answer, not a DNS timeout), or a TLS
// certificate the client does not trust.
func permanentNetwork(err error) bool {
	var dns *net.DNSError
	if errors.As(err, &dns) && dns.IsNotFound {
		return true
	}
	var (
		verify   *tls.CertificateVerificationError
		unknown  x509.UnknownAuthorityError
		hostname x509.HostnameError
		invalid  x509.CertificateInvalidError
	)
	return errors.As(err, &verify) || errors.As(err, &unknown) || errors.As(err, &hostname) || errors.As(err, &invalid)
}

// RetryLater is the cause of a server's refusal that says when to ask
// again (HTTP Retry-After on a 429 or 503, RFC 9110 §10.2.3).
type RetryLater struct {
	After time.Duration
}

func (r *RetryLater) Error() string {
	return fmt.Sprintf("the server asks to retry after %v", r.After)
}

// RetryAfter is how long the server of a failed fetch asked to wait
// before trying again, when it said so.
func RetryAfter(err error) (time.Duration, bool) {
	var r *RetryLater
	if errors.As(err, &r) {
		return r.After, true
	}
	return 0, false
}
