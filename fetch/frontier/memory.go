package frontier

import (
	"context"
	"io"
	"sync"
)

// Memory is a Frontier in one process's memory: a FIFO queue and a seen
// set of keys. A batch whose list is on the command line reads from one;
// a crawl that must survive its process keeps its state elsewhere.
type Memory struct {
	key func(string) string

	mu      sync.Mutex
	wake    chan struct{} // closed and replaced when the queue or the lease count changes
	queue   []Task
	seen    map[string]bool
	leased  int
	closed  bool
	pending int // producers that may still Add (see Hold)
}

// NewMemory returns an empty frontier that de-duplicates by key (nil: the
// URL as written).
func NewMemory(key func(url string) string) *Memory {
	if key == nil {
		key = func(s string) string { return s }
	}
	return &Memory{key: key, seen: map[string]bool{}, wake: make(chan struct{})}
}

// Add queues tasks whose keys were not seen before and reports how many
// it queued.
func (m *Memory) Add(tasks ...Task) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.addLocked(tasks)
}

func (m *Memory) addLocked(tasks []Task) int {
	n := 0
	for _, t := range tasks {
		k := m.key(t.URL)
		if m.seen[k] {
			continue
		}
		m.seen[k] = true
		m.queue = append(m.queue, t)
		n++
	}
	if n > 0 {
		m.broadcastLocked()
	}
	return n
}

// Hold tells the frontier that a producer outside its workers (a reader
// of a long list) may still Add; Next does not report io.EOF until the
// returned release is called.
func (m *Memory) Hold() (release func()) {
	m.mu.Lock()
	m.pending++
	m.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			m.mu.Lock()
			m.pending--
			m.broadcastLocked()
			m.mu.Unlock()
		})
	}
}

// Len is the number of tasks queued and not leased.
func (m *Memory) Len() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.queue)
}

func (m *Memory) broadcastLocked() {
	close(m.wake)
	m.wake = make(chan struct{})
}

// Next implements Frontier.
func (m *Memory) Next(ctx context.Context) (Lease, error) {
	for {
		m.mu.Lock()
		switch {
		case m.closed:
			m.mu.Unlock()
			return nil, ErrClosed
		case len(m.queue) > 0:
			t := m.queue[0]
			m.queue[0] = Task{}
			m.queue = m.queue[1:]
			m.leased++
			m.mu.Unlock()
			return &memLease{m: m, t: t}, nil
		case m.leased == 0 && m.pending == 0:
			m.mu.Unlock()
			return nil, io.EOF
		}
		wake := m.wake
		m.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// Close implements Frontier.
func (m *Memory) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if !m.closed {
		m.closed = true
		m.broadcastLocked()
	}
	return nil
}

type memLease struct {
	m    *Memory
	t    Task
	once sync.Once
}

func (l *memLease) Task() Task { return l.t }

func (l *memLease) Done(_ context.Context, found []Task) error {
	l.once.Do(func() {
		m := l.m
		m.mu.Lock()
		defer m.mu.Unlock()
		m.addLocked(found)
		m.leased--
		m.broadcastLocked()
	})
	return nil
}
