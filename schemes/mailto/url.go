package mailto

import (
	"strings"
	"unicode/utf8"

	"github.com/fetchproject/fetch/fetch"
)

// Schemes is mailto's registration record (RFC 1738 §3.5, RFC 6068): no
// port of its own (the message goes to the configured SMTP server), the
// generic grammar (a mailto URL has no "//" form), the view ParseURL, and
// a driver configured by cfg.
func Schemes(cfg Config) []fetch.Scheme {
	return []fetch.Scheme{{Name: "mailto", Direct: true,
		View: fetch.ViewOf(ParseURL), Driver: New(cfg)}}
}

// URL is a mailto URL: RFC 1738 §3.5's encoded addr-spec, read
// with RFC 6068's comma-separated addresses and ?hfname=hfvalue fields.
type URL struct {
	To        []string            `json:"to,omitempty"`
	Cc        []string            `json:"cc,omitempty"`
	Bcc       []string            `json:"bcc,omitempty"`
	Subject   string              `json:"subject,omitempty"`
	Body      string              `json:"body,omitempty"`
	InReplyTo string              `json:"in_reply_to,omitempty"`
	Keywords  string              `json:"keywords,omitempty"`
	Other     []fetch.HeaderField `json:"other,omitempty"` // unknown hfields, decoded
}

// ParseURL decodes the addresses and header fields of a mailto URL and
// checks each address against RFC 5322's addr-spec (dot-atom or quoted
// local part, "@", dot-atom or [literal] domain; UTF-8 allowed as in
// RFC 6532). Names are matched case-insensitively; "+" is not a space.
// When subject, body, in-reply-to or keywords come twice the first wins
// and the others land in Other. A decoded CR or LF is not refused here
// (a body may hold CR LF); the driver checks header lines.
func ParseURL(u *fetch.URL) (*URL, error) {
	if u.Slashes {
		return nil, u.ViewError("address", len(u.Scheme)+1, "a mailto URL is mailto:<address>, without \"//\"")
	}
	op, base := u.Opaque, u.PathOffset()
	if op == "" {
		return nil, u.ViewError("address", base, "a mailto URL needs an address")
	}
	m := &URL{}
	addrs, query := op, ""
	hasQuery := false
	if q := strings.IndexByte(op, '?'); q >= 0 {
		addrs, query, hasQuery = op[:q], op[q+1:], true
	}
	var err error
	if m.To, err = urlMailtoAddrs(u, addrs, base); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	off := base + len(addrs) + 1
	for hasQuery {
		field := query
		if a := strings.IndexByte(query, '&'); a >= 0 {
			field, query = query[:a], query[a+1:]
		} else {
			hasQuery = false
		}
		fOff := off
		off += len(field) + 1
		if field == "" {
			continue // "?&subject=x" and a trailing "&" carry nothing
		}
		eq := strings.IndexByte(field, '=')
		if eq <= 0 {
			return nil, u.ViewError("header", fOff, "a mailto header field is <name>=<value>")
		}
		name, err := u.DecodeAt(field[:eq], "header", fOff)
		if err != nil {
			return nil, err
		}
		rawValue := field[eq+1:]
		vOff := fOff + eq + 1
		switch key := strings.ToLower(name); key {
		case "to", "cc", "bcc":
			list, err := urlMailtoAddrs(u, rawValue, vOff)
			if err != nil {
				return nil, err
			}
			switch key {
			case "to":
				m.To = append(m.To, list...)
			case "cc":
				m.Cc = append(m.Cc, list...)
			default:
				m.Bcc = append(m.Bcc, list...)
			}
		default:
			value, err := u.DecodeAt(rawValue, "header", vOff)
			if err != nil {
				return nil, err
			}
			var dst *string
			switch key {
			case "subject":
				dst = &m.Subject
			case "body":
				dst = &m.Body
			case "in-reply-to":
				dst = &m.InReplyTo
			case "keywords":
				dst = &m.Keywords
			}
			if dst != nil && !seen[key] {
				seen[key] = true
				*dst = value
			} else {
				m.Other = append(m.Other, fetch.HeaderField{Name: name, Value: value})
			}
		}
	}
	if len(m.To)+len(m.Cc)+len(m.Bcc) == 0 {
		return nil, u.ViewError("address", base, "a mailto URL needs at least one address")
	}
	return m, nil
}

// mailtoAddrs decodes an escaped, comma-separated address list and checks
// each address; commas inside a quoted local part do not separate.
func urlMailtoAddrs(u *fetch.URL, raw string, off int) ([]string, error) {
	if raw == "" {
		return nil, nil
	}
	v, err := u.DecodeAt(raw, "address", off)
	if err != nil {
		return nil, err
	}
	var out []string
	start, quoted := 0, false
	for i := 0; i <= len(v); i++ {
		if i < len(v) {
			switch c := v[i]; {
			case c == '\\' && quoted:
				i++
				continue
			case c == '"':
				quoted = !quoted
				continue
			case c != ',' || quoted:
				continue
			}
		}
		a := v[start:i]
		if a == "" {
			// An empty entry is tolerated only as a trailing comma.
			if i < len(v) {
				return nil, u.ViewError("address", off+fetch.EscapedIndex(raw, start), "empty address in list")
			}
		} else {
			if j, msg := urlCheckAddrSpec(a); msg != "" {
				return nil, u.ViewError("address", off+fetch.EscapedIndex(raw, start+j), msg)
			}
			out = append(out, a)
		}
		start = i + 1
	}
	return out, nil
}

// urlIsAtext reports RFC 5322 atext, plus UTF-8 octets (RFC 6532).
func urlIsAtext(c byte) bool {
	if urlIsAlpha(c) || urlIsDigit(c) || c >= 0x80 {
		return true
	}
	return strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}

// urlCheckDotAtom checks dot-atom-text; it returns an index and message.
func urlCheckDotAtom(s, what string) (int, string) {
	if s == "" {
		return 0, "empty " + what
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if i == 0 || i == len(s)-1 || s[i-1] == '.' {
				return i, "misplaced \".\" in " + what
			}
			continue
		}
		if !urlIsAtext(c) {
			return i, "character not allowed in " + what
		}
	}
	return 0, ""
}

// urlCheckAddrSpec checks an RFC 5322 addr-spec without comments or
// folding whitespace: local-part "@" domain.
func urlCheckAddrSpec(a string) (int, string) {
	if !utf8.ValidString(a) {
		return 0, "address is not valid UTF-8"
	}
	var at int
	if strings.HasPrefix(a, "\"") {
		i := 1
		for ; i < len(a); i++ {
			c := a[i]
			if c == '\\' {
				i++
				if i < len(a) && (a[i] < ' ' && a[i] != '\t' || a[i] == 0x7f) {
					return i, "control character in quoted local part"
				}
				continue
			}
			if c == '"' {
				break
			}
			if c < ' ' && c != '\t' || c == 0x7f {
				return i, "control character in quoted local part"
			}
		}
		if i >= len(a) {
			return 0, "unterminated quoted local part"
		}
		at = i + 1
		if at >= len(a) || a[at] != '@' {
			return at, "\"@\" must follow the quoted local part"
		}
	} else {
		at = strings.LastIndexByte(a, '@')
		if at < 0 {
			return 0, "address must be local-part@domain"
		}
		if i, msg := urlCheckDotAtom(a[:at], "local part"); msg != "" {
			return i, msg
		}
	}
	domain := a[at+1:]
	if strings.HasPrefix(domain, "[") {
		if !strings.HasSuffix(domain, "]") || len(domain) < 3 {
			return at + 1, "unterminated domain literal"
		}
		for i := 1; i < len(domain)-1; i++ {
			if c := domain[i]; c <= ' ' || c >= 0x7f || c == '[' || c == ']' || c == '\\' {
				return at + 1 + i, "character not allowed in domain literal"
			}
		}
		return 0, ""
	}
	if i, msg := urlCheckDotAtom(domain, "domain"); msg != "" {
		return at + 1 + i, msg
	}
	return 0, ""
}

func urlIsAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func urlIsDigit(c byte) bool { return '0' <= c && c <= '9' }
