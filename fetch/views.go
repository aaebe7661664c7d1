package fetch

import (
	"encoding/json"
	"errors"
	"strconv"
	"strings"
)

// The scheme views split a parsed URL's url-path (or opaque part) by the
// scheme's own grammar (RFC 1738 §3 and §5). Values documented as decoded
// are %-decoded once, after the split, so an encoded delimiter ("%2F" in
// an FTP segment, "%09" inside a gopher+ string) is data, not structure.
// Each view returns an *Error of kind KindMalformed naming the part at
// fault; its Offset is a byte offset in the URL's Redacted form.

// View is the view of u's scheme: *FTPURL, *HTTPURL (http and https),
// *GopherURL, *MailtoURL, *NewsURL, *NNTPURL, *TelnetURL, *WAISURL,
// *FileURL or *ProsperoURL. For any other scheme it returns nil, nil.
func (u *URL) View() (any, error) {
	var v any
	var err error
	switch u.Scheme {
	case "ftp":
		v, err = u.FTP()
	case "http", "https":
		v, err = u.HTTP()
	case "gopher":
		v, err = u.Gopher()
	case "mailto":
		v, err = u.Mailto()
	case "news":
		v, err = u.News()
	case "nntp":
		v, err = u.NNTP()
	case "telnet":
		v, err = u.Telnet()
	case "wais":
		v, err = u.WAIS()
	case "file":
		v, err = u.File()
	case "prospero":
		v, err = u.Prospero()
	default:
		return nil, nil
	}
	if err != nil {
		return nil, err // not a typed nil pointer
	}
	return v, nil
}

// viewErr is a failure of a view; off is an offset in u.Redacted().
func (u *URL) viewErr(part string, off int, msg string) error {
	return &Error{Kind: KindMalformed, Op: "parse", URL: u.Redacted(), Part: part, Offset: off, Err: errors.New(msg)}
}

// pathOffset is the offset of Path (or Opaque) in u.Redacted(). Parsed
// URLs hold canonical text, so offsets inside Path carry over unchanged.
func (u *URL) pathOffset() int { return len(u.prefix(true)) }

// needLogin checks the parts every "//" view needs: the "//" form and a
// host. With user false, a user name is refused (RFC 1738 §5 gives the
// scheme a hostport, not a login).
func (u *URL) needLogin(user bool) error {
	if !u.Slashes {
		return u.viewErr("host", len(u.Scheme)+1, u.Scheme+" URLs need \"//host\" after \""+u.Scheme+":\"")
	}
	if u.Host == "" {
		return u.viewErr("host", len(u.Scheme)+3, u.Scheme+" URLs must name a host")
	}
	if !user && u.HasUser {
		return u.viewErr("user", len(u.Scheme)+3, u.Scheme+" URLs may not hold a user name or password")
	}
	return nil
}

// decodeAt decodes an escaped piece of Path that starts at off in the
// Redacted form, naming part on failure.
func (u *URL) decodeAt(s, part string, off int) (string, error) {
	v, err := Unescape(s)
	if err != nil {
		at := off
		if e, ok := err.(*Error); ok {
			at += e.Offset
		}
		return "", u.viewErr(part, at, "malformed escape: \"%\" must be followed by two hexadecimal digits")
	}
	return v, nil
}

// FTPURL is the url-path of an FTP URL (RFC 1738 §3.2.2):
// <cwd1>/<cwd2>/.../<cwdN>/<name>;type=<typecode>.
type FTPURL struct {
	// Dirs are the <cwd> arguments, decoded, one CWD each; one may be ""
	// (ftp://h//etc/motd: "CWD " with a null argument) or hold "/" (%2F).
	Dirs []string `json:"dirs"`
	// Name is the decoded last segment; "" when the path ends in "/" or
	// is empty (a directory).
	Name string `json:"name"`
	// Type is 0 when no ";type=" is given, else 'a', 'i' or 'd'.
	Type byte `json:"type,omitempty"`
}

// FTP splits u's url-path into CWD arguments, a name and a typecode.
// ";type=" is allowed only at the end of the last segment; any other bare
// ";" is refused, as RFC 1738 §3.2.2 reserves it.
func (u *URL) FTP() (*FTPURL, error) {
	if err := u.needLogin(true); err != nil {
		return nil, err
	}
	f := &FTPURL{}
	path, base := u.Path, u.pathOffset()
	if !u.HasPath || path == "" {
		return f, nil
	}
	last := strings.LastIndexByte(path, '/') + 1
	if semi := strings.IndexByte(path[last:], ';'); semi >= 0 {
		semi += last
		param := path[semi+1:]
		if len(param) < 5 || !strings.EqualFold(param[:5], "type=") {
			return nil, u.viewErr("path", base+semi, "\";\" must be encoded in an FTP path except in \";type=\"")
		}
		if len(param) != 6 {
			return nil, u.viewErr("type", base+semi+6, "typecode must be one of a, i, d")
		}
		switch t := param[5] | 0x20; t {
		case 'a', 'i', 'd':
			f.Type = t
		default:
			return nil, u.viewErr("type", base+semi+6, "typecode must be one of a, i, d")
		}
		path = path[:semi]
	}
	start := 0
	for {
		end := strings.IndexByte(path[start:], '/')
		seg := path[start:]
		if end >= 0 {
			seg = path[start : start+end]
		}
		if i := strings.IndexByte(seg, ';'); i >= 0 {
			return nil, u.viewErr("path", base+start+i, "\";\" must be encoded in an FTP path except in \";type=\"")
		}
		v, err := u.decodeAt(seg, "path", base+start)
		if err != nil {
			return nil, err
		}
		if end < 0 {
			f.Name = v
			break
		}
		f.Dirs = append(f.Dirs, v)
		start += end + 1
	}
	return f, nil
}

// HTTPURL is the <path>?<searchpart> of an HTTP URL (RFC 1738 §3.3).
type HTTPURL struct {
	Path      string `json:"path"`   // escaped, begins with "/" ("/" when empty)
	Search    string `json:"search"` // escaped, after "?"
	HasSearch bool   `json:"has_search"`
}

// HTTP splits u into the request path and search part. RFC 1738 §3.3
// allows no user name or password in an HTTP URL.
func (u *URL) HTTP() (*HTTPURL, error) {
	if err := u.needLogin(false); err != nil {
		return nil, err
	}
	path := u.Path
	h := &HTTPURL{}
	if q := strings.IndexByte(path, '?'); q >= 0 {
		h.Search, h.HasSearch = path[q+1:], true
		path = path[:q]
	}
	h.Path = "/" + path
	return h, nil
}

// RequestURI is the request-target: Path, and "?" Search when there is
// one, with space, controls and other unsafe octets encoded.
func (h *HTTPURL) RequestURI() string {
	p := h.Path
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	p = urlEscapeUnsafe(p)
	if h.HasSearch {
		p += "?" + urlEscapeUnsafe(h.Search)
	}
	return p
}

// GopherURL is a Gopher URL's gopher-path (RFC 1738 §3.4):
// <gophertype><selector>%09<search>%09<gopher+_string>.
type GopherURL struct {
	Type      byte   `json:"type"`     // '1' when the path is empty
	Selector  string `json:"selector"` // decoded
	Search    string `json:"search"`   // decoded
	HasSearch bool   `json:"has_search"`
	Plus      string `json:"plus"` // decoded gopher+ string
	HasPlus   bool   `json:"has_plus"`
}

// Gopher splits u's gopher-path on its encoded tabs ("%09"), then decodes
// each field. Within the gopher-path no character is reserved, so "/",
// "?" and ";" are selector data. Decoded CR, LF or NUL are not refused
// here: the gopher+ string of a filled-in form (§3.4.9) holds encoded
// CR LF, and the driver checks each line it sends.
func (u *URL) Gopher() (*GopherURL, error) {
	if err := u.needLogin(false); err != nil {
		return nil, err
	}
	g := &GopherURL{Type: '1'}
	path, base := u.Path, u.pathOffset()
	if path == "" {
		return g, nil
	}
	n := 1
	if path[0] == '%' {
		if !urlValidEscape(path, 0) {
			return nil, u.viewErr("type", base, "malformed escape: \"%\" must be followed by two hexadecimal digits")
		}
		g.Type = byte(urlUnhex(path[1])<<4 | urlUnhex(path[2]))
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
		v, err := u.decodeAt(f, parts[i], offs[i])
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

// GopherURLString builds a gopher URL (RFC 1738 §3.4) from a menu item:
// host (an IPv6 address is bracketed), port (left out when 0 or 70), the
// item type (0 means '1'), and the raw selector, search and gopher+
// strings, each encoded so that Gopher() gives them back unchanged. A
// gopher+ string implies the search field, which may be empty.
func GopherURLString(host string, port int, typ byte, selector, search string, hasSearch bool, plus string, hasPlus bool) string {
	var b strings.Builder
	b.WriteString("gopher://")
	b.WriteString(urlFormatHost(host))
	if port != 0 && port != 70 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(port))
	}
	if typ == 0 {
		typ = '1'
	}
	b.WriteByte('/')
	if typ == '/' || urlIsUnreserved(typ) || (typ != '?' && urlIsReserved(typ)) {
		b.WriteByte(typ)
	} else {
		b.WriteString(Escape(string([]byte{typ}), ""))
	}
	b.WriteString(Escape(selector, urlGopherKeep))
	if hasSearch || hasPlus {
		b.WriteString("%09")
		b.WriteString(Escape(search, urlGopherKeep))
	}
	if hasPlus {
		b.WriteString("%09")
		b.WriteString(Escape(plus, urlGopherKeep))
	}
	return b.String()
}

// TelnetURL is a telnet URL's advisory login (RFC 1738 §3.8).
type TelnetURL struct {
	User        string `json:"user"`
	Password    string `json:"-"`
	HasUser     bool   `json:"has_user"`
	HasPassword bool   `json:"has_password"`
}

// MarshalJSON masks the password.
func (t *TelnetURL) MarshalJSON() ([]byte, error) {
	type plain TelnetURL
	p := struct {
		*plain
		Password string `json:"password,omitempty"`
	}{plain: (*plain)(t)}
	if t.HasPassword && t.Password != "" {
		p.Password = "****"
	}
	return urlMarshal(p)
}

// Telnet returns u's user and password. The path must be empty or "/".
func (u *URL) Telnet() (*TelnetURL, error) {
	if err := u.needLogin(true); err != nil {
		return nil, err
	}
	if u.Path != "" {
		return nil, u.viewErr("path", u.pathOffset(), "a telnet URL has no path beyond the final \"/\"")
	}
	return &TelnetURL{User: u.User, Password: u.Password, HasUser: u.HasUser, HasPassword: u.HasPassword}, nil
}

// NNTPURL is an nntp URL's path (RFC 1738 §3.7): <group>[/<article>].
type NNTPURL struct {
	Group      string `json:"group"`
	Article    int64  `json:"article,omitempty"`
	HasArticle bool   `json:"has_article"`
}

// NNTP splits u's path into a newsgroup name and an article number.
func (u *URL) NNTP() (*NNTPURL, error) {
	if err := u.needLogin(false); err != nil {
		return nil, err
	}
	path, base := u.Path, u.pathOffset()
	group, art := path, ""
	hasArt := false
	if i := strings.IndexByte(path, '/'); i >= 0 {
		group, art, hasArt = path[:i], path[i+1:], true
	}
	g, err := u.decodeAt(group, "group", base)
	if err != nil {
		return nil, err
	}
	if i, msg := urlCheckGroup(g, false); msg != "" {
		return nil, u.viewErr("group", base+urlMapOffset(group, i), msg)
	}
	n := &NNTPURL{Group: g}
	if hasArt && art != "" {
		artOff := base + len(group) + 1
		var v int64
		for i := 0; i < len(art); i++ {
			c := art[i]
			if !urlIsDigit(c) {
				return nil, u.viewErr("article", artOff+i, "article number must be decimal digits")
			}
			if v > (1<<63-1-int64(c-'0'))/10 {
				return nil, u.viewErr("article", artOff, "article number too large")
			}
			v = v*10 + int64(c-'0')
		}
		n.Article, n.HasArticle = v, true
	}
	return n, nil
}

// urlMapOffset maps index i of the decoded form of escaped s back to an
// index in s.
func urlMapOffset(s string, i int) int {
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

// urlCheckGroup checks RFC 1738's group = alpha *[alpha|digit|-|.|+|_];
// with wild, "*" and "?" (RFC 5538 wildmat) are allowed anywhere.
func urlCheckGroup(g string, wild bool) (int, string) {
	if g == "" {
		return 0, "newsgroup name is empty"
	}
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case wild && (c == '*' || c == '?'):
		case urlIsAlpha(c):
		case i > 0 && (urlIsDigit(c) || c == '-' || c == '.' || c == '+' || c == '_'):
		case i == 0:
			return 0, "newsgroup name must start with a letter"
		default:
			return i, "newsgroup name may hold only letters, digits and \"-.+_\""
		}
	}
	return 0, ""
}

// NewsURL is a news URL (RFC 1738 §3.6): a group, a message-id or "*".
type NewsURL struct {
	Group     string `json:"group,omitempty"`
	MessageID string `json:"message_id,omitempty"` // without <>, e.g. "123@host.com"
	All       bool   `json:"all,omitempty"`        // news:*
	Wildmat   bool   `json:"wildmat,omitempty"`    // group holds * or ? (RFC 5538)
}

// News tells a message-id (it holds "@") from a newsgroup name. The
// RFC 5538 form news://server/group is read too (its path is the group).
func (u *URL) News() (*NewsURL, error) {
	part, base := u.Opaque, u.pathOffset()
	if u.Slashes {
		if u.HasUser {
			return nil, u.viewErr("user", len(u.Scheme)+3, "a news URL may not hold a user name or password")
		}
		part = u.Path
	}
	v, err := u.decodeAt(part, "group", base)
	if err != nil {
		return nil, err
	}
	n := &NewsURL{}
	switch {
	case v == "*":
		n.All = true
	case strings.IndexByte(v, '@') >= 0:
		id := v
		if strings.HasPrefix(id, "<") && strings.HasSuffix(id, ">") && len(id) >= 2 {
			id = id[1 : len(id)-1]
		}
		at := strings.LastIndexByte(id, '@')
		if at <= 0 || at == len(id)-1 {
			return nil, u.viewErr("message-id", base, "message-id must be <unique>@<domain>")
		}
		for i := 0; i < len(id); i++ {
			if c := id[i]; c <= ' ' || c == 0x7f || c == '<' || c == '>' {
				return nil, u.viewErr("message-id", base+urlMapOffset(part, i), "message-id may not hold spaces, controls, \"<\" or \">\"")
			}
		}
		n.MessageID = id
	default:
		wild := strings.ContainsAny(v, "*?")
		if i, msg := urlCheckGroup(v, true); msg != "" {
			return nil, u.viewErr("group", base+urlMapOffset(part, i), msg)
		}
		n.Group, n.Wildmat = v, wild
	}
	return n, nil
}

// WAISURL is a WAIS URL's path (RFC 1738 §3.9): <database>,
// <database>?<search>, or <database>/<wtype>/<wpath>. All decoded.
type WAISURL struct {
	Database  string `json:"database"`
	Search    string `json:"search,omitempty"`
	HasSearch bool   `json:"has_search"`
	WType     string `json:"wtype,omitempty"`
	WPath     string `json:"wpath,omitempty"`
	IsDoc     bool   `json:"is_doc"`
}

// WAIS tells the database, search and document forms apart.
func (u *URL) WAIS() (*WAISURL, error) {
	if err := u.needLogin(false); err != nil {
		return nil, err
	}
	path, base := u.Path, u.pathOffset()
	w := &WAISURL{}
	end := strings.IndexAny(path, "/?")
	db := path
	if end >= 0 {
		db = path[:end]
	}
	if i := urlFindReserved(db); i >= 0 {
		return nil, u.viewErr("database", base+i, "reserved character must be encoded in a WAIS database name")
	}
	var err error
	if w.Database, err = u.decodeAt(db, "database", base); err != nil {
		return nil, err
	}
	if db == "" {
		return nil, u.viewErr("database", base, "a WAIS URL names a database: wais://host/database")
	}
	if end < 0 {
		return w, nil
	}
	rest, off := path[end+1:], base+end+1
	if path[end] == '?' {
		if w.Search, err = u.decodeAt(rest, "search", off); err != nil {
			return nil, err
		}
		w.HasSearch = true
		return w, nil
	}
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		return nil, u.viewErr("wpath", off+len(rest), "a WAIS document URL is <database>/<wtype>/<wpath>")
	}
	wtype, wpath := rest[:slash], rest[slash+1:]
	if i := urlFindReserved(wtype); i >= 0 {
		return nil, u.viewErr("wtype", off+i, "reserved character must be encoded in a WAIS type")
	}
	if i := urlFindReserved(wpath); i >= 0 {
		return nil, u.viewErr("wpath", off+slash+1+i, "reserved character must be encoded in a WAIS document id")
	}
	if w.WType, err = u.decodeAt(wtype, "wtype", off); err != nil {
		return nil, err
	}
	if w.WPath, err = u.decodeAt(wpath, "wpath", off+slash+1); err != nil {
		return nil, err
	}
	if wpath == "" {
		return nil, u.viewErr("wpath", off+slash+1, "a WAIS document URL names a document id: <database>/<wtype>/<wpath>")
	}
	w.IsDoc = true
	return w, nil
}

// urlFindReserved is the index of the first reserved character in s
// (where the BNF allows only uchar), or -1.
func urlFindReserved(s string) int {
	for i := 0; i < len(s); i++ {
		if urlIsReserved(s[i]) {
			return i
		}
	}
	return -1
}

// FileURL is a file URL (RFC 1738 §3.10).
type FileURL struct {
	Host string `json:"host"` // "" for the local machine ("localhost" too)
	Path string `json:"path"` // decoded, begins with "/"
}

// File returns the host and the decoded path. file:/path (no host part)
// is read as file:///path. An encoded "/" or NUL in a segment is refused:
// no local file name holds one.
func (u *URL) File() (*FileURL, error) {
	f := &FileURL{}
	path, base := u.Path, u.pathOffset()
	if u.Slashes {
		if u.HasUser {
			return nil, u.viewErr("user", len(u.Scheme)+3, "file URLs may not hold a user name or password")
		}
		if u.Port != 0 {
			return nil, u.viewErr("port", len(u.Scheme)+3+len(u.Host), "a file URL has no port")
		}
		if u.Host != "localhost" {
			f.Host = u.Host
		}
	} else {
		if !strings.HasPrefix(u.Opaque, "/") {
			return nil, u.viewErr("path", base, "a file URL is file://<host>/<path> or file:/<path>")
		}
		path = u.Opaque[1:]
		base++
	}
	for i := 0; i+2 < len(path); i++ {
		if path[i] == '%' && (path[i+1] == '2' && path[i+2]|0x20 == 'f' || path[i+1] == '0' && path[i+2] == '0') {
			return nil, u.viewErr("path", base+i, "an encoded \"/\" or NUL cannot be part of a file name")
		}
	}
	v, err := u.decodeAt(path, "path", base)
	if err != nil {
		return nil, err
	}
	f.Path = "/" + v
	return f, nil
}

// ProsperoURL is a prospero URL (RFC 1738 §3.11):
// <hsoname>;<field>=<value>, with RFC 1630's "%00"<version>.
type ProsperoURL struct {
	// HSOName is the decoded host-specific object name. As RFC 1738 §3.11
	// says, prospero://host.dom//pros/name names "/pros/name": it begins
	// with "/" when the URL has the double slash.
	HSOName string `json:"hsoname"`
	// Version is the text after "%00" (RFC 1630), decoded. Further
	// "%00"-separated attributes (the 1993 draft) are appended to Fields
	// with an empty Name.
	Version string        `json:"version,omitempty"`
	Fields  []HeaderField `json:"fields,omitempty"`
}

// HeaderField is a name=value pair: a mailto hfield or a prospero field.
type HeaderField struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Prospero splits u's path into the hsoname, the version and the
// ";field=value" pairs.
func (u *URL) Prospero() (*ProsperoURL, error) {
	if err := u.needLogin(false); err != nil {
		return nil, err
	}
	path, base := u.Path, u.pathOffset()
	p := &ProsperoURL{}
	hso, fields := path, ""
	if i := strings.IndexByte(path, ';'); i >= 0 {
		hso, fields = path[:i], path[i:]
	}
	pieces := strings.Split(hso, "%00")
	var err error
	if p.HSOName, err = u.decodeAt(pieces[0], "hsoname", base); err != nil {
		return nil, err
	}
	if pieces[0] == "" {
		return nil, u.viewErr("hsoname", base, "the URL names no object (prospero://host//path)")
	}
	off := base + len(pieces[0]) + 3
	for k, piece := range pieces[1:] {
		v, err := u.decodeAt(piece, "version", off)
		if err != nil {
			return nil, err
		}
		if k == 0 {
			p.Version = v
		} else {
			p.Fields = append(p.Fields, HeaderField{Value: v})
		}
		off += len(piece) + 3
	}
	off = base + len(hso)
	for fields != "" {
		fields = fields[1:]
		off++
		spec := fields
		if i := strings.IndexByte(fields, ';'); i >= 0 {
			spec, fields = fields[:i], fields[i:]
		} else {
			fields = ""
		}
		eq := strings.IndexByte(spec, '=')
		if eq < 0 {
			return nil, u.viewErr("field", off, "a prospero field is ;<name>=<value>")
		}
		if i := strings.IndexAny(spec[eq+1:], "=/"); i >= 0 {
			return nil, u.viewErr("field", off+eq+1+i, "\"=\" and \"/\" must be encoded in a field value")
		}
		if i := strings.IndexByte(spec[:eq], '/'); i >= 0 {
			return nil, u.viewErr("field", off+i, "\"/\" must be encoded in a field name")
		}
		name, err := u.decodeAt(spec[:eq], "field", off)
		if err != nil {
			return nil, err
		}
		value, err := u.decodeAt(spec[eq+1:], "field", off+eq+1)
		if err != nil {
			return nil, err
		}
		p.Fields = append(p.Fields, HeaderField{Name: name, Value: value})
		off += len(spec)
	}
	return p, nil
}

func urlMarshal(v any) ([]byte, error) { return json.Marshal(v) }

// urlTypeString shows a type byte as a one-character string, "" for 0.
func urlTypeString(t byte) string {
	if t == 0 {
		return ""
	}
	return string(rune(t))
}

// MarshalJSON writes Type as a one-character string.
func (f *FTPURL) MarshalJSON() ([]byte, error) {
	type plain FTPURL
	return urlMarshal(struct {
		*plain
		Type string `json:"type,omitempty"`
	}{(*plain)(f), urlTypeString(f.Type)})
}

// MarshalJSON writes Type as a one-character string.
func (g *GopherURL) MarshalJSON() ([]byte, error) {
	type plain GopherURL
	return urlMarshal(struct {
		*plain
		Type string `json:"type"`
	}{(*plain)(g), urlTypeString(g.Type)})
}
