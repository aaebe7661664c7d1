package frontier

import (
	"context"
	"crypto/sha256"
	"io"
	"sync"
)

// Adder is implemented by frontiers that take tasks outside a lease's
// Done: the seeds, and the links a crawl finds, which a worker adds before
// it records the task's outcome, so that a worker killed between the two
// loses none of them (the task is then fetched again, or skipped as done
// with its links already queued).
type Adder interface {
	// Add queues the tasks whose keys the frontier has not seen and
	// reports how many it queued.
	Add(ctx context.Context, tasks ...Task) (int, error)
}

// digest is what a seen set keeps of a key: 16 bytes of its SHA-256,
// whatever the URL's length (a collision needs about 2^64 URLs).
type digest [16]byte

func digestOf(key string) digest {
	s := sha256.Sum256([]byte(key))
	return digest(s[:16])
}

// Memory is a Frontier in one process's memory: a FIFO queue and a seen
// set. A batch reads its list through one; a crawl that must survive its
// process keeps its state in a Journal.
type Memory struct {
	key func(string) string // nil: no de-duplication

	mu      sync.Mutex
	wake    chan struct{} // closed and replaced at a change of the queue or the lease count, when armed
	armed   bool          // someone waits on wake: a change must close it
	queue   []Task
	head    int   // queue[head:] is waiting
	size    int64 // the bytes of the URLs in queue[head:]
	seen    map[digest]struct{}
	leased  int
	closed  bool
	pending int // producers that may still Add (see Hold)
}

// NewMemory returns an empty frontier that de-duplicates tasks by key, a
// URL's canonical text; with a nil key it keeps every task it is given
// (a list fetched as written, duplicates included).
func NewMemory(key func(url string) string) *Memory {
	m := &Memory{key: key, wake: make(chan struct{})}
	if key != nil {
		m.seen = map[digest]struct{}{}
	}
	return m
}

// Add implements Adder.
func (m *Memory) Add(_ context.Context, tasks ...Task) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.addLocked(tasks), nil
}

func (m *Memory) addLocked(tasks []Task) int {
	n := 0
	for _, t := range tasks {
		if m.key != nil {
			d := digestOf(m.key(t.URL))
			if _, ok := m.seen[d]; ok {
				continue
			}
			m.seen[d] = struct{}{}
		}
		m.queue = append(m.queue, t)
		m.size += int64(len(t.URL))
		n++
	}
	if n > 0 {
		m.broadcastLocked()
	}
	return n
}

// Unseen is how many tasks Add would queue now: those whose keys the
// frontier has not seen, each key once (every task without a key
// function). A crawl that has no room left counts these as the links it
// left out: a link to a URL already queued takes no room and is not one.
func (m *Memory) Unseen(tasks []Task) int {
	if m.key == nil {
		return len(tasks)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	fresh := map[digest]bool{}
	for _, t := range tasks {
		d := digestOf(m.key(t.URL))
		if _, ok := m.seen[d]; !ok {
			fresh[d] = true
		}
	}
	return len(fresh)
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
	return len(m.queue) - m.head
}

// Size is the number of bytes of the URLs of the tasks queued and not
// leased: what the queue holds, whatever the length of its URLs.
func (m *Memory) Size() int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.size
}

// WaitRoom blocks until fewer than n tasks are queued and, unless size is
// negative, their URLs take fewer than size bytes: a producer reading a
// long list keeps only a little of it in memory.
func (m *Memory) WaitRoom(ctx context.Context, n int, size int64) error {
	for {
		m.mu.Lock()
		if len(m.queue)-m.head < n && (size < 0 || m.size < size) || m.closed {
			m.mu.Unlock()
			return nil
		}
		wake := m.waitChanLocked()
		m.mu.Unlock()
		select {
		case <-wake:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

func (m *Memory) broadcastLocked() {
	if !m.armed {
		return // nobody holds wake: nothing to tell
	}
	close(m.wake)
	m.wake = make(chan struct{})
	m.armed = false
}

// waitChanLocked is the channel closed at the next change, for a caller
// about to wait.
func (m *Memory) waitChanLocked() chan struct{} {
	m.armed = true
	return m.wake
}

// Next implements Frontier.
func (m *Memory) Next(ctx context.Context) (Lease, error) {
	for {
		m.mu.Lock()
		switch {
		case m.closed:
			m.mu.Unlock()
			return nil, ErrClosed
		case m.head < len(m.queue):
			t := m.queue[m.head]
			m.queue[m.head] = Task{}
			m.head++
			m.size -= int64(len(t.URL))
			if m.head == len(m.queue) {
				m.queue, m.head = m.queue[:0], 0
			} else if m.head > 1024 && m.head > len(m.queue)/2 {
				m.queue = append(m.queue[:0], m.queue[m.head:]...)
				m.head = 0
			}
			m.leased++
			m.broadcastLocked() // a producer may be waiting for room
			m.mu.Unlock()
			return &memLease{m: m, t: t}, nil
		case m.leased == 0 && m.pending == 0:
			m.mu.Unlock()
			return nil, io.EOF
		}
		wake := m.waitChanLocked()
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
