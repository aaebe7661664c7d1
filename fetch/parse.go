package fetch

import (
	"net/netip"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// Parse parses raw as a URL by the generic syntax of RFC 1738 §2.1 and,
// when "//" follows "scheme:", the common Internet scheme syntax of §3.1:
//
//	//<user>:<password>@<host>:<port>/<url-path>
//
// Surrounding whitespace, a "URL:" prefix and a "<...>" wrapper (RFC 1738
// Appendix) are removed first. The url-path, the opaque part and the
// fragment stay escaped; unsafe characters the spec says must be encoded
// ("~", "{", octets >= 0x80...) are tolerated and stored encoded, while a
// bare control character, a space or a malformed escape is an error.
// User and password are decoded; the host is lower case, an IDN is turned
// into A-labels (UTS #46 lookup), an IPv6 literal loses its brackets.
//
// Parse knows no scheme: it applies the generic syntax only, so a host
// may be empty and only "/" ends it. The rules a scheme changes (an HTTP
// URL's "?" ending the host, a host being required) belong to the scheme's
// own package and reach the parser through its registration record:
// parse with Client.Parse, Registry.Parse, or the schemes package's Parse,
// which use the schemes registered there. The core holds no package-level
// table of schemes, so a program or a test that registers a scheme of its
// own changes nobody else's parser.
//
// Every failure is an *Error of kind KindMalformed with the URL part at
// fault and its byte offset in the error's URL, which is raw with its
// password masked (RedactedText): the same as in raw before the password,
// the start of the mask for a fault inside it.
func Parse(raw string) (*URL, error) {
	return parseWith(nil, raw)
}

// parseWith parses raw with the grammar reg gives its scheme.
func parseWith(reg *Registry, raw string) (*URL, error) {
	u, err := urlParse(reg, raw)
	if err != nil {
		if e, ok := err.(*Error); ok {
			// The parser's offsets are in raw; the error shows raw with
			// its password masked, and its Offset must index that.
			e.URL, e.Offset = RedactedText(raw), redactedOffset(raw, e.Offset)
		}
		return nil, err
	}
	return u, nil
}

func urlIsSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'
}

// urlUnwrap removes surrounding whitespace, "<...>" and "URL:" and
// returns what is left with its offset in raw.
func urlUnwrap(raw string) (string, int) {
	start, end := 0, len(raw)
	trim := func() {
		for start < end && urlIsSpace(raw[start]) {
			start++
		}
		for end > start && urlIsSpace(raw[end-1]) {
			end--
		}
	}
	trim()
	if end-start >= 2 && raw[start] == '<' && raw[end-1] == '>' {
		start++
		end--
		trim()
	}
	if end-start > 4 && strings.EqualFold(raw[start:start+4], "URL:") {
		s := start + 4
		for s < end && urlIsSpace(raw[s]) {
			s++
		}
		if urlSchemeLen(raw[s:end]) > 0 {
			start = s
		}
	}
	return raw[start:end], start
}

// SchemeOf is the scheme Parse reads in raw (inside white space, "<...>"
// and "URL:"), in lower case, or "" when raw starts with none. It does
// not parse the rest: a caller can tell "<news:1@h>" (a news: URL, whose
// message-id holds no login) from text that is no URL of a known scheme.
func SchemeOf(raw string) string {
	s, _ := urlUnwrap(raw)
	return strings.ToLower(s[:urlSchemeLen(s)])
}

// urlSchemeLen is the length of the scheme s starts with when a ":"
// follows it, else 0.
func urlSchemeLen(s string) int {
	if s == "" || !urlIsAlpha(s[0]) {
		return 0
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ':':
			return i
		case urlIsSchemeChar(c):
		default:
			return 0
		}
	}
	return 0
}

func urlParse(reg *Registry, raw string) (*URL, error) {
	s, off := urlUnwrap(raw)
	if s == "" {
		return nil, urlParseErr("scheme", off, "empty URL")
	}
	colon := strings.IndexByte(s, ':')
	if colon < 0 {
		return nil, urlParseErr("scheme", off, "missing scheme (a URL starts with \"scheme:\")")
	}
	if colon == 0 {
		return nil, urlParseErr("scheme", off, "empty scheme")
	}
	if !urlIsAlpha(s[0]) {
		return nil, urlParseErr("scheme", off, "scheme must start with a letter")
	}
	for i := 1; i < colon; i++ {
		if !urlIsSchemeChar(s[i]) {
			return nil, urlParseErr("scheme", off+i, "scheme may hold only letters, digits, \"+\", \"-\" and \".\"")
		}
	}
	u := &URL{Scheme: strings.ToLower(s[:colon])}
	if u.Scheme == "url" {
		// RFC 1738 Appendix: "URL:" is a prefix, never a scheme; a URL
		// with that scheme could not be written back unambiguously.
		return nil, urlParseErr("scheme", off, "\"URL:\" is a prefix, not a scheme")
	}
	rest, restOff := s[colon+1:], off+colon+1
	g := reg.grammar(u.Scheme)

	// The parts are read out of their order in the URL (the fragment
	// first, the path before the host); an error is the first fault in
	// the URL's own order, so one in the fragment or the path waits in
	// late until what comes before it has been read.
	var late error
	if h := strings.IndexByte(rest, '#'); h >= 0 {
		frag, err := urlCleanPart(rest[h+1:], "fragment", restOff+h+1)
		late = err
		u.Fragment, u.HasFragment = frag, true
		rest = rest[:h]
	}

	if !strings.HasPrefix(rest, "//") {
		opaque, err := urlCleanPart(rest, "opaque", restOff)
		if err != nil {
			return nil, err
		}
		if late != nil {
			return nil, late
		}
		u.Opaque = opaque
		return u, nil
	}

	u.Slashes = true
	auth, authOff := rest[2:], restOff+2
	end := strings.IndexByte(auth, '/')
	if g.QueryEndsHost {
		end = strings.IndexAny(auth, "/?")
	}
	if end >= 0 {
		var err error
		if auth[end] == '/' {
			u.HasPath = true
			u.Path, err = urlCleanPart(auth[end+1:], "path", authOff+end+1)
		} else {
			u.Path, err = urlCleanPart(auth[end:], "path", authOff+end)
		}
		if err != nil {
			late = err // before the fragment
		}
		auth = auth[:end]
	}

	hostport, hpOff := auth, authOff
	if at := strings.LastIndexByte(auth, '@'); at >= 0 {
		userinfo := auth[:at]
		hostport, hpOff = auth[at+1:], authOff+at+1
		u.HasUser = true
		user, uOff := userinfo, authOff
		if c := strings.IndexByte(userinfo, ':'); c >= 0 {
			user = userinfo[:c]
			pw, err := urlDecodeUserinfo(userinfo[c+1:], "password", authOff+c+1)
			if err != nil {
				return nil, err
			}
			u.Password, u.HasPassword = pw, true
		}
		var err error
		if u.User, err = urlDecodeUserinfo(user, "user", uOff); err != nil {
			return nil, err
		}
	}

	var portStr string
	portOff := -1
	if strings.HasPrefix(hostport, "[") {
		rb := strings.IndexByte(hostport, ']')
		if rb < 0 {
			return nil, urlParseErr("host", hpOff, "IPv6 literal lacks its closing \"]\"")
		}
		addr, err := netip.ParseAddr(hostport[1:rb])
		if err != nil || !addr.Is6() || addr.Zone() != "" {
			return nil, urlParseErr("host", hpOff+1, "not an IPv6 address")
		}
		u.Host = addr.String()
		if after := hostport[rb+1:]; after != "" {
			if after[0] != ':' {
				return nil, urlParseErr("host", hpOff+rb+1, "only \":port\" may follow an IPv6 literal")
			}
			portStr, portOff = after[1:], hpOff+rb+2
		}
	} else {
		host := hostport
		if c := strings.IndexByte(hostport, ':'); c >= 0 {
			host, portStr, portOff = hostport[:c], hostport[c+1:], hpOff+c+1
		}
		h, err := urlParseHost(host, hpOff)
		if err != nil {
			return nil, err
		}
		u.Host = h
	}
	if portStr != "" {
		p, err := urlParsePort(portStr, portOff)
		if err != nil {
			return nil, err
		}
		u.Port = p
	}
	if u.Host == "" {
		if g.HostRequired {
			return nil, urlParseErr("host", hpOff, u.Scheme+" URLs must name a host")
		}
		if u.HasUser || u.Port != 0 {
			return nil, urlParseErr("host", hpOff, "user or port given without a host")
		}
	}
	if late != nil {
		return nil, late
	}
	return u, nil
}

// urlDecodeUserinfo checks and decodes a user or password field (RFC 1738
// §3.1: ":", "@" and "/" must be encoded in it).
func urlDecodeUserinfo(s, part string, off int) (string, error) {
	err := urlScan(s, part, off, func(i int, c byte) error {
		if c == '@' || (c == ':' && part == "user") {
			return urlParseErr(part, off+i, "\""+string(c)+"\" must be encoded in the "+part)
		}
		return nil
	})
	if err != nil {
		return "", err
	}
	v, _ := Unescape(s)
	return v, nil
}

// urlParsePort reads a decimal port, 1 to 65535.
func urlParsePort(s string, off int) (int, error) {
	n := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !urlIsDigit(c) {
			return 0, urlParseErr("port", off+i, "port must be decimal digits")
		}
		n = n*10 + int(c-'0')
		if n > 65535 {
			return 0, urlParseErr("port", off, "port out of range 1-65535")
		}
	}
	if n == 0 {
		return 0, urlParseErr("port", off, "port 0 is not a port to connect to")
	}
	return n, nil
}

// urlParseHost checks a host (RFC 1738 §3.1 and §5 hostname | hostnumber)
// and returns it in lower case, an internationalized name in A-labels.
// It may be %-encoded (UTF-8) or raw UTF-8.
func urlParseHost(h string, off int) (string, error) {
	if h == "" {
		return "", nil
	}
	literal := true // offsets inside h are offsets in the input
	name := h
	if strings.IndexByte(h, '%') >= 0 {
		for i := 0; i < len(h); i++ {
			if h[i] == '%' && !urlValidEscape(h, i) {
				return "", urlParseErr("host", off+i, "malformed escape: \"%\" must be followed by two hexadecimal digits")
			}
		}
		name, _ = Unescape(h)
		literal = false
	}
	ascii := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if c >= 0x80 {
			ascii = false
			literal = false
			continue
		}
		if c <= ' ' || c == 0x7f {
			at := off
			if literal {
				at += i
			}
			return "", urlParseErr("host", at, "control character or space in host")
		}
	}
	if !ascii && !utf8.ValidString(name) {
		return "", urlParseErr("host", off, "host is not valid UTF-8")
	}
	name = strings.ToLower(name)
	if ascii && urlLooksNumeric(name) {
		if !urlValidQuad(name) {
			return "", urlParseErr("host", off, "IP address must be four decimal numbers 0-255 without leading zeros")
		}
		return name, nil
	}
	if !ascii || strings.HasPrefix(name, "xn--") || strings.Contains(name, ".xn--") {
		// The conversion takes time quadratic in a label's length: a
		// name far past what can convert to 253 characters (four bytes
		// a character, and then some for characters the mapping drops)
		// is refused before it.
		if len(name) > 4*254 {
			return "", urlParseErr("host", off, "host name longer than 253 characters")
		}
		a, err := idna.Lookup.ToASCII(name)
		if err != nil {
			return "", urlParseErr("host", off, "invalid internationalized host name: "+err.Error())
		}
		// The conversion must be stable, or the canonical form would not
		// parse back to the same host.
		if b, err := idna.Lookup.ToASCII(a); err != nil || b != a {
			return "", urlParseErr("host", off, "invalid internationalized host name")
		}
		name = a
		literal = false
	}
	if i, msg := urlCheckHostname(name); msg != "" {
		at := off
		if literal {
			at += i
		}
		return "", urlParseErr("host", at, msg)
	}
	return name, nil
}

// urlLooksNumeric reports a host made only of digits and dots.
func urlLooksNumeric(s string) bool {
	for i := 0; i < len(s); i++ {
		if !urlIsDigit(s[i]) && s[i] != '.' {
			return false
		}
	}
	return true
}

// urlValidQuad reports RFC 1738's hostnumber with each part 0-255 and no
// leading zeros (which some resolvers read as octal).
func urlValidQuad(s string) bool {
	for part := range 4 {
		p, rest, dot := strings.Cut(s, ".")
		if dot != (part < 3) { // three dots, none after the fourth number
			return false
		}
		if p == "" || len(p) > 3 || (len(p) > 1 && p[0] == '0') {
			return false
		}
		n := 0
		for i := 0; i < len(p); i++ {
			n = n*10 + int(p[i]-'0')
		}
		if n > 255 {
			return false
		}
		s = rest
	}
	return true
}

// urlCheckHostname checks RFC 1738's hostname (RFC 1034 §3.5, RFC 1123
// §2.1): labels of letters, digits and inner hyphens, at most 63 octets,
// the rightmost starting with a letter. One trailing dot (the root) is
// allowed. It returns the index of the fault and a message, or "".
func urlCheckHostname(s string) (int, string) {
	if len(s) > 254 || (len(s) == 254 && s[253] != '.') {
		return 0, "host name longer than 253 characters"
	}
	name := strings.TrimSuffix(s, ".")
	start := 0
	for start <= len(name) {
		end := strings.IndexByte(name[start:], '.')
		if end < 0 {
			end = len(name)
		} else {
			end += start
		}
		label := name[start:end]
		if label == "" {
			return start, "empty label in host name"
		}
		if len(label) > 63 {
			return start, "host name label longer than 63 characters"
		}
		for i := 0; i < len(label); i++ {
			c := label[i]
			if !(urlIsAlpha(c) || urlIsDigit(c) || c == '-') {
				return start + i, "host name may hold only letters, digits, \"-\" and \".\""
			}
		}
		if label[0] == '-' || label[len(label)-1] == '-' {
			return start, "host name label must start and end with a letter or digit"
		}
		if end == len(name) {
			if !urlIsAlpha(label[0]) {
				return start, "the last label of a host name must start with a letter"
			}
			break
		}
		start = end + 1
	}
	return 0, ""
}

// RedactedText is raw, the text of a URL that need not parse, with its
// password hidden as Redacted hides a parsed URL's: the text between the
// first ":" and the last "@" of the part after "//" (or after the scheme
// of a URL that lacks a slash) becomes "****". It is for logs and
// messages that repeat what a user or a list gave, which may be
// malformed and still hold a password.
func RedactedText(raw string) string {
	start, end, ok := passwordSpan(raw)
	if !ok {
		return raw
	}
	return raw[:start] + passwordMask + raw[end:]
}

// RedactedUnknown is RedactedText for the text of a URL whose scheme no
// driver has, where a login may stand without "//": curl's
// "user:password@host/path" parses with the scheme "user", and the text
// from its first ":" to the last "@" before the first "/" (an "@" or "?"
// of the password unencoded, as RedactedText reads a login) becomes
// "****". A known scheme's text keeps RedactedText's reading: its opaque
// part may hold ":" and "@" as data (a news: message-id).
func RedactedUnknown(raw string) string {
	raw = RedactedText(raw)
	scheme, rest, ok := strings.Cut(raw, ":")
	if !ok || strings.HasPrefix(rest, "//") {
		// only "//" right after the scheme begins a login, which
		// RedactedText masks; a later one is in the path or query
		// ("u:pw@h/r?to=http://x/") and hides none
		return raw
	}
	login := rest
	if end := strings.IndexByte(login, '/'); end >= 0 {
		login = login[:end]
	}
	at := strings.LastIndexByte(login, '@')
	if at <= 0 {
		return raw
	}
	return scheme + ":" + passwordMask + rest[at:]
}

// passwordMask is what RedactedText writes for a password, as Redacted
// does.
const passwordMask = "****"

// redactedOffset is off, a byte offset in raw, as an offset in
// RedactedText(raw), so that an error's Offset indexes the URL it shows:
// past the password it moves with the mask's change in length, and
// inside the password it is the start of the mask, which points at the
// fault as near as can be told without telling any of the password. A
// negative off (no offset) stays as it is.
func redactedOffset(raw string, off int) int {
	start, end, ok := passwordSpan(raw)
	switch {
	case off < 0 || !ok || off < start:
		return off
	case off < end:
		return start
	}
	return off - (end - start) + len(passwordMask)
}

// passwordSpan is where in raw RedactedText puts the mask: raw[start:end]
// is the password, and ok is false when raw shows none (an empty password
// is none).
func passwordSpan(raw string) (start, end int, ok bool) {
	// The URL as Parse reads it: without the white space, "<...>" and
	// "URL:" around it, which would otherwise read as its scheme.
	s, off := urlUnwrap(raw)
	if len(s) > 4 && strings.EqualFold(s[:4], "URL:") {
		// A "URL:" prefix urlUnwrap kept ("URL: <ftp://u:pw@h/>", a
		// wrapper after the prefix): "URL" is no scheme of a login,
		// but what follows the prefix may hold one.
		off += 4
		start, end, ok = passwordSpan(s[4:])
	} else {
		start, end, ok = urlPasswordSpan(s)
	}
	return off + start, off + end, ok
}

// urlPasswordSpan is passwordSpan of an unwrapped URL.
func urlPasswordSpan(raw string) (start, end int, ok bool) {
	i := -1
	switch n := urlSchemeLen(raw); {
	case n > 0 && strings.HasPrefix(raw[n+1:], "//"):
		i = n + 1
	case n > 0:
		// no "//" after the scheme: a later one is in the path, query
		// or fragment, not the start of a login
	default:
		i = strings.Index(raw, "//") // no scheme to go by
	}
	if i < 0 {
		// "ftp:/joe:pw@h/" or "http:joe:pw@h/": a slash short, a
		// password all the same (a news: message-id, which may hold
		// ":" and "@", is none)
		scheme, rest, found := strings.Cut(raw, ":")
		switch strings.ToLower(scheme) {
		case "ftp", "http", "https", "gopher", "telnet", "rlogin", "tn3270", "nntp", "wais", "prospero":
		default:
			found = false
		}
		if !found {
			return 0, 0, false
		}
		// The login read as if "//" stood where the slashes are.
		slashes := len(rest) - len(strings.TrimLeft(rest, "/"))
		start, end, ok = urlPasswordSpan("//" + rest[slashes:])
		at := len(scheme) + 1 + slashes - len("//")
		return at + start, at + end, ok
	}
	auth := raw[i+2:]
	if end := strings.IndexByte(auth, '/'); end >= 0 {
		auth = auth[:end]
	}
	at := strings.LastIndexByte(auth, '@')
	if at < 0 {
		// A malformed URL may hold "/", "?" or "#" unencoded in its
		// password ("ftp://u:p/w@h/"): then mask up to the last "@".
		auth = raw[i+2:]
		at = strings.LastIndexByte(auth, '@')
		if at < 0 {
			return 0, 0, false
		}
	}
	c := strings.IndexByte(auth[:at], ':')
	if c < 0 || c+1 == at {
		return 0, 0, false
	}
	return i + 2 + c + 1, i + 2 + at, true
}
