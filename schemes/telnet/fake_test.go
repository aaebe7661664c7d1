package telnet

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
)

// telnetPeer speaks the server side of Telnet on a fake server's
// connection: it writes commands and text, and reads the client's lines
// with its commands taken out.
type telnetPeer struct {
	p       *fetchtest.Peer
	r       *bufio.Reader
	pending []byte // data that came while waiting for a negotiation answer
}

// readByte reads the next client byte, pending data first.
func (t *telnetPeer) readByte() (byte, error) {
	if len(t.pending) > 0 {
		b := t.pending[0]
		t.pending = t.pending[1:]
		return b, nil
	}
	return t.r.ReadByte()
}

func newTelnetPeer(p *fetchtest.Peer) *telnetPeer { return &telnetPeer{p: p, r: p.Reader()} }

func (t *telnetPeer) write(s string) error {
	_, err := io.WriteString(t.p, s)
	return err
}

// command reads one client command after its IAC: the 3-byte
// negotiations and whole subnegotiations.
func (t *telnetPeer) command(readByte func() (byte, error)) ([]byte, error) {
	c, err := readByte()
	if err != nil {
		return nil, err
	}
	out := []byte{cmdIAC, c}
	switch c {
	case cmdWILL, cmdWONT, cmdDO, cmdDONT:
		o, err := readByte()
		return append(out, o), err
	case cmdSB:
		for {
			b, err := readByte()
			if err != nil {
				return out, err
			}
			out = append(out, b)
			if b == cmdIAC {
				b, err = readByte()
				if err != nil {
					return out, err
				}
				out = append(out, b)
				if b == cmdSE {
					return out, nil
				}
			}
		}
	}
	return out, nil
}

// negotiate sends IAC cmd opt and reads the client's answer, whole
// subnegotiation included; for want 0 it expects none.
func (t *telnetPeer) negotiate(cmd, opt byte, wantAnswer bool) ([]byte, error) {
	if err := t.write(string([]byte{cmdIAC, cmd, opt})); err != nil || !wantAnswer {
		return nil, err
	}
	// Input the client does not hold back may come first: kept for
	// readLine.
	for {
		b, err := t.r.ReadByte()
		if err != nil {
			return nil, err
		}
		if b == cmdIAC {
			break
		}
		t.pending = append(t.pending, b)
	}
	ans, err := t.command(t.r.ReadByte)
	if err == nil && len(ans) == 3 && ans[1] == cmdWILL && ans[2] == optNAWS {
		if b, err := t.r.ReadByte(); err == nil && b == cmdIAC {
			sb, err := t.command(t.r.ReadByte)
			return append(ans, sb...), err
		}
	}
	return ans, err
}

// readLine reads a line of client data (ended by CR LF, CR NUL or LF),
// skipping commands.
func (t *telnetPeer) readLine() (string, error) {
	var line []byte
	for {
		b, err := t.readByte()
		if err != nil {
			return string(line), err
		}
		switch b {
		case cmdIAC:
			c, err := t.command(t.readByte)
			if err != nil {
				return string(line), err
			}
			if c[1] == cmdIAC {
				line = append(line, cmdIAC)
			}
		case '\r':
			if _, err := t.readByte(); err != nil { // LF or NUL
				return string(line), err
			}
			return string(line), nil
		case '\n':
			return string(line), nil
		default:
			line = append(line, b)
		}
	}
}

// loginServer is a fake host in lockstep: it negotiates (WILL ECHO, WILL
// SUPPRESS-GO-AHEAD, DO NAWS, DO TERMINAL-TYPE), sends IAC NOP, asks
// "login: " and "Password: ", and then answers "you said: <line>" until
// "exit". Good logins are user/pass.
func loginServer(t testing.TB) func(p *fetchtest.Peer) {
	return func(p *fetchtest.Peer) {
		tp := newTelnetPeer(p)
		for _, n := range []struct{ cmd, opt byte }{
			{cmdWILL, optEcho}, {cmdWILL, optSGA}, {cmdDO, optNAWS}, {cmdDO, 24},
		} {
			if _, err := tp.negotiate(n.cmd, n.opt, true); err != nil {
				t.Logf("fake: negotiating: %v", err)
				return
			}
		}
		if tp.write("\xff\xf1\r\nfake host\r\n\r\nlogin: ") != nil {
			return
		}
		user, err := tp.readLine()
		if err != nil {
			return
		}
		tp.write(user + "\r\nPassword: \xff\xf6")
		pass, err := tp.readLine()
		if err != nil {
			return
		}
		if user != "user" || pass != "pass" {
			tp.write("\r\nLogin incorrect\r\n")
			return
		}
		tp.write("\r\nWelcome\r\n$ ")
		for {
			line, err := tp.readLine()
			if err != nil {
				return
			}
			if line == "exit" {
				tp.write("exit\r\nlogout\r\n")
				return
			}
			line = strings.ReplaceAll(line, "\xff", "\xff\xff") // IAC doubled
			tp.write(line + "\r\nyou said: " + line + "\r\n$ ")
		}
	}
}

// traceLog collects a session's trace.
type traceLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *traceLog) Trace(d fetch.Direction, line string) {
	l.mu.Lock()
	l.lines = append(l.lines, fmt.Sprintf("%c %s", d, line))
	l.mu.Unlock()
}

func (l *traceLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}

// newClient is a client with only this driver, the fake's port allowed.
func newClient(opts fetch.Options, cfg Config) *fetch.Client {
	c := fetch.NewClient(opts)
	c.Register("telnet", New(cfg))
	return c
}

// syncBuffer is an output that tests may read while Run writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// runSession fetches u and runs the session with input in, bounded by
// limit; it returns the output, the trace and Run's error.
func runSession(t testing.TB, u string, in io.Reader, cfg Config, limit time.Duration) (string, *traceLog, error) {
	t.Helper()
	tl := &traceLog{}
	c := newClient(fetch.Options{Tracer: tl, IdleTimeout: 5 * time.Second}, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	res, err := c.Fetch(ctx, u)
	if err != nil {
		return "", tl, err
	}
	defer res.Close()
	if res.Kind != fetch.KindSession || res.Session == nil {
		t.Fatalf("%s: a %v result, want a session", u, res.Kind)
	}
	var out syncBuffer
	err = res.Session.Run(ctx, in, &out)
	return out.String(), tl, err
}

// render shows a client's byte stream as the golden transcript form: its
// commands one per line, then its data one quoted line per line. The two
// are apart because input the client does not hold back (no login in the
// URL) races the negotiation answers; within each the order is exact.
func render(b []byte) string {
	var out, dataOut strings.Builder
	var data []byte
	flush := func() {
		if len(data) > 0 {
			dataOut.WriteString(strconv.Quote(string(data)) + "\n")
			data = data[:0]
		}
	}
	for i := 0; i < len(b); i++ {
		if b[i] != cmdIAC || i+1 == len(b) {
			data = append(data, b[i])
			if b[i] == '\n' || b[i] == 0 && i > 0 && b[i-1] == '\r' {
				flush()
			}
			continue
		}
		c := b[i+1]
		switch {
		case c == cmdIAC:
			data = append(data, cmdIAC)
			i++
		case c >= cmdWILL && i+2 < len(b):
			flush()
			fmt.Fprintf(&out, "IAC %s %s\n", cmdName(c), optName(b[i+2]))
			i += 2
		case c == cmdSB && i+2 < len(b):
			flush()
			end := bytes.Index(b[i:], []byte{cmdIAC, cmdSE})
			if end < 0 {
				end = len(b) - i
			}
			fmt.Fprintf(&out, "IAC SB %s % x IAC SE\n", optName(b[i+2]), b[i+3:i+end])
			i += end + 1
		default:
			flush()
			fmt.Fprintf(&out, "IAC %s\n", cmdName(c))
			i++
		}
	}
	flush()
	return "commands:\n" + out.String() + "data:\n" + dataOut.String()
}

// fetchtestOptions are the options of a test client: a short idle time.
func fetchtestOptions() fetch.Options { return fetch.Options{IdleTimeout: 5 * time.Second} }
