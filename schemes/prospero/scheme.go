package prospero

import "github.com/fetchproject/fetch/fetch"

// Schemes is prospero's registration record (RFC 1738 §3.11): port 1525,
// a host required, the view, and a driver configured by cfg.
func Schemes(cfg Config) []fetch.Scheme {
	rec := fetch.ProsperoScheme()
	rec.Driver = New(cfg)
	return []fetch.Scheme{rec}
}
