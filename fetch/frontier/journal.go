package frontier

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sync"
	"unicode/utf8"
)

// Journal is a Frontier kept in an append-only file, so that a crawl
// killed at any moment resumes where it stopped: its seen set, what is
// still queued, and the tasks that were leased and not done (they are
// handed out again). Each line of the file is one JSON event:
//
//	{"add":"URL","depth":N}   a task queued (its key was new)
//	{"done":"URL"}            a task finished
//	{"done":"URL","failed":true}  a task finished with a failure (its
//	                          lease's Outcome(false)): a run that opens the
//	                          journal again queues it again, as a rerun of
//	                          a list retries the URLs that failed
//	{"left":N}                N links found and not queued (Left)
//
// A URL that is not UTF-8 (the raw bytes of a gopher selector, say) would
// come back from a JSON string with U+FFFD in place of its bad bytes, as
// another URL: its events hold it in base64, as "addb" and "doneb".
//
// Opening the file replays it; a last line torn by a kill (without its
// newline) is cut away, and a whole line that is not an event (damage) is
// skipped, so that the events after it still count. Tasks added (Add,
// Done's found) are synced to disk before the call returns; a done event
// is written but not synced, since losing one only means the task is
// handed out again and the worker finds its outcome in its own log.
//
// The seen set keeps 16 bytes of each key's SHA-256 and the queue the
// tasks themselves: memory grows with the crawl's size, about 100 bytes a
// URL.
type Journal struct {
	m    *Memory
	f    *os.File
	w    *bufio.Writer
	werr error // a failed write: the journal no longer matches the crawl
	left int64 // links left out, by earlier runs (replay) and this one
}

type journalEvent struct {
	Add    string `json:"add,omitempty"`
	AddB   []byte `json:"addb,omitempty"` // a URL that is not UTF-8
	Depth  int    `json:"depth,omitempty"`
	Done   string `json:"done,omitempty"`
	DoneB  []byte `json:"doneb,omitempty"` // a URL that is not UTF-8
	Failed bool   `json:"failed,omitempty"`
	Left   int64  `json:"left,omitempty"`
}

func addEvent(t Task) journalEvent {
	if utf8.ValidString(t.URL) {
		return journalEvent{Add: t.URL, Depth: t.Depth}
	}
	return journalEvent{AddB: []byte(t.URL), Depth: t.Depth}
}

func doneEvent(url string, failed bool) journalEvent {
	if utf8.ValidString(url) {
		return journalEvent{Done: url, Failed: failed}
	}
	return journalEvent{DoneB: []byte(url), Failed: failed}
}

// urls are the URLs of the event's add and done, "" for what it is not.
func (ev *journalEvent) urls() (add, done string) {
	add, done = ev.Add, ev.Done
	if add == "" {
		add = string(ev.AddB)
	}
	if done == "" {
		done = string(ev.DoneB)
	}
	return add, done
}

// maxJournalLine bounds one line as replay reads it: a longer one is
// damage. A task is journaled only if its add event, as encoded, fits in
// maxJournalEvent, which leaves room for its done event (a few bytes
// longer when the depth is 0). It is six times the longest line a list or
// a listing yields (64 KiB), as JSON writes a control byte in six, so no
// URL a crawl can meet is left out: one left out was lost without a word.
const (
	maxJournalLine  = 6*64<<10 + 1<<10
	maxJournalEvent = maxJournalLine - 64
)

// OpenJournal opens (creating it if need be) the journal at path; key is
// the de-duplication key of a URL (nil: the URL as written). A new
// journal is readable by its owner only: it holds the URLs as given, and
// a seed's password with them, which a resume needs.
func OpenJournal(path string, key func(url string) string) (*Journal, error) {
	if key == nil {
		key = func(s string) string { return s }
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, err
	}
	m := NewMemory(key)
	good, left, err := replay(f, m)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("frontier journal %s: %w", path, err)
	}
	if err := f.Truncate(good); err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	return &Journal{m: m, f: f, w: bufio.NewWriter(f), left: left}, nil
}

// replay rebuilds m from the events in r and returns the length of the
// whole lines read (a torn tail is not counted).
func replay(r io.Reader, m *Memory) (good, left int64, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	pending := map[digest]int{} // key → index in m.queue of a task not done
	removed := map[int]bool{}
	for {
		line, n, err := readLine(br)
		if err == io.EOF {
			break // the end, or a tail torn by a kill (no newline): cut
		}
		if err != nil {
			return 0, 0, err
		}
		good += n
		if line == nil {
			continue // a whole line too long to be an event
		}
		var ev journalEvent
		if json.Unmarshal(line, &ev) != nil {
			continue // a whole line, but not an event: skipped
		}
		add, done := ev.urls()
		if (add == "") == (done == "") {
			if add == "" && ev.Left > 0 {
				left = addLeft(left, ev.Left) // damage cannot overflow it
			}
			continue
		}
		if add != "" {
			d := digestOf(m.key(add))
			if _, ok := m.seen[d]; ok {
				continue
			}
			m.seen[d] = struct{}{}
			pending[d] = len(m.queue)
			m.queue = append(m.queue, Task{URL: add, Depth: ev.Depth})
			continue
		}
		if ev.Failed {
			continue // queued again: the rerun tries it once more
		}
		d := digestOf(m.key(done))
		if i, ok := pending[d]; ok {
			removed[i] = true
			delete(pending, d)
		}
	}
	if len(removed) > 0 {
		kept := m.queue[:0]
		for i, t := range m.queue {
			if !removed[i] {
				kept = append(kept, t)
			}
		}
		clear(m.queue[len(kept):])
		m.queue = kept
	}
	for _, t := range m.queue {
		m.size += int64(len(t.URL))
	}
	return good, left, nil
}

// readLine reads one line, newline included, and its length n in the
// file. A line longer than maxJournalLine is read through to its end but
// returned as nil. io.EOF reports the end of the file, with or without an
// unterminated tail before it.
func readLine(br *bufio.Reader) (line []byte, n int64, err error) {
	line, err = br.ReadSlice('\n')
	n = int64(len(line))
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, n, err
	}
	// ReadSlice's result is only valid until the next read: keep a copy
	// while the line may still fit, nothing once it cannot.
	buf := append([]byte(nil), line...)
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = br.ReadSlice('\n')
		n += int64(len(line))
		if buf != nil {
			buf = append(buf, line...)
			if len(buf) > maxJournalLine {
				buf = nil
			}
		}
	}
	if err != nil {
		return nil, n, err
	}
	return buf, n, nil
}

// Len is the number of tasks queued and not leased.
func (j *Journal) Len() int { return j.m.Len() }

// Hold is Memory.Hold: Next does not report the end until release.
func (j *Journal) Hold() (release func()) { return j.m.Hold() }

// Size is Memory.Size: the bytes of the URLs queued and not leased.
func (j *Journal) Size() int64 { return j.m.Size() }

// WaitRoom is Memory.WaitRoom.
func (j *Journal) WaitRoom(ctx context.Context, n int, size int64) error {
	return j.m.WaitRoom(ctx, n, size)
}

// Seen is the number of distinct URLs the journal has queued, ever.
func (j *Journal) Seen() int {
	j.m.mu.Lock()
	defer j.m.mu.Unlock()
	return len(j.m.seen)
}

// Left records that n links found were not queued (a crawl's bound on
// its queue was reached): the crawl is incomplete, and a run that resumes
// it from the journal must say so too, since the listings that held them
// are done and are not read again. It is synced, as an add is.
func (j *Journal) Left(n int) error {
	if n <= 0 {
		return nil
	}
	m := j.m
	m.mu.Lock()
	defer m.mu.Unlock()
	if j.werr != nil {
		return j.werr
	}
	line, err := encodeEvent(journalEvent{Left: int64(n)})
	if err != nil {
		return err
	}
	if err := j.write(line); err != nil {
		return err
	}
	if err := j.flushLocked(true); err != nil {
		return err
	}
	j.left = addLeft(j.left, int64(n))
	return nil
}

// maxLeft caps the count of links left out: a damaged journal's huge
// counts must not wrap it round to a negative number, which would read as
// none left out (a crawl that stays incomplete said to be complete).
const maxLeft = math.MaxInt64 / 2

// addLeft is left+n (both at least 0), at most maxLeft. The sum is not
// formed before the cap: it could overflow.
func addLeft(left, n int64) int64 {
	return left + min(n, maxLeft-left)
}

// LeftOut is the number of links the journal records as left out (Left):
// by the runs before this one, and by this one.
func (j *Journal) LeftOut() int64 {
	j.m.mu.Lock()
	defer j.m.mu.Unlock()
	return j.left
}

// Unseen is Memory.Unseen: how many tasks Add would queue now.
func (j *Journal) Unseen(tasks []Task) int { return j.m.Unseen(tasks) }

// Add implements Adder: the new tasks are on disk when it returns.
func (j *Journal) Add(_ context.Context, tasks ...Task) (int, error) {
	m := j.m
	m.mu.Lock()
	defer m.mu.Unlock()
	fresh, err := j.appendLocked(tasks, "", false)
	if err != nil {
		return 0, err
	}
	return m.addLocked(fresh), nil
}

// appendLocked writes the add events of the tasks whose keys are new
// (returning those tasks) and, if done is not empty, its done event.
func (j *Journal) appendLocked(tasks []Task, done string, failed bool) ([]Task, error) {
	if j.werr != nil {
		return nil, j.werr
	}
	m := j.m
	var fresh []Task
	batch := map[digest]bool{}
	for _, t := range tasks {
		if len(t.URL) > maxJournalEvent {
			continue // its line could only be longer
		}
		d := digestOf(m.key(t.URL))
		if _, ok := m.seen[d]; ok || batch[d] {
			continue
		}
		line, err := encodeEvent(addEvent(t))
		if err != nil {
			return nil, err
		}
		if len(line) > maxJournalEvent {
			// Escapes (a control byte becomes \u00XX) or base64 made
			// the line too long to replay; no list or listing yields a
			// URL this long (see maxJournalLine).
			continue
		}
		batch[d] = true
		fresh = append(fresh, t)
		if err := j.write(line); err != nil {
			return nil, err
		}
	}
	if done != "" {
		line, err := encodeEvent(doneEvent(done, failed))
		if err != nil {
			return nil, err
		}
		if err := j.write(line); err != nil {
			return nil, err
		}
	}
	if err := j.flushLocked(len(fresh) > 0); err != nil {
		return nil, err
	}
	return fresh, nil
}

// flushLocked writes what is buffered to the file, and syncs it when
// sync is true; a failure leaves the journal failed (werr).
func (j *Journal) flushLocked(sync bool) error {
	err := j.w.Flush()
	if err == nil && sync {
		err = j.f.Sync()
	}
	if err != nil {
		j.werr = err
	}
	return err
}

// encodeEvent is ev's line in the journal, newline included. HTML
// escaping is off: it would write each '&', '<' and '>' of a URL as six
// bytes.
func encodeEvent(ev journalEvent) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(ev); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (j *Journal) write(line []byte) error {
	if _, err := j.w.Write(line); err != nil {
		j.werr = err
		return err
	}
	return nil
}

// Next implements Frontier.
func (j *Journal) Next(ctx context.Context) (Lease, error) {
	l, err := j.m.Next(ctx)
	if err != nil {
		return nil, err
	}
	return &journalLease{j: j, l: l.(*memLease)}, nil
}

// Close implements Frontier: the file is synced and closed; leases not
// Done are handed out again by the journal opened next on the file.
func (j *Journal) Close() error {
	j.m.Close()
	j.m.mu.Lock()
	defer j.m.mu.Unlock()
	if j.f == nil {
		return nil
	}
	err := j.w.Flush()
	if serr := j.f.Sync(); err == nil {
		err = serr
	}
	if cerr := j.f.Close(); err == nil {
		err = cerr
	}
	j.f = nil
	if err == nil {
		err = j.werr
	}
	return err
}

type journalLease struct {
	j      *Journal
	l      *memLease
	once   sync.Once
	failed bool // Outcome(false): its done event says so
}

func (l *journalLease) Task() Task { return l.l.t }

// Outcome implements Outcomer: a task that failed is journaled as such,
// and queued again by the next run that opens the journal (not by this
// one, which would try it without end).
func (l *journalLease) Outcome(ok bool) { l.failed = !ok }

func (l *journalLease) Done(_ context.Context, found []Task) error {
	var err error
	l.once.Do(func() {
		m := l.j.m
		m.mu.Lock()
		defer m.mu.Unlock()
		var fresh []Task
		fresh, err = l.j.appendLocked(found, l.l.t.URL, l.failed)
		if err != nil {
			return
		}
		m.addLocked(fresh)
		m.leased--
		m.broadcastLocked()
	})
	return err
}
