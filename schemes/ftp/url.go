package ftp

import (
	"encoding/json"
	"strings"

	"github.com/fetchproject/fetch/fetch"
)

// Schemes is ftp's registration record (RFC 1738 §3.2): port 21, a host
// required, the view ParseURL, and a driver configured by cfg.
func Schemes(cfg Config) []fetch.Scheme {
	return []fetch.Scheme{{Name: "ftp", DefaultPort: DefaultPort, Grammar: fetch.Grammar{HostRequired: true},
		View: fetch.ViewOf(ParseURL), Driver: New(cfg)}}
}

// DefaultPort is the FTP control port (RFC 1738 §3.2).
const DefaultPort = 21

// Reply is a server reply (RFC 959 §4.2): a document carries the reply to
// its RETR (150 or 125, with the server's text), reached with
// Document.As(*ftp.Reply).
type Reply struct {
	Code  int
	Lines []string
}

// URL is the url-path of an FTP URL (RFC 1738 §3.2.2):
// <cwd1>/<cwd2>/.../<cwdN>/<name>;type=<typecode>.
type URL struct {
	// Dirs are the <cwd> arguments, decoded, one CWD each; one may be ""
	// (ftp://h//etc/motd: "CWD " with a null argument) or hold "/" (%2F).
	Dirs []string `json:"dirs"`
	// Name is the decoded last segment; "" when the path ends in "/" or
	// is empty (a directory).
	Name string `json:"name"`
	// Type is 0 when no ";type=" is given, else 'a', 'i' or 'd'.
	Type byte `json:"type,omitempty"`
}

// ParseURL splits u's url-path into CWD arguments, a name and a typecode.
// ";type=" is allowed only at the end of the last segment; any other bare
// ";" is refused, as RFC 1738 §3.2.2 reserves it.
func ParseURL(u *fetch.URL) (*URL, error) {
	if err := u.NeedHost(true); err != nil {
		return nil, err
	}
	f := &URL{}
	path, base := u.Path, u.PathOffset()
	if !u.HasPath || path == "" {
		return f, nil
	}
	last := strings.LastIndexByte(path, '/') + 1
	if semi := strings.IndexByte(path[last:], ';'); semi >= 0 {
		semi += last
		param := path[semi+1:]
		if len(param) < 5 || !strings.EqualFold(param[:5], "type=") {
			return nil, u.ViewError("path", base+semi, "\";\" must be encoded in an FTP path except in \";type=\"")
		}
		if len(param) != 6 {
			return nil, u.ViewError("type", base+semi+6, "typecode must be one of a, i, d")
		}
		switch t := param[5] | 0x20; t {
		case 'a', 'i', 'd':
			f.Type = t
		default:
			return nil, u.ViewError("type", base+semi+6, "typecode must be one of a, i, d")
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
			return nil, u.ViewError("path", base+start+i, "\";\" must be encoded in an FTP path except in \";type=\"")
		}
		v, err := u.DecodeAt(seg, "path", base+start)
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

// MarshalJSON writes Type as a one-character string.
func (f *URL) MarshalJSON() ([]byte, error) {
	type plain URL
	return json.Marshal(struct {
		*plain
		Type string `json:"type,omitempty"`
	}{(*plain)(f), urlTypeString(f.Type)})
}

// urlTypeString shows a type byte as a one-character string, "" for 0.
func urlTypeString(t byte) string {
	if t == 0 {
		return ""
	}
	return string(rune(t))
}
