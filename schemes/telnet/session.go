package telnet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ziutek/telnet"

	"github.com/fetchproject/fetch/fetch"
)

// RemoteEchoer may be implemented by the input given to Run: it is told
// when the server starts or stops echoing what is typed (RFC 857), so a
// terminal can switch between character mode and its own line editing.
type RemoteEchoer interface {
	RemoteEcho(on bool)
}

// WindowSizer may be implemented by the input given to Run: the size is
// sent to servers that ask for it (NAWS, RFC 1073). Without it, 80×24.
type WindowSizer interface {
	WindowSize() (width, height int, ok bool)
}

// session is one telnet connection, started by Run.
type session struct {
	conn *nvtConn
	tc   *telnet.Conn
	cfg  Config
	req  *fetch.Request

	user, pass string // to type at the prompts; "" for none

	running   atomic.Bool
	closing   atomic.Bool
	closeOnce sync.Once
	closeErr  error
}

var _ fetch.Session = (*session)(nil)

// Close ends the connection. It may be called at any time, more than once.
func (s *session) Close() error {
	s.closeOnce.Do(func() {
		s.closing.Store(true)
		s.closeErr = s.conn.Close()
		if errors.Is(s.closeErr, net.ErrClosed) {
			s.closeErr = nil
		}
	})
	return s.closeErr
}

// Run joins in and out to the server: server output (Telnet commands
// removed) goes to out, bytes from in go to the server as NVT text (a
// lone LF becomes CR LF, a lone CR becomes CR NUL, RFC 854). It returns
// nil when the server closes, or when in ends and the server then stays
// quiet for Config.Linger; an error when ctx ends, the connection fails
// or out cannot be written. The connection is closed when Run returns.
//
// A Read on in that blocks is not interrupted: Run returns without it and
// drops what it later reads.
func (s *session) Run(ctx context.Context, in io.Reader, out io.Writer) error {
	if !s.running.CompareAndSwap(false, true) {
		return s.req.Errorf(fetch.KindUsage, "telnet session", "Run called twice")
	}
	if e, ok := in.(RemoteEchoer); ok {
		s.conn.onEcho = e.RemoteEcho
	}
	if w, ok := in.(WindowSizer); ok {
		s.conn.size = w.WindowSize
	}
	defer s.Close()
	stop := context.AfterFunc(ctx, func() { s.Close() })
	defer stop()

	lw := &loginWatch{user: s.user, pass: s.pass}
	gate := make(chan struct{})
	var gateOnce sync.Once
	openGate := func() { gateOnce.Do(func() { close(gate) }) }
	if !lw.holding() {
		openGate()
	}

	srvDone := make(chan error, 1)
	activity := make(chan struct{}, 1)
	// Negotiation is activity too: a server busy with commands is not
	// quiet, however long they take to read (Linger counts quiet).
	s.conn.onRead = func() {
		select {
		case activity <- struct{}{}:
		default:
		}
	}
	go s.pump(out, lw, openGate, activity, srvDone)

	quit := make(chan struct{})
	defer close(quit)
	inData := make(chan []byte)
	inEnd := make(chan error, 1)
	go func() {
		for {
			buf := make([]byte, 4096)
			n, err := in.Read(buf)
			if n > 0 {
				select {
				case inData <- buf[:n]:
				case <-quit:
					return
				}
			}
			if err != nil {
				inEnd <- err
				return
			}
		}
	}()

	// finish closes the connection and waits for the output to stop.
	finish := func(err error) error {
		s.Close()
		<-srvDone
		return err
	}

	var enc nvtEncoder
	var inC <-chan []byte
	var inEndC <-chan error
	gateC := (<-chan struct{})(gate)
	loginTimer := time.NewTimer(s.cfg.LoginWait)
	defer loginTimer.Stop()
	var lingerTimer *time.Timer
	var lingerC <-chan time.Time
	defer func() {
		if lingerTimer != nil {
			lingerTimer.Stop()
		}
	}()
	for {
		select {
		case <-ctx.Done():
			return finish(s.ctxErr(ctx))
		case err := <-srvDone:
			if ctx.Err() != nil {
				return s.ctxErr(ctx) // the close was the context's
			}
			return err
		case <-gateC:
			gateC, inC, inEndC = nil, inData, inEnd
			loginTimer.Stop()
		case <-loginTimer.C:
			s.req.Trace(fetch.DirInfo, "no login prompt for "+s.cfg.LoginWait.String()+": input goes to the server as typed")
			lw.stop()
			openGate()
		case <-activity:
			if gateC != nil {
				loginTimer.Reset(s.cfg.LoginWait)
			}
			if lingerTimer != nil {
				lingerTimer.Reset(s.cfg.Linger)
			}
		case b := <-inC:
			// The person has the session now: the URL's login is not
			// typed into a later prompt (a "Password:" of su, say).
			lw.stop()
			if err := s.conn.writeRaw(enc.encode(b)); err != nil {
				return s.writeFailed(err, srvDone)
			}
		case err := <-inEndC:
			inC, inEndC = nil, nil
			if err != io.EOF {
				return finish(&fetch.Error{Kind: fetch.KindLocal, Op: "read input", URL: s.req.URL.Redacted(), Offset: -1, Err: err})
			}
			lingerTimer = time.NewTimer(s.cfg.Linger)
			lingerC = lingerTimer.C
		case <-lingerC:
			s.req.Trace(fetch.DirInfo, "input ended and the server has been quiet for "+s.cfg.Linger.String()+": closing")
			return finish(nil)
		}
	}
}

// pump copies the server's output to out, typing the login when its
// prompts show, until the connection ends; done gets the outcome.
func (s *session) pump(out io.Writer, lw *loginWatch, openGate func(), activity chan<- struct{}, done chan<- error) {
	buf := make([]byte, 4096)
	var dec nvtDecoder
	// Typed input waits, as a person would, until the host has answered
	// the login and then paused: input sent while a login program still
	// turns echo back on can be flushed by the host's terminal driver.
	var settle *time.Timer
	defer func() {
		if settle != nil {
			settle.Stop()
		}
	}()
	// Options.MaxSize caps the output written, as it caps a document:
	// an endless stream stops there with a policy error.
	var written int64
	max := s.req.Options.MaxSize
	for {
		n, err := s.tc.Read(buf)
		if n > 0 {
			data := dec.decode(buf[:n])
			if max > 0 && written+int64(len(data)) > max {
				out.Write(data[:max-written])
				s.Close()
				done <- &fetch.Error{Kind: fetch.KindPolicy, Op: "read", URL: s.req.URL.Redacted(), Offset: -1,
					Err: fmt.Errorf("%w (the session's output passed %d bytes)", fetch.ErrTooLarge, max)}
				return
			}
			written += int64(len(data))
			if len(data) > 0 {
				if _, werr := out.Write(data); werr != nil {
					s.Close()
					done <- &fetch.Error{Kind: fetch.KindLocal, Op: "write output", URL: s.req.URL.Redacted(), Offset: -1, Err: werr}
					return
				}
			}
			answers := lw.feed(data)
			for _, a := range answers {
				shown := a.value
				if a.secret {
					shown = "****"
				}
				s.req.Trace(fetch.DirSent, shown)
				// As NVT text, like typed input: a 255 in the login is
				// doubled, so it cannot become a command (IAC IP).
				var enc nvtEncoder
				s.conn.writeRaw(enc.encode([]byte(a.value + "\r\n"))) // a failure shows on the next read
			}
			if !lw.holding() && len(answers) == 0 {
				if settle == nil {
					settle = time.AfterFunc(settleDelay, openGate)
				} else {
					settle.Reset(settleDelay)
				}
			}
			select {
			case activity <- struct{}{}:
			default:
			}
		}
		if err != nil {
			done <- s.readErr(err)
			return
		}
	}
}

// settleDelay is how long the host must pause after answering the login
// before typed input goes to it.
const settleDelay = 200 * time.Millisecond

// readErr is the outcome of the read that ended the session.
func (s *session) readErr(err error) error {
	if err == io.EOF || s.closing.Load() {
		return nil // the server closed, or this side did and says why
	}
	if errors.Is(err, syscall.ECONNRESET) {
		// A server that ends the session with input unread resets the
		// connection; the session is over all the same.
		s.req.Trace(fetch.DirInfo, "connection reset by the server")
		return nil
	}
	return &fetch.Error{Kind: fetch.KindNetwork, Op: "read", URL: s.req.URL.Redacted(), Offset: -1, Err: err}
}

// writeFailed decides what a failed write of input means: a server that
// closed (its output then ends cleanly) is not an error.
func (s *session) writeFailed(err error, srvDone <-chan error) error {
	select {
	case rerr := <-srvDone:
		if rerr == nil && !s.closing.Load() {
			return nil
		}
	case <-time.After(time.Second):
	}
	s.Close()
	return fetch.Wrap(fetch.KindNetwork, "write", err)
}

func (s *session) ctxErr(ctx context.Context) error {
	err := ctx.Err()
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w: %w", fetch.ErrTimeout, err)
	}
	return &fetch.Error{Kind: fetch.KindNetwork, Op: "telnet session", URL: s.req.URL.Redacted(), Offset: -1, Err: err}
}

// nvtEncoder turns the caller's input into NVT text (RFC 854): CR LF
// stays, a lone LF becomes CR LF, a lone CR becomes CR NUL, IAC is
// doubled. A CR that ends one read is sent at once as CR NUL (a terminal
// in raw mode sends Enter alone); an LF that then starts the next read
// belongs to it and is dropped.
type nvtEncoder struct {
	crSent bool
}

func (e *nvtEncoder) encode(p []byte) []byte {
	out := make([]byte, 0, len(p)+8)
	for i := 0; i < len(p); i++ {
		b := p[i]
		if i == 0 && e.crSent && b == '\n' {
			e.crSent = false
			continue
		}
		e.crSent = false
		switch b {
		case '\r':
			if i+1 < len(p) && p[i+1] == '\n' {
				out = append(out, '\r', '\n')
				i++
			} else {
				out = append(out, '\r', 0)
				e.crSent = i+1 == len(p)
			}
		case '\n':
			out = append(out, '\r', '\n')
		case cmdIAC:
			out = append(out, cmdIAC, cmdIAC)
		default:
			out = append(out, b)
		}
	}
	return out
}

// nvtDecoder drops the NUL of the server's CR NUL (a bare carriage
// return, RFC 854), across reads.
type nvtDecoder struct {
	lastCR bool
}

func (d *nvtDecoder) decode(p []byte) []byte {
	out := p[:0]
	for _, b := range p {
		if b == 0 && d.lastCR {
			d.lastCR = false
			continue
		}
		d.lastCR = b == '\r'
		out = append(out, b)
	}
	return out
}

// loginWatch recognises the login and password prompts at the end of the
// server's output and says when to type the URL's user and password,
// once each, until it is stopped: when the person's input goes to the
// server, or when no prompt came in time.
type loginWatch struct {
	off        atomic.Bool // stopped: nothing more is typed
	user, pass string      // still to type; "" once typed or when absent
	hadUser    bool
	// awaitPass: the URL gave a user but no password, so the person types
	// it; their input waits for the password prompt, since a login
	// program flushes what arrives before it turns echo off. Waiting for
	// a pause instead made the outcome depend on the host's speed.
	awaitPass bool
	tail      []byte
}

// stop ends the watch: no prompt after it gets the URL's user or password.
func (w *loginWatch) stop() { w.off.Store(true) }

// loginAction is a value to type.
type loginAction struct {
	value  string
	secret bool
}

// maxTail is how much of the output the prompt match looks at.
const maxTail = 64

var (
	userPrompts = [][]byte{[]byte("login:"), []byte("username:")}
	passPrompt  = []byte("password:")
)

// holding reports whether typed input is to wait: the URL's user is not
// typed yet, or its password after a typed user.
func (w *loginWatch) holding() bool {
	if w.off.Load() {
		return false
	}
	return w.user != "" || (w.pass != "" || w.awaitPass) && w.hadUser
}

// feed looks at the output so far and returns what to type now.
func (w *loginWatch) feed(data []byte) []loginAction {
	if w.off.Load() || w.user == "" && w.pass == "" && !w.awaitPass {
		return nil
	}
	w.tail = append(w.tail, bytes.ToLower(data)...)
	if len(w.tail) > maxTail {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-maxTail:]...)
	}
	end := bytes.TrimRight(w.tail, " \t")
	if w.user != "" {
		for _, p := range userPrompts {
			if bytes.HasSuffix(end, p) {
				v := w.user
				w.user, w.hadUser, w.tail = "", true, w.tail[:0]
				w.awaitPass = w.pass == ""
				return []loginAction{{value: v}}
			}
		}
	}
	if w.awaitPass && bytes.HasSuffix(end, passPrompt) {
		w.awaitPass, w.tail = false, w.tail[:0] // the person's input may go now
		return nil
	}
	if w.pass != "" && bytes.HasSuffix(end, passPrompt) {
		v := w.pass
		w.pass, w.tail = "", w.tail[:0]
		return []loginAction{{value: v, secret: true}}
	}
	return nil
}
