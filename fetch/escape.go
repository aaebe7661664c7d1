package fetch

import (
	"errors"
	"strings"
)

// The character classes of RFC 1738 §2.2 and §5, and the %XX encoding.

const urlUpperHex = "0123456789ABCDEF"

// urlUnhex is the value of the hexadecimal digit c, or -1.
func urlUnhex(c byte) int {
	switch {
	case '0' <= c && c <= '9':
		return int(c - '0')
	case 'a' <= c && c <= 'f':
		return int(c-'a') + 10
	case 'A' <= c && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

func urlIsAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func urlIsDigit(c byte) bool { return '0' <= c && c <= '9' }

// urlIsSchemeChar reports whether c may follow a scheme's first letter:
// a letter, a digit, "+", "-" or "." (RFC 1738 §2.1).
func urlIsSchemeChar(c byte) bool {
	return urlIsAlpha(c) || urlIsDigit(c) || c == '+' || c == '-' || c == '.'
}

// urlIsUnreserved reports RFC 1738's unreserved: alpha | digit | safe | extra.
func urlIsUnreserved(c byte) bool {
	if urlIsAlpha(c) || urlIsDigit(c) {
		return true
	}
	switch c {
	case '$', '-', '_', '.', '+', '!', '*', '\'', '(', ')', ',':
		return true
	}
	return false
}

// urlIsReserved reports RFC 1738's reserved: ; / ? : @ = &.
func urlIsReserved(c byte) bool {
	switch c {
	case ';', '/', '?', ':', '@', '=', '&':
		return true
	}
	return false
}

// urlIsUnsafe reports the characters RFC 1738 §2.2 says must always be
// encoded: controls, space, the unsafe and national characters, and every
// octet outside US-ASCII.
func urlIsUnsafe(c byte) bool {
	if c <= ' ' || c >= 0x7f {
		return true
	}
	switch c {
	case '<', '>', '"', '#', '%', '{', '}', '|', '\\', '^', '~', '[', ']', '`':
		return true
	}
	return false
}

// urlValidEscape reports whether s[i] starts a well-formed "%" hex hex.
func urlValidEscape(s string, i int) bool {
	return i+2 < len(s) && urlUnhex(s[i+1]) >= 0 && urlUnhex(s[i+2]) >= 0
}

// Unescape decodes every %XX in s into its octet. Nothing else is changed
// ("+" stays "+"). A "%" not followed by two hexadecimal digits is an error
// of kind KindMalformed whose Offset is the position of that "%" in s.
func Unescape(s string) (string, error) {
	n := strings.IndexByte(s, '%')
	if n < 0 {
		return s, nil
	}
	b := make([]byte, 0, len(s))
	b = append(b, s[:n]...)
	for i := n; i < len(s); i++ {
		c := s[i]
		if c != '%' {
			b = append(b, c)
			continue
		}
		if !urlValidEscape(s, i) {
			return "", &Error{Kind: KindMalformed, Op: "unescape", Part: "escape", Offset: i,
				Err: errors.New("malformed escape: \"%\" must be followed by two hexadecimal digits")}
		}
		b = append(b, byte(urlUnhex(s[i+1])<<4|urlUnhex(s[i+2])))
		i += 2
	}
	return string(b), nil
}

// Escape %-encodes every octet of s that is not unreserved (alpha, digit
// and "$-_.+!*'(),") and not in keep. Hexadecimal digits are upper case.
func Escape(s string, keep string) string {
	return urlEscapeFunc(s, func(c byte) bool {
		return urlIsUnreserved(c) || (c < 0x80 && strings.IndexByte(keep, c) >= 0)
	})
}

// urlEscapeFunc encodes each octet of s for which ok is false.
func urlEscapeFunc(s string, ok func(byte) bool) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !ok(s[i]) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if ok(c) {
			b = append(b, c)
		} else {
			b = append(b, '%', urlUpperHex[c>>4], urlUpperHex[c&15])
		}
	}
	return string(b)
}

// urlEscapeUnsafe encodes the unsafe octets of an already escaped string,
// leaving well-formed escapes and every reserved character alone; a "%"
// that starts no escape becomes "%25". The result is canonical output.
func urlEscapeUnsafe(s string) string {
	clean := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; urlIsUnsafe(c) && !(c == '%' && urlValidEscape(s, i)) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if urlIsUnsafe(c) && !(c == '%' && urlValidEscape(s, i)) {
			b.WriteByte('%')
			b.WriteByte(urlUpperHex[c>>4])
			b.WriteByte(urlUpperHex[c&15])
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// urlCleanPart checks one escaped part of a URL being parsed: bare
// controls, spaces and malformed escapes are errors (at off plus their
// index); the other unsafe characters ("{", "~", octets >= 0x80...) are
// tolerated and encoded, so the stored part is in canonical escaped form.
func urlCleanPart(s, part string, off int) (string, error) {
	dirty := false
	err := urlScan(s, part, off, func(_ int, c byte) error {
		dirty = dirty || urlIsUnsafe(c)
		return nil
	})
	if err != nil {
		return "", err
	}
	if !dirty {
		return s, nil
	}
	return urlEscapeUnsafe(s), nil
}

// urlScan refuses what no URL part may hold written as is (a malformed
// escape, a space, a control character) and passes every other byte
// outside an escape to visit, for the part's own rules.
func urlScan(s, part string, off int, visit func(i int, c byte) error) error {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			if !urlValidEscape(s, i) {
				return urlParseErr(part, off+i, "malformed escape: \"%\" must be followed by two hexadecimal digits")
			}
			i += 2
		case c == ' ':
			return urlParseErr(part, off+i, "space must be encoded as %20")
		case c < 0x20 || c == 0x7f:
			return urlParseErr(part, off+i, "control character must be encoded")
		default:
			if err := visit(i, c); err != nil {
				return err
			}
		}
	}
	return nil
}

// urlParseErr is a parse failure whose URL field is filled in by Parse.
func urlParseErr(part string, off int, msg string) *Error {
	return &Error{Kind: KindMalformed, Op: "parse", Part: part, Offset: off, Err: errors.New(msg)}
}
