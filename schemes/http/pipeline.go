package http

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	nethttp "net/http"
	"net/http/httptrace"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
	"golang.org/x/net/http/httpguts"
)

// pipeline is a RoundTripper that sends GET requests on a keep-alive
// connection without waiting for the answer to the one before (HTTP/1.1
// pipelining, RFC 9112 §9.3.2): up to depth requests are outstanding on a
// connection, and the server answers them in the order sent. For many
// small documents from one server this spares most of the round trips and
// system calls of one request at a time, which is all net/http's
// Transport does (it never pipelines). At depth 1 it sends one request at
// a time as the Transport does, written and read by the request's own
// goroutine (Config.Pipeline says why).
//
// The bytes on the wire are net/http's own: requests are written by
// Request.Write (what its Transport writes) and answers read by
// ReadResponse, under the Transport's bounds (a header of at most
// wire.DefaultMaxLine bytes, within headerWait). What is here is the
// bookkeeping of a connection: whose answer comes next, and what becomes
// of the requests behind an answer that ends the connection (a server's
// keep-alive limit, an idle close): they had no answer, so they are sent
// again on another connection, as GETs may be (RFC 9110 §9.2.2).
//
// Requests it does not pipeline go to fallback: another method or scheme,
// a host that is not plain ASCII, a host whose server has shown it does
// not keep connections open (its first answer on a connection ends it:
// "Connection: close", or HTTP/1.0 without keep-alive), and a request
// that found no answer on maxTries connections.
type pipeline struct {
	depth      int
	dial       func(ctx context.Context, network, addr string) (net.Conn, error)
	fallback   nethttp.RoundTripper
	idle       time.Duration // an unused connection is closed after this
	maxIdle    int           // unused connections kept to one host
	maxTotal   int           // unused connections kept in all (0: no bound)
	headerWait time.Duration // an answer's header must come within this of its turn

	mu     sync.Mutex
	hosts  map[string]*pipeHost
	off    int // hosts not pipelined
	nconns int // connections in the hosts' lists, all together
}

// maxTries bounds the connections one request is sent on before it goes
// to fallback.
const maxTries = 3

type pipeHost struct {
	conns []*pipeConn
	off   bool // not pipelined: everything goes to fallback
	// proven: a pipelined write was answered whole. Until then a
	// connection writes nothing more while such a write is unanswered
	// (see pipeConn.probeEnd).
	proven atomic.Bool
}

// errUnanswered is a request's when its connection ended before its
// answer began (or could not be dialled by another request): it is sent
// again on another connection.
var errUnanswered = errors.New("http: the connection ended before the answer")

func newPipeline(depth int, dial func(context.Context, string, string) (net.Conn, error), fallback nethttp.RoundTripper, idle time.Duration, maxIdle, maxTotal int, headerWait time.Duration) *pipeline {
	return &pipeline{depth: depth, dial: dial, fallback: fallback, idle: idle, maxIdle: maxIdle, maxTotal: maxTotal, headerWait: headerWait, hosts: map[string]*pipeHost{}}
}

// RoundTrip sends r on a pipelined connection to its host.
func (p *pipeline) RoundTrip(r *nethttp.Request) (*nethttp.Response, error) {
	addr, ok := pipeAddr(r)
	if !ok {
		return p.fallback.RoundTrip(r)
	}
	for try := 0; try < maxTries; try++ {
		pc, fresh, afterIdle := p.get(addr)
		if pc == nil {
			break // the host is not pipelined
		}
		resp, err := pc.roundTrip(r, fresh, afterIdle)
		if !errors.Is(err, errUnanswered) {
			return resp, err
		}
		if r.Context().Err() != nil {
			return nil, r.Context().Err()
		}
	}
	return p.fallback.RoundTrip(r)
}

// pipeAddr is the host:port that r is sent to, if r is pipelined at all:
// a GET without a body to an http URL whose host is plain ASCII (net/http
// would dial another name for the others).
func pipeAddr(r *nethttp.Request) (string, bool) {
	if r.Method != nethttp.MethodGet || r.URL.Scheme != "http" || r.Body != nil && r.Body != nethttp.NoBody || r.Close {
		return "", false
	}
	host := r.URL.Hostname()
	if host == "" {
		return "", false
	}
	for i := 0; i < len(host); i++ {
		if host[i] >= 0x80 {
			return "", false
		}
	}
	for k, vs := range r.Header {
		// Request.Write would drop or mend what the Transport refuses
		if !httpguts.ValidHeaderFieldName(k) {
			return "", false
		}
		for _, v := range vs {
			if !httpguts.ValidHeaderFieldValue(v) {
				return "", false
			}
		}
	}
	port := r.URL.Port()
	if port == "" {
		port = "80"
	}
	return net.JoinHostPort(host, port), true
}

// get returns a connection to addr with room for one more request, which
// is counted on it: the least busy one, or a new one (fresh) whose dial
// the caller makes; afterIdle tells that it had answered and then had
// nothing to do. It returns nil when addr is not pipelined.
func (p *pipeline) get(addr string) (pc *pipeConn, fresh, afterIdle bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.hosts[addr]
	if h == nil {
		h = &pipeHost{}
		p.hosts[addr] = h
	}
	if h.off {
		return nil, false, false
	}
	now := time.Now()
	for _, c := range h.conns {
		if c.inflight == 0 && c.ready.Load() && now.Sub(c.lastUsed) > p.idle {
			c.kill()
		}
	}
	p.nconns -= h.prune()
	for {
		pc = nil
		for _, c := range h.conns {
			if !c.dead.Load() && !c.closing.Load() && c.inflight < p.depth && (pc == nil || c.inflight < pc.inflight) {
				pc = c
			}
		}
		if pc == nil || pc.inflight > 0 || !pc.ready.Load() || !pc.stale() {
			break
		}
		pc.kill() // dropped at the next prune
	}
	if pc == nil {
		pc = &pipeConn{p: p, addr: addr, host: h, dialed: make(chan struct{}), ended: make(chan struct{})}
		h.conns = append(h.conns, pc)
		p.nconns++
		fresh = true
	}
	afterIdle = pc.inflight == 0 && pc.answered.Load() > 0
	pc.inflight++
	return pc, fresh, afterIdle
}

// release uncounts a request that is done with pc. A connection left
// with none is closed when it has been unused for the idle time, or at
// once when its host already has maxIdle others unused; past maxTotal
// unused in all, the one unused longest is closed.
func (p *pipeline) release(pc *pipeConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pc.inflight--
	pc.lastUsed = time.Now()
	if pc.inflight > 0 {
		return
	}
	if pc.dead.Load() {
		p.forget(pc)
		return
	}
	if h := p.hosts[pc.addr]; h != nil {
		unused := 0
		for _, c := range h.conns {
			if c.inflight == 0 && !c.dead.Load() {
				unused++
			}
		}
		if unused > p.maxIdle {
			pc.kill()
			p.forget(pc)
			return
		}
	}
	if p.trimLocked() == pc {
		return
	}
	if pc.idleTimer == nil {
		pc.idleTimer = time.AfterFunc(p.idle, func() { p.expire(pc) })
	} else {
		pc.idleTimer.Reset(p.idle)
	}
}

// trimLocked closes and forgets the connection unused longest when more
// than maxTotal are unused, whatever their hosts, and returns it (nil when
// none is closed): a list naming many servers would otherwise keep one
// connection to each for the idle time. The hosts are walked only when
// there are more than maxTotal connections in all, and then the walk is
// over about maxTotal unused ones, those in use and the hosts not
// pipelined.
func (p *pipeline) trimLocked() *pipeConn {
	if p.maxTotal <= 0 || p.nconns <= p.maxTotal {
		return nil
	}
	var oldest *pipeConn
	unused := 0
	for _, h := range p.hosts {
		for _, c := range h.conns {
			if c.inflight == 0 && !c.dead.Load() {
				unused++
				if oldest == nil || c.lastUsed.Before(oldest.lastUsed) {
					oldest = c
				}
			}
		}
	}
	if unused <= p.maxTotal {
		return nil
	}
	if oldest.idleTimer != nil {
		oldest.idleTimer.Stop()
	}
	oldest.kill()
	p.forget(oldest)
	return oldest
}

// expire closes pc if it has been unused for the idle time, and forgets
// it.
func (p *pipeline) expire(pc *pipeConn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if pc.inflight == 0 && time.Since(pc.lastUsed) >= p.idle {
		pc.kill()
		p.forget(pc)
	}
}

// forget drops pc, dead and unused, from its host, and the host once it
// has no connection left and is pipelined (a host that is not stays
// known as such, up to maxOffHosts of them).
func (p *pipeline) forget(pc *pipeConn) {
	h := p.hosts[pc.addr]
	if h == nil {
		return
	}
	if i := slices.Index(h.conns, pc); i >= 0 {
		h.conns = slices.Delete(h.conns, i, i+1)
		p.nconns--
	}
	if len(h.conns) == 0 && !h.off {
		delete(p.hosts, pc.addr)
	}
}

// maxOffHosts bounds the hosts remembered as not pipelined: past it, those
// with no connection are forgotten (and tried again when next asked).
const maxOffHosts = 4096

// prune drops h's dead connections that no request holds, and reports
// how many it dropped.
func (h *pipeHost) prune() int {
	kept := h.conns[:0]
	for _, c := range h.conns {
		if !c.dead.Load() || c.inflight > 0 {
			kept = append(kept, c)
		}
	}
	dropped := len(h.conns) - len(kept)
	clear(h.conns[len(kept):])
	h.conns = kept
	return dropped
}

// sweep prunes every host and drops those left with no connection that
// are pipelined (a host that is not stays known as such).
func (p *pipeline) sweep() {
	for addr, h := range p.hosts {
		if p.nconns -= h.prune(); len(h.conns) == 0 && !h.off {
			delete(p.hosts, addr)
		}
	}
}

// errSilent is readAnswer's when no byte of the answer came in time.
var errSilent = errors.New("http: no answer")

// turnOff stops pipelining to addr: its server ended a connection after
// its first answer, or left a request written behind another unanswered.
func (p *pipeline) turnOff(addr string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	h := p.hosts[addr]
	if h == nil {
		h = &pipeHost{} // its last connection has just been forgotten
		p.hosts[addr] = h
	}
	if h.off {
		return
	}
	h.off = true
	if p.off++; p.off > maxOffHosts {
		for a, o := range p.hosts {
			if o.off && len(o.conns) == 0 {
				delete(p.hosts, a)
				p.off--
			}
		}
	}
}

// closeIdle closes the connections with no request on them.
func (p *pipeline) closeIdle() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.hosts {
		for _, c := range h.conns {
			if c.inflight == 0 && c.ready.Load() {
				c.kill()
			}
		}
	}
	p.sweep()
}

// A pipeConn is one connection and the requests sent on it, answered in
// turn.
type pipeConn struct {
	p    *pipeline
	addr string
	host *pipeHost

	dialed     chan struct{} // closed when the dial is over
	ready      atomic.Bool   // dialled, c and br are set
	dialErr    error         // set before dialed is closed
	dialCancel bool          // the dial ended with its request's context
	c          net.Conn
	lim        *io.LimitedReader // bounds a header, as the Transport's MaxResponseHeaderBytes does
	br         *bufio.Reader

	// under p.mu
	inflight  int // requests counted on the connection
	lastUsed  time.Time
	idleTimer *time.Timer // closes it once unused for the idle time

	answered atomic.Int64  // answers read
	dead     atomic.Bool   // closed, or being closed
	closing  atomic.Bool   // the server ends it after the answer being read
	timedOut atomic.Bool   // killed by an answer's header wait
	ended    chan struct{} // closed once dead or closing: no answer comes to the requests waiting
	endOnce  sync.Once

	// The sending side: each request joins the queue of turns and the
	// bytes to write in one step, so that turns are in the order of the
	// bytes on the wire.
	wmu        sync.Mutex
	tail       chan struct{} // closed when the last request queued has had its turn
	pending    bytes.Buffer  // requests not written yet
	pendingLen int           // pending.Len() of the requests whole in it
	spare      bytes.Buffer
	queued     uint64 // requests queued, the last one's seq
	written    uint64 // the seq of the last request written
	// probeEnd is the last seq of a pipelined write (several requests,
	// or one behind a request unanswered) made while the host was not
	// proven: until it is answered nothing more is written. A server that drops the requests it read ahead (reading
	// one request a read, say) then leaves them unanswered, which turns
	// pipelining off, rather than answering a later request in the
	// turn of a dropped one, which would give that request another
	// document.
	probeEnd uint64
	flushing bool  // a sender is writing
	writeErr error // the write that ended the connection failed so; set once, under wmu
}

// kill closes the connection; the requests whose answers have not begun
// are sent again by their callers.
func (pc *pipeConn) kill() {
	if pc.dead.Swap(true) {
		return
	}
	pc.end()
	if pc.ready.Load() {
		pc.c.Close()
	}
}

// end tells the requests waiting for their turn that none comes.
func (pc *pipeConn) end() { pc.endOnce.Do(func() { close(pc.ended) }) }

func (pc *pipeConn) connect(ctx context.Context) error {
	c, err := pc.p.dial(ctx, "tcp", pc.addr)
	if err != nil {
		pc.dialErr, pc.dialCancel = err, ctx.Err() != nil
		pc.dead.Store(true)
		pc.end()
		close(pc.dialed)
		return err
	}
	pc.c = c
	pc.lim = &io.LimitedReader{R: c, N: math.MaxInt64}
	pc.br = bufio.NewReader(pc.lim) // net/http's size, which bounds a trailer as its Transport does
	pc.ready.Store(true)
	if pc.dead.Load() {
		c.Close() // closed (CloseIdle) while dialling
	}
	close(pc.dialed)
	return nil
}

// roundTrip sends r on pc and reads its answer in its turn. An answer it
// cannot have (pc ended before it began) is errUnanswered.
func (pc *pipeConn) roundTrip(r *nethttp.Request, fresh, afterIdle bool) (resp *nethttp.Response, err error) {
	ctx := r.Context()
	queued := false
	defer func() {
		if !queued {
			pc.p.release(pc)
		}
	}()
	if fresh {
		if err := pc.connect(ctx); err != nil {
			return nil, err
		}
	} else {
		select {
		case <-pc.dialed:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if pc.dialErr != nil {
			return nil, pc.sharedDialErr(ctx)
		}
	}
	if s, ok := ctx.Value(sentKey{}).(*sentTrace); ok {
		s.route(r, nil) // as the Transport's Proxy function does: no gateway
	}
	if t := httptrace.ContextClientTrace(ctx); t != nil && t.GotConn != nil {
		t.GotConn(httptrace.GotConnInfo{Conn: pc.c, Reused: !fresh})
	}

	seq, behind, prev, mine, err := pc.send(r)
	if err != nil {
		close(mine)
		return nil, err
	}
	queued = true
	// leave ends the request's place in the queue with no answer read;
	// finish ends its turn, the connection closed unless the answer was
	// read whole and the server keeps it open.
	leave := func() {
		close(mine)
		pc.p.release(pc)
	}
	var stop func() bool
	finish := func(ok bool) {
		if stop != nil && !stop() {
			pc.kill() // the cancellation came: the connection ends before the next turn
		}
		if !ok || pc.closing.Load() || pc.unsolicited(seq) {
			pc.kill()
		}
		leave()
	}
	select {
	case <-prev:
	case <-pc.ended:
		// The answer being read ends the connection (or it has ended):
		// none comes to this request, which goes elsewhere at once.
		leave()
		return nil, pc.unanswered(seq)
	case <-ctx.Done():
		// The answers before this one are for other requests: this
		// request's is not read, and the connection ends in its turn.
		go func() {
			select {
			case <-prev:
				if pc.dead.Load() || pc.closing.Load() {
					leave() // as below
				} else {
					finish(false)
				}
			case <-pc.ended:
				leave()
			}
		}()
		return nil, ctx.Err()
	}
	if pc.dead.Load() || pc.closing.Load() {
		// The turn came from a request that left a closing connection,
		// whose last answer may still be being read: that reader closes
		// the connection, not this request.
		leave()
		return nil, pc.unanswered(seq)
	}
	// In its turn, cancelling the request ends the connection (the
	// requests behind it are sent again elsewhere).
	stop = context.AfterFunc(ctx, pc.kill)
	if pc.lead(seq) {
		behind = false // written in its own turn, with nothing before it
	}
	resp, err = pc.readAnswer(r)
	var ue *unansweredError
	if errors.As(err, &ue) && seq == 1 {
		// The first request on a new connection: the server read it (or
		// could have) and ended the connection, no idle connection
		// closing as the request came. net/http's Transport does not
		// send such a request again, and neither is it here: the end
		// is the request's error (the caller's --retry decides).
		finish(false)
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		return nil, ue.err
	}
	if err != nil {
		if errors.Is(err, errSilent) && behind && ctx.Err() == nil {
			// Written behind another request and never answered: a
			// server that drops pipelined requests. It is asked one
			// request at a time from now on (turned off before the
			// requests behind learn that the connection ended), this
			// one again.
			pc.p.turnOff(pc.addr)
			finish(false)
			return nil, errUnanswered
		}
		finish(false)
		if cerr := ctx.Err(); cerr != nil {
			return nil, cerr
		}
		var se *silentError
		if errors.As(err, &se) {
			err = se.err
		} else if errors.Is(err, errSilent) {
			err = fmt.Errorf("%w: no answer within %v", fetch.ErrTimeout, pc.p.headerWait)
		}
		return nil, err
	}
	if afterIdle && resp.StatusCode == nethttp.StatusRequestTimeout {
		// A server that timed out the idle connection may have written
		// its 408 before the request came (net/http's Transport drops
		// such a connection too): sent again on another.
		finish(false)
		return nil, errUnanswered
	}
	if resp.Close || resp.StatusCode < 200 {
		// The server ends the connection after this answer (or speaks
		// another protocol on it, 101): the requests behind it wait
		// for none, and none are sent after it.
		if pc.answered.Load() == 0 {
			pc.p.turnOff(pc.addr) // before the requests behind go elsewhere
		}
		pc.closing.Store(true)
		pc.end()
	}
	pc.answered.Add(1)
	pc.answeredWhole(seq)
	if resp.Body == nethttp.NoBody {
		finish(true)
		return resp, nil
	}
	resp.Body = &pipeBody{rc: resp.Body, finish: finish}
	return resp, nil
}

// stale tells whether pc, with no request on it, has something to read:
// bytes its server sent while it was idle (a 400 as the server times it
// out, say), or its end. The next request is not sent on it: what is
// there would be read as its answer. net/http's Transport, whose reader
// waits on every idle connection, drops such a connection too.
func (pc *pipeConn) stale() bool {
	if pc.dead.Load() || pc.answered.Load() == 0 {
		return false
	}
	if pc.br.Buffered() > 0 {
		return true
	}
	c := pc.c
	if tc, ok := c.(*tracedConn); ok {
		c = tc.Conn
	}
	return fetch.Readable(c)
}

// unsolicited tells whether bytes have come after request seq's answer,
// read whole, with no request written behind it: they answer no request
// (a body longer than its Content-Length, a stray CRLF), and the
// connection is not used again, as net/http's Transport drops it.
func (pc *pipeConn) unsolicited(seq uint64) bool {
	pc.wmu.Lock()
	defer pc.wmu.Unlock()
	return pc.written == seq && pc.br.Buffered() > 0
}

// unanswered is the error of request seq, which has no answer on the
// ended connection: errUnanswered (it is sent again elsewhere), but for
// the connection's first request when writing it failed, which is that
// request's own error (see unansweredError).
func (pc *pipeConn) unanswered(seq uint64) error {
	if seq != 1 {
		return errUnanswered
	}
	pc.wmu.Lock()
	defer pc.wmu.Unlock()
	if pc.writeErr != nil {
		return pc.writeErr
	}
	return errUnanswered
}

// sharedDialErr is the error of a request that waited for another's dial
// of pc, which failed: that dial's error, naming this request's URL, or
// errUnanswered (dial again) when the dial ended only because the request
// that made it was cancelled.
func (pc *pipeConn) sharedDialErr(ctx context.Context) error {
	if pc.dialCancel {
		return errUnanswered
	}
	var fe *fetch.Error
	if errors.As(pc.dialErr, &fe) {
		e := *fe
		if req := requestOf(ctx); req != nil {
			e.URL = req.URL.Redacted()
		}
		return &e
	}
	return pc.dialErr
}

// send queues r's bytes and its turn, and returns r's place on the
// connection: seq, whether a request before it is still unanswered
// (behind), prev, closed when the answer before r's has been read, and
// mine, which ends r's own turn. Until the connection's first answer has
// shown that the server keeps it open, only its first request is
// written (a server that closes at once could lose that answer to the
// requests it never read). After that, a request's bytes are written at
// once when the server has no request of the connection to answer, and
// otherwise wait to be written with those queued after them by the first
// request whose turn comes with few requests written behind it (lead):
// one write for several requests, while the server still has work.
func (pc *pipeConn) send(r *nethttp.Request) (seq uint64, behind bool, prev, mine chan struct{}, err error) {
	mine = make(chan struct{})
	pc.wmu.Lock()
	defer pc.wmu.Unlock()
	if pc.dead.Load() || pc.closing.Load() {
		return 0, false, nil, mine, errUnanswered
	}
	if err := r.Write(&pc.pending); err != nil {
		pc.pending.Truncate(pc.pendingLen)
		return 0, false, nil, mine, err
	}
	pc.pendingLen = pc.pending.Len()
	answered := uint64(pc.answered.Load())
	behind = pc.queued > answered
	pc.queued++
	seq = pc.queued
	prev = pc.tail
	if prev == nil {
		prev = make(chan struct{})
		close(prev)
	}
	pc.tail = mine
	if pc.written == answered {
		pc.flushLocked()
	}
	return seq, behind, prev, mine, nil
}

// lead writes, in the turn of request seq, the requests queued but not
// written: when seq's own is among them, or when fewer than half the
// pipeline's depth are written behind it (the server would soon have
// nothing to do) on a connection the server keeps open. own tells that
// seq's own bytes were among them.
func (pc *pipeConn) lead(seq uint64) (own bool) {
	pc.wmu.Lock()
	defer pc.wmu.Unlock()
	own = pc.written < seq
	busy := pc.answered.Load() > 0 && pc.written-seq < uint64(max(1, pc.p.depth/2)) &&
		(pc.host.proven.Load() || pc.probeEnd < seq)
	if pc.pendingLen > 0 && (own || busy) {
		pc.flushLocked()
	}
	return own
}

// answeredWhole records that request seq's answer was read: the end of
// a pipelined write proves the host.
func (pc *pipeConn) answeredWhole(seq uint64) {
	if pc.host.proven.Load() {
		return
	}
	pc.wmu.Lock()
	defer pc.wmu.Unlock()
	if pc.probeEnd != 0 && seq >= pc.probeEnd {
		pc.host.proven.Store(true)
	}
}

// flushLocked writes what is pending, with pc.wmu held; requests queued
// while it writes are written after, by the same call, once the server
// has answered one request on the connection. A failed write ends the
// connection: every request queued finds it dead in its turn.
func (pc *pipeConn) flushLocked() {
	if pc.flushing {
		return // the sender writing now writes these too
	}
	pc.flushing = true
	for pc.pendingLen > 0 {
		proven := pc.host.proven.Load()
		if !proven && (pc.queued-pc.written > 1 || pc.written > uint64(pc.answered.Load())) {
			// several requests, or one behind a request unanswered:
			// either is pipelined
			pc.probeEnd = pc.queued
		}
		pc.pending, pc.spare = pc.spare, pc.pending
		pc.pendingLen = 0
		pc.written = pc.queued
		pc.wmu.Unlock()
		_, werr := pc.c.Write(pc.spare.Bytes())
		pc.spare.Reset()
		pc.wmu.Lock()
		if werr != nil {
			pc.writeErr = werr
			pc.pending.Reset()
			pc.pendingLen = 0
			pc.kill()
			break
		}
		if pc.answered.Load() == 0 || !proven {
			// not kept open yet, or not proven: the rest waits for
			// their turn (or a lead)
			break
		}
	}
	pc.flushing = false
}

// readAnswer reads the answer to r: interim answers (1xx but 101) are
// skipped, as net/http's Transport skips them, at most five, all within
// one header's bounds. errSilent is no byte of an answer within the
// header wait or the idle time.
func (pc *pipeConn) readAnswer(r *nethttp.Request) (*nethttp.Response, error) {
	wait := time.AfterFunc(pc.p.headerWait, func() {
		pc.timedOut.Store(true)
		pc.kill()
	})
	pc.lim.N = wire.DefaultMaxLine
	defer func() { pc.lim.N = math.MaxInt64 }()
	for interim := 0; ; interim++ {
		if pc.br.Buffered() == 0 {
			// Nothing of the answer yet: a connection that ends here
			// leaves r unanswered.
			if _, err := pc.br.Peek(1); err != nil {
				wait.Stop()
				switch {
				case pc.lim.N <= 0:
					return nil, headerTooLong("GET") // the interim answers took the bound
				case interim == 0 && pc.timedOut.Load():
					return nil, errSilent
				case interim == 0 && isTimeout(err):
					return nil, &silentError{err} // the idle timeout's, as the Transport's
				case pc.timedOut.Load():
					return nil, fmt.Errorf("%w: the header did not come within %v", fetch.ErrTimeout, pc.p.headerWait)
				case interim == 0 && isEnded(err):
					return nil, &unansweredError{err}
				}
				return nil, err
			}
		}
		resp, err := nethttp.ReadResponse(pc.br, r)
		switch {
		case err != nil && pc.lim.N <= 0:
			wait.Stop()
			return nil, headerTooLong("GET")
		case err != nil && pc.timedOut.Load():
			return nil, fmt.Errorf("%w: the header did not come within %v", fetch.ErrTimeout, pc.p.headerWait)
		case err != nil:
			wait.Stop()
			return nil, err
		case resp.StatusCode >= 100 && resp.StatusCode < 200 && resp.StatusCode != nethttp.StatusSwitchingProtocols:
			if interim < 5 {
				continue
			}
			wait.Stop()
			return nil, &fetch.Error{Kind: fetch.KindServer, Op: "GET", Offset: -1, Protocol: "http", Code: resp.StatusCode,
				Err: errors.New("more than five interim answers")}
		}
		if !wait.Stop() {
			// the header came as the wait ended, which has closed the
			// connection under the body
			return nil, fmt.Errorf("%w: the header did not come within %v", fetch.ErrTimeout, pc.p.headerWait)
		}
		return resp, nil
	}
}

// silentError is readAnswer's when a read waited past the idle timeout
// before any byte of the answer: it is errSilent, and err is the read's.
type silentError struct{ err error }

func (e *silentError) Error() string        { return errSilent.Error() + ": " + e.err.Error() }
func (e *silentError) Is(target error) bool { return target == errSilent }

// unansweredError is readAnswer's when the connection ended before any
// byte of the answer: it is errUnanswered, and err is how it ended.
type unansweredError struct{ err error }

func (e *unansweredError) Error() string        { return errUnanswered.Error() + ": " + e.err.Error() }
func (e *unansweredError) Is(target error) bool { return target == errUnanswered }

// isTimeout tells whether err is a read that waited past its deadline.
func isTimeout(err error) bool {
	var ne net.Error
	return errors.Is(err, fetch.ErrTimeout) || errors.As(err, &ne) && ne.Timeout()
}

// isEnded tells whether err is the end of a connection the server closed.
func isEnded(err error) bool {
	if errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) {
		return true
	}
	var op *net.OpError
	return errors.As(err, &op) && !op.Timeout()
}

// pipeBody is an answer's body: the next answer on the connection is read
// once it has been read to its end, and a body closed before that ends
// the connection (what was left of it would come first). A body read to
// its last byte but not to io.EOF counts as unfinished: a reader learns
// that a body is whole from io.EOF, as io.Copy does.
type pipeBody struct {
	rc     io.ReadCloser
	finish func(ok bool)
	once   sync.Once
}

func (b *pipeBody) Read(p []byte) (int, error) {
	n, err := b.rc.Read(p)
	if err != nil {
		ok := err == io.EOF
		b.once.Do(func() { b.finish(ok) })
	}
	return n, err
}

func (b *pipeBody) Close() error {
	b.once.Do(func() { b.finish(false) })
	return b.rc.Close()
}
