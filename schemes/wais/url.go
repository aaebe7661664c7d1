package wais

import (
	"strconv"
	"strings"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/wais/apdu"
)

// Schemes is wais's registration record (RFC 1738 §3.9): port 210, a host
// required, "+" in a search standing for a space, the view ParseURL, and a
// driver configured by cfg.
func Schemes(cfg Config) []fetch.Scheme {
	return []fetch.Scheme{{Name: "wais", DefaultPort: 210,
		Grammar: fetch.Grammar{HostRequired: true, PlusInQuery: true},
		View:    fetch.ViewOf(ParseURL),
		Driver:  New(cfg)}}
}

// URL is a WAIS URL's path (RFC 1738 §3.9): <database>,
// <database>?<search>, or <database>/<wtype>/<wpath>; or a document in
// the form Lynx wrote, <database>/<wtype>/<length>/<docid> (see
// ParseURL). All decoded; in Search a "+" is decoded as a space (RFC
// 1630), "%2B" as a plus. WPath is the document id sent to the server,
// whichever form named it.
type URL struct {
	Database  string `json:"database"`
	Search    string `json:"search,omitempty"`
	HasSearch bool   `json:"has_search"`
	WType     string `json:"wtype,omitempty"`
	WPath     string `json:"wpath,omitempty"`
	IsDoc     bool   `json:"is_doc"`
	// Lynx is set for a document URL of Lynx's form, and Length to the
	// length it carries: the document header's, a note and no bound.
	Lynx   bool  `json:"lynx,omitempty"`
	Length int64 `json:"length,omitempty"`
}

// ParseURL tells u's database, search and document forms apart. A
// reserved character must be encoded in each part (the BNF allows only
// uchar there); a document URL needs both its wtype and its wpath.
//
// Lynx and libwww (HTWAIS.c) wrote a document as
// <database>/<wtype>/<length>/<docid>: the length a decimal number, the
// document id field by field, "type=value;" each, the type decimal and
// the value %-encoded, the slashes of a path left as they are
// ("2=my%20db;3=0%201000%20/srv/wais/x.txt;7=%00;"). RFC 1738's wpath
// holds no "/", so a path of four segments or more is never RFC 1738's:
// one whose third segment is a number is read in Lynx's form, its fields
// rebuilt into the binary id the server gave (apdu.AppendDocIDField).
func ParseURL(u *fetch.URL) (*URL, error) {
	if err := u.NeedHost(false); err != nil {
		return nil, err
	}
	path, base := u.Path, u.PathOffset()
	w := &URL{}
	end := strings.IndexAny(path, "/?")
	db := path
	if end >= 0 {
		db = path[:end]
	}
	if i := findReserved(db); i >= 0 {
		return nil, u.ViewError("database", base+i, "reserved character must be encoded in a WAIS database name")
	}
	var err error
	if w.Database, err = u.DecodeAt(db, "database", base); err != nil {
		return nil, err
	}
	if db == "" {
		return nil, u.ViewError("database", base, "a WAIS URL names a database: wais://host/database")
	}
	if end < 0 {
		return w, nil
	}
	rest, off := path[end+1:], base+end+1
	if path[end] == '?' {
		// RFC 1630: in a search "+" is a space, and a real plus is
		// "%2B"; so "+" is read before the escapes are decoded. The
		// replacement keeps every offset: "%20" would not.
		if w.Search, err = u.DecodeAt(strings.ReplaceAll(rest, "+", " "), "search", off); err != nil {
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
	if i := findReserved(wtype); i >= 0 {
		return nil, u.ViewError("wtype", off+i, "reserved character must be encoded in a WAIS type")
	}
	if length, docid, ok := strings.Cut(wpath, "/"); ok && isDigits(length) {
		if w.WType, err = u.DecodeAt(wtype, "wtype", off); err != nil {
			return nil, err
		}
		return parseLynx(u, w, length, docid, off+slash+1)
	}
	if i := findReserved(wpath); i >= 0 {
		return nil, u.ViewError("wpath", off+slash+1+i, "reserved character must be encoded in a WAIS document id")
	}
	if w.WType, err = u.DecodeAt(wtype, "wtype", off); err != nil {
		return nil, err
	}
	if w.WPath, err = u.DecodeAt(wpath, "wpath", off+slash+1); err != nil {
		return nil, err
	}
	if wpath == "" {
		return nil, u.ViewError("wpath", off+slash+1, "a WAIS document URL names a document id: <database>/<wtype>/<wpath>")
	}
	w.IsDoc = true
	return w, nil
}

// parseLynx reads the <length>/<docid> that follow the wtype of a
// Lynx-style document URL, length starting at off.
func parseLynx(u *fetch.URL, w *URL, length, docid string, off int) (*URL, error) {
	n, err := strconv.ParseInt(length, 10, 64)
	if err != nil {
		return nil, u.ViewError("length", off, "the length of a Lynx-style WAIS document URL is too large a number")
	}
	off += len(length) + 1
	if docid == "" {
		return nil, u.ViewError("wpath", off, "a Lynx-style WAIS document URL names a document id: <database>/<wtype>/<length>/<docid>")
	}
	var id []byte
	for docid != "" {
		field, rest, ended := strings.Cut(docid, ";")
		tag, value, ok := strings.Cut(field, "=")
		if !ok || !isDigits(tag) {
			return nil, u.ViewError("wpath", off, `a field of a Lynx-style WAIS document id is <type>=<value>; with a decimal type`)
		}
		if !ended {
			return nil, u.ViewError("wpath", off+len(field), `a field of a Lynx-style WAIS document id ends with ";"`)
		}
		t, err := strconv.ParseUint(tag, 10, 31)
		if err != nil {
			return nil, u.ViewError("wpath", off, "the type of a Lynx-style WAIS document id field is too large a number")
		}
		// Lynx encodes every byte of a value but [A-Za-z0-9./-_$]: a
		// reserved character left as it is is not its, and "?" would be
		// a search to anyone reading the URL by its generic syntax.
		if i := strings.IndexFunc(value, func(r rune) bool { return r != '/' && r < 0x80 && fetch.IsReserved(byte(r)) }); i >= 0 {
			return nil, u.ViewError("wpath", off+len(tag)+1+i, `reserved character must be encoded in a Lynx-style WAIS document id's value (only "/" is written as it is)`)
		}
		v, err := u.DecodeAt(value, "wpath", off+len(tag)+1)
		if err != nil {
			return nil, err
		}
		id = apdu.AppendDocIDField(id, int(t), []byte(v))
		off += len(field) + 1
		docid = rest
	}
	w.WPath, w.IsDoc, w.Lynx, w.Length = string(id), true, true, n
	return w, nil
}

// isDigits tells whether s is a decimal number: one digit or more, nothing
// else.
func isDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// findReserved is the index of the first reserved character in s, or -1.
func findReserved(s string) int {
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x80 && fetch.IsReserved(byte(r)) })
}
