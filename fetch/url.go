package fetch

import (
	"encoding/json"
	"strconv"
	"strings"
)

// URL is a URL parsed by the RFC 1738 rules. The parts of the common
// Internet scheme syntax (RFC 1738 §3.1) are split out; the url-path stays
// in its escaped form, so each driver decodes a component only where its
// scheme says (an FTP segment's %2F is a slash inside one CWD argument).
type URL struct {
	Scheme string // lower case

	// Slashes reports that the URL used the "//" form of RFC 1738 §3.1.
	Slashes bool

	// Opaque is the scheme-specific part, escaped, when the URL does not
	// use the "//" form (mailto:, news:, or any scheme written without it).
	Opaque string

	User        string // decoded; meaningful when HasUser
	Password    string // decoded; meaningful when HasPassword
	HasUser     bool   // "user@" present, even if empty ("ftp://@host/")
	HasPassword bool   // ":password" present, even if empty ("ftp://foo:@host/")

	// Host is a lower-case domain name (IDNs in A-label form), a dotted
	// quad, or an IPv6 literal without its brackets.
	Host string
	Port int // 0 when the URL names none

	// Path is the url-path after the "/" that ends host:port, escaped.
	// Anything a scheme puts after the path ("?search", ";type=") stays in
	// it; the scheme views split it. Without HasPath it is empty or, in a
	// scheme whose "?" ends the host (http://h?q), the "?search" part.
	Path    string
	HasPath bool // the "/" after host:port was present

	Fragment    string // escaped, without "#"; never sent to a server
	HasFragment bool
}

// urlUserKeep is what user and password are written with unencoded: RFC
// 1738 §5 allows ";", "?", "&" and "=" (user = *[ uchar | ";" | "?" | "&"
// | "=" ]), but where "?" ends the host (http, https) a user holding it
// would read back as the host, so it is written %3F.
const urlUserKeep = ";&="

// String is the canonical form of u: scheme and host in lower case,
// user and password encoded, unsafe characters of the escaped parts
// %-encoded (space, controls, <>"#%{}|\^~[]` and octets >= 0x80). A port
// is written when u has one, even the scheme's default.
func (u *URL) String() string { return u.format(false) }

// Redacted is String with a non-empty password replaced by "****", for
// logs and error messages.
func (u *URL) Redacted() string { return u.format(true) }

func (u *URL) format(redact bool) string {
	if u == nil {
		return ""
	}
	var b strings.Builder
	// enough for the usual URL, which needs no escapes, in one allocation
	b.Grow(len(u.Scheme) + len(u.User) + len(u.Password) + len(u.Host) + len(u.Path) + len(u.Opaque) + len(u.Fragment) + 16)
	u.writePrefix(&b, redact)
	if u.Slashes {
		b.WriteString(urlEscapeUnsafe(u.Path))
	} else {
		b.WriteString(urlEscapeUnsafe(u.Opaque))
	}
	if u.HasFragment {
		b.WriteByte('#')
		b.WriteString(urlEscapeUnsafe(u.Fragment))
	}
	if redact && !u.Slashes {
		// "http:/joe:pw@h/", a slash short, has no authority by the
		// generic grammar, but a scheme's own may read one into it, and
		// a user meant a password there: masked as RedactedText masks
		// it (a news: message-id, which may hold ":" and "@", is left).
		return RedactedText(b.String())
	}
	return b.String()
}

// prefix is the canonical text before Path (or Opaque): scheme, "//",
// login and the "/" that ends it.
func (u *URL) prefix(redact bool) string {
	var b strings.Builder
	u.writePrefix(&b, redact)
	return b.String()
}

func (u *URL) writePrefix(b *strings.Builder, redact bool) {
	b.WriteString(strings.ToLower(u.Scheme))
	b.WriteByte(':')
	if !u.Slashes {
		return
	}
	b.WriteString("//")
	if u.HasUser {
		b.WriteString(Escape(u.User, urlUserKeep))
		if u.HasPassword {
			b.WriteByte(':')
			if redact && u.Password != "" {
				b.WriteString("****")
			} else {
				b.WriteString(Escape(u.Password, urlUserKeep))
			}
		}
		b.WriteByte('@')
	}
	b.WriteString(urlFormatHost(u.Host))
	if u.Port != 0 {
		var n [20]byte
		b.WriteByte(':')
		b.Write(strconv.AppendInt(n[:0], int64(u.Port), 10))
	}
	// A path that begins with "?" without the "/" is the search part of a
	// scheme whose grammar lets "?" end the host (Grammar.QueryEndsHost).
	if u.HasPath || (u.Path != "" && u.Path[0] != '?') {
		b.WriteByte('/')
	}
}

// urlFormatHost writes a host for a URL: an IPv6 literal in brackets,
// anything a parsed host cannot hold encoded.
func urlFormatHost(h string) string {
	if strings.IndexByte(h, ':') >= 0 {
		return "[" + strings.ToLower(h) + "]"
	}
	return urlEscapeFunc(strings.ToLower(h), func(c byte) bool {
		return urlIsAlpha(c) || urlIsDigit(c) || c == '-' || c == '.'
	})
}

// HostPort is "host:port" for dialing, the IPv6 literal in brackets;
// defaultPort stands in when u names no port.
func (u *URL) HostPort(defaultPort int) string {
	// net.JoinHostPort's result, made in one allocation instead of three
	var b [64]byte
	s := b[:0]
	if strings.IndexByte(u.Host, ':') >= 0 {
		s = append(append(append(s, '['), u.Host...), ']')
	} else {
		s = append(s, u.Host...)
	}
	s = strconv.AppendInt(append(s, ':'), int64(u.PortOr(defaultPort)), 10)
	return string(s)
}

// PortOr is u's port, or defaultPort when u names none.
func (u *URL) PortOr(defaultPort int) int {
	if u.Port == 0 {
		return defaultPort
	}
	return u.Port
}

// Clone is a copy of u that shares nothing with it.
func (u *URL) Clone() *URL {
	if u == nil {
		return nil
	}
	c := *u
	return &c
}

// MarshalJSON writes u's parts for "fetch --parse": the password, when
// there is one, as "****", and "canonical", which is Redacted().
func (u *URL) MarshalJSON() ([]byte, error) {
	type urlJSON struct {
		Scheme      string `json:"scheme"`
		Slashes     bool   `json:"slashes"`
		User        string `json:"user,omitempty"`
		HasUser     bool   `json:"has_user,omitempty"`
		Password    string `json:"password,omitempty"`
		HasPassword bool   `json:"has_password,omitempty"`
		Host        string `json:"host,omitempty"`
		Port        int    `json:"port,omitempty"`
		Path        string `json:"path,omitempty"`
		HasPath     bool   `json:"has_path,omitempty"`
		Opaque      string `json:"opaque,omitempty"`
		Fragment    string `json:"fragment,omitempty"`
		HasFragment bool   `json:"has_fragment,omitempty"`
		Canonical   string `json:"canonical"`
	}
	j := urlJSON{
		Scheme: u.Scheme, Slashes: u.Slashes, User: u.User, HasUser: u.HasUser,
		HasPassword: u.HasPassword, Host: u.Host, Port: u.Port, Path: u.Path, HasPath: u.HasPath,
		Opaque: u.Opaque, Fragment: u.Fragment, HasFragment: u.HasFragment, Canonical: u.Redacted(),
	}
	if u.HasPassword && u.Password != "" {
		j.Password = "****"
	}
	return json.Marshal(j)
}
