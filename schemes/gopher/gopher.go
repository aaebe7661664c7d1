// Package gopher is the gopher driver. (Being written; see the issue tracker.)
package gopher

import (
	"context"

	"github.com/fetchproject/fetch/fetch"
)

// Config holds the driver's settings.
type Config struct{}

// Driver fetches gopher URLs.
type Driver struct{ cfg Config }

// New returns a driver with cfg.
func New(cfg Config) *Driver { return &Driver{cfg: cfg} }

// Fetch is not written yet.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	return nil, req.Errorf(fetch.KindUnknown, "gopher", "the gopher driver is not written yet")
}
