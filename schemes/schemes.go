// Package schemes wires every driver of this module into a fetch.Client.
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

// NewClient returns a client with every driver of this module registered.
// The drivers are its own, and so are their session pools (a driver's pool
// follows the options of the client it is registered with).
func NewClient(opts fetch.Options, cfg Config) *fetch.Client {
	c := fetch.NewClient(opts)
	c.Register("file", file.New(cfg.File))
	h := http.New(cfg.HTTP)
	c.Register("http", h)
	c.Register("https", h)
	c.Register("ftp", ftp.New(cfg.FTP))
	c.Register("gopher", gopher.New(cfg.Gopher))
	n := nntp.New(cfg.NNTP)
	c.Register("news", n)
	c.Register("nntp", n)
	c.Register("mailto", mailto.New(cfg.Mailto))
	c.Register("telnet", telnet.New(cfg.Telnet))
	c.Register("rlogin", handoff.NewRlogin(cfg.Handoff))
	c.Register("tn3270", handoff.NewTN3270(cfg.Handoff))
	c.Register("wais", wais.New(cfg.WAIS))
	c.Register("prospero", prospero.New(cfg.Prospero))
	return c
}

// Default returns a client with every driver, default settings, and the
// gateways named by the <scheme>_proxy environment variables.
func Default() *fetch.Client {
	return NewClient(fetch.Options{Proxy: fetch.ProxyFromEnvironment}, Config{})
}
