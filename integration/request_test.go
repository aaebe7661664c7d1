//go:build integration

package integration

import (
	"context"

	"github.com/fetchproject/fetch/fetch"
)

// doWith fetches u through c with the per-request inputs set gives it
// (Request.Query, Form, Offset, Body, Raw).
func doWith(ctx context.Context, c *fetch.Client, u string, set func(*fetch.Request)) (*fetch.Result, error) {
	req, err := fetch.NewRequest(u)
	if err != nil {
		return nil, err
	}
	set(req)
	return c.Do(ctx, req)
}
