package main

import (
	"bytes"
	"encoding/binary"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// start runs a server on loopback and returns its request address.
func start(t *testing.T) (*server, *net.UDPAddr) {
	t.Helper()
	in, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	out, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "hello.txt"), []byte("it's here\n"), 0o644)
	s := &server{in: in, out: out, done: map[key]*reply{},
		tree: newTree(in.LocalAddr().String(), "127.0.0.1:18021", "127.0.0.1:18070", dir)}
	done := make(chan struct{}, 2)
	for _, c := range []net.PacketConn{in, out} {
		go func() { s.serve(c); done <- struct{}{} }()
	}
	t.Cleanup(func() { in.Close(); out.Close(); <-done; <-done })
	return s, in.LocalAddr().(*net.UDPAddr)
}

// client is a raw ARDP peer: it sends a request and collects packets.
type client struct {
	t   *testing.T
	c   *net.UDPConn
	to  *net.UDPAddr
	cid uint16
}

func newClient(t *testing.T, to *net.UDPAddr, cid uint16) *client {
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &client{t: t, c: c, to: to, cid: cid}
}

func (c *client) send(seq, total, thru uint16, text string) {
	b := []byte{9, byte(c.cid >> 8), byte(c.cid), byte(seq >> 8), byte(seq), byte(total >> 8), byte(total), byte(thru >> 8), byte(thru)}
	if _, err := c.c.WriteToUDP(append(b, text...), c.to); err != nil {
		c.t.Fatal(err)
	}
}

// read collects packets: at least want of them (waiting up to 10 s for
// them, however busy the machine), then any that follow within quiet.
func (c *client) read(want int, quiet time.Duration) (pkts [][]byte, from []*net.UDPAddr) {
	buf := make([]byte, 65536)
	for {
		wait := quiet
		if len(pkts) < want {
			wait = 10 * time.Second
		}
		c.c.SetReadDeadline(time.Now().Add(wait))
		n, a, err := c.c.ReadFromUDP(buf)
		if err != nil {
			return
		}
		pkts = append(pkts, append([]byte(nil), buf[:n]...))
		from = append(from, a)
	}
}

const hdr = "VERSION 5 test\nAUTHENTICATE '' UNAUTHENTICATED test\n"

// TestOnePacketReply: a short reply has the 3-octet header and comes from
// another port than the one the request went to; the text follows
// dirsrv's forms (FIELD without SEQUENCE, quoting from the first "/",
// PROSPERO-CONTENTS and LOCAL appended).
func TestOnePacketReply(t *testing.T) {
	_, addr := start(t)
	c := newClient(t, addr, 0x1234)
	c.send(1, 1, 0, hdr+"GET-OBJECT-INFO #ALL ASCII '/gopher/doc.txt' 0\n")
	pkts, from := c.read(1, 300*time.Millisecond)
	if len(pkts) != 1 {
		t.Fatalf("%d packets", len(pkts))
	}
	p := pkts[0]
	if p[0] != 3 || binary.BigEndian.Uint16(p[1:]) != 0x1234 {
		t.Errorf("header % x", p[:3])
	}
	if from[0].Port == addr.Port {
		t.Errorf("reply from the request port %d", addr.Port)
	}
	want := "ATTRIBUTE OBJECT FIELD ACCESS-METHOD GOPHER INTERNET-D 127.0.0.1(18070) ASCII 0'/doc.txt' TEXT\n" +
		"ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE PROSPERO-CONTENTS '' '' '' ''\n" +
		"ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE LOCAL '' '' '' ''\n"
	if string(p[3:]) != want {
		t.Errorf("reply %q\nwant  %q", p[3:], want)
	}
}

// TestWindow: a long reply goes out 16 packets at a time, headers of 7
// octets with total 0 until the last, the 16th of each window asking for
// an acknowledgement; a client that never acknowledges gets no more.
func TestWindow(t *testing.T) {
	s, addr := start(t)
	var whole bytes.Buffer
	s.tree.list(&whole, "/big")
	n := (whole.Len() + chunkSize - 1) / chunkSize
	c := newClient(t, addr, 0x4242)
	c.send(1, 1, 0, hdr+"DIRECTORY ASCII '/big'\nLIST ATTRIBUTES COMPONENTS\n")
	pkts, _ := c.read(window, 500*time.Millisecond)
	if len(pkts) != window {
		t.Fatalf("%d packets without an acknowledgement, want %d", len(pkts), window)
	}
	for i, p := range pkts {
		seq := int(binary.BigEndian.Uint16(p[3:]))
		total := binary.BigEndian.Uint16(p[5:])
		if seq != i+1 || total != 0 {
			t.Errorf("packet %d: seq %d total %d", i+1, seq, total)
		}
		wantHdr := 7
		if seq == window {
			wantHdr = 12
		}
		if int(p[0]) != wantHdr || seq == window && p[11] != 0x80 {
			t.Errorf("packet %d: header % x", seq, p[:p[0]])
		}
	}
	var text strings.Builder
	for _, p := range pkts {
		text.Write(p[p[0]:])
	}
	all := pkts
	for thru := window; ; thru += window {
		c.send(0, 0, uint16(thru), "") // acknowledge
		more, _ := c.read(min(window, n-len(all)), 300*time.Millisecond)
		if len(more) == 0 {
			t.Fatalf("nothing after acknowledging %d", thru)
		}
		all = append(all, more...)
		for _, p := range more {
			text.Write(p[p[0]:])
		}
		last := more[len(more)-1]
		if n := binary.BigEndian.Uint16(last[5:]); n != 0 {
			if int(n) != len(all) || int(binary.BigEndian.Uint16(last[3:])) != len(all) {
				t.Errorf("last packet says total %d; %d received", n, len(all))
			}
			break
		}
	}
	if len(all) != n || n <= window {
		t.Fatalf("%d packets of %d: not a multi-window reply", len(all), n)
	}
	if text.String() != whole.String() {
		t.Errorf("the packets do not add up to the listing")
	}
	lines := strings.Split(strings.TrimSuffix(text.String(), "\n"), "\n")
	if len(lines) != bigCount || !strings.HasPrefix(lines[0], "LINK  L FILE file-001' with a long") {
		t.Errorf("%d lines, first %q", len(lines), lines[0])
	}
}

// TestRepeatedRequest: the request sent again with a received-through
// acknowledges and brings the rest of the window.
func TestRepeatedRequest(t *testing.T) {
	_, addr := start(t)
	c := newClient(t, addr, 0x7)
	req := hdr + "DIRECTORY ASCII '/big'\nLIST ATTRIBUTES COMPONENTS\n"
	c.send(1, 1, 0, req)
	if pkts, _ := c.read(window, 300*time.Millisecond); len(pkts) != window {
		t.Fatalf("%d packets", len(pkts))
	}
	c.send(1, 1, 10, req) // "I lost 11 onwards"
	pkts, _ := c.read(window, 300*time.Millisecond)
	if len(pkts) != window || binary.BigEndian.Uint16(pkts[0][3:]) != 11 {
		t.Fatalf("%d packets, first %v", len(pkts), pkts)
	}
}

func TestTextReplies(t *testing.T) {
	_, addr := start(t)
	cases := map[string]string{
		"GET-OBJECT-INFO #ALL ASCII 'hello.txt' 0\n":         "FAILURE NOT-AUTHORIZED\n",
		"GET-OBJECT-INFO #ALL ASCII '/nothing' 0\n":          "FAILURE NOT-FOUND\n",
		"GET-OBJECT-INFO #ALL ASCII '/' 0\n":                 "NONE-FOUND\n",
		"GET-OBJECT-INFO CONTENTS ASCII '/hello.txt' 0\n":    "ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA it'''s here\n'\n",
		"GET-OBJECT-INFO #ALL ASCII '/loop' 0\n":             "FORWARDED INTERNET-D " + hostParen(addr.String()) + " ASCII '/loop' 0\n",
		"DIRECTORY ASCII '/hello.txt'\nLIST '' COMPONENTS\n": "FAILURE NOT-A-DIRECTORY\n",
		"BOGUS\n": "ERROR unknown command BOGUS\n",
		"DIRECTORY ASCII '/pub'\nLIST ATTRIBUTES COMPONENTS\n": "LINK  L EXTERNAL README INTERNET-D 127.0.0.1(18021) ASCII '/pub/README' 0\n" +
			"ATTRIBUTE CACHED FIELD ACCESS-METHOD AFTP '' '' '' '' TEXT\n" +
			"LINK  L FILE data.bin INTERNET-D " + hostParen(addr.String()) + " ASCII '/pub/data.bin' 0\n",
	}
	id := uint16(100)
	for req, want := range cases {
		id++
		c := newClient(t, addr, id)
		c.send(1, 1, 0, hdr+req)
		pkts, _ := c.read(1, 200*time.Millisecond)
		if len(pkts) != 1 || string(pkts[0][3:]) != want {
			var got []string
			for _, p := range pkts {
				got = append(got, string(p))
			}
			t.Errorf("%q:\n got %q\nwant %q", req, got, want)
		}
	}
}

func TestQuote(t *testing.T) {
	for in, want := range map[string]string{"": "''", "/pub": "'/pub'", "AFTP/pub": "AFTP'/pub'", "0/selector": "0'/selector'", "a'b": "a'''b'"} {
		if got := quote(in); got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
		lines, err := tokenize("X " + quote(in) + "\n")
		if err != nil || lines[0][1] != in {
			t.Errorf("tokenize(quote(%q)) = %q, %v", in, lines, err)
		}
	}
}

// TestKeptRepliesBounded: requests under ever new connection ids do not
// make the server keep more than maxKept replies, and the newest is kept.
func TestKeptRepliesBounded(t *testing.T) {
	s, _ := start(t)
	from, _ := net.ResolveUDPAddr("udp", "127.0.0.1:9") // the replies go nowhere
	for cid := uint16(1); cid <= 2*maxKept; cid++ {
		req := []byte{9, byte(cid >> 8), byte(cid), 0, 1, 0, 1, 0, 0}
		s.packet(append(req, hdr+"GET-OBJECT-INFO #ALL ASCII '/hello.txt' 0\n"...), from)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if n := len(s.done); n > maxKept {
		t.Errorf("%d replies kept, want at most %d", n, maxKept)
	}
	if s.done[key{from.String(), 2 * maxKept}] == nil {
		t.Error("the newest reply was not kept")
	}
}
