package prospero

import (
	"strings"

	"github.com/fetchproject/fetch/fetch"
)

// Schemes is prospero's registration record (RFC 1738 §3.11): port 1525,
// a host required, the view ParseURL, and a driver configured by cfg.
func Schemes(cfg Config) []fetch.Scheme {
	return []fetch.Scheme{{Name: "prospero", DefaultPort: DefaultPort,
		Grammar: fetch.Grammar{HostRequired: true},
		View:    fetch.ViewOf(ParseURL),
		Driver:  New(cfg)}}
}

// URL is a prospero URL (RFC 1738 §3.11): <hsoname>;<field>=<value>, with
// RFC 1630's "%00"<version>.
type URL struct {
	// HSOName is the decoded host-specific object name. As RFC 1738 §3.11
	// says, prospero://host.dom//pros/name names "/pros/name": it begins
	// with "/" when the URL has the double slash.
	HSOName string `json:"hsoname"`
	// Version is the text after "%00" (RFC 1630), decoded. Further
	// "%00"-separated attributes (the 1993 draft) are appended to Fields
	// with an empty Name.
	Version string              `json:"version,omitempty"`
	Fields  []fetch.HeaderField `json:"fields,omitempty"`
}

// ParseURL splits u's path into the hsoname, the version and the
// ";field=value" pairs.
func ParseURL(u *fetch.URL) (*URL, error) {
	if err := u.NeedHost(false); err != nil {
		return nil, err
	}
	path, base := u.Path, u.PathOffset()
	p := &URL{}
	hso, fields := path, ""
	if i := strings.IndexByte(path, ';'); i >= 0 {
		hso, fields = path[:i], path[i:]
	}
	pieces := strings.Split(hso, "%00")
	var err error
	if p.HSOName, err = u.DecodeAt(pieces[0], "hsoname", base); err != nil {
		return nil, err
	}
	if pieces[0] == "" {
		return nil, u.ViewError("hsoname", base, "the URL names no object (prospero://host//path)")
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
			p.Fields = append(p.Fields, fetch.HeaderField{Value: v})
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
		p.Fields = append(p.Fields, fetch.HeaderField{Name: name, Value: value})
		off += len(spec)
	}
	return p, nil
}
