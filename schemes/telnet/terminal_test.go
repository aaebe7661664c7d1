package telnet

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch/fetchtest"
)

// TestTerminalEscape: ^] ends the input where it is typed and closes the
// session; what was typed before it still goes.
func TestTerminalEscape(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	escaped := false
	term := &terminal{in: r, out: os.Stdout, escape: func() { escaped = true }}
	w.Write([]byte("ab\x1dcd"))
	buf := make([]byte, 16)
	n, err := term.Read(buf)
	if string(buf[:n]) != "ab" || err != io.EOF || !escaped {
		t.Errorf("Read: %q, %v, escaped %v", buf[:n], err, escaped)
	}
	if n, err := term.Read(buf); n != 0 || err != io.EOF {
		t.Errorf("Read after the escape: %d, %v", n, err)
	}
}

// TestRunTerminalNotATerminal: with a pipe for stdin, RunTerminal is Run.
func TestRunTerminalNotATerminal(t *testing.T) {
	srv := fetchtest.NewServer(t, loginServer(t))
	c := newClient(fetchtestOptions(), Config{})
	res, err := c.Fetch(context.Background(), "telnet://user:pass@"+srv.Addr+"/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	inR, inW, _ := os.Pipe()
	outR, outW, _ := os.Pipe()
	defer inR.Close()
	defer outR.Close()
	inW.Write([]byte("hi\nexit\n"))
	inW.Close()
	got := make(chan string, 1)
	go func() {
		b, _ := io.ReadAll(outR)
		got <- string(b)
	}()
	err = RunTerminal(context.Background(), res.Session, inR, outW)
	outW.Close()
	if out := <-got; err != nil || !strings.Contains(out, "you said: hi") {
		t.Errorf("RunTerminal: %v, output %q", err, out)
	}
}
