package gopher

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/fetchproject/fetch/fetch"
)

// Schemes is gopher's registration record (RFC 1738 §3.4): port 70, a
// host required, the view ParseURL, and a driver configured by cfg.
func Schemes(cfg Config) []fetch.Scheme {
	return []fetch.Scheme{{Name: "gopher", DefaultPort: DefaultPort, Grammar: fetch.Grammar{HostRequired: true, EmptyPath: "1"},
		View: fetch.ViewOf(ParseURL), Driver: New(cfg)}}
}

// URL is a Gopher URL's gopher-path (RFC 1738 §3.4):
// <gophertype><selector>%09<search>%09<gopher+_string>.
type URL struct {
	Type      byte   `json:"type"`     // '1' when the path is empty
	Selector  string `json:"selector"` // decoded
	Search    string `json:"search"`   // decoded
	HasSearch bool   `json:"has_search"`
	Plus      string `json:"plus"` // decoded gopher+ string
	HasPlus   bool   `json:"has_plus"`
}

// ParseURL splits u's gopher-path on its encoded tabs ("%09"), then decodes
// each field. Within the gopher-path no character is reserved, so "/",
// "?" and ";" are selector data. Decoded CR, LF or NUL are not refused
// here: the gopher+ string of a filled-in form (§3.4.9) holds encoded
// CR LF, and the driver checks each line it sends.
func ParseURL(u *fetch.URL) (*URL, error) {
	if err := u.NeedHost(false); err != nil {
		return nil, err
	}
	g := &URL{Type: '1'}
	path, base := u.Path, u.PathOffset()
	if path == "" {
		return g, nil
	}
	n := 1
	if path[0] == '%' {
		t, err := u.DecodeAt(path[:min(3, len(path))], "type", base)
		if err != nil || len(t) != 1 {
			return nil, u.ViewError("type", base, "malformed escape: \"%\" must be followed by two hexadecimal digits")
		}
		g.Type = t[0]
		n = 3
	} else {
		g.Type = path[0]
	}
	rest, off := path[n:], base+n
	fields := []string{rest}
	offs := []int{off}
	if t := strings.Index(rest, "%09"); t >= 0 {
		fields = []string{rest[:t]}
		rest2 := rest[t+3:]
		offs = append(offs, off+t+3)
		if t2 := strings.Index(rest2, "%09"); t2 >= 0 {
			fields = append(fields, rest2[:t2], rest2[t2+3:])
			offs = append(offs, off+t+3+t2+3)
		} else {
			fields = append(fields, rest2)
		}
	}
	parts := []string{"selector", "search", "gopher+"}
	dec := make([]string, len(fields))
	for i, f := range fields {
		v, err := u.DecodeAt(f, parts[i], offs[i])
		if err != nil {
			return nil, err
		}
		dec[i] = v
	}
	g.Selector = dec[0]
	if len(dec) > 1 {
		g.Search, g.HasSearch = dec[1], true
	}
	if len(dec) > 2 {
		g.Plus, g.HasPlus = dec[2], true
	}
	return g, nil
}

// urlGopherKeep is what a gopher selector keeps unencoded: the reserved
// characters other than "?" mean nothing in a gopher-path (§3.4.1), and
// keeping "/" keeps selectors readable.
const urlGopherKeep = "/;:@=&"

// URLString builds a gopher URL (RFC 1738 §3.4) from a menu item:
// host (an IPv6 address is bracketed), port (left out when 0 or 70), the
// item type (0 means '1'), and the raw selector, search and gopher+
// strings, each encoded so that ParseURL gives them back unchanged. A
// gopher+ string implies the search field, which may be empty.
func URLString(host string, port int, typ byte, selector, search string, hasSearch bool, plus string, hasPlus bool) string {
	var b strings.Builder
	b.WriteString("gopher://")
	b.WriteString(fetch.FormatHost(host))
	if port != 0 && port != 70 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(port))
	}
	if typ == 0 {
		typ = '1'
	}
	b.WriteByte('/')
	if typ == '/' || fetch.IsUnreserved(typ) || (typ != '?' && fetch.IsReserved(typ)) {
		b.WriteByte(typ)
	} else {
		b.WriteString(fetch.Escape(string([]byte{typ}), ""))
	}
	b.WriteString(fetch.Escape(selector, urlGopherKeep))
	if hasSearch || hasPlus {
		b.WriteString("%09")
		b.WriteString(fetch.Escape(search, urlGopherKeep))
	}
	if hasPlus {
		b.WriteString("%09")
		b.WriteString(fetch.Escape(plus, urlGopherKeep))
	}
	return b.String()
}

// MarshalJSON writes Type as a one-character string.
func (g *URL) MarshalJSON() ([]byte, error) {
	type plain URL
	return json.Marshal(struct {
		*plain
		Type string `json:"type"`
	}{(*plain)(g), urlTypeString(g.Type)})
}

// urlTypeString shows a type byte as a one-character string, "" for 0.
func urlTypeString(t byte) string {
	if t == 0 {
		return ""
	}
	return string(rune(t))
}
