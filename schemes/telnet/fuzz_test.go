package telnet

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
)

// nvtText is what RFC 854 makes of a server's bytes as text: commands
// (and whole subnegotiations) out, IAC IAC as one 255, the NUL of CR NUL
// out. It is the model FuzzSession holds the session's output to.
func nvtText(b []byte) []byte {
	var text []byte
	for i := 0; i < len(b); i++ {
		if b[i] != cmdIAC {
			text = append(text, b[i])
			continue
		}
		if i+1 == len(b) {
			break
		}
		i++
		switch c := b[i]; {
		case c == cmdIAC:
			text = append(text, cmdIAC)
		case c >= cmdWILL:
			i++ // the option
		case c == cmdSB:
			i += 2 // the option byte, whatever it is
			if i > len(b) {
				return stripCRNUL(text)
			}
			data := b[i:]
			end := bytes.Index(data, []byte{cmdIAC, cmdSE})
			for end >= 0 && countIACBefore(data, end)%2 == 1 {
				next := bytes.Index(data[end+1:], []byte{cmdIAC, cmdSE})
				if next < 0 {
					end = -1
					break
				}
				end += 1 + next
			}
			if end < 0 {
				return stripCRNUL(text)
			}
			i += end + 1
		}
	}
	return stripCRNUL(text)
}

// countIACBefore counts the IACs running back from b[end-1], to tell an
// IAC SE from a doubled IAC followed by SE's byte.
func countIACBefore(b []byte, end int) int {
	n := 0
	for j := end - 1; j >= 0 && b[j] == cmdIAC; j-- {
		n++
	}
	return n
}

func stripCRNUL(b []byte) []byte {
	var out []byte
	for i, x := range b {
		if x == 0 && i > 0 && b[i-1] == '\r' {
			continue
		}
		out = append(out, x)
	}
	return out
}

// FuzzSession runs a whole session against a server whose reply is the
// fuzzer's bytes: Run must end (the server closes) without panicking,
// within the bound, and its output must be the reply's NVT text.
func FuzzSession(f *testing.F) {
	f.Add([]byte("\xff\xfb\x01\xff\xfb\x03\xff\xfd\x1f\xff\xfd\x18\xff\xf1login: "))
	f.Add([]byte("Password: \xff\xf6\r\x00\xff\xff\r\n"))
	f.Add([]byte("\xff\xfa\x18\x01\xff\xff\xf0\xff\xf0text\xff"))
	f.Add([]byte("\xff\xfc\x05\xff\xfe\x07\xff\xfd\x01\xff\xfe\x01\xff\xfc\x01\xff\xfd\x1f\xff\xfe\x1f\xff\xfb\x1fx"))
	for _, name := range []string{"user-password", "nvt-input"} {
		if b, err := os.ReadFile(filepath.Join("testdata", name+".golden")); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, reply []byte) {
		d := fetchtest.NewPipeDialer(reply)
		pol := &fetch.PortPolicy{}
		pol.Allow(7023)
		c := newClient(fetch.Options{Dialer: d, Policy: pol, IdleTimeout: time.Second}, Config{Linger: 100 * time.Millisecond, LoginWait: 100 * time.Millisecond})
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		res, err := c.Fetch(ctx, "telnet://user:pass@127.0.0.1:7023/")
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		start := time.Now()
		// The input does not end before the session does, so the server's
		// close, not the linger after an input's end, ends it: the output
		// is whole however slowly a loaded machine runs.
		in := &openInput{r: strings.NewReader("typed\n"), done: make(chan struct{})}
		err = res.Session.Run(ctx, in, &out)
		close(in.done)
		res.Close()
		d.Close()
		if took := time.Since(start); took > 4*time.Second {
			t.Fatalf("%v to end a session on %q", took, reply)
		}
		if err != nil {
			t.Fatalf("Run on %q: %v", reply, err)
		}
		if want := nvtText(reply); !bytes.Equal(out.Bytes(), want) {
			t.Fatalf("reply %q: output %q, want %q", reply, out.Bytes(), want)
		}
	})
}

// openInput reads r, then blocks until done is closed.
type openInput struct {
	r    io.Reader
	done chan struct{}
}

func (o *openInput) Read(p []byte) (int, error) {
	n, err := o.r.Read(p)
	if err == io.EOF {
		<-o.done
	}
	return n, err
}
