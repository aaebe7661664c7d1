//go:build unix

package fetchtest_test

import (
	"errors"
	"net"
	"syscall"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch/fetchtest"
)

// TestRefusedAddr: a connection to RefusedAddr is refused, not answered
// and not left waiting.
func TestRefusedAddr(t *testing.T) {
	addr := fetchtest.RefusedAddr(t)
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err == nil {
		c.Close()
		t.Fatalf("a connection to %s was accepted", addr)
	}
	if !errors.Is(err, syscall.ECONNREFUSED) {
		t.Errorf("dial %s: %v, want connection refused", addr, err)
	}
}
