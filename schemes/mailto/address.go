package mailto

import (
	"errors"
	"fmt"
	"net/netip"
	"strings"
	"unicode/utf8"

	"github.com/emersion/go-message/mail"
	"golang.org/x/net/idna"
)

// address is one mailbox: an optional display name and an RFC 5322
// addr-spec kept in the form it is sent in, both in headers and in the
// SMTP envelope.
type address struct {
	Name   string // display name, decoded; "" for a bare addr-spec
	Local  string // local part as written: dot-atom, or quoted-string with its quotes
	Domain string // A-label domain name, or a [domain literal]
}

// Spec is the addr-spec local@domain, as MAIL FROM and RCPT TO carry it
// (RFC 5321 §4.1.2 Mailbox).
func (a address) Spec() string { return a.Local + "@" + a.Domain }

// String is the mailbox as a header shows it (RFC 5322 §3.4).
func (a address) String() string {
	if a.Name == "" {
		return a.Spec()
	}
	return formatPhrase(a.Name) + " <" + a.Spec() + ">"
}

// utf8Local reports a local part that needs SMTPUTF8 (RFC 6531).
func (a address) utf8Local() bool {
	for i := 0; i < len(a.Local); i++ {
		if a.Local[i] >= utf8.RuneSelf {
			return true
		}
	}
	return false
}

// errAddress is the cause of every address refusal, for errors.Is.
var errAddress = errors.New("not a valid mail address")

// parseAddrSpec checks s as an RFC 5322 §3.4.1 addr-spec without comments
// or folding white space (RFC 6068 §2 carries addr-specs only): a dot-atom
// or quoted-string local part (UTF-8 allowed, RFC 6532), "@", and a domain
// name or [domain literal]. A domain name is returned in A-label form so
// the envelope stays 7-bit (RFC 6068 §5 converts IDNs for SMTP).
func parseAddrSpec(s string) (address, error) {
	if !utf8.ValidString(s) {
		return address{}, fmt.Errorf("%w: %q is not valid UTF-8", errAddress, s)
	}
	at, err := localPartEnd(s)
	if err != nil {
		return address{}, err
	}
	local, dom := s[:at], s[at+1:]
	if len(local) > 64 || len(dom) > 255 {
		return address{}, fmt.Errorf("%w: %q: longer than RFC 5321 §4.5.3.1 allows (64 octets of local part, 255 of domain)", errAddress, s)
	}
	domain, err := checkDomain(dom)
	if err != nil {
		return address{}, fmt.Errorf("%w: %q: %v", errAddress, s, err)
	}
	return address{Local: local, Domain: domain}, nil
}

// localPartEnd checks the local part at the start of s and returns the
// index of the "@" that ends it.
func localPartEnd(s string) (int, error) {
	bad := func(why string) (int, error) { return 0, fmt.Errorf("%w: %q: %s", errAddress, s, why) }
	if strings.HasPrefix(s, `"`) {
		for i := 1; i < len(s); i++ {
			switch c := s[i]; {
			case c == '\\':
				i++
				if i >= len(s) {
					return bad("unterminated quoted local part")
				}
				if c := s[i]; c < ' ' || c == 0x7f {
					return bad("control character in the local part")
				}
			case c == '"':
				if i+1 >= len(s) || s[i+1] != '@' {
					return bad(`"@" must follow the quoted local part`)
				}
				if i == 1 {
					return bad("empty local part")
				}
				return i + 1, nil
			case c < ' ' || c == 0x7f:
				// a TAB too: RFC 5321's quoted string has none
				// (qtextSMTP, quoted-pairSMTP)
				return bad("control character in the local part")
			}
		}
		return bad("unterminated quoted local part")
	}
	at := strings.LastIndexByte(s, '@')
	if at < 0 {
		return bad("no \"@\": an address is local-part@domain")
	}
	if err := checkDotAtom(s[:at]); err != nil {
		return bad("local part: " + err.Error())
	}
	return at, nil
}

// isAtext reports RFC 5322 atext, widened to UTF-8 octets by RFC 6532.
func isAtext(c byte) bool {
	switch {
	case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c >= utf8.RuneSelf:
		return true
	}
	return strings.IndexByte("!#$%&'*+-/=?^_`{|}~", c) >= 0
}

// checkDotAtom checks RFC 5322 dot-atom-text.
func checkDotAtom(s string) error {
	if s == "" {
		return errors.New("empty")
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '.' {
			if i == 0 || i == len(s)-1 || s[i-1] == '.' {
				return errors.New(`misplaced "."`)
			}
			continue
		}
		if !isAtext(c) {
			return fmt.Errorf("%q not allowed", c)
		}
	}
	return nil
}

// checkDomain checks the domain of an address and returns it as it is
// sent: a host name in A-label form (RFC 5321 §4.1.2 Domain, RFC 5890) or
// an address literal (RFC 5321 §4.1.3).
func checkDomain(d string) (string, error) {
	if strings.HasPrefix(d, "[") {
		if len(d) < 3 || !strings.HasSuffix(d, "]") {
			return "", errors.New("unterminated domain literal")
		}
		lit := d[1 : len(d)-1]
		if v6, ok := strings.CutPrefix(lit, "IPv6:"); ok {
			if a, err := netip.ParseAddr(v6); err != nil || !a.Is6() || a.Zone() != "" {
				return "", fmt.Errorf("bad IPv6 address literal %q", lit)
			}
			return d, nil
		}
		if a, err := netip.ParseAddr(lit); err != nil || !a.Is4() {
			return "", fmt.Errorf("bad address literal %q (an IPv4 address, or IPv6: and an IPv6 address)", lit)
		}
		return d, nil
	}
	if err := checkDotAtom(d); err != nil {
		return "", fmt.Errorf("domain: %v", err)
	}
	ascii, err := idna.Lookup.ToASCII(d)
	if err != nil {
		return "", fmt.Errorf("domain: %v", err)
	}
	if ascii == "" || strings.Contains(ascii, "..") || strings.HasSuffix(ascii, ".") {
		return "", errors.New("domain: empty label")
	}
	// The limits hold for the A-label form that goes on the wire, which can
	// be longer than what was typed (RFC 5321 §4.5.3.1, RFC 1035 §2.3.4).
	if len(ascii) > 255 {
		return "", fmt.Errorf("domain: %d octets in A-label form, more than 255", len(ascii))
	}
	for _, label := range strings.Split(ascii, ".") {
		if len(label) > 63 {
			return "", fmt.Errorf("domain: label %.20q… is %d octets, more than 63", label, len(label))
		}
	}
	return ascii, nil
}

// parseMailboxList reads addresses a person typed (--from, the editor's
// To: line): RFC 5322 address lists with display names and groups, parsed
// by go-message, each addr-spec then checked as parseAddrSpec does.
func parseMailboxList(s string) ([]address, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	list, err := mail.ParseAddressList(s)
	if err != nil {
		return nil, fmt.Errorf("%w: %q: %v", errAddress, s, err)
	}
	out := make([]address, 0, len(list))
	for _, a := range list {
		// net/mail keeps the local part unquoted; its String quotes it
		// again where RFC 5322 needs quotes.
		spec := strings.TrimSuffix(strings.TrimPrefix((&mail.Address{Address: a.Address}).String(), "<"), ">")
		ad, err := parseAddrSpec(spec)
		if err != nil {
			return nil, err
		}
		ad.Name = a.Name
		out = append(out, ad)
	}
	return out, nil
}

// maxPhrase is the longest display name or keyword written as plain text
// or a quoted-string; a longer one is encoded, so folding can bound its lines.
const maxPhrase = 200

// formatPhrase writes a display name as an RFC 5322 phrase: atoms as
// they are, ASCII specials in a quoted-string, anything else (and a very
// long name) as RFC 2047 encoded-words.
func formatPhrase(name string) string {
	plain, quote := true, false
	for i := 0; i < len(name); i++ {
		c := name[i]
		switch {
		case c >= utf8.RuneSelf || c < ' ' || c == 0x7f:
			plain = false
		case c == ' ' || isAtext(c):
		default:
			quote = true
		}
	}
	if !plain || len(name) > maxPhrase {
		return forceQ(name)
	}
	if !quote && strings.TrimSpace(name) == name && !strings.Contains(name, "  ") {
		return name
	}
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(name); i++ {
		if c := name[i]; c == '"' || c == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(name[i])
	}
	b.WriteByte('"')
	return b.String()
}
