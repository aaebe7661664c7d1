package frontier_test

import (
	"testing"

	"github.com/fetchproject/fetch/fetch/frontier"
	"github.com/fetchproject/fetch/fetch/frontier/frontiertest"
)

func TestMemory(t *testing.T) {
	frontiertest.Run(t, func(t *testing.T, seeds []frontier.Task) frontier.Frontier {
		m := frontier.NewMemory(nil)
		m.Add(seeds...)
		return m
	})
}
