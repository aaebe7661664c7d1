package pool

import (
	"fmt"
	"testing"
	"time"
)

// TestPutHostCap: max bounds the idle sessions of a server across
// the keys of its logins; the oldest of another login makes room.
func TestPutHostCap(t *testing.T) {
	var p Pool[*session]
	a1, a2, b := &session{id: 1}, &session{id: 2}, &session{id: 3}
	p.PutHost("h:21", "h:21 a", a1, 2, 0, time.Minute)
	p.PutHost("h:21", "h:21 a", a2, 2, 0, time.Minute)
	p.PutHost("h:21", "h:21 b", b, 2, 0, time.Minute)
	if p.Len() != 2 || a1.closed.Load() != 1 || a2.closed.Load() != 0 || b.closed.Load() != 0 {
		t.Fatalf("Len %d, closes %d %d %d; want 2 kept, the oldest closed", p.Len(), a1.closed.Load(), a2.closed.Load(), b.closed.Load())
	}
	other := &session{id: 4}
	p.PutHost("g:21", "g:21 a", other, 2, 0, time.Minute)
	if p.Len() != 3 || other.closed.Load() != 0 {
		t.Fatalf("another server's session: Len %d, closed %d", p.Len(), other.closed.Load())
	}
	p.CloseIdle()
}

// TestPutHostTotal: total bounds the idle sessions of every server
// together; the oldest of any server makes room. Bounded per server
// alone, a list naming many servers kept one for each.
func TestPutHostTotal(t *testing.T) {
	var p Pool[*session]
	var ss []*session
	for i := range 10 {
		s := &session{id: i}
		ss = append(ss, s)
		host := fmt.Sprintf("h%d:21", i)
		p.PutHost(host, host+" a", s, 2, 4, time.Minute)
	}
	if p.Len() != 4 {
		t.Errorf("%d sessions of 10 servers kept, want the total, 4", p.Len())
	}
	for i, s := range ss {
		if want := int32(0); i < 6 {
			want = 1
			if s.closed.Load() != want {
				t.Errorf("session %d (of the 6 oldest): closed %d times, want once", i, s.closed.Load())
			}
		} else if s.closed.Load() != want {
			t.Errorf("session %d (of the 4 newest): closed %d times, want kept", i, s.closed.Load())
		}
	}
	// a total below the per-server bound is that bound
	var q Pool[*session]
	for i := range 3 {
		q.PutHost("h:21", fmt.Sprintf("h:21 %d", i), &session{id: i}, 3, 1, time.Minute)
	}
	if q.Len() != 3 {
		t.Errorf("total 1 under a per-server bound of 3: %d kept, want 3", q.Len())
	}
	p.CloseIdle()
	q.CloseIdle()
}

// TestPutHostExpiringMakesRoom: a session whose idle time is up, its
// expiry waiting for the pool's lock, makes room when a Put drops it:
// the Put counts again before closing a live one. It took the next
// oldest as well, closing a session there was room for.
func TestPutHostExpiringMakesRoom(t *testing.T) {
	var p Pool[*session]
	a, b, c := &session{id: 1}, &session{id: 2}, &session{id: 3}
	p.PutHost("a:21", "a:21 x", a, 2, 2, time.Minute)
	p.PutHost("b:21", "b:21 x", b, 2, 2, time.Minute)
	ea := p.idle["a:21 x"][0]
	ea.timer.Stop()                                   // as if it had fired, its expire waiting for p.mu
	p.PutHost("c:21", "c:21 x", c, 2, 2, time.Minute) // total 2: a's place is c's
	p.expire("a:21 x", ea)                            // the expiry runs now
	if p.Len() != 2 || a.closed.Load() != 1 || b.closed.Load() != 0 || c.closed.Load() != 0 {
		t.Errorf("Len %d; closes a %d, b %d, c %d; want b and c kept, a closed once by its expiry",
			p.Len(), a.closed.Load(), b.closed.Load(), c.closed.Load())
	}
	p.CloseIdle()
}
