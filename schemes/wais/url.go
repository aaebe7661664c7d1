package wais

import (
	"strings"

	"github.com/fetchproject/fetch/fetch"
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
// <database>?<search>, or <database>/<wtype>/<wpath>. All decoded; in
// Search a "+" is decoded as a space (RFC 1630), "%2B" as a plus.
type URL struct {
	Database  string `json:"database"`
	Search    string `json:"search,omitempty"`
	HasSearch bool   `json:"has_search"`
	WType     string `json:"wtype,omitempty"`
	WPath     string `json:"wpath,omitempty"`
	IsDoc     bool   `json:"is_doc"`
}

// ParseURL tells u's database, search and document forms apart. A
// reserved character must be encoded in each part (the BNF allows only
// uchar there); a document URL needs both its wtype and its wpath.
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

// findReserved is the index of the first reserved character in s, or -1.
func findReserved(s string) int {
	return strings.IndexFunc(s, func(r rune) bool { return r < 0x80 && fetch.IsReserved(byte(r)) })
}
