// Package schemes wires every driver of this module into a fetch.Client.
//
// Each scheme's package exports its registration record (fetch.Scheme:
// name, default port, the grammar rules that differ from RFC 1738 §3.1,
// the URL view, the driver) through a Schemes(cfg) function; NewClient
// registers them with one line each. To add a scheme, write its package
// (see "Adding a scheme" in the README) and add its line here.
package schemes

import (
	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/file"
	"github.com/fetchproject/fetch/schemes/ftp"
	"github.com/fetchproject/fetch/schemes/gopher"
	"github.com/fetchproject/fetch/schemes/handoff"
	"github.com/fetchproject/fetch/schemes/http"
	"github.com/fetchproject/fetch/schemes/mailto"
	"github.com/fetchproject/fetch/schemes/nntp"
	"github.com/fetchproject/fetch/schemes/prospero"
	"github.com/fetchproject/fetch/schemes/telnet"
	"github.com/fetchproject/fetch/schemes/wais"
)

// Config holds each driver's settings.
type Config struct {
	File   file.Config
	HTTP   http.Config
	FTP    ftp.Config
	Gopher gopher.Config
	NNTP   nntp.Config
	Mailto mailto.Config
	Telnet telnet.Config
	// Handoff names the programs rlogin: and tn3270: sessions go to.
	Handoff  handoff.Config
	WAIS     wais.Config
	Prospero prospero.Config
}

// NewClient returns a client with every scheme of this module registered:
// its grammar, view, port and driver. The drivers are its own, and so are
// their session pools (a driver's pool follows the options of the client
// it is registered with).
func NewClient(opts fetch.Options, cfg Config) *fetch.Client {
	c := fetch.NewClient(opts)
	c.RegisterScheme(file.Schemes(cfg.File)...)
	c.RegisterScheme(http.Schemes(cfg.HTTP)...)
	c.RegisterScheme(ftp.Schemes(cfg.FTP)...)
	c.RegisterScheme(gopher.Schemes(cfg.Gopher)...)
	c.RegisterScheme(nntp.Schemes(cfg.NNTP)...)
	c.RegisterScheme(mailto.Schemes(cfg.Mailto)...)
	c.RegisterScheme(telnet.Schemes(cfg.Telnet)...)
	c.RegisterScheme(handoff.Schemes(cfg.Handoff)...)
	c.RegisterScheme(wais.Schemes(cfg.WAIS)...)
	c.RegisterScheme(prospero.Schemes(cfg.Prospero)...)
	return c
}

// Default returns a client with every driver, default settings, and the
// gateways named by the <scheme>_proxy environment variables.
func Default() *fetch.Client {
	return NewClient(fetch.Options{Proxy: fetch.ProxyFromEnvironment}, Config{})
}

// Registry returns a new registry of every scheme of this module with
// default settings: the parser, views and port facts a program uses
// without fetching (fetch --parse).
func Registry() *fetch.Registry {
	return NewClient(fetch.Options{}, Config{}).Registry()
}

// Parse parses raw by the generic syntax and the grammar of the schemes
// of this module (an http URL's "?" may end its host; an ftp URL must
// name a host).
func Parse(raw string) (*fetch.URL, error) { return Registry().Parse(raw) }
