package telnet

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"sync/atomic"

	"golang.org/x/term"

	"github.com/fetchproject/fetch/fetch"
)

// EscapeChar ends a session run by RunTerminal, as in telnet(1): ^].
const EscapeChar = 0x1d

// RunTerminal runs s between the process's terminal and the server. When
// stdin is a terminal, it is put in raw (character) mode while the server
// echoes (WILL ECHO, RFC 857) and left to its own line editing otherwise,
// and restored when the session ends; typing ^] closes the session, which
// then returns nil. Otherwise it is s.Run(ctx, stdin, stdout).
func RunTerminal(ctx context.Context, s fetch.Session, stdin, stdout *os.File) error {
	fd := int(stdin.Fd())
	if !term.IsTerminal(fd) {
		return s.Run(ctx, stdin, stdout)
	}
	orig, err := term.GetState(fd)
	if err != nil {
		return &fetch.Error{Kind: fetch.KindLocal, Op: "terminal", Offset: -1, Err: err}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	t := &terminal{in: stdin, out: stdout, fd: fd, orig: orig, escape: cancel}
	defer t.RemoteEcho(false)
	fmt.Fprint(stdout, "Escape character is '^]'.\r\n")
	err = s.Run(ctx, t, stdout)
	if t.escaped.Load() {
		fmt.Fprint(stdout, "\r\nConnection closed.\r\n")
		return nil
	}
	return err
}

// terminal is the input RunTerminal hands to Run: stdin, watched for the
// escape character, switching modes as the server's echo comes and goes.
type terminal struct {
	in, out *os.File
	fd      int
	orig    *term.State
	escape  func()
	escaped atomic.Bool

	mu  sync.Mutex
	raw bool
}

func (t *terminal) Read(p []byte) (int, error) {
	if t.escaped.Load() {
		return 0, io.EOF
	}
	n, err := t.in.Read(p)
	if i := bytes.IndexByte(p[:n], EscapeChar); i >= 0 {
		t.escaped.Store(true)
		t.escape()
		return i, io.EOF
	}
	return n, err
}

// RemoteEcho puts the terminal in raw mode while the server echoes, and
// back in the mode it was found in otherwise.
func (t *terminal) RemoteEcho(on bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if on == t.raw {
		return
	}
	if on {
		if _, err := term.MakeRaw(t.fd); err != nil {
			return
		}
	} else if err := term.Restore(t.fd, t.orig); err != nil {
		return
	}
	t.raw = on
}

// WindowSize is the terminal's size, for NAWS.
func (t *terminal) WindowSize() (int, int, bool) {
	w, h, err := term.GetSize(int(t.out.Fd()))
	if err != nil {
		w, h, err = term.GetSize(t.fd)
	}
	return w, h, err == nil
}
