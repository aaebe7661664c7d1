package fetchtest

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// Server is a fake server on 127.0.0.1:0 that hands each connection to a
// handler, records every byte clients send, and closes everything (and
// waits for its goroutines) on Close.
type Server struct {
	// Addr is "127.0.0.1:port".
	Addr string

	ln      net.Listener
	handler func(*Peer)
	wg      sync.WaitGroup

	mu       sync.Mutex
	conns    []io.Closer
	peers    []*Peer
	received bytes.Buffer
	accepted int
	closed   bool
}

// maxRecorded bounds what Server keeps of the bytes clients send.
const maxRecorded = 1 << 20

// NewServer starts a fake server; t's cleanup closes it.
func NewServer(t testing.TB, handler func(p *Peer)) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("fake server: %v", err)
	}
	s := &Server{Addr: ln.Addr().String(), ln: ln, handler: handler}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(s.Close)
	return s
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		if !s.track(c) {
			c.Close()
			return
		}
		// Counted and listed at once: a check that has seen the count
		// (WaitAccepted) must find the peer too (WaitGone), or it reads
		// Received before the handler has read what the client sent.
		p := newPeer(s, c)
		s.mu.Lock()
		s.accepted++
		s.peers = append(s.peers, p)
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			if s.handler != nil {
				s.handler(p)
			}
		}()
	}
}

// track registers c to be closed by Close; false when already closed.
func (s *Server) track(c io.Closer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns = append(s.conns, c)
	return true
}

// Port is the port the server listens on.
func (s *Server) Port() int {
	return s.ln.Addr().(*net.TCPAddr).Port
}

// Accepted is the number of connections accepted so far.
func (s *Server) Accepted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.accepted
}

// Received is every byte clients have sent, in arrival order (the first
// MiB).
func (s *Server) Received() []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]byte(nil), s.received.Bytes()...)
}

func (s *Server) record(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if room := maxRecorded - s.received.Len(); room > 0 {
		s.received.Write(p[:min(len(p), room)])
	}
}

// WaitGone waits up to d for every client to have closed its
// connection (as far as the handlers have read), so that Received holds
// all they sent.
func (s *Server) WaitGone(d time.Duration) {
	s.mu.Lock()
	peers := append([]*Peer(nil), s.peers...)
	s.mu.Unlock()
	timeout := time.After(d)
	for _, p := range peers {
		select {
		case <-p.gone:
		case <-timeout:
			return
		}
	}
}

// WaitAccepted waits (at most d) until n connections have been accepted.
func (s *Server) WaitAccepted(n int, d time.Duration) {
	deadline := time.Now().Add(d)
	for s.Accepted() < n && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
}

// Close stops the server, closes every connection and listener it made
// and waits for its handlers to return.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	conns := s.conns
	s.conns = nil
	s.mu.Unlock()
	s.ln.Close()
	for _, c := range conns {
		c.Close()
	}
	s.wg.Wait()
}

// Peer is the server's side of one client connection.
type Peer struct {
	Conn net.Conn
	srv  *Server
	r    *bufio.Reader

	goneOnce sync.Once
	gone     chan struct{}
}

func newPeer(s *Server, c net.Conn) *Peer {
	p := &Peer{Conn: c, srv: s, gone: make(chan struct{})}
	p.r = bufio.NewReaderSize(recordReader{c, s}, 64<<10)
	return p
}

type recordReader struct {
	r io.Reader
	s *Server
}

func (r recordReader) Read(b []byte) (int, error) {
	n, err := r.r.Read(b)
	if n > 0 {
		r.s.record(b[:n])
	}
	return n, err
}

// Addr is the server's "127.0.0.1:port", for replies that name it.
func (p *Peer) Addr() string { return p.srv.Addr }

// Port is the server's port.
func (p *Peer) Port() int { return p.srv.Port() }

// maxPeerLine bounds a line the fake reads from the client.
const maxPeerLine = 1 << 20

// ReadLine reads one line from the client, without its CR LF.
func (p *Peer) ReadLine() (string, error) {
	var b []byte
	for {
		chunk, err := p.r.ReadSlice('\n')
		b = append(b, chunk...)
		if err == bufio.ErrBufferFull && len(b) < maxPeerLine {
			continue
		}
		if err != nil {
			p.markGone()
			if err == bufio.ErrBufferFull {
				err = errors.New("fake server: client line too long")
			}
			return string(b), err
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
}

// Reader is the buffered stream from the client, for adapters that read
// more than lines (an SMTP DATA block).
func (p *Peer) Reader() *bufio.Reader { return p.r }

// WriteLine sends s and CR LF.
func (p *Peer) WriteLine(s string) error {
	_, err := io.WriteString(p.Conn, s+"\r\n")
	return err
}

// Write sends b as is.
func (p *Peer) Write(b []byte) (int, error) { return p.Conn.Write(b) }

// Hold reads and discards what the client sends until it closes the
// connection (or the server is closed), saying nothing.
func (p *Peer) Hold() {
	io.Copy(io.Discard, p.r)
	p.markGone()
}

// Drain reads and discards in the background, for a handler that only
// writes; the client's close is seen by Gone.
func (p *Peer) Drain() {
	p.srv.wg.Add(1)
	go func() {
		defer p.srv.wg.Done()
		p.Hold()
	}()
}

// Gone is closed once a read from the client has seen its end.
func (p *Peer) Gone() <-chan struct{} { return p.gone }

func (p *Peer) markGone() { p.goneOnce.Do(func() { close(p.gone) }) }

// Close closes the connection.
func (p *Peer) Close() error { return p.Conn.Close() }

// Listen opens a second listener on 127.0.0.1:0 (an FTP data port) that
// the server closes with everything else. Accept on it gives up after
// five seconds.
func (p *Peer) Listen() (*DataListener, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if !p.srv.track(ln) {
		ln.Close()
		return nil, net.ErrClosed
	}
	return &DataListener{ln: ln.(*net.TCPListener), srv: p.srv}, nil
}

// DataListener is a secondary listener of the fake server.
type DataListener struct {
	ln  *net.TCPListener
	srv *Server
}

// Port is the listener's port.
func (d *DataListener) Port() int { return d.ln.Addr().(*net.TCPAddr).Port }

// PortString is Port in decimal.
func (d *DataListener) PortString() string { return strconv.Itoa(d.Port()) }

// Accept waits up to five seconds for one connection and closes the
// listener.
func (d *DataListener) Accept() (net.Conn, error) {
	defer d.ln.Close()
	d.ln.SetDeadline(time.Now().Add(5 * time.Second))
	c, err := d.ln.Accept()
	if err != nil {
		return nil, err
	}
	if !d.srv.track(c) {
		c.Close()
		return nil, net.ErrClosed
	}
	return c, nil
}

// Close closes the listener.
func (d *DataListener) Close() error { return d.ln.Close() }
