package pool

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// session is a pooled thing that counts its closes.
type session struct {
	id     int
	closed atomic.Int32
}

func (s *session) Close() error { s.closed.Add(1); return nil }

func TestGetPutLIFO(t *testing.T) {
	var p Pool[*session]
	if _, ok := p.Get("a"); ok {
		t.Fatal("Get from an empty pool")
	}
	s1, s2 := &session{id: 1}, &session{id: 2}
	p.Put("a", s1, 2, time.Minute)
	p.Put("a", s2, 2, time.Minute)
	if got, ok := p.Get("a"); !ok || got != s2 {
		t.Fatalf("Get = %v, %v; want the last one put", got, ok)
	}
	if _, ok := p.Get("b"); ok {
		t.Fatal("a session under another key")
	}
	if got, ok := p.Get("a"); !ok || got != s1 {
		t.Fatalf("Get = %v, %v", got, ok)
	}
	if p.Len() != 0 || s1.closed.Load()+s2.closed.Load() != 0 {
		t.Fatalf("Len %d, closes %d %d", p.Len(), s1.closed.Load(), s2.closed.Load())
	}
}

func TestPutOverLimitCloses(t *testing.T) {
	var p Pool[*session]
	ss := []*session{{id: 1}, {id: 2}, {id: 3}}
	for _, s := range ss {
		p.Put("k", s, 2, time.Minute)
	}
	if p.Idle("k") != 2 || ss[2].closed.Load() != 1 || ss[0].closed.Load() != 0 {
		t.Fatalf("idle %d, closes %d %d %d", p.Idle("k"), ss[0].closed.Load(), ss[1].closed.Load(), ss[2].closed.Load())
	}
	for _, tc := range []struct {
		max  int
		idle time.Duration
	}{{0, time.Minute}, {-1, time.Minute}, {2, 0}, {2, -time.Second}} {
		s := &session{}
		p.Put("other", s, tc.max, tc.idle)
		if s.closed.Load() != 1 || p.Idle("other") != 0 {
			t.Errorf("max %d idle %v: kept", tc.max, tc.idle)
		}
	}
}

func TestIdleExpiry(t *testing.T) {
	var p Pool[*session]
	s := &session{}
	p.Put("k", s, 2, 20*time.Millisecond)
	for deadline := time.Now().Add(5 * time.Second); s.closed.Load() == 0 && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if s.closed.Load() != 1 || p.Len() != 0 {
		t.Fatalf("closes %d, len %d after the idle time", s.closed.Load(), p.Len())
	}
	if _, ok := p.Get("k"); ok {
		t.Fatal("an expired session came back")
	}
}

func TestCloseIdle(t *testing.T) {
	var p Pool[*session]
	a, b := &session{}, &session{}
	p.Put("a", a, 2, time.Minute)
	p.Put("b", b, 2, time.Minute)
	timers := []*time.Timer{p.idle["a"][0].timer, p.idle["b"][0].timer}
	p.CloseIdle()
	if a.closed.Load() != 1 || b.closed.Load() != 1 || p.Len() != 0 {
		t.Fatalf("closes %d %d, len %d", a.closed.Load(), b.closed.Load(), p.Len())
	}
	// CloseIdle stops the expiry timers, which would otherwise close the
	// sessions a second time when their idle time is up. A minute cannot
	// have passed: Stop reports true only for a timer left running.
	for i, tm := range timers {
		if tm.Stop() {
			t.Errorf("session %d: its expiry timer still runs after CloseIdle", i)
		}
	}
	// The pool keeps working.
	c := &session{}
	p.Put("a", c, 2, time.Minute)
	if got, ok := p.Get("a"); !ok || got != c {
		t.Fatal("pool unusable after CloseIdle")
	}
	if a.closed.Load() != 1 || c.closed.Load() != 0 {
		t.Fatalf("closes %d %d", a.closed.Load(), c.closed.Load())
	}
}

// TestConcurrent: sessions go in and out from many goroutines; each Get
// hands a session to one taker only.
func TestConcurrent(t *testing.T) {
	var p Pool[*session]
	var inUse sync.Map
	var wg sync.WaitGroup
	for g := range 16 {
		wg.Go(func() {
			for i := range 200 {
				s, ok := p.Get("k")
				if !ok {
					s = &session{id: g*1000 + i}
				}
				if _, dup := inUse.LoadOrStore(s, true); dup {
					t.Errorf("session %d handed out twice", s.id)
					return
				}
				inUse.Delete(s)
				p.Put("k", s, 4, time.Minute)
			}
		})
	}
	wg.Wait()
	if p.Idle("k") > 4 {
		t.Fatalf("%d idle, limit 4", p.Idle("k"))
	}
	p.CloseIdle()
}

// slowSession takes a while to say goodbye (a QUIT to a slow server).
type slowSession struct{ closed atomic.Int32 }

func (s *slowSession) Close() error {
	time.Sleep(100 * time.Millisecond)
	s.closed.Add(1)
	return nil
}

// TestCloseIdleWaitsForExpiring: CloseIdle "returns when all are closed",
// those whose idle timer has just fired too: their expiry closes them,
// and CloseIdle waits for it (it returned while such a Close still ran).
func TestCloseIdleWaitsForExpiring(t *testing.T) {
	var p Pool[*slowSession]
	s := &slowSession{}
	p.Put("k", s, 2, time.Millisecond)
	p.mu.Lock()                       // hold the pool while the idle time passes
	time.Sleep(20 * time.Millisecond) // the timer fires; expire blocks on mu
	p.mu.Unlock()
	p.CloseIdle()
	if s.closed.Load() != 1 {
		t.Fatalf("CloseIdle returned with an idle session's Close still running (closes %d)", s.closed.Load())
	}
}
