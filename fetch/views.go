package fetch

import (
	"errors"
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
//
// The WAIS and Prospero views are still here while their drivers are
// written; WAISScheme and ProsperoScheme register them as view-only
// records.

// ViewError is a failure of a scheme's view: an *Error of kind
// KindMalformed about part, at off, an offset in u.Redacted().
func (u *URL) ViewError(part string, off int, msg string) error {
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
	if err := u.NeedHost(false); err != nil {
		return nil, err
	}
	path, base := u.Path, u.PathOffset()
	w := &WAISURL{}
	end := strings.IndexAny(path, "/?")
	db := path
	if end >= 0 {
		db = path[:end]
	}
	if i := urlFindReserved(db); i >= 0 {
		return nil, u.ViewError("database", base+i, "reserved character must be encoded in a WAIS database name")
	}
	var err error
	if w.Database, err = u.DecodeAt(db, "database", base); err != nil {
		return nil, err
	}
	if end < 0 {
		return w, nil
	}
	rest, off := path[end+1:], base+end+1
	if path[end] == '?' {
		if w.Search, err = u.DecodeAt(rest, "search", off); err != nil {
			return nil, err
		}
		w.HasSearch = true
		return w, nil
	}
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		return nil, u.ViewError("wpath", off+len(rest), "a WAIS document URL is <database>/<wtype>/<wpath>")
	}
	wtype, wpath := rest[:slash], rest[slash+1:]
	if i := urlFindReserved(wtype); i >= 0 {
		return nil, u.ViewError("wtype", off+i, "reserved character must be encoded in a WAIS type")
	}
	if i := urlFindReserved(wpath); i >= 0 {
		return nil, u.ViewError("wpath", off+slash+1+i, "reserved character must be encoded in a WAIS document id")
	}
	if w.WType, err = u.DecodeAt(wtype, "wtype", off); err != nil {
		return nil, err
	}
	if w.WPath, err = u.DecodeAt(wpath, "wpath", off+slash+1); err != nil {
		return nil, err
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
	if err := u.NeedHost(false); err != nil {
		return nil, err
	}
	path, base := u.Path, u.PathOffset()
	p := &ProsperoURL{}
	hso, fields := path, ""
	if i := strings.IndexByte(path, ';'); i >= 0 {
		hso, fields = path[:i], path[i:]
	}
	pieces := strings.Split(hso, "%00")
	var err error
	if p.HSOName, err = u.DecodeAt(pieces[0], "hsoname", base); err != nil {
		return nil, err
	}
	off := base + len(pieces[0]) + 3
	for k, piece := range pieces[1:] {
		v, err := u.DecodeAt(piece, "version", off)
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
			return nil, u.ViewError("field", off, "a prospero field is ;<name>=<value>")
		}
		if i := strings.IndexAny(spec[eq+1:], "=/"); i >= 0 {
			return nil, u.ViewError("field", off+eq+1+i, "\"=\" and \"/\" must be encoded in a field value")
		}
		if i := strings.IndexByte(spec[:eq], '/'); i >= 0 {
			return nil, u.ViewError("field", off+i, "\"/\" must be encoded in a field name")
		}
		name, err := u.DecodeAt(spec[:eq], "field", off)
		if err != nil {
			return nil, err
		}
		value, err := u.DecodeAt(spec[eq+1:], "field", off+eq+1)
		if err != nil {
			return nil, err
		}
		p.Fields = append(p.Fields, HeaderField{Name: name, Value: value})
		off += len(spec)
	}
	return p, nil
}

// WAISScheme is the view-only record of wais: (RFC 1738 §3.9): its port,
// its grammar ("+" in a search is a space) and its view, without a driver.
func WAISScheme() Scheme {
	return Scheme{Name: "wais", DefaultPort: 210, Grammar: Grammar{HostRequired: true, PlusInQuery: true},
		View: func(u *URL) (any, error) { return nilIfErr(u.WAIS()) }}
}

// ProsperoScheme is the view-only record of prospero: (RFC 1738 §3.11).
func ProsperoScheme() Scheme {
	return Scheme{Name: "prospero", DefaultPort: 1525, Grammar: Grammar{HostRequired: true},
		View: func(u *URL) (any, error) { return nilIfErr(u.Prospero()) }}
}

// nilIfErr returns v as an any, or a nil any when err is set (never a
// typed nil pointer).
func nilIfErr[T any](v *T, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

// EscapeUnsafe %-encodes what RFC 1738 §2.2 calls unsafe (space,
// controls, <>"#%{}|\^~[]` and octets >= 0x80) in s, leaving valid
// escapes and reserved characters as they are: a view's escaped part made
// fit for the wire.
func EscapeUnsafe(s string) string { return urlEscapeUnsafe(s) }

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
