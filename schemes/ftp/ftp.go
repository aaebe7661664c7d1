// Package ftp is the ftp driver. (Being written; see the issue tracker.)
package ftp

import (
	"context"

	"github.com/fetchproject/fetch/fetch"
)

// Config holds the driver's settings.
type Config struct{}

// Driver fetches ftp URLs.
type Driver struct{ cfg Config }

// New returns a driver with cfg.
func New(cfg Config) *Driver { return &Driver{cfg: cfg} }

// Fetch is not written yet.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	return nil, req.Errorf(fetch.KindUnknown, "ftp", "the ftp driver is not written yet")
}
