package pool

import (
	"testing"
	"time"
)

// TestPutHostCap: max bounds the idle sessions of a server across
// the keys of its logins; the oldest of another login makes room.
func TestPutHostCap(t *testing.T) {
	var p Pool[*session]
	a1, a2, b := &session{id: 1}, &session{id: 2}, &session{id: 3}
	p.PutHost("h:21", "h:21 a", a1, 2, time.Minute)
	p.PutHost("h:21", "h:21 a", a2, 2, time.Minute)
	p.PutHost("h:21", "h:21 b", b, 2, time.Minute)
	if p.Len() != 2 || a1.closed.Load() != 1 || a2.closed.Load() != 0 || b.closed.Load() != 0 {
		t.Fatalf("Len %d, closes %d %d %d; want 2 kept, the oldest closed", p.Len(), a1.closed.Load(), a2.closed.Load(), b.closed.Load())
	}
	other := &session{id: 4}
	p.PutHost("g:21", "g:21 a", other, 2, time.Minute)
	if p.Len() != 3 || other.closed.Load() != 0 {
		t.Fatalf("another server's session: Len %d, closed %d", p.Len(), other.closed.Load())
	}
	p.CloseIdle()
}
