package ftp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// pasvHook answers EPSV with 500 and PASV with the given reply, in which
// %d is replaced by the real port's high and low bytes (or left out).
func pasvHook(format string) func(c *fakeConn, verb, arg string) bool {
	return func(c *fakeConn, verb, arg string) bool {
		switch verb {
		case "EPSV":
			c.reply("500 no EPSV here")
			return true
		case "PASV":
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			if err != nil {
				c.reply("425 %v", err)
				return true
			}
			c.pasv, c.port = ln, ""
			p := ln.Addr().(*net.TCPAddr).Port
			if strings.Count(format, "%d") == 2 {
				c.reply(format, p>>8, p&255)
			} else {
				c.reply("%s", format)
			}
			return true
		}
		return false
	}
}

// TestPASVAddressIgnored: a PASV reply naming another host (127.0.0.9
// here, where nothing listens) must not move the data connection away
// from the control peer (CVE-2020-8284).
func TestPASVAddressIgnored(t *testing.T) {
	s := rfcServer(t)
	s.hook = pasvHook("227 Entering Passive Mode (127,0,0,9,%d,%d).")
	var trace []string
	tr := fetch.TracerFunc(func(d fetch.Direction, l string) { trace = append(trace, l) })
	got, _, err := get(t, client(Config{AnonymousPassword: "a@b"}, fetch.Options{Tracer: tr}), "ftp://"+s.addr()+"/etc/motd")
	if err != nil {
		t.Fatal(err)
	}
	if got != "message of the day\n" {
		t.Errorf("got %q", got)
	}
	all := strings.Join(trace, "\n")
	if !strings.Contains(all, "ignoring the address 127.0.0.9") || strings.Contains(all, "connecting to 127.0.0.9") {
		t.Errorf("trace:\n%s", all)
	}
}

// TestDataPortRefused: a server may not send the data connection to a
// reserved port such as 25 (SMTP); a port outside 1-65535, from PASV or
// EPSV alike, is no port at all: a malformed URL (exit 3), as the README
// says of a port in a server's reply.
func TestDataPortRefused(t *testing.T) {
	for _, tt := range []struct {
		name, epsv, pasv string
		kind             fetch.Kind
	}{
		{"PASV 25", "", "227 Entering Passive Mode (127,0,0,1,0,25).", fetch.KindPolicy},
		{"PASV 21", "", "227 Entering Passive Mode (127,0,0,1,0,21).", fetch.KindPolicy},
		{"PASV 1023", "", "227 Entering Passive Mode (127,0,0,1,3,255).", fetch.KindPolicy},
		{"PASV 6667", "", "227 Entering Passive Mode (127,0,0,1,26,11).", fetch.KindPolicy},
		{"EPSV 25", "229 Entering Extended Passive Mode (|||25|)", "", fetch.KindPolicy},
		{"EPSV 119", "229 Entering Extended Passive Mode (|||119|)", "", fetch.KindPolicy},
		{"PASV 0", "", "227 Entering Passive Mode (127,0,0,1,0,0).", fetch.KindMalformed},
		{"EPSV 0", "229 Entering Extended Passive Mode (|||0|)", "", fetch.KindMalformed},
		{"EPSV 99999", "229 Entering Extended Passive Mode (|||99999|)", "", fetch.KindMalformed},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := rfcServer(t)
			s.hook = func(c *fakeConn, verb, arg string) bool {
				switch {
				case verb == "EPSV" && tt.epsv != "":
					c.reply("%s", tt.epsv)
				case verb == "EPSV":
					c.reply("500 no")
				case verb == "PASV":
					c.reply("%s", tt.pasv)
				default:
					return false
				}
				return true
			}
			var dialed []string
			tr := fetch.TracerFunc(func(d fetch.Direction, l string) {
				if strings.HasPrefix(l, "connecting to ") {
					dialed = append(dialed, l)
				}
			})
			_, _, err := get(t, client(Config{AnonymousPassword: "a@b"}, fetch.Options{Tracer: tr}), "ftp://"+s.addr()+"/etc/motd")
			if !errors.Is(err, fetch.ErrPortRefused) || fetch.KindOf(err) != tt.kind {
				t.Fatalf("err = %v (exit %d), want a port refusal, exit %d", err, fetch.KindOf(err).ExitCode(), tt.kind.ExitCode())
			}
			if len(dialed) != 1 {
				t.Errorf("dialed %v; only the control connection was allowed", dialed)
			}
		})
	}
}

func TestMalformedPassiveReplies(t *testing.T) {
	for _, tt := range []struct{ verb, reply string }{
		{"PASV", "227 Entering Passive Mode"},
		{"PASV", "227 Entering Passive Mode (127,0,0,1,300,1)."},
		{"PASV", "227 Entering Passive Mode (127,0,0,1,1234,5)."},
		{"PASV", "227 Entering Passive Mode (1,2,3)."},
		{"PASV", "227 Entering Passive Mode (127,0,0,1,4,1,7)."},
		{"PASV", "227 (-1,0,0,1,4,1)"},
		{"EPSV", "229 Entering Extended Passive Mode"},
		{"EPSV", "229 Entering Extended Passive Mode (|||abc|)"},
		{"EPSV", "229 Entering Extended Passive Mode (||||)"},
		{"EPSV", "229 Entering Extended Passive Mode (|||40000)"},
		{"EPSV", "229 (|"},
	} {
		t.Run(tt.reply, func(t *testing.T) {
			s := rfcServer(t)
			s.hook = func(c *fakeConn, verb, arg string) bool {
				switch {
				case verb == tt.verb:
					c.reply("%s", tt.reply)
				case verb == "EPSV":
					c.reply("500 no")
				default:
					return false
				}
				return true
			}
			_, _, err := get(t, client(Config{AnonymousPassword: "a@b"}, fetch.Options{}), "ftp://"+s.addr()+"/etc/motd")
			if !errors.Is(err, ErrBadReply) || fetch.KindOf(err) != fetch.KindServer {
				t.Fatalf("err = %v, want ErrBadReply", err)
			}
			var fe *fetch.Error
			if errors.As(err, &fe) && (fe.Code != 227 && fe.Code != 229) {
				t.Errorf("error lacks the reply code: %+v", fe)
			}
		})
	}
}

// retrHook replaces RETR: serve(c, data) runs with the data connection
// open after the 150 reply.
func retrHook(serve func(c *fakeConn, data net.Conn)) func(c *fakeConn, verb, arg string) bool {
	return dataHook("RETR", "150 Opening BINARY mode data connection.", serve)
}

// dataHook replaces verb, a command with a data connection: serve(c,
// data) runs with the connection open after the reply opening.
func dataHook(verb, opening string, serve func(c *fakeConn, data net.Conn)) func(c *fakeConn, verb, arg string) bool {
	return func(c *fakeConn, v, arg string) bool {
		if v != verb {
			return false
		}
		dc, err := c.dataConn()
		if err != nil {
			c.reply("425 no data connection")
			return true
		}
		c.reply(opening)
		serve(c, dc)
		return true
	}
}

// TestStallMidTransfer: a server that stops sending ends the fetch with a
// timeout (exit 5), never with what looks like a complete file.
func TestStallMidTransfer(t *testing.T) {
	s := rfcServer(t)
	s.add("/big", strings.Repeat("x", 1000))
	release := make(chan struct{})
	defer close(release)
	s.hook = retrHook(func(c *fakeConn, data net.Conn) {
		io.WriteString(data, strings.Repeat("x", 100))
		<-release
		data.Close()
	})
	c := client(Config{AnonymousPassword: "a@b"}, fetch.Options{IdleTimeout: 300 * time.Millisecond})
	start := time.Now()
	got, _, err := get(t, c, "ftp://"+s.addr()+"/big")
	if !errors.Is(err, fetch.ErrTimeout) || fetch.KindOf(err) != fetch.KindNetwork || fetch.KindOf(err).ExitCode() != 5 {
		t.Fatalf("err = %v (kind %v), want a timeout", err, fetch.KindOf(err))
	}
	if len(got) != 100 {
		t.Errorf("got %d bytes before the stall", len(got))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("took %v", d)
	}
}

// truncations are servers that end a RETR of full short of a whole
// transfer, each in its own way.
func truncations(full string) []struct {
	name  string
	serve func(c *fakeConn, data net.Conn)
} {
	return []struct {
		name  string
		serve func(c *fakeConn, data net.Conn)
	}{
		{"short with 226", func(c *fakeConn, data net.Conn) {
			io.WriteString(data, full[:len(full)/2])
			data.Close()
			c.reply("226 Transfer complete.")
		}},
		{"426 after all bytes", func(c *fakeConn, data net.Conn) {
			io.WriteString(data, full)
			data.Close()
			c.reply("426 Connection closed; transfer aborted.")
		}},
		{"control closed", func(c *fakeConn, data net.Conn) {
			io.WriteString(data, full)
			data.Close()
			c.c.Close()
		}},
		{"short, size unknown, 451", func(c *fakeConn, data net.Conn) {
			io.WriteString(data, full[:10])
			data.Close()
			c.reply("451 Local error.")
		}},
	}
}

func TestTruncatedTransfers(t *testing.T) {
	full := strings.Repeat("y", 1000)
	for _, tt := range truncations(full) {
		t.Run(tt.name, func(t *testing.T) {
			s := rfcServer(t)
			s.add("/f", full)
			s.hook = retrHook(tt.serve)
			_, _, err := get(t, client(Config{AnonymousPassword: "a@b"}, fetch.Options{}), "ftp://"+s.addr()+"/f")
			if !errors.Is(err, fetch.ErrTruncated) || fetch.KindOf(err) != fetch.KindNetwork {
				t.Fatalf("err = %v, want ErrTruncated", err)
			}
		})
	}
}

// TestCloseEarly: closing a body before its end reports the truncation;
// closing after reading exactly SIZE bytes with a 226 does not.
func TestCloseEarly(t *testing.T) {
	s := rfcServer(t)
	s.add("/f", strings.Repeat("z", 5000))
	c := client(Config{AnonymousPassword: "a@b"}, fetch.Options{})
	res, err := c.Fetch(context.Background(), "ftp://"+s.addr()+"/f")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	io.ReadFull(res.Document.Body, buf)
	if err := res.Close(); !errors.Is(err, fetch.ErrTruncated) {
		t.Errorf("early Close = %v, want ErrTruncated", err)
	}

	res, err = c.Fetch(context.Background(), "ftp://"+s.addr()+"/f")
	if err != nil {
		t.Fatal(err)
	}
	buf = make([]byte, 5000)
	if _, err := io.ReadFull(res.Document.Body, buf); err != nil {
		t.Fatal(err)
	}
	time.Sleep(50 * time.Millisecond) // let the 226 arrive
	if err := res.Close(); err != nil {
		t.Errorf("Close after every byte = %v", err)
	}
}

// TestHugeReplyLine: a 1 MiB reply line is refused at the line bound
// instead of being buffered: a size bound, refused by policy (exit 4),
// whose message names the bound; it was a malformed reply (exit 6). A
// reply of too many lines, or of too many bytes in lines each within the
// bound, is ErrTooLarge, refused by policy (exit 4) too; a reply without
// a code is still a malformed reply.
func TestHugeReplyLine(t *testing.T) {
	huge := strings.Repeat("x", 1<<20)
	for _, tt := range []struct {
		name     string
		greeting string
		hook     func(c *fakeConn, verb, arg string) bool
		long     bool // the reply has a line past the bound
		big      bool // the reply passes its bound in lines or bytes
	}{
		{name: "greeting", greeting: "220 " + huge + "\r\n", long: true},
		{name: "multi-line greeting", greeting: "220-hello\r\n" + huge + "\r\n220 end\r\n", long: true},
		{name: "PASS reply", hook: func(c *fakeConn, verb, arg string) bool {
			if verb == "PASS" {
				c.reply("230 %s", huge)
				return true
			}
			return false
		}, long: true},
		{name: "endless multi-line", greeting: "220-hello\r\n" + strings.Repeat(" more\r\n", maxReplyLines+10), big: true},
		{name: "many long lines", greeting: "220-hello\r\n" + strings.Repeat(strings.Repeat("y", 60<<10)+"\r\n", maxReplyBytes/(60<<10)+1) + "220 end\r\n", big: true},
		{name: "no code", greeting: "hello there\r\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := rfcServer(t)
			s.greeting, s.hook = tt.greeting, tt.hook
			_, _, err := get(t, client(Config{AnonymousPassword: "a@b"}, fetch.Options{}), "ftp://"+s.addr()+"/etc/motd")
			k := fetch.KindOf(err)
			switch {
			case tt.long:
				if !errors.Is(err, fetch.ErrLineTooLong) || k != fetch.KindPolicy || k.ExitCode() != 4 {
					t.Fatalf("err = %v (kind %v, exit %d), want ErrLineTooLong refused by policy (exit 4)", err, k, k.ExitCode())
				}
				for _, want := range []string{"control reply line", "more than 65536 bytes"} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("%q does not say %q", err, want)
					}
				}
			case tt.big:
				// a size bound, refused as a listing's is (exit 4)
				if !errors.Is(err, fetch.ErrTooLarge) || k != fetch.KindPolicy || !strings.Contains(err.Error(), "a reply of more than") {
					t.Fatalf("err = %v (kind %v), want ErrTooLarge refused by policy (exit 4) naming the bound", err, k)
				}
			case !errors.Is(err, ErrBadReply) || k != fetch.KindServer:
				t.Fatalf("err = %v, want ErrBadReply", err)
			}
			if len(err.Error()) > 400 {
				t.Errorf("error quotes too much: %d bytes", len(err.Error()))
			}
		})
	}
}

func TestServerHangsUp(t *testing.T) {
	s := rfcServer(t)
	s.hook = func(c *fakeConn, verb, arg string) bool {
		if verb == "USER" {
			c.c.Close()
			return true
		}
		return false
	}
	_, _, err := get(t, client(Config{AnonymousPassword: "a@b"}, fetch.Options{}), "ftp://"+s.addr()+"/etc/motd")
	if fetch.KindOf(err) != fetch.KindNetwork {
		t.Fatalf("err = %v, want a network error", err)
	}
}

// TestActiveRefusesStranger: in active mode only the control peer may
// connect; a connection from 127.0.0.9 is closed unread.
func TestActiveRefusesStranger(t *testing.T) {
	s := rfcServer(t)
	stranger := make(chan error, 1) // how the stranger's connection ended
	s.hook = func(c *fakeConn, verb, arg string) bool {
		if verb != "RETR" {
			return false
		}
		d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 9)}, Timeout: 2 * time.Second}
		dc, err := d.Dial("tcp", c.port)
		if err != nil {
			stranger <- err
			c.reply("425 %v", err)
			return true
		}
		defer dc.Close()
		c.reply("150 here it comes")
		io.WriteString(dc, "forged")
		// The client sends nothing on a RETR data connection: the read
		// ends when the client closes it, or at this deadline if the
		// client keeps it open. Long: a busy machine is slow to close.
		dc.SetReadDeadline(time.Now().Add(time.Minute))
		_, err = io.Copy(io.Discard, dc)
		if err == nil {
			err = io.EOF
		}
		stranger <- err
		return true
	}
	c := client(Config{AnonymousPassword: "a@b", Active: true}, fetch.Options{IdleTimeout: 500 * time.Millisecond})
	got, _, err := get(t, c, "ftp://"+s.addr()+"/etc/motd")
	if err == nil || strings.Contains(got, "forged") {
		t.Fatalf("got %q, %v; the stranger's data was taken", got, err)
	}
	if !errors.Is(err, fetch.ErrTimeout) {
		t.Errorf("err = %v, want a timeout waiting for the real server", err)
	}
	select {
	case serr := <-stranger:
		var ne net.Error
		if errors.As(serr, &ne) && ne.Timeout() {
			t.Errorf("the stranger's connection was left open: %v", serr)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("the stranger's connection was neither closed nor timed out")
	}
}

// listHook replaces LIST: serve(c, data) runs with the data connection
// open after the 150 reply, and must close it.
func listHook(serve func(c *fakeConn, data net.Conn)) func(c *fakeConn, verb, arg string) bool {
	return func(c *fakeConn, verb, arg string) bool {
		if verb != "LIST" {
			return false
		}
		dc, err := c.dataConn()
		if err != nil {
			c.reply("425 no data connection")
			return true
		}
		c.reply("150 Here comes the directory listing.")
		serve(c, dc)
		return true
	}
}

// TestEndlessEmptyListingLines: a LIST data stream of nothing but "\r\n"
// is cut off at the listing's line bound with ErrTooLarge (exit 4), not
// held in memory for as long as the server keeps sending.
func TestEndlessEmptyListingLines(t *testing.T) {
	// The bound is lowered so that the work is small whatever the
	// machine's speed: reading a million lines under -race on a loaded
	// machine outlasted the test's deadline.
	old := maxListingLines
	maxListingLines = 10000
	t.Cleanup(func() { maxListingLines = old })
	const giveUp = 4 * 10000 * 2 // bytes ("\r\n" a line): four times the bound
	s := rfcServer(t)
	var sent atomic.Int64
	s.hook = listHook(func(c *fakeConn, data net.Conn) {
		defer data.Close()
		chunk := []byte(strings.Repeat("\r\n", 1<<10))
		// Endless as far as the client can tell; the fake gives up at four
		// times the bound (giveUp) and ends the listing cleanly, so that a
		// client without the bound fails the test (no error) instead of
		// eating memory.
		for sent.Load() < giveUp {
			if _, err := data.Write(chunk); err != nil {
				return
			}
			sent.Add(int64(len(chunk)))
		}
		c.reply("226 Directory send OK.")
	})
	_, _, err := get(t, client(Config{AnonymousPassword: "a@b"}, fetch.Options{}), "ftp://"+s.addr()+"/pub/")
	if !errors.Is(err, fetch.ErrTooLarge) || fetch.KindOf(err) != fetch.KindPolicy {
		t.Fatalf("err = %v (kind %v), want ErrTooLarge", err, fetch.KindOf(err))
	}
}

// TestListingLineTooLong: an over-long line in a listing's data stream
// (LIST, MLSD, NLST) is refused as a size bound (exit 4), as an over-long
// reply line is and as the listing's own bounds are, its message naming
// the bound and the command; it was the server's fault (exit 6).
func TestListingLineTooLong(t *testing.T) {
	for _, tt := range []struct {
		verb, path string
		mlsd       bool
	}{
		{"LIST", "/pub/", false},
		{"MLSD", "/pub/", true},
		{"NLST", "/pub;type=d", false},
	} {
		t.Run(tt.verb, func(t *testing.T) {
			s := rfcServer(t)
			s.mlsd = tt.mlsd
			s.hook = dataHook(tt.verb, "150 Here comes the directory listing.", func(c *fakeConn, dc net.Conn) {
				io.WriteString(dc, "type=file;size=1; "+strings.Repeat("x", 1<<20)+"\r\n")
				dc.Close()
				c.reply("226 Directory send OK.")
			})
			_, _, err := get(t, client(Config{AnonymousPassword: "a@b"}, fetch.Options{}), "ftp://"+s.addr()+tt.path)
			k := fetch.KindOf(err)
			if !errors.Is(err, fetch.ErrLineTooLong) || k != fetch.KindPolicy || k.ExitCode() != 4 {
				t.Fatalf("err = %v (kind %v, exit %d), want ErrLineTooLong refused by policy (exit 4)", err, k, k.ExitCode())
			}
			for _, want := range []string{tt.verb + ": listing line", "more than 65536 bytes"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q does not say %q", err, want)
				}
			}
		})
	}
}

// spliceAll moves a body into a file as the command does (FileWriter,
// then reading what remains) and returns the file's bytes.
func spliceAll(t *testing.T, body io.Reader) ([]byte, error) {
	t.Helper()
	fw, ok := body.(fetch.FileWriter)
	if !ok {
		t.Fatalf("%T is not a fetch.FileWriter", body)
	}
	f, err := os.Create(filepath.Join(t.TempDir(), "doc"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = fw.WriteToFile(f, -1)
	if errors.Is(err, errors.ErrUnsupported) && runtime.GOOS != "linux" {
		err = nil
	}
	if err == nil {
		_, err = io.Copy(f, body)
	}
	got, rerr := os.ReadFile(f.Name())
	if rerr != nil {
		t.Fatal(rerr)
	}
	return got, err
}

// TestSplicedTransfers: a file moved into a file by splice is whole, its
// end checked as when it is read (SIZE, the final reply), and the client's
// size limit holds.
func TestSplicedTransfers(t *testing.T) {
	full := strings.Repeat("0123456789", 300_000) // 3 MB: several splices
	fetchSpliced := func(t *testing.T, s *fakeServer, opts fetch.Options) ([]byte, error) {
		c := client(Config{AnonymousPassword: "a@b"}, opts)
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		res, err := c.Fetch(ctx, "ftp://"+s.addr()+"/f")
		if err != nil {
			return nil, err
		}
		got, err := spliceAll(t, res.Document.Body)
		if cerr := res.Close(); err == nil {
			err = cerr
		}
		return got, err
	}

	t.Run("whole", func(t *testing.T) {
		s := rfcServer(t)
		s.add("/f", full)
		got, err := fetchSpliced(t, s, fetch.Options{})
		if err != nil || string(got) != full {
			t.Fatalf("%d bytes of %d, %v", len(got), len(full), err)
		}
	})
	t.Run("ASCII is converted, never spliced", func(t *testing.T) {
		s := rfcServer(t)
		s.add("/f", "a\r\nb\r\n")
		c := client(Config{AnonymousPassword: "a@b"}, fetch.Options{})
		res, err := c.Fetch(context.Background(), "ftp://"+s.addr()+"/f;type=a")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		f, err := os.Create(filepath.Join(t.TempDir(), "doc"))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		if fw, ok := res.Document.Body.(fetch.FileWriter); ok {
			if n, err := fw.WriteToFile(f, -1); n != 0 || !errors.Is(err, errors.ErrUnsupported) {
				t.Fatalf("WriteToFile of an ASCII transfer = %d, %v; want ErrUnsupported", n, err)
			}
		}
		if b, err := io.ReadAll(res.Document.Body); err != nil || string(b) != "a\nb\n" {
			t.Fatalf("read %q, %v", b, err)
		}
	})
	t.Run("over the size limit", func(t *testing.T) {
		// No size announced (SIZE refused, none in the 150 line): the
		// splice stops at the limit.
		s := rfcServer(t)
		s.add("/f", full)
		s.hook = func(c *fakeConn, verb, arg string) bool {
			if verb == "SIZE" {
				c.reply("502 SIZE not implemented.")
				return true
			}
			return false
		}
		got, err := fetchSpliced(t, s, fetch.Options{MaxSize: 1 << 20})
		if !errors.Is(err, fetch.ErrTooLarge) || len(got) != 1<<20 {
			t.Fatalf("%d bytes, %v; want exactly the limit and ErrTooLarge", len(got), err)
		}
	})
	t.Run("announced over the size limit", func(t *testing.T) {
		// SIZE said more than the limit: nothing is written.
		s := rfcServer(t)
		s.add("/f", full)
		got, err := fetchSpliced(t, s, fetch.Options{MaxSize: 1 << 20})
		if !errors.Is(err, fetch.ErrTooLarge) || len(got) != 0 {
			t.Fatalf("%d bytes, %v; want none and ErrTooLarge", len(got), err)
		}
	})
	for _, tt := range truncations(full) {
		t.Run(tt.name, func(t *testing.T) {
			s := rfcServer(t)
			s.add("/f", full)
			s.hook = retrHook(tt.serve)
			_, err := fetchSpliced(t, s, fetch.Options{})
			if !errors.Is(err, fetch.ErrTruncated) || fetch.KindOf(err) != fetch.KindNetwork {
				t.Fatalf("err = %v, want ErrTruncated", err)
			}
		})
	}
}

// TestReadyWaitsBounded: the client waits through a server's "120 ready
// soon" replies for its 220, but not through any number of them.
func TestReadyWaitsBounded(t *testing.T) {
	for _, tt := range []struct {
		waits int
		ok    bool
	}{{1, true}, {maxReadyWaits, true}, {maxReadyWaits + 1, false}, {1000, false}} {
		t.Run(fmt.Sprint(tt.waits), func(t *testing.T) {
			s := rfcServer(t)
			s.greeting = strings.Repeat("120 Service ready in 1 minute.\r\n", tt.waits) + "220 ready\r\n"
			got, _, err := get(t, client(Config{AnonymousPassword: "a@b"}, fetch.Options{}), "ftp://"+s.addr()+"/etc/motd")
			if tt.ok && (err != nil || got == "") {
				t.Fatalf("after %d replies of 120: %q, %v", tt.waits, got, err)
			}
			if !tt.ok && (fetch.KindOf(err) != fetch.KindServer || !strings.Contains(err.Error(), "120")) {
				t.Fatalf("after %d replies of 120: err = %v, want the server's refusal naming 120", tt.waits, err)
			}
		})
	}
}

// TestReplyTrickleTimesOut: a reply whose lines come slowly enough to
// renew the idle timeout each time is still bounded as a whole, by the
// idle timeout from its first byte.
func TestReplyTrickleTimesOut(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	const lines, gap = 100, 100 * time.Millisecond // 10 s in all
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		io.WriteString(c, "220-hello\r\n")
		for i := 0; i < lines; i++ {
			time.Sleep(gap)
			if _, err := fmt.Fprintf(c, " line %d\r\n", i); err != nil {
				return
			}
		}
		io.WriteString(c, "220 ready\r\n")
	}()
	idle := 4 * gap
	start := time.Now()
	_, _, err = get(t, client(Config{AnonymousPassword: "a@b"}, fetch.Options{IdleTimeout: idle}), "ftp://"+ln.Addr().String()+"/f")
	if !errors.Is(err, fetch.ErrTimeout) {
		t.Fatalf("err = %v, want a timeout", err)
	}
	// The bound is 2 × idle (the wait for the first byte, then the
	// reply); half the trickle's length leaves room for a busy machine.
	if el := time.Since(start); el > lines*gap/2 {
		t.Errorf("the reply was read for %v; the idle timeout is %v", el, idle)
	}
}
