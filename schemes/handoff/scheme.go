package handoff

import (
	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/telnet"
)

// Schemes are the records of rlogin (port 513, RFC 1282) and tn3270
// (telnet's port 23, RFC 1738 §3.8): a host required, telnet's view (the
// same advisory login and empty path), and the drivers that hand a
// session to the programs cfg names.
func Schemes(cfg Config) []fetch.Scheme {
	g := fetch.Grammar{HostRequired: true}
	view := fetch.ViewOf(telnet.ParseURL)
	return []fetch.Scheme{
		{Name: "rlogin", DefaultPort: RloginPort, Grammar: g, View: view, Driver: NewRlogin(cfg), Direct: true},
		{Name: "tn3270", DefaultPort: TN3270Port, Grammar: g, View: view, Driver: NewTN3270(cfg), Direct: true},
	}
}
