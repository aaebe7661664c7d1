package telnet

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"sync"
)

// Telnet commands (RFC 854) and the options this file handles itself.
const (
	cmdSE   = 240
	cmdNOP  = 241
	cmdDM   = 242
	cmdBRK  = 243
	cmdIP   = 244
	cmdAO   = 245
	cmdAYT  = 246
	cmdEC   = 247
	cmdEL   = 248
	cmdGA   = 249
	cmdSB   = 250
	cmdWILL = 251
	cmdWONT = 252
	cmdDO   = 253
	cmdDONT = 254
	cmdIAC  = 255

	optEcho = 1  // RFC 857
	optSGA  = 3  // RFC 858
	optNAWS = 31 // RFC 1073
)

// maxNegotiationTrace bounds the negotiation lines traced per session, so
// a server flooding IAC sequences cannot flood the trace too.
const maxNegotiationTrace = 64

// maxSubneg bounds what is kept of one subnegotiation's data; the rest is
// dropped (no option this client reads needs more).
const maxSubneg = 64

// readState is where nvtConn's read filter is within a Telnet command.
type readState int

const (
	stData  readState = iota
	stIAC             // after IAC
	stOpt             // after IAC WILL/WONT/DO/DONT: the option byte comes
	stSBOpt           // after IAC SB: the option byte comes
	stSB              // inside a subnegotiation
	stSBIAC           // after IAC inside a subnegotiation
)

// nvtConn sits between the connection from req.Dial and ziutek/telnet's
// Conn, which v0.1.0 builds on any net.Conn (telnet.NewConn). It repairs
// what the library gets wrong, so the library is left with what it does
// right (IAC IAC unescaping, the answers to WILL and WONT ECHO, refusing
// every option this file does not handle):
//
//   - Reads: the library fails on every command but WILL/WONT/DO/DONT, SB
//     and GA ("unknown command: 241" for IAC NOP), so NOP, DM, BRK, IP,
//     AO, AYT, EC, EL, GA and stray SE are removed here (RFC 854 lets a
//     client ignore them). Subnegotiations are removed too: the library
//     only skips them, without a bound.
//   - NAWS (RFC 1073): the library answers DO NAWS with 65535×65535 and
//     writes those 255s unescaped inside SB, which a server misreads; this
//     file answers NAWS itself with the terminal's size (80×24 unknown).
//   - DO ECHO: the library accepts it (a client echoing the server's
//     output back is never wanted) and shares one flag between both
//     directions, so a later WILL ECHO goes unanswered; this file refuses
//     DO ECHO itself.
//   - SUPPRESS-GO-AHEAD (RFC 858): the library has the same one flag for
//     both directions, so after WILL SGA (answered DO) a DO SGA got no
//     WILL: a request left unanswered. This file answers SGA itself,
//     each direction on its own.
//   - WONT/DONT for an option that is already off get no reply (RFC 854:
//     no acknowledgement of a mode already in force); the library answers
//     every WONT with DONT, which loops with a server doing the same.
//   - Reads that time out for idleness are retried: an interactive
//     session may sit quiet for as long as its user likes. Writes keep
//     the idle timeout; the context still ends everything.
//   - Writes are serialised, and the library's three-part subnegotiation
//     write goes out whole, so user data never lands inside a command.
type nvtConn struct {
	net.Conn

	trace func(line string) // negotiation notes; nil: none

	wmu sync.Mutex // one writer at a time on the wire
	sb  []byte     // a subnegotiation the library is writing in parts

	tmu    sync.Mutex
	traced int

	// Read-side state: only the reading goroutine touches these, except
	// the hooks, which are set before reading starts.
	st      readState
	cmd     byte
	sbOpt   byte
	sbData  []byte
	queue   []byte // filtered bytes for the library
	scratch []byte
	naws    bool // we said WILL NAWS
	echo    bool // the server said WILL ECHO
	sgaUs   bool // we said WILL SGA: we send no go-aheads
	sgaThem bool // the server said WILL SGA, and we DO
	onEcho  func(remote bool)
	onRead  func() // any bytes arrived, commands included: the server is not quiet
	size    func() (w, h int, ok bool)
	ignored map[byte]bool // commands already noted as ignored
}

func newNVTConn(c net.Conn, trace func(string)) *nvtConn {
	return &nvtConn{Conn: c, trace: trace, ignored: map[byte]bool{}}
}

// note traces one negotiation line, up to maxNegotiationTrace of them.
func (c *nvtConn) note(format string, args ...any) {
	if c.trace == nil {
		return
	}
	c.tmu.Lock()
	c.traced++
	n := c.traced
	c.tmu.Unlock()
	switch {
	case n < maxNegotiationTrace:
		c.trace(fmt.Sprintf(format, args...))
	case n == maxNegotiationTrace:
		c.trace("further telnet negotiation not traced")
	}
}

// Read gives the library the server's bytes with the commands it cannot
// handle taken out. It never returns 0 bytes without an error.
func (c *nvtConn) Read(p []byte) (int, error) {
	for len(c.queue) == 0 {
		if cap(c.scratch) < len(p) {
			c.scratch = make([]byte, len(p))
		}
		n, err := c.Conn.Read(c.scratch[:len(p)])
		if n > 0 && c.onRead != nil {
			c.onRead()
		}
		c.filter(c.scratch[:n])
		if err != nil {
			if n == 0 && isIdle(err) {
				continue // quiet is not an error in an interactive session
			}
			if len(c.queue) == 0 {
				return 0, err
			}
			break
		}
	}
	n := copy(p, c.queue)
	c.queue = c.queue[n:]
	return n, nil
}

// isIdle reports a read that ran into the idle timeout (not the context's
// deadline, which ends the session).
func isIdle(err error) bool {
	return errors.Is(err, os.ErrDeadlineExceeded) && !errors.Is(err, context.DeadlineExceeded)
}

// filter runs the read state machine over b, queueing what the library
// is to see and answering what this file handles.
func (c *nvtConn) filter(b []byte) {
	for _, x := range b {
		switch c.st {
		case stData:
			if x == cmdIAC {
				c.st = stIAC
			} else {
				c.queue = append(c.queue, x)
			}
		case stIAC:
			c.st = stData
			switch x {
			case cmdIAC:
				c.queue = append(c.queue, cmdIAC, cmdIAC) // the library unescapes
			case cmdWILL, cmdWONT, cmdDO, cmdDONT:
				c.cmd, c.st = x, stOpt
			case cmdSB:
				c.st = stSBOpt
			default:
				if !c.ignored[x] {
					c.ignored[x] = true
					c.note("server sent %s: ignored", cmdName(x))
				}
			}
		case stOpt:
			c.st = stData
			c.negotiate(c.cmd, x)
		case stSBOpt:
			c.sbOpt, c.sbData, c.st = x, c.sbData[:0], stSB
		case stSB:
			if x == cmdIAC {
				c.st = stSBIAC
			} else if len(c.sbData) < maxSubneg {
				c.sbData = append(c.sbData, x)
			}
		case stSBIAC:
			switch x {
			case cmdSE:
				c.st = stData
				c.note("server sent SB %s (%d bytes): ignored", optName(c.sbOpt), len(c.sbData))
			case cmdIAC:
				c.st = stSB
				if len(c.sbData) < maxSubneg {
					c.sbData = append(c.sbData, cmdIAC)
				}
			default:
				c.st = stSB // RFC 855 allows nothing else here; keep skipping
			}
		}
	}
}

// negotiate handles one IAC WILL/WONT/DO/DONT opt from the server: passed
// to the library, answered here, or dropped.
func (c *nvtConn) negotiate(cmd, opt byte) {
	c.note("server sent %s %s", cmdName(cmd), optName(opt))
	pass := func() { c.queue = append(c.queue, cmdIAC, cmd, opt) }
	switch opt {
	case optNAWS:
		switch cmd {
		case cmdDO:
			if !c.naws {
				c.naws = true
				c.sendNAWS(true)
			}
		case cmdDONT:
			if c.naws {
				c.naws = false
				c.reply(cmdWONT, opt)
			}
		case cmdWILL:
			c.reply(cmdDONT, opt) // the server has no window to report
		}
		return
	case optEcho:
		switch cmd {
		case cmdDO:
			c.reply(cmdWONT, opt) // never echo the server's output back
			return
		case cmdDONT:
			return // we never echo
		case cmdWILL, cmdWONT:
			if remote := cmd == cmdWILL; remote != c.echo {
				c.echo = remote
				if c.onEcho != nil {
					c.onEcho(remote)
				}
			}
		}
		pass()
		return
	case optSGA:
		// Go-aheads are of no use to this client in either direction (it
		// sends none, and drops the server's), so both are agreed to; each
		// direction is answered only when its state changes (RFC 854: no
		// acknowledgement of a mode already in force).
		switch cmd {
		case cmdDO, cmdDONT:
			if on := cmd == cmdDO; on != c.sgaUs {
				c.sgaUs = on
				c.reply(pick(on, cmdWILL, cmdWONT), opt)
			}
		case cmdWILL, cmdWONT:
			if on := cmd == cmdWILL; on != c.sgaThem {
				c.sgaThem = on
				c.reply(pick(on, cmdDO, cmdDONT), opt)
			}
		}
		return
	}
	// Every other option: the library refuses WILL and DO, which is what
	// this client wants; WONT and DONT need no answer, it being off.
	if cmd == cmdWILL || cmd == cmdDO {
		pass()
	}
}

// pick is yes when on is set, else no.
func pick(on bool, yes, no byte) byte {
	if on {
		return yes
	}
	return no
}

// reply writes IAC cmd opt.
func (c *nvtConn) reply(cmd, opt byte) {
	c.note("client sent %s %s", cmdName(cmd), optName(opt))
	c.writeRaw([]byte{cmdIAC, cmd, opt})
}

// sendNAWS writes the window size subnegotiation (RFC 1073), preceded by
// WILL NAWS when will is set.
func (c *nvtConn) sendNAWS(will bool) {
	w, h, ok := 0, 0, false
	if c.size != nil {
		w, h, ok = c.size()
	}
	if !ok || w <= 0 || h <= 0 {
		w, h = 80, 24
	}
	w, h = min(w, 65535), min(h, 65535)
	var b []byte
	if will {
		c.note("client sent WILL NAWS")
		b = append(b, cmdIAC, cmdWILL, optNAWS)
	}
	c.note("client sent SB NAWS %dx%d", w, h)
	b = append(b, cmdIAC, cmdSB, optNAWS)
	for _, x := range []byte{byte(w >> 8), byte(w), byte(h >> 8), byte(h)} {
		b = append(b, x)
		if x == cmdIAC {
			b = append(b, cmdIAC) // RFC 1073: a 255 in the size is doubled
		}
	}
	b = append(b, cmdIAC, cmdSE)
	c.writeRaw(b)
}

// writeRaw writes b whole, between other writers' writes. Errors show up
// again on the next read or write, so answers to negotiation drop them.
func (c *nvtConn) writeRaw(b []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.Conn.Write(b)
	return err
}

// Write is used by the library alone, for its negotiation answers; user
// data goes through writeRaw. A subnegotiation, which the library writes
// in three parts, is collected and written whole.
func (c *nvtConn) Write(b []byte) (int, error) {
	if c.sb == nil && len(b) >= 2 && b[0] == cmdIAC && b[1] == cmdSB {
		c.sb = append([]byte{}, b...)
		return len(b), nil
	}
	if c.sb != nil {
		c.sb = append(c.sb, b...)
		if len(c.sb) < 5 || c.sb[len(c.sb)-2] != cmdIAC || c.sb[len(c.sb)-1] != cmdSE {
			return len(b), nil
		}
		b, c.sb = c.sb, nil
	}
	if len(b) == 3 && b[0] == cmdIAC {
		c.note("client sent %s %s", cmdName(b[1]), optName(b[2]))
	}
	// An answer that cannot be written is not the library's read error:
	// the output already read must still reach the user, and a broken
	// connection shows on the next read.
	c.writeRaw(b)
	return len(b), nil
}

var cmdNames = map[byte]string{
	cmdSE: "SE", cmdNOP: "NOP", cmdDM: "DM", cmdBRK: "BRK", cmdIP: "IP", cmdAO: "AO",
	cmdAYT: "AYT", cmdEC: "EC", cmdEL: "EL", cmdGA: "GA", cmdSB: "SB", cmdWILL: "WILL",
	cmdWONT: "WONT", cmdDO: "DO", cmdDONT: "DONT", cmdIAC: "IAC",
}

func cmdName(b byte) string {
	if s, ok := cmdNames[b]; ok {
		return s
	}
	return fmt.Sprintf("command %d", b)
}

// optNames are the options a server commonly offers or asks for.
var optNames = map[byte]string{
	0: "BINARY", 1: "ECHO", 3: "SUPPRESS-GO-AHEAD", 5: "STATUS", 6: "TIMING-MARK",
	24: "TERMINAL-TYPE", 31: "NAWS", 32: "TERMINAL-SPEED", 33: "LFLOW", 34: "LINEMODE",
	35: "X-DISPLAY-LOCATION", 36: "OLD-ENVIRON", 37: "AUTHENTICATION", 38: "ENCRYPT",
	39: "NEW-ENVIRON",
}

func optName(b byte) string {
	if s, ok := optNames[b]; ok {
		return s
	}
	return fmt.Sprintf("option %d", b)
}
