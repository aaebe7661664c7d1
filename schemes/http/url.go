package http

import (
	"strings"

	"github.com/fetchproject/fetch/fetch"
)

// Schemes are the records of http and https (RFC 1738 §3.3, RFC 2818):
// ports 80 and 443, a host required, "?" ending the host (http://h?q, as
// browsers read it), "+" in a search standing for a space, ports below
// 1024 allowed (HTTP servers live there), the view ParseURL, and one
// driver configured by cfg for both.
func Schemes(cfg Config) []fetch.Scheme {
	d := New(cfg)
	recs := urlSchemes()
	for i := range recs {
		recs[i].Driver = d
	}
	return recs
}

// urlSchemes are the records of http and https without a driver.
func urlSchemes() []fetch.Scheme {
	g := fetch.Grammar{HostRequired: true, QueryEndsHost: true, PlusInQuery: true}
	view := fetch.ViewOf(ParseURL)
	return []fetch.Scheme{
		{Name: "http", DefaultPort: 80, LowPorts: true, Grammar: g, View: view},
		{Name: "https", DefaultPort: 443, LowPorts: true, Grammar: g, View: view},
	}
}

// urlGrammar holds the records of http and https without a driver, so
// that URLs net/http hands back (a redirect's target, "http://h?q") parse
// by their own grammar. Nothing adds to it after init.
var urlGrammar = fetch.NewRegistry(urlSchemes()...)

// parseURL parses an http or https URL by its grammar.
func parseURL(raw string) (*fetch.URL, error) { return urlGrammar.Parse(raw) }

// defaultPort is the port of http or https when a URL names none.
func defaultPort(scheme string) int {
	if scheme == "https" {
		return 443
	}
	return 80
}

// URL is the <path>?<searchpart> of an HTTP URL (RFC 1738 §3.3).
type URL struct {
	Path      string `json:"path"`   // escaped, begins with "/" ("/" when empty)
	Search    string `json:"search"` // escaped, after "?"
	HasSearch bool   `json:"has_search"`
}

// ParseURL splits u into the request path and search part. RFC 1738 §3.3
// allows no user name or password in an HTTP URL.
func ParseURL(u *fetch.URL) (*URL, error) {
	if err := u.NeedHost(false); err != nil {
		return nil, err
	}
	path := u.Path
	h := &URL{}
	if q := strings.IndexByte(path, '?'); q >= 0 {
		h.Search, h.HasSearch = path[q+1:], true
		path = path[:q]
	}
	h.Path = "/" + path
	return h, nil
}

// RequestURI is the request-target: Path, and "?" Search when there is
// one, with space, controls and other unsafe octets encoded.
func (h *URL) RequestURI() string {
	p := h.Path
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	p = fetch.EscapeUnsafe(p)
	if h.HasSearch {
		p += "?" + fetch.EscapeUnsafe(h.Search)
	}
	return p
}
