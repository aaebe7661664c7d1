package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/frontier"
	"github.com/fetchproject/fetch/fetch/frontier/redisq"
	"github.com/fetchproject/fetch/fetch/warc"
)

// A batch's workers read from a frontier (package fetch/frontier): the
// list as given (a Memory frontier fed as the list is read), a crawl (a
// Journal beside the --log, or a Memory frontier without one), or a queue
// shared through Redis (--queue). A dispatcher between the frontier and
// the workers keeps the tasks of hosts that are at their --per-host cap
// aside, so that a busy host never holds a worker while another host's
// tasks wait.

// openFrontier chooses the batch's frontier.
func (b *batch) openFrontier(ctx context.Context, s stdio) error {
	o := b.o
	key := queueKey(b.c)
	b.backlog, b.backlogLen = 64+4*o.batch.jobs, backlogBytes
	switch {
	case o.queueOpts.queue != "":
		q, err := openQueue(ctx, s, o, b.c, "queue", o.queueOpts.queue)
		if err != nil {
			return err
		}
		b.fr, b.adder, b.shared = q, q, true
		// A task set aside is pending for this worker alone: keep few.
		b.backlog = 2 * o.batch.jobs
	case o.crawl.recursive && o.batch.log != "":
		path := o.batch.log + ".frontier"
		j, err := frontier.OpenJournal(path, key)
		if err != nil {
			return &fetch.Error{Kind: fetch.KindLocal, Op: "--log", Offset: -1, Err: err}
		}
		b.fr, b.adder, b.held = j, j, j
		b.queuedBefore = int64(j.Seen())
	case o.crawl.recursive:
		m := frontier.NewMemory(key)
		b.fr, b.adder, b.held = m, m, m
	default:
		m := frontier.NewMemory(nil)
		b.fr, b.adder, b.list = m, m, m
	}
	if o.crawl.recursive {
		b.scope = newScope(&o.crawl, b.c.Registry())
	}
	if j, ok := b.adder.(*frontier.Journal); ok {
		if n := j.LeftOut(); n > 0 {
			// The listings that held them are done and are not read
			// again: this run cannot complete the crawl either.
			b.scope.overQueue.Add(n)
			b.noteFailure(fetch.KindPolicy.ExitCode())
			if !o.quiet {
				b.printErr(fmt.Sprintf("fetch: warning: an earlier run of this crawl left %d links out (its queue was full): the crawl may be incomplete", n))
			}
		}
	}
	return nil
}

// hold keeps the frontier from reporting its end while the list is read.
func (b *batch) hold() func() {
	if h, ok := b.fr.(interface{ Hold() func() }); ok {
		return h.Hold()
	}
	return func() {}
}

// feed adds the URLs of the command line and of the list to the frontier.
// A plain list is read as the workers go (at most b.backlog URLs ahead);
// a crawl's seeds and a queue's are added through the de-duplication.
func (b *batch) feed(ctx context.Context, lists []urlList, release func()) error {
	defer release()
	var pending []frontier.Task
	var addErr error
	flush := func() bool {
		if len(pending) == 0 {
			return true
		}
		if b.held != nil && b.o.crawl.maxURLs == 0 {
			// A crawl's seeds fill at most half its queue's bounds,
			// leaving the rest to the links found: a list of millions
			// is read as the crawl goes, not held whole. Not with
			// --max-urls, whose room the seeds take before any link
			// (links found while they waited would take theirs).
			if b.held.WaitRoom(ctx, max(1, queueCap/2), max(1, queueBytesCap/2)) != nil || ctx.Err() != nil {
				return false // interrupted (the frontier may be closed)
			}
		}
		// Counted under addFound's lock: a worker that lists a seed
		// before the seeds are counted would find room that is theirs.
		b.addMu.Lock()
		n, err := b.adder.Add(ctx, pending...)
		b.read.Add(int64(n))
		b.addMu.Unlock()
		if err != nil {
			// The seeds not added were not found done: they are
			// left out of the summary's "already done".
			addErr = err
			return false
		}
		b.skipped.Add(int64(len(pending) - n))
		pending = pending[:0]
		return true
	}
	send := func(raw string) bool {
		if b.list != nil {
			b.read.Add(1)
			if done, again := b.listed(raw); done || again {
				if again {
					b.again.Add(1)
				} else {
					b.skipped.Add(1)
				}
				return ctx.Err() == nil
			}
			if err := b.list.WaitRoom(ctx, b.backlog, b.roomBytes()); err != nil {
				return false
			}
			b.list.Add(ctx, frontier.Task{URL: raw})
			return ctx.Err() == nil
		}
		pending = append(pending, frontier.Task{URL: raw})
		if len(pending) >= seedBatch() {
			return flush()
		}
		return ctx.Err() == nil
	}
	for _, raw := range b.o.urls {
		if !send(raw) {
			return addErr
		}
	}
	err := eachListLine(lists, send, func(list string, n int, start string) bool {
		if ctx.Err() != nil {
			return false // interrupted: the log may be closed already
		}
		b.read.Add(1)
		line := logLine{URL: start + "…", Outcome: "failed", Exit: fetch.KindMalformed.ExitCode()}
		line.Error = longLineErr(list, n).Error()
		if err := b.commit(&line); err != nil {
			if b.stop(err) {
				b.fail(line, err)
			}
			return false
		}
		b.finish(line)
		return ctx.Err() == nil
	})
	if err == nil && addErr == nil && ctx.Err() == nil {
		flush()
		if b.list != nil {
			b.total.CompareAndSwap(-1, b.read.Load()) // standard input: known at its end
		}
	}
	if addErr != nil {
		return addErr
	}
	return err
}

// backlogBytes bounds the URL bytes of the tasks a batch holds ahead of
// its workers, as the backlog bounds their number: a list's lines allow
// URLs of up to 64 KiB, and with -j 1000 a backlog of 4,064 of those,
// read from the list and again set aside by the dispatcher, would hold
// 500 MiB. 8 MiB is 50,000 URLs of common length, far more than the
// backlog's count.
const backlogBytes = 8 << 20

// roomBytes is the bound a plain list's queue waits under: -1 for none.
func (b *batch) roomBytes() int64 {
	if b.backlogLen <= 0 {
		return -1
	}
	return b.backlogLen
}

// seedBatch is how many seeds of a crawl or a queue are added at once: a
// quarter of the crawl's queue bound at most, so that seeds waiting for
// room never fill it.
func seedBatch() int { return max(1, min(256, queueCap/4)) }

// dispatch hands the frontier's tasks to b.o.batch.jobs workers, never
// more than --per-host at once to one host, and returns when the frontier
// is drained or the run is cancelled.
func (b *batch) dispatch(ctx context.Context) {
	jobs := b.o.batch.jobs
	perHost := b.o.batch.perHost
	type item struct {
		l    frontier.Lease
		host string
		u    *fetch.URL // the task's URL parsed, nil when it does not parse
	}
	work := make(chan item)
	freed := make(chan string, jobs)
	var wg sync.WaitGroup
	for range jobs {
		wg.Go(func() {
			for it := range work {
				// the host's place is free once the transfer is (its
				// file published and its line logged after)
				var gone atomic.Bool
				free := func() {
					if !gone.Swap(true) {
						freed <- it.host
					}
				}
				b.work(ctx, it.l, it.host, it.u, free)
				free()
			}
		})
	}
	type next struct {
		l   frontier.Lease
		err error
	}
	leases := make(chan next)
	want := make(chan struct{})
	go func() {
		for range want {
			l, err := b.fr.Next(ctx)
			leases <- next{l, err}
			if err != nil {
				return
			}
		}
	}()
	defer close(want)

	parked := map[string][]item{}
	var order []string // hosts with tasks set aside, served in turn
	active := map[string]int{}
	nParked, inflight := 0, 0
	var parkedLen int64 // the URL bytes of the tasks set aside
	pulling, exhausted := false, false
	cancelled := ctx.Done()
	for {
		if !pulling && !exhausted && nParked < b.backlog && (b.backlogLen <= 0 || parkedLen < b.backlogLen) && ctx.Err() == nil {
			want <- struct{}{}
			pulling = true
		}
		if exhausted && inflight == 0 && (nParked == 0 || ctx.Err() != nil) {
			break
		}
		var send chan item
		var ready item
		at := -1
		if ctx.Err() == nil {
			for i, h := range order {
				if perHost <= 0 || active[h] < perHost {
					ready, at, send = parked[h][0], i, work
					break
				}
			}
		}
		select {
		case send <- ready:
			h := ready.host
			parked[h] = parked[h][1:]
			nParked--
			parkedLen -= int64(len(ready.l.Task().URL))
			active[h]++
			inflight++
			order = append(order[:at], order[at+1:]...)
			if len(parked[h]) == 0 {
				delete(parked, h)
			} else {
				order = append(order, h) // the next host's turn first
			}
		case n := <-leases:
			pulling = false
			if ctx.Err() != nil {
				// Cancelled while waiting: no more pulls, so this
				// answer is the last. A task it brought stays
				// unacknowledged (a rerun fetches it).
				exhausted = true
			}
			if n.err != nil {
				exhausted = true
				if n.err != io.EOF && ctx.Err() == nil && b.stop(n.err) {
					b.noteFailure(fetch.KindOf(n.err).ExitCode())
					b.printErr(fmt.Sprintf("fetch: %v", n.err))
				}
				continue
			}
			h, u := b.hostOf(n.l.Task().URL)
			if len(parked[h]) == 0 {
				order = append(order, h)
			}
			parked[h] = append(parked[h], item{n.l, h, u})
			nParked++
			parkedLen += int64(len(n.l.Task().URL))
		case h := <-freed:
			inflight--
			if active[h]--; active[h] == 0 {
				delete(active, h)
			}
		case <-cancelled:
			cancelled = nil
			if !pulling {
				exhausted = true
			}
		}
	}
	close(work)
	wg.Wait()
}

// hostOf is the key --per-host counts a URL under, and the URL parsed ("",
// nil when it does not parse: it fails at once).
func (b *batch) hostOf(raw string) (string, *fetch.URL) {
	u, err := b.c.Parse(raw)
	if err != nil {
		return "", nil
	}
	return hostKey(b.o.nntpServer, u), u
}

// work fetches one task, queues the links it found (before the log line,
// so that a kill between the two loses none), logs its outcome and only
// then acknowledges it to the frontier. It calls free when the task no
// longer holds a place among its host's transfers. host and u are the
// task's --per-host key and URL as the dispatcher parsed it, or "" and nil.
func (b *batch) work(ctx context.Context, l frontier.Lease, host string, u *fetch.URL, free func()) {
	t := l.Task()
	ack := func(ok bool) {
		if oc, is := l.(frontier.Outcomer); is {
			oc.Outcome(ok)
		}
		// the outcome is on disk: acknowledge it even after Ctrl-C
		actx := context.WithoutCancel(ctx)
		if b.list == nil {
			// a journal's or a shared queue's: Done writes, within a
			// bound (a plain list's is a count in memory, and a timer a
			// URL cost 2 % of a batch of small documents)
			var cancel context.CancelFunc
			actx, cancel = context.WithTimeout(actx, 3*time.Minute)
			defer cancel()
		}
		if err := l.Done(actx, nil); err != nil {
			if errors.Is(err, redisq.ErrLost) {
				b.printErr(fmt.Sprintf("fetch: warning: %s: %v", redactArg(t.URL), err))
				return
			}
			if b.stop(err) {
				b.noteFailure(fetch.KindLocal.ExitCode())
				b.printErr(fmt.Sprintf("fetch: %s: %v", redactArg(t.URL), err))
			}
		}
	}
	if b.list == nil && b.isDone(redactArg(t.URL)) {
		// done by an earlier run (its links were queued before it was
		// logged)
		b.skipped.Add(1)
		ack(true)
		return
	}
	fctx, lost := revoked(ctx, l)
	line, found, interrupted := b.fetchURL(fctx, t, host, u, free)
	if lost() && interrupted {
		// Another worker took the task over while this one stalled
		// (a shared queue's claim timeout): it is that worker's now,
		// and this transfer stopped rather than fetch it twice.
		b.printErr(fmt.Sprintf("fetch: warning: %s: taken over by another worker; stopped here", redactArg(t.URL)))
		return
	}
	if interrupted {
		return // not acknowledged: a rerun (or another worker) fetches it
	}
	full := false
	if line.Outcome != "ok" {
		if b.stopped() {
			// failed after the batch stopped, most likely of what
			// stopped it: left for the rerun, as a transfer cut short
			b.record(line.rec, line.fetchErr)
			return
		}
		// A full disk (or quota) fails every document after this one
		// the same way, each fetched in vain: the batch stops on it.
		// One document larger than the room left fails alone.
		if full = b.outOfRoom(line.fetchErr); full && !b.stop(line.fetchErr) {
			b.record(line.rec, line.fetchErr)
			return // another transfer's stopped it first
		}
	}
	if len(found) > 0 {
		if err := b.addFound(ctx, found); err != nil {
			line.rec.discard() // not logged: its spools go now, not when collected
			if b.stop(err) {
				b.fail(line, err)
			}
			return
		}
	}
	if err := b.commit(&line); err != nil {
		switch {
		case full:
			b.fail(line, line.fetchErr) // what stopped the batch is said, logged or not
		case b.stop(err): // the log can no longer be trusted to resume
			b.fail(line, err)
		}
		return
	}
	b.finish(line)
	if full {
		// Not acknowledged: the disk failed, not the URL. A crawl's
		// journal (or a shared queue) would count it done, and the
		// rerun, with room made, would never fetch it.
		return
	}
	ack(line.Outcome == "ok")
}

// revoked is ctx, cancelled too when l is a frontier.Revocable lease that
// is lost while its task runs. lost, called once the task has run, ends
// the watch and tells whether the lease was lost.
func revoked(ctx context.Context, l frontier.Lease) (context.Context, func() bool) {
	r, ok := l.(frontier.Revocable)
	if !ok {
		return ctx, func() bool { return false }
	}
	ctx, cancel := context.WithCancelCause(ctx)
	var gone atomic.Bool
	go func() {
		select {
		case <-r.Lost():
			gone.Store(true)
			cancel(errTakenOver)
		case <-ctx.Done():
		}
	}()
	return ctx, func() bool {
		cancel(nil) // the watch ends with the task
		return gone.Load()
	}
}

// errTakenOver is the cause of a task's cancellation when another worker
// took it over.
var errTakenOver = errors.New("taken over by another worker")

// maxQueued and maxQueuedBytes bound a crawl's queue in memory, the URLs
// found and not yet fetched, whatever --max-urls says: a server that makes
// up new links without end (a calendar, a trap) would otherwise grow it
// until the process is killed. A task with a URL of common length costs
// 100 to 200 bytes (its text, its place in the queue, its digest in the
// seen set), so a million of them take 100 to 200 MB; listings' lines
// allow URLs of up to 64 KiB, and the bytes bound keeps a server that
// writes such long ones to 128 MiB of their text (2,048 of them). Links
// found while the queue is full are counted, not queued. A queue shared
// through Redis is not in this process's memory and has no such bound.
const (
	maxQueued      = 1_000_000
	maxQueuedBytes = 128 << 20
)

// queueCap and queueBytesCap are the bounds a crawl applies: maxQueued and
// maxQueuedBytes, lowered by tests.
var (
	queueCap      = maxQueued
	queueBytesCap = int64(maxQueuedBytes)
)

// heldQueue is a crawl's frontier whose queue this process holds (a
// Memory, or a Journal over one): the queue's bounds are the process's to
// keep.
type heldQueue interface {
	Len() int
	Size() int64
	WaitRoom(ctx context.Context, n int, size int64) error
}

// queueBound names the queue's bounds for messages.
func queueBound() string {
	return fmt.Sprintf("%d URLs or %s of them", queueCap, sizeText(queueBytesCap))
}

// addFound queues a listing's links, within --max-urls and within the
// queue's bounds (queueCap tasks and queueBytesCap bytes of their URLs
// waiting in the frontier's memory). A shared queue's
// --max-urls is the queue's: the URLs every worker has queued count.
func (b *batch) addFound(ctx context.Context, found []frontier.Task) error {
	if q, ok := b.adder.(*redisq.Queue); ok && b.o.crawl.maxURLs > 0 {
		// This process's count would give each worker a room of its
		// own, and K workers would queue K times the limit. The queue
		// counts the URLs ever queued and takes the room in the same
		// step, so no lock here holds it.
		n, over, err := q.AddWithin(ctx, b.o.crawl.maxURLs, found...)
		b.read.Add(int64(n))
		b.scope.overMax.Add(int64(over))
		if err != nil {
			return queueLinksErr(err)
		}
		return nil
	}
	// The room is read and taken under one lock: workers that finish
	// listings together would each see the same room and each fill it.
	b.addMu.Lock()
	defer b.addMu.Unlock()
	// The room is for URLs not seen before: links the frontier already
	// holds (a menu's link back to its parent) take none of it, so the
	// links are offered a room's worth at a time until the room is full
	// or none is left.
	for len(found) > 0 {
		take := int64(len(found))
		if maxURLs := b.o.crawl.maxURLs; maxURLs > 0 {
			room := max(maxURLs-b.queuedBefore-b.read.Load(), 0)
			if room == 0 {
				b.scope.overMax.Add(int64(b.unseen(found)))
				return nil
			}
			take = min(take, room)
		}
		if b.held != nil {
			room := int64(max(queueCap-b.held.Len(), 0))
			room = min(room, b.fitting(found[:take], queueBytesCap-b.held.Size()))
			if room == 0 {
				// Links to URLs queued already take no room: only
				// new ones are left out (and make the exit status).
				if n := b.unseen(found); n > 0 {
					return b.queueFull(n)
				}
				return nil
			}
			take = min(take, room)
		}
		n, err := b.adder.Add(ctx, found[:take]...)
		b.read.Add(int64(n))
		if err != nil {
			return queueLinksErr(err)
		}
		found = found[take:]
	}
	return nil
}

// fitting is how many of the tasks, from the first, fit in size bytes of
// the queue: the URL of a task the frontier has not seen takes its
// length, one it has seen none (it is not queued again).
func (b *batch) fitting(tasks []frontier.Task, size int64) int64 {
	all := int64(0)
	for _, t := range tasks {
		all += int64(len(t.URL))
	}
	if all <= size {
		return int64(len(tasks))
	}
	for i, t := range tasks {
		if b.unseen(tasks[i:i+1]) == 0 {
			continue
		}
		if size -= int64(len(t.URL)); size < 0 {
			return int64(i)
		}
	}
	return int64(len(tasks))
}

// queueLinksErr is a failure to queue a listing's links (the journal's
// disk, Redis): the run's own, exit 7.
func queueLinksErr(err error) error {
	return &fetch.Error{Kind: fetch.KindLocal, Op: "queue links", Offset: -1, Err: err}
}

// unseen is how many of found the frontier would queue (their URLs new
// to it, each once): the links a full room leaves out. A link to a URL
// already queued takes no room and is not one of them.
func (b *batch) unseen(found []frontier.Task) int {
	if u, ok := b.adder.(interface{ Unseen([]frontier.Task) int }); ok {
		return u.Unseen(found)
	}
	return len(found)
}

// queueFull counts n links left out because the queue is at its bounds. The crawl is then incomplete in a way the user did not ask for
// (unlike --max-urls): it is a policy refusal, as a size bound passed is
// (exit 4), so the summary is printed and a script sees the status, and
// the first time a warning says why.
//
// A journal records them, so that a run resuming the crawl says it is
// incomplete too: the listing that held them is logged as done and is
// not read again.
func (b *batch) queueFull(n int) error {
	b.scope.overQueue.Add(int64(n))
	if j, ok := b.adder.(*frontier.Journal); ok {
		if err := j.Left(n); err != nil {
			return queueLinksErr(err)
		}
	}
	if b.warnedFull.Swap(true) {
		return nil // said already
	}
	b.noteFailure(fetch.KindPolicy.ExitCode())
	if !b.o.quiet {
		b.printErr(fmt.Sprintf("fetch: warning: the crawl's queue is full (its bound: %s): links found while it is full are not queued (the summary counts them)", queueBound()))
	}
	return nil
}

// crawlSummary is what a crawl adds to the batch's summary line.
func (b *batch) crawlSummary() string {
	if b.scope == nil {
		return ""
	}
	s := ""
	for _, c := range []struct {
		n    int64
		what string
	}{
		{b.scope.outOfScope.Load(), "links out of scope"},
		{b.scope.tooDeep.Load(), "beyond --depth " + strconv.Itoa(b.o.crawl.depth)},
		{b.scope.overMax.Load(), "over --max-urls"},
		{b.scope.overQueue.Load(), "over the queue's bound of " + queueBound()},
	} {
		if c.n > 0 {
			s += fmt.Sprintf(", %d %s", c.n, c.what)
		}
	}
	return s
}

// commit writes a task's WARC records and its log line together, one task
// at a time, so that the WARC's records come in the log's order and a kill
// leaves at most the last task's records without their line: a rerun
// cuts those away (warc.Options.KeepTail) before it fetches the task again.
//
// A failure leaves the same: once a task's records or line could not be
// written, no other record goes into the WARC. Records after that task's
// unlogged ones (another task's, a cut-short attempt's metadata, which the
// repair keeps) would hold them in the file, and the rerun would record
// that task a second time.
func (b *batch) commit(line *logLine) (err error) {
	b.commitMu.Lock()
	defer b.commitMu.Unlock()
	if b.commitErr != nil {
		line.rec.discard()
		return b.commitErr
	}
	defer func() {
		if err != nil {
			b.commitErr = err
		}
	}()
	if line.rec != nil {
		err := line.fetchErr
		line.rec.end(b.o, &err)
		if line.fetchErr == nil && err != nil {
			return err // the WARC could not be written: fatal, as the log's failure is
		}
		if b.o.batch.log != "" {
			// The records are on disk before the line that says the
			// task is done: after a crash, a line without its records
			// would keep the task from being fetched, and recorded,
			// again.
			if err := syncWARC(b.o.warc.w); err != nil {
				return outputErr("--warc: sync", b.o.warc.path, err)
			}
		}
	}
	return b.log.write(*line)
}

// syncWARC commits the WARC's records to disk before a log line claims
// them (a variable for tests, which watch the order).
var syncWARC = (*warc.Writer).Sync

// record writes the WARC records of an attempt that gets no log line (one
// tried again, one cut short by Ctrl-C) under commitMu too: written while
// another task commits, they could come between its records and its log
// line, and a rerun, keeping them, would stop there and keep that task's
// unlogged records before them as well.
func (b *batch) record(rec *warcRecord, err error) {
	if rec == nil {
		return
	}
	b.commitMu.Lock()
	defer b.commitMu.Unlock()
	if b.commitErr != nil {
		rec.discard() // as commit does after a failure
		return
	}
	rec.end(b.o, &err)
}
