package ftp

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

// dataConn is a data connection being set up: passive ones are dialed
// before the transfer command, active ones accepted after its 1xx reply.
type dataConn interface {
	// ready waits until the transfer command may be sent: a passive
	// connection is made (or failed) by then.
	ready() error
	// conn returns the connection once the server has said it is coming.
	conn(ctx context.Context) (net.Conn, error)
	close()
}

// openData prepares the data connection for the next transfer command.
func (s *session) openData(ctx context.Context) (dataConn, error) {
	dc, err := s.startData(ctx, false)
	if err != nil {
		return nil, err
	}
	if err := dc.ready(); err != nil {
		dc.close()
		return nil, err
	}
	return dc, nil
}

// startData is openData that, with overlap, returns while a passive
// connection is still being dialled, so that the commands the caller
// sends meanwhile (RETR's SIZE, MDTM and REST) overlap the dial's round
// trip, as in curl; the caller calls ready before the transfer command.
// Without overlap the dial is made here: a goroutine would only add a
// hand-off when nothing is sent before the transfer command.
func (s *session) startData(ctx context.Context, overlap bool) (dataConn, error) {
	if s.d.cfg.Active {
		return s.active(ctx)
	}
	p, err := s.passive(ctx, overlap)
	if err != nil {
		return nil, err // not a nil *passiveConn in a non-nil dataConn
	}
	return p, nil
}

// passiveConn is a passive data connection, dialled in the background
// from the moment the server names its port.
type passiveConn struct {
	done chan struct{} // closed when the dial has ended
	c    net.Conn
	err  error
}

func (p *passiveConn) ready() error { <-p.done; return p.err }

func (p *passiveConn) conn(context.Context) (net.Conn, error) { <-p.done; return p.c, p.err }

// close closes the connection, at once or, when it is still being dialled
// (a command before the transfer failed), as soon as the dial ends: within
// the dial timeout, or when the request's context does.
func (p *passiveConn) close() {
	closeMade := func() {
		<-p.done
		if p.c != nil {
			p.c.Close()
		}
	}
	select {
	case <-p.done:
		closeMade()
	default:
		go closeMade()
	}
}

// passive asks for a passive data port, EPSV first (RFC 2428) and PASV
// when EPSV is disabled or refused, and dials it (in the background with
// overlap).
func (s *session) passive(ctx context.Context, overlap bool) (*passiveConn, error) {
	if !s.noEPSV {
		r, err := s.cmd("EPSV", wire.Lit("EPSV"))
		if err != nil {
			return nil, err
		}
		if r.Code == 229 {
			port, err := parseEPSV(r.Text())
			if err != nil {
				return nil, s.badData("EPSV", r, err)
			}
			return s.dialData(ctx, port, overlap)
		}
		if r.Code == 421 {
			// Closing (a pooled connection the server gave up): not a
			// verdict on EPSV.
			return nil, s.refused("EPSV", r, nil)
		}
		// Refused for good (500, 502...): this server gets PASV from
		// now on. A 4xx is a transient failure (RFC 959 §4.2): PASV is
		// tried for this request only, and the next asks EPSV again
		// (on IPv6, PASV is never granted).
		if r.Class() != 4 {
			s.noEPSV = true
		}
	}
	r, err := s.cmd("PASV", wire.Lit("PASV"))
	if err != nil {
		return nil, err
	}
	if r.Code != 227 {
		return nil, s.refused("PASV", r, nil)
	}
	ip, port, err := parsePASV(r.Text())
	if err != nil {
		return nil, s.badData("PASV", r, err)
	}
	if ip != s.dataHost {
		s.req.Trace(fetch.DirInfo, fmt.Sprintf("ignoring the address %s in the PASV reply: data goes to the control peer %s", ip, s.dataHost))
	}
	return s.dialData(ctx, port, overlap)
}

func (s *session) badData(op string, r reply, err error) *fetch.Error {
	return &fetch.Error{Kind: fetch.KindServer, Op: op, Offset: -1,
		Code: r.Code, Reply: clip(r.Text()), Err: err}
}

// dialData connects to a passive data port on the control peer, in the
// background with overlap, after the port policy has accepted it: a
// server must not make us talk to port 25 or another reserved port
// (RFC 1738 §6).
func (s *session) dialData(ctx context.Context, port int, overlap bool) (*passiveConn, error) {
	if err := s.checkDataPort(port); err != nil {
		return nil, err
	}
	addr := net.JoinHostPort(s.dataHost, strconv.Itoa(port))
	// The trace is the conversation in order, and a Tracer need not be
	// safe for concurrent use: the line is written here, and the dial's
	// goroutine works on a copy of the request without the Tracer.
	s.req.Trace(fetch.DirInfo, "connecting to "+addr)
	// Nor does it read the caller's URL (Do passes it on without a copy),
	// since it may outlive the request when a command before RETR fails:
	// an error without a URL gets the request's from fetch.Client.Do.
	quiet := *s.req
	quiet.Options.Tracer = nil
	quiet.URL = nil
	p := &passiveConn{done: make(chan struct{})}
	if !overlap {
		p.c, p.err = quiet.DialTransfer(ctx, addr)
		close(p.done)
		return p, nil
	}
	go func() {
		defer close(p.done)
		p.c, p.err = quiet.DialTransfer(ctx, addr)
	}()
	return p, nil
}

// checkDataPort applies the port policy to a data port under the name
// "ftp-data", which has no default port: ports below 1024, the bad ports
// and other schemes' well-known ports are refused unless allowed.
func (s *session) checkDataPort(port int) error {
	return s.req.CheckPort("ftp-data", port)
}

// parsePASV reads the address of a 227 reply: six numbers h1,h2,h3,h4,p1,p2
// each 0-255, found after the first digit as RFC 1123 §4.1.2.6 advises
// (servers differ in the parentheses).
func parsePASV(text string) (ip string, port int, err error) {
	i := strings.IndexAny(text, "0123456789")
	if i < 0 {
		return "", 0, fmt.Errorf("%w: no address in the PASV reply", ErrBadReply)
	}
	if i > 0 && text[i-1] == '-' {
		return "", 0, fmt.Errorf("%w: PASV address has a negative number", ErrBadReply)
	}
	var n [6]int
	rest := text[i:]
	for k := 0; k < 6; k++ {
		j := 0
		for j < len(rest) && j < 4 && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		if j == 0 || j > 3 {
			return "", 0, fmt.Errorf("%w: PASV address is not six numbers", ErrBadReply)
		}
		v, _ := strconv.Atoi(rest[:j])
		if v > 255 {
			return "", 0, fmt.Errorf("%w: PASV address number %d is over 255", ErrBadReply, v)
		}
		n[k] = v
		rest = rest[j:]
		if k < 5 {
			if !strings.HasPrefix(rest, ",") {
				return "", 0, fmt.Errorf("%w: PASV address is not six numbers", ErrBadReply)
			}
			rest = rest[1:]
		}
	}
	if len(rest) > 0 && (rest[0] >= '0' && rest[0] <= '9' || rest[0] == ',') {
		return "", 0, fmt.Errorf("%w: PASV address is not six numbers", ErrBadReply)
	}
	return fmt.Sprintf("%d.%d.%d.%d", n[0], n[1], n[2], n[3]), n[4]<<8 | n[5], nil
}

// parseEPSV reads the port of a 229 reply: "(<d><d><d>port<d>)" where <d>
// is one delimiter character, usually "|" (RFC 2428 §3). The port is any
// number of up to five digits: one outside 1-65535 is the port policy's
// to refuse (checkDataPort), as a malformed URL, as PASV's is.
func parseEPSV(text string) (int, error) {
	i := strings.IndexByte(text, '(')
	if i < 0 || len(text) < i+6 {
		return 0, fmt.Errorf("%w: no (|||port|) in the EPSV reply", ErrBadReply)
	}
	t := text[i+1:]
	d := t[0]
	if d < 33 || d > 126 || t[1] != d || t[2] != d {
		return 0, fmt.Errorf("%w: no (|||port|) in the EPSV reply", ErrBadReply)
	}
	t = t[3:]
	j := strings.IndexByte(t, d)
	if j < 0 || j+1 >= len(t) || t[j+1] != ')' {
		return 0, fmt.Errorf("%w: no (|||port|) in the EPSV reply", ErrBadReply)
	}
	digits := t[:j]
	if len(digits) == 0 || len(digits) > 5 || strings.TrimLeft(digits, "0123456789") != "" {
		return 0, fmt.Errorf("%w: EPSV port %q is not a number", ErrBadReply, clip(digits))
	}
	port, _ := strconv.Atoi(digits)
	return port, nil
}

// activeConn is a listener the server connects to (active mode).
type activeConn struct {
	s    *session
	ln   net.Listener
	peer net.IP
}

// active listens for the server's data connection and tells it where with
// EPRT (RFC 2428) or PORT (RFC 959). jlaffaye/ftp has no active mode, and
// some servers or firewalls allow only it, so it is written here.
func (s *session) active(ctx context.Context) (dataConn, error) {
	if s.req.Options.Dialer != nil {
		return nil, errorf(fetch.KindUsage, "PORT", "active mode cannot work through a proxy dialer")
	}
	local, _ := s.nc.LocalAddr().(*net.TCPAddr)
	peer, _ := s.nc.RemoteAddr().(*net.TCPAddr)
	if local == nil || peer == nil {
		return nil, errorf(fetch.KindUsage, "PORT", "active mode needs a TCP control connection")
	}
	host, port := local.IP.String(), "0"
	if a := s.d.cfg.ActiveAddr; a != "" && a != "-" {
		if h, p, err := net.SplitHostPort(a); err == nil {
			host, port = h, p
		} else {
			host = strings.Trim(a, "[]")
		}
	}
	var lc net.ListenConfig
	ln, err := lc.Listen(ctx, "tcp", net.JoinHostPort(host, port))
	if err != nil {
		return nil, &fetch.Error{Kind: fetch.KindLocal, Op: "PORT", Offset: -1, Err: err}
	}
	la := ln.Addr().(*net.TCPAddr)
	ip := la.IP
	if ip.IsUnspecified() {
		ip = local.IP
	}
	a := &activeConn{s: s, ln: ln, peer: peer.IP}
	if err := s.announce(ip, la.Port); err != nil {
		ln.Close()
		return nil, err
	}
	return a, nil
}

// announce sends EPRT, or PORT when EPRT is disabled or refused.
func (s *session) announce(ip net.IP, port int) error {
	v4 := ip.To4()
	if !s.noEPSV {
		af, addr := "2", ip.String()
		if v4 != nil {
			af, addr = "1", v4.String()
		}
		r, err := s.cmd("EPRT", wire.Lit(fmt.Sprintf("EPRT |%s|%s|%d|", af, addr, port)))
		if err != nil {
			return err
		}
		if r.Class() == 2 {
			return nil
		}
		if v4 == nil {
			return s.refused("EPRT", r, nil)
		}
		if r.Class() != 4 { // a 4xx is transient: EPRT again next time
			s.noEPSV = true
		}
	}
	if v4 == nil {
		return errorf(fetch.KindUsage, "PORT", "PORT cannot name the IPv6 address %s", ip)
	}
	r, err := s.cmd("PORT", wire.Lit(fmt.Sprintf("PORT %d,%d,%d,%d,%d,%d", v4[0], v4[1], v4[2], v4[3], port>>8, port&255)))
	if err != nil {
		return err
	}
	if r.Class() != 2 {
		return s.refused("PORT", r, nil)
	}
	return nil
}

// conn accepts the server's connection within the idle timeout. Only the
// control connection's peer may connect: anyone else could feed us data.
func (a *activeConn) conn(ctx context.Context) (net.Conn, error) {
	defer a.ln.Close()
	stop := context.AfterFunc(ctx, func() { a.ln.Close() })
	defer stop()
	idle := a.s.req.Options.Idle()
	if tl, ok := a.ln.(*net.TCPListener); ok {
		tl.SetDeadline(time.Now().Add(idle))
	}
	for {
		c, err := a.ln.Accept()
		if err != nil {
			var ne net.Error
			if errors.As(err, &ne) && ne.Timeout() {
				err = fmt.Errorf("the server did not connect for the data: %w", fetch.ErrTimeout)
			} else if ctx.Err() != nil {
				err = ctx.Err()
			}
			return nil, &fetch.Error{Kind: fetch.KindNetwork, Op: "accept", Offset: -1, Err: err}
		}
		ra, _ := c.RemoteAddr().(*net.TCPAddr)
		if ra == nil || !ra.IP.Equal(a.peer) {
			a.s.req.Trace(fetch.DirInfo, fmt.Sprintf("refusing a data connection from %v: not the control peer", c.RemoteAddr()))
			c.Close()
			continue
		}
		a.s.req.Trace(fetch.DirInfo, "data connection from "+c.RemoteAddr().String())
		return fetch.NewDeadlineConn(ctx, c, idle), nil
	}
}

func (a *activeConn) ready() error { return nil }

func (a *activeConn) close() { a.ln.Close() }
