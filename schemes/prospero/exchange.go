package prospero

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// Retransmission: ARDP's client waits 4 s and doubles the wait on every
// retry (ARDP_BACKOFF). We start sooner, since a lost packet on a quiet
// network is better noticed in a second, and keep doubling up to maxRTO;
// the whole exchange still ends when no packet of the reply has arrived
// for the request's idle timeout.
const (
	defaultRTO = time.Second
	maxRTO     = 8 * time.Second
	// maxBadPackets ends an exchange flooded with datagrams that are not
	// ARDP, rather than waiting out the idle timeout.
	maxBadPackets = 1000
	// maxWaits bounds the server's requests to wait honoured with no new
	// packet between them: each restarts the idle timeout, so a server
	// repeating one could otherwise hold an exchange open for ever.
	maxWaits = 8
	// maxRedirects bounds the servers one exchange is sent on to
	// (ARDP option 4), as HTTP redirects are bounded: two servers
	// naming each other would otherwise pass the request back and forth
	// for ever.
	maxRedirects = 4
	// replyPace is how many octets of a reply earn it one more idle
	// timeout past the first: a reply must come at 64 KiB an idle
	// timeout on average (about 1 KB/s at the 60 s default).
	replyPace = 64 << 10
)

// session is one client UDP socket, on which a fetch sends its requests
// to one server and reads the replies. The socket is not connected: dirsrv
// may answer from another port than the one the request went to (it sends
// from its privileged port), so replies are matched on the connection id
// and the server's address, not on the port.
type session struct {
	conn   *net.UDPConn
	server *net.UDPAddr
	idle   time.Duration
	// first bounds the wait for the first packet of a reply, as the
	// connect timeout bounds a TCP driver's connection: with no ICMP
	// error reaching an unconnected socket, a closed port looks silent.
	first time.Duration
	rto   time.Duration
	max   int // largest reply, octets
	trace func(fetch.Direction, string)
	stop  func() bool
	// allow applies the port policy to a server a redirect names; nil
	// allows every port (tests).
	allow func(port int) error
	// replied is the server the last whole reply came from: server, or
	// the one a redirect sent that request to.
	replied *net.UDPAddr
}

// openSession opens the socket for talking to server. A loopback server
// gets a socket bound to loopback; any other one an unspecified address of
// its family. The socket closes when ctx ends.
func openSession(ctx context.Context, server *net.UDPAddr, idle, rto time.Duration, max int, trace func(fetch.Direction, string)) (*session, error) {
	var local *net.UDPAddr
	switch {
	case server.IP.IsLoopback() && server.IP.To4() != nil:
		local = &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)}
	case server.IP.IsLoopback():
		local = &net.UDPAddr{IP: net.IPv6loopback}
	case server.IP.To4() != nil:
		local = &net.UDPAddr{IP: net.IPv4zero}
	default:
		local = &net.UDPAddr{IP: net.IPv6unspecified}
	}
	network := "udp4"
	if server.IP.To4() == nil {
		network = "udp6"
	}
	c, err := net.ListenUDP(network, local)
	if err != nil {
		return nil, err
	}
	s := &session{conn: c, server: server, idle: idle, first: idle, rto: rto, max: max, trace: trace, replied: server}
	s.stop = context.AfterFunc(ctx, func() { c.Close() })
	return s, nil
}

func (s *session) Close() error {
	s.stop()
	return s.conn.Close()
}

// cidSource gives connection ids; tests replace it to make packets
// reproducible.
var cidSource = newCID

// newCID picks a random non-zero connection id.
func newCID() uint16 {
	var b [2]byte
	for {
		rand.Read(b[:])
		if id := binary.BigEndian.Uint16(b[:]); id != 0 {
			return id
		}
	}
}

// exchangeError classifies a failed exchange.
func exchangeError(k fetch.Kind, format string, args ...any) error {
	return &fetch.Error{Kind: k, Op: "ARDP", Offset: -1, Err: fmt.Errorf(format, args...)}
}

// do sends request (one packet's worth of text) and returns the whole
// reply. It acknowledges whenever the server asks (at the end of each
// window), sends the request again with the packets received so far
// acknowledged when nothing arrives for the retransmission interval
// (doubling it each time, resetting it on progress), drops duplicates and
// packets of other connections, and gives up when no new packet (or
// request to wait) has arrived for the idle timeout, or none at all
// within the first-packet bound.
//
// A redirect (option 4) moves this message only: the next request goes
// to the server the session was opened for. A redirect and notify
// (option 5) moves the later requests too.
func (s *session) do(ctx context.Context, request []byte) (reply []byte, err error) {
	if len(request) > maxRequestData {
		return nil, exchangeError(fetch.KindPolicy, "request of %d octets does not fit in one ARDP packet (%d)", len(request), maxRequestData)
	}
	home := s.server
	defer func() {
		if err == nil {
			s.replied = s.server
		}
		s.server = home
	}()
	send := func(b []byte) error {
		_, err := s.conn.WriteToUDP(b, s.server)
		return err
	}
	var (
		cid                  uint16
		ra                   *reassembly
		rto                  time.Duration
		lastHeard, nextRetry time.Time
		lastBad              error
		bad, waits           int
		lastWait             uint16 // the server's last request to wait, seconds
		heard                bool
		began                time.Time // the reply's first new packet; zero before it
	)
	// start sends the request as a new exchange, a new connection id with
	// nothing received yet: to the session's server first, then to each
	// server a redirect names.
	start := func() error {
		cid, ra = cidSource(), newReassembly(s.max)
		heard, lastWait, waits, bad, lastBad, began = false, 0, 0, 0, nil, time.Time{}
		rto = s.rto
		now := time.Now()
		lastHeard, nextRetry = now, now.Add(rto)
		if err := send(EncodeRequest(cid, 0, request)); err != nil {
			return s.netErr(ctx, err)
		}
		return nil
	}
	if err := start(); err != nil {
		return nil, err
	}
	redirects := 0
	buf := make([]byte, maxDatagram)
	for !ra.complete() {
		limit := s.idle
		if !heard {
			limit = min(s.idle, s.first)
		}
		deadline := earliest(nextRetry, lastHeard.Add(limit))
		if d, ok := ctx.Deadline(); ok {
			deadline = earliest(deadline, d)
		}
		s.conn.SetReadDeadline(deadline)
		n, from, err := s.conn.ReadFromUDP(buf)
		now := time.Now()
		if err != nil {
			if ctx.Err() != nil {
				return nil, s.netErr(ctx, ctx.Err())
			}
			if !errors.Is(err, os.ErrDeadlineExceeded) {
				return nil, s.netErr(ctx, err)
			}
			if !now.Before(lastHeard.Add(limit)) {
				msg := "no reply"
				switch {
				case ra.thru > 0 || len(ra.got) > 0:
					msg = fmt.Sprintf("reply stalled after %d packets", ra.thru)
				case lastWait > 0:
					// it did answer: the request is queued
					msg = fmt.Sprintf("the server asked to wait %ds (a queued request); nothing more came", lastWait)
					if time.Duration(lastWait)*time.Second >= limit {
						// the wait is honoured within the idle timeout
						// only: a longer one is the user's to allow
						msg += fmt.Sprintf(" (an idle timeout, --timeout, over %ds waits for it)", lastWait)
					}
				}
				if lastBad != nil {
					msg += fmt.Sprintf(" (last datagram: %v)", lastBad)
				}
				return nil, exchangeError(fetch.KindNetwork, "%w: %s from %s within %v", fetch.ErrTimeout, msg, s.server, limit)
			}
			if !now.Before(nextRetry) {
				s.trace(fetch.DirInfo, fmt.Sprintf("ardp: no packet for %v; sending the request again (received through %d)", rto, ra.thru))
				if err := send(EncodeRequest(cid, ra.thru, request)); err != nil {
					return nil, s.netErr(ctx, err)
				}
				rto = min(2*rto, maxRTO)
				nextRetry = now.Add(rto)
			}
			continue
		}
		if !from.IP.Equal(s.server.IP) {
			continue // not the server: matched on its address, any port
		}
		p, err := DecodePacket(buf[:n])
		if err != nil {
			lastBad = err
			if bad++; bad > maxBadPackets {
				return nil, exchangeError(fetch.KindServer, "%d datagrams that are not ARDP from %s: %w", bad, s.server, err)
			}
			continue
		}
		if p.CID != cid {
			continue // a late packet of an earlier request
		}
		switch p.Option {
		case optRefused:
			return nil, exchangeError(fetch.KindServer, "the server refused the request (ARDP option 1)")
		case optRedirect, optRedirectNotify:
			// The request goes to the server named instead.
			to := &net.UDPAddr{IP: net.IP(p.Redirect[:4]).To16(), Port: int(binary.BigEndian.Uint16(p.Redirect[4:]))}
			if redirects++; redirects > maxRedirects {
				return nil, exchangeError(fetch.KindServer, "more than %d redirects (the last to %v)", maxRedirects, to)
			}
			if err := s.redirect(to); err != nil {
				return nil, err
			}
			if p.Option == optRedirectNotify {
				home = to // and the requests after this one
			}
			if err := start(); err != nil {
				return nil, err
			}
			continue
		}
		heard = true
		if p.HasWait && p.Wait > 0 && waits < maxWaits {
			// The server asks for patience (queued request): no retry
			// until then, within the idle timeout, which starts again.
			waits++
			lastWait = p.Wait
			lastHeard = now
			nextRetry = now.Add(min(time.Duration(p.Wait)*time.Second, s.idle))
		}
		if p.Seq == 0 {
			continue // unsequenced control packet
		}
		if p.Flags&flagSeqControl != 0 {
			p.Data = nil // a sequenced control packet holds its place, no data
		}
		progress, err := ra.add(p)
		if err != nil {
			if errors.Is(err, errOversize) {
				// a size bound, refused as every driver's is (exit 4)
				return nil, exchangeError(fetch.KindPolicy, "%w (a reply is limited to %d octets)", fetch.ErrTooLarge, s.max)
			}
			return nil, exchangeError(fetch.KindServer, "%w", err)
		}
		if progress {
			// only new packets count as life: a server repeating itself
			// cannot hold the exchange open
			if began.IsZero() {
				began = now
			} else if allowed := s.idle * time.Duration(1+ra.size/replyPace); now.Sub(began) > allowed {
				// Each new packet renews the idle timeout, so a
				// server sending empty or tiny ones, each just in
				// time, would hold the exchange for 65,535 of them.
				// A reply that keeps coming is given the idle timeout
				// from its first packet and one more for every
				// replyPace octets (a large reply on a slow or lossy
				// path still arrives; one that stalls meets the idle
				// timeout's own message).
				return nil, exchangeError(fetch.KindNetwork, "%w: one reply from %s took more than %v for its first %d octets (the idle timeout, and one more every %d KiB)", fetch.ErrTimeout, s.server, allowed, ra.size, replyPace>>10)
			}
			lastHeard = now
			waits = 0
			rto = s.rto
			nextRetry = now.Add(rto)
		}
		if p.Flags&flagAckRequested != 0 {
			if err := send(EncodeAck(cid, ra.thru)); err != nil {
				return nil, s.netErr(ctx, err)
			}
		}
	}
	return ra.bytes(), nil
}

// redirect makes to the session's server, after the port policy, when
// this session's socket can reach it: a socket bound to loopback reaches
// only loopback, and a redirect names an IPv4 address.
func (s *session) redirect(to *net.UDPAddr) error {
	switch {
	case to.IP.IsUnspecified() || to.IP.IsMulticast() || to.IP.Equal(net.IPv4bcast) || to.Port == 0:
		return exchangeError(fetch.KindServer, "the server redirected the request to %v, which is no server", to)
	case s.server.IP.To4() == nil:
		return exchangeError(fetch.KindServer, "the server redirected the request to %v, an IPv4 address, from IPv6", to)
	case s.server.IP.IsLoopback() != to.IP.IsLoopback():
		return exchangeError(fetch.KindServer, "the server at %v redirected the request to %v, which this socket cannot reach", s.server, to)
	}
	if s.allow != nil {
		if err := s.allow(to.Port); err != nil {
			// The redirect's port, not the URL's: named so.
			var fe *fetch.Error
			if !errors.As(err, &fe) {
				return exchangeError(fetch.KindPolicy, "the server redirected the request to %v: %w", to, err)
			}
			fe.Op = fmt.Sprintf("ARDP redirect to %v: %s", to, fe.Op)
			return err
		}
	}
	s.trace(fetch.DirInfo, fmt.Sprintf("ardp: %v redirected the request to %v", s.server, to))
	s.server = to
	return nil
}

func (s *session) netErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		err = ctx.Err()
	}
	return &fetch.Error{Kind: fetch.KindNetwork, Op: "ARDP " + s.server.String(), Offset: -1, Err: err}
}

func earliest(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}
