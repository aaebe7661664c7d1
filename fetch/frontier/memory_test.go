package frontier_test

import (
	"context"
	"testing"

	"github.com/fetchproject/fetch/fetch/frontier"
	"github.com/fetchproject/fetch/fetch/frontier/frontiertest"
)

func TestMemory(t *testing.T) {
	frontiertest.Run(t, func(t *testing.T, seeds []frontier.Task) frontier.Frontier {
		m := frontier.NewMemory(func(s string) string { return s })
		m.Add(context.Background(), seeds...)
		return m
	})
}
