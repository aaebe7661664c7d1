package fetch

import (
	"errors"
	"fmt"
	"strings"
)

// The scheme views split a parsed URL's url-path (or opaque part) by the
// scheme's own grammar (RFC 1738 §3 and §5). Each scheme's view lives in
// its package (ftp.ParseURL, gopher.ParseURL...) and reaches the core
// through its Scheme record; these helpers are what every view shares.
// Values documented as decoded are %-decoded once, after the split, so an
// encoded delimiter ("%2F" in an FTP segment, "%09" inside a gopher+
// string) is data, not structure. Each view returns an *Error of kind
// KindMalformed naming the part at fault; its Offset is a byte offset in
// the URL's Redacted form.

// ViewError is a failure of a scheme's view: an *Error of kind
// KindMalformed about part, at off, an offset in u.Redacted(). In a URL
// without "//" off may be counted in Opaque as written (PathOffset plus
// an index): a password Redacted masks there moves it to match.
func (u *URL) ViewError(part string, off int, msg string) error {
	if !u.Slashes {
		// Redacted is RedactedText of String here (see format), and the
		// two are the same text up to the password.
		off = redactedOffset(u.String(), off)
	}
	return &Error{Kind: KindMalformed, Op: "parse", URL: u.Redacted(), Part: part, Offset: off, Err: errors.New(msg)}
}

// PathOffset is the offset of Path (or Opaque) in u.Redacted(), for a
// view's errors. Parsed URLs hold canonical text, so offsets inside Path
// carry over unchanged.
func (u *URL) PathOffset() int { return len(u.prefix(true)) }

// NeedHost checks the parts every "//" view needs: the "//" form and a
// host. With user false, a user name is refused (RFC 1738 §5 gives the
// scheme a hostport, not a login).
func (u *URL) NeedHost(user bool) error {
	if !u.Slashes {
		return u.ViewError("host", len(u.Scheme)+1, u.Scheme+" URLs need \"//host\" after \""+u.Scheme+":\"")
	}
	if u.Host == "" {
		return u.ViewError("host", len(u.Scheme)+3, u.Scheme+" URLs must name a host")
	}
	if !user && u.HasUser {
		return u.ViewError("user", len(u.Scheme)+3, u.Scheme+" URLs may not hold a user name or password")
	}
	return nil
}

// DecodeAt decodes an escaped piece of Path that starts at off in the
// Redacted form, naming part on failure.
func (u *URL) DecodeAt(s, part string, off int) (string, error) {
	v, err := Unescape(s)
	if err != nil {
		at := off
		if e, ok := err.(*Error); ok {
			at += e.Offset
		}
		return "", u.ViewError(part, at, "malformed escape: \"%\" must be followed by two hexadecimal digits")
	}
	return v, nil
}

// HeaderField is a name=value pair: a mailto hfield or a prospero field.
type HeaderField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// EscapeUnsafe %-encodes what RFC 1738 §2.2 calls unsafe (space,
// controls, <>"#%{}|\^~[]` and octets >= 0x80) in s, leaving valid
// escapes and reserved characters as they are: a view's escaped part made
// fit for the wire.
func EscapeUnsafe(s string) string { return urlEscapeUnsafe(s) }

// EscapeControls is s with its ASCII control characters and DEL
// %-encoded and every other byte as it is: for text that must stay one
// line (a message quoting a URL, a WARC header field) whatever it holds.
func EscapeControls(s string) string {
	i := strings.IndexFunc(s, func(r rune) bool { return r < 0x20 || r == 0x7f })
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == 0x7f {
			fmt.Fprintf(&b, "%%%02X", c)
		} else {
			b.WriteByte(c)
		}
	}
	return b.String()
}

// FormatHost writes a host for a URL: an IPv6 literal in brackets, any
// byte a parsed host cannot hold encoded.
func FormatHost(h string) string { return urlFormatHost(h) }

// IsReserved reports RFC 1738's reserved characters: ";/?:@=&".
func IsReserved(c byte) bool { return urlIsReserved(c) }

// IsUnreserved reports the characters RFC 1738 lets stand unencoded
// anywhere (alphanumerics and "$-_.+!*'(),").
func IsUnreserved(c byte) bool { return urlIsUnreserved(c) }

// EscapedIndex maps index i of the decoded form of escaped s back to an
// index in s, for errors about a decoded value.
func EscapedIndex(s string, i int) int {
	j := 0
	for k := 0; k < len(s); k++ {
		if j >= i {
			return k
		}
		if s[k] == '%' && urlValidEscape(s, k) {
			k += 2
		}
		j++
	}
	return len(s)
}
