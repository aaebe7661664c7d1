// Package pool keeps a driver's idle protocol sessions (FTP control
// connections, NNTP sessions) between requests, in the manner of
// net/http's Transport and database/sql's DB: at most a few idle sessions
// per key, each closed once it has waited longer than the idle timeout.
//
// A session is taken out with Get for the whole of one request and given
// back with Put only when that request is over, so two requests never
// share a session at once. Checking a session's health before reuse is
// the driver's job (an FTP NOOP, say): a pool only knows how long each one
// has waited.
package pool

import (
	"io"
	"sync"
	"time"
)

// Pool holds idle sessions by key. The zero Pool is empty and ready.
// Keys are the driver's: a server address and the identity logged in,
// with any password only as a keyed hash. A Pool is safe for concurrent
// use.
type Pool[S io.Closer] struct {
	mu       sync.Mutex
	idle     map[string][]*entry[S] // oldest first
	expiring map[*entry[S]]struct{} // out of idle, being closed by expire
	seq      uint64
}

type entry[S io.Closer] struct {
	s     S
	host  string // the server, shared by the keys of its logins
	seq   uint64 // order of Put: the lowest is the oldest
	timer *time.Timer
	done  chan struct{} // closed once expire has closed s
}

// Get takes the most recently returned idle session for key out of the
// pool; ok is false when there is none.
func (p *Pool[S]) Get(key string) (s S, ok bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	list := p.idle[key]
	for len(list) > 0 {
		e := list[len(list)-1]
		list = list[:len(list)-1]
		if e.timer.Stop() { // else its expiry is already closing it
			p.set(key, list)
			return e.s, true
		}
	}
	p.set(key, list)
	return s, false
}

// Put gives s back for key, to be kept for at most idle while fewer than
// max sessions wait under key; otherwise, or when max or idle is not
// positive, s is closed.
func (p *Pool[S]) Put(key string, s S, max int, idle time.Duration) {
	p.PutHost(key, key, s, max, 0, idle)
}

// PutHost is Put for a key that is one login at the server host: at most
// max sessions wait under key, and at most max under all the keys of
// host together (Options.MaxIdlePerHost bounds the idle sessions per
// server, whatever login each has). When host has max waiting under
// other keys, the oldest of them is closed to make room for s. When
// total is positive, at most total sessions (or max, if more) wait in
// the pool in all, whatever their servers (Options.IdleTotal): the
// oldest of any server makes room, as a list naming many servers would
// otherwise keep one for each.
func (p *Pool[S]) PutHost(host, key string, s S, max, total int, idle time.Duration) {
	if max <= 0 || idle <= 0 {
		s.Close()
		return
	}
	p.mu.Lock()
	if len(p.idle[key]) >= max {
		p.mu.Unlock()
		s.Close()
		return
	}
	var evicted []S
	evict := func(match func(*entry[S]) bool) bool {
		old, found, live := p.oldest(match)
		if live {
			evicted = append(evicted, old)
		}
		return found
	}
	for p.hostIdle(host) >= max && evict(func(e *entry[S]) bool { return e.host == host }) {
	}
	if total > 0 && total < max {
		total = max
	}
	for total > 0 && p.lenLocked() >= total && evict(func(*entry[S]) bool { return true }) {
	}
	p.seq++
	e := &entry[S]{s: s, host: host, seq: p.seq, done: make(chan struct{})}
	e.timer = time.AfterFunc(idle, func() { p.expire(key, e) })
	if p.idle == nil {
		p.idle = map[string][]*entry[S]{}
	}
	p.idle[key] = append(p.idle[key], e)
	p.mu.Unlock()
	for _, old := range evicted {
		old.Close()
	}
}

// hostIdle is the number of sessions waiting under host's keys; p.mu is
// held.
func (p *Pool[S]) hostIdle(host string) int {
	n := 0
	for _, list := range p.idle {
		for _, e := range list {
			if e.host == host {
				n++
			}
		}
	}
	return n
}

// oldest takes the session that has waited longest of those match
// accepts out of the pool; p.mu is held. found is false when there is
// none. live tells that s is the caller's to close; when it is false the
// session's expiry is already closing it: it is dropped from the list
// (expire finds it gone), which makes room as well, and the caller counts
// again before taking another.
func (p *Pool[S]) oldest(match func(*entry[S]) bool) (s S, found, live bool) {
	var key string
	idx := -1
	var best *entry[S]
	for k, list := range p.idle {
		for i, e := range list {
			if match(e) && (best == nil || e.seq < best.seq) {
				key, idx, best = k, i, e
			}
		}
	}
	if best == nil {
		return s, false, false
	}
	list := p.idle[key]
	p.set(key, append(list[:idx:idx], list[idx+1:]...))
	if best.timer.Stop() {
		return best.s, true, true
	}
	return s, true, false
}

// expire removes e when its idle time is up and closes it.
func (p *Pool[S]) expire(key string, e *entry[S]) {
	p.mu.Lock()
	list := p.idle[key]
	for i, x := range list {
		if x == e {
			p.set(key, append(list[:i:i], list[i+1:]...))
			break
		}
	}
	if p.expiring == nil {
		p.expiring = map[*entry[S]]struct{}{}
	}
	p.expiring[e] = struct{}{}
	p.mu.Unlock()
	e.s.Close()
	p.mu.Lock()
	delete(p.expiring, e)
	p.mu.Unlock()
	close(e.done)
}

func (p *Pool[S]) set(key string, list []*entry[S]) {
	if len(list) == 0 {
		delete(p.idle, key)
		return
	}
	p.idle[key] = list
}

// CloseIdle closes every idle session, all at once so that servers slow
// to answer a goodbye cost their wait only once, and returns when all are
// closed. Sessions in use are not affected.
func (p *Pool[S]) CloseIdle() {
	p.mu.Lock()
	var closing []S
	var expiring []*entry[S] // closed by their expiry: waited for
	for key, list := range p.idle {
		for _, e := range list {
			if e.timer.Stop() {
				closing = append(closing, e.s)
			} else {
				expiring = append(expiring, e)
			}
		}
		delete(p.idle, key)
	}
	for e := range p.expiring {
		expiring = append(expiring, e)
	}
	p.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range closing {
		wg.Go(func() { s.Close() })
	}
	wg.Wait()
	for _, e := range expiring {
		<-e.done
	}
}

// Idle is the number of idle sessions kept under key.
func (p *Pool[S]) Idle(key string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return len(p.idle[key])
}

// Len is the number of idle sessions kept under every key.
func (p *Pool[S]) Len() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.lenLocked()
}

func (p *Pool[S]) lenLocked() int {
	n := 0
	for _, list := range p.idle {
		n += len(list)
	}
	return n
}
