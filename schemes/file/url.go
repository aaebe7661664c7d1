package file

import (
	"strings"

	"github.com/fetchproject/fetch/fetch"
)

// Schemes is file's registration record (RFC 1738 §3.10): no port, the
// generic grammar (the host may be empty: file:///etc/motd), the view
// ParseURL, and a driver configured by cfg.
func Schemes(cfg Config) []fetch.Scheme {
	return []fetch.Scheme{{Name: "file", Direct: true,
		View: fetch.ViewOf(ParseURL), Driver: New(cfg)}}
}

// URL is a file URL (RFC 1738 §3.10).
type URL struct {
	Host string `json:"host"` // "" for the local machine ("localhost" too)
	Path string `json:"path"` // decoded, begins with "/"
}

// ParseURL returns the host and the decoded path. file:/path (no host part)
// is read as file:///path. An encoded "/" or NUL in a segment is refused:
// no local file name holds one.
func ParseURL(u *fetch.URL) (*URL, error) {
	f := &URL{}
	path, base := u.Path, u.PathOffset()
	if u.Slashes {
		if u.HasUser {
			return nil, u.ViewError("user", len(u.Scheme)+3, "file URLs may not hold a user name or password")
		}
		if u.Port != 0 {
			return nil, u.ViewError("port", len(u.Scheme)+3+len(u.Host), "a file URL has no port")
		}
		if u.Host != "localhost" {
			f.Host = u.Host
		}
	} else {
		if !strings.HasPrefix(u.Opaque, "/") {
			return nil, u.ViewError("path", base, "a file URL is file://<host>/<path> or file:/<path>")
		}
		path = u.Opaque[1:]
		base++
	}
	for i := 0; i+2 < len(path); i++ {
		if path[i] == '%' && (path[i+1] == '2' && path[i+2]|0x20 == 'f' || path[i+1] == '0' && path[i+2] == '0') {
			return nil, u.ViewError("path", base+i, "an encoded \"/\" or NUL cannot be part of a file name")
		}
	}
	v, err := u.DecodeAt(path, "path", base)
	if err != nil {
		return nil, err
	}
	f.Path = "/" + v
	return f, nil
}
