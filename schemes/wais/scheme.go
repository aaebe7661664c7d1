package wais

import "github.com/fetchproject/fetch/fetch"

// Schemes is wais's registration record (RFC 1738 §3.9): port 210, a host
// required, "+" in a search standing for a space, the view, and a driver
// configured by cfg.
func Schemes(cfg Config) []fetch.Scheme {
	rec := fetch.WAISScheme()
	rec.Driver = New(cfg)
	return []fetch.Scheme{rec}
}
