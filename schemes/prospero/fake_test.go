package prospero

import (
	"encoding/binary"
	"fmt"
	"net"
	"strings"
	"sync"
	"testing"
)

// fakeServer is an in-process ARDP server for unit tests and fault
// injection: requests arrive on one UDP port and replies leave from
// another (as from dirsrv), packets are cut and headed like dirsrv's
// (3-octet header for one packet; 7 octets, total 0 until the last; 12
// octets asking for an acknowledgement at the end of each window), and
// nothing past the window goes out before an acknowledgement or a repeated
// request. Knobs drop, duplicate or ignore datagrams.
type fakeServer struct {
	t      testing.TB
	in     *net.UDPConn
	out    *net.UDPConn
	Addr   string
	answer func(req string) string
	window int
	chunk  int

	// drop says whether to drop transmission number try (0 the first)
	// of packet seq.
	drop func(seq, try int) bool
	// dup sends every packet this many more times.
	dup int
	// silent answers nothing at all.
	silent bool
	// raw, when set, is sent as the whole reply datagram(s) instead.
	raw [][]byte
	// ignoreAcks drops this many acknowledgements from the client.
	ignoreAcks int
	// loseRequests drops this many new requests, as if lost on the way.
	loseRequests int
	// redirect, when set, answers every new request with ARDP option 4
	// naming it (ardp_redirect), from the port the request came in on.
	redirect *net.UDPAddr
	// redirectOnce redirects the first new request only; later ones
	// are answered.
	redirectOnce bool
	// redirectOption is the option the redirect is sent with (0: 4).
	redirectOption byte

	mu       sync.Mutex
	received [][]byte      // every datagram from the client
	sent     [][]byte      // every packet sent
	reqs     []string      // request texts
	log      []string      // both directions, in order: headers in hex
	from     *net.UDPAddr  // the client's address, once it has sent
	heard    chan struct{} // closed when the first datagram arrives
	state    map[string]*fakeReply
	wg       sync.WaitGroup
}

type fakeReply struct {
	to     *net.UDPAddr
	cid    uint16
	chunks [][]byte
	thru   int
	sent   int
	tries  map[int]int
}

func newFake(t testing.TB, answer func(string) string) *fakeServer {
	t.Helper()
	in, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	out, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{t: t, in: in, out: out, Addr: in.LocalAddr().String(), answer: answer,
		window: 16, chunk: 1250, state: map[string]*fakeReply{}, heard: make(chan struct{})}
	t.Cleanup(f.Close)
	return f
}

// start serves until Close; knobs must be set before.
func (f *fakeServer) start() *fakeServer {
	for _, c := range []*net.UDPConn{f.in, f.out} {
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			buf := make([]byte, 65536)
			for {
				n, from, err := c.ReadFromUDP(buf)
				if err != nil {
					return
				}
				f.handle(append([]byte(nil), buf[:n]...), from)
			}
		}()
	}
	return f
}

func (f *fakeServer) Close() {
	f.in.Close()
	f.out.Close()
	f.wg.Wait()
}

func (f *fakeServer) Port() int { return f.in.LocalAddr().(*net.UDPAddr).Port }

func (f *fakeServer) handle(b []byte, from *net.UDPAddr) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.received = append(f.received, b)
	if len(f.received) == 1 {
		close(f.heard)
	}
	f.from = from
	f.log = append(f.log, logLine("client", b))
	if f.silent || len(b) < 9 {
		return
	}
	cid := binary.BigEndian.Uint16(b[1:])
	seq := binary.BigEndian.Uint16(b[3:])
	thru := int(binary.BigEndian.Uint16(b[7:]))
	k := fmt.Sprintf("%s/%d", from, cid)
	if r := f.state[k]; r != nil {
		if seq == 0 && f.ignoreAcks > 0 {
			f.ignoreAcks--
			return
		}
		first := r.sent + 1
		if seq != 0 {
			first = max(r.thru, thru) + 1 // a repeated request: send again
		}
		r.thru = max(r.thru, thru)
		f.window1(r, first)
		return
	}
	if f.loseRequests > 0 {
		f.loseRequests--
		return
	}
	text := string(b[int(b[0]&0x3f):])
	f.reqs = append(f.reqs, text)
	if to := f.redirect; to != nil {
		if f.redirectOnce {
			f.redirect = nil
		}
		p := make([]byte, 19)
		p[0] = 19
		binary.BigEndian.PutUint16(p[1:], cid)
		p[12] = optRedirect
		if f.redirectOption != 0 {
			p[12] = f.redirectOption
		}
		copy(p[13:17], to.IP.To4())
		binary.BigEndian.PutUint16(p[17:], uint16(to.Port))
		f.log = append(f.log, logLine("server", p))
		f.in.WriteToUDP(p, from)
		return
	}
	if f.raw != nil {
		for _, d := range f.raw {
			f.out.WriteToUDP(d, from)
		}
		return
	}
	data := []byte(f.answer(text))
	r := &fakeReply{to: from, cid: cid, tries: map[int]int{}}
	for len(data) > f.chunk {
		r.chunks = append(r.chunks, data[:f.chunk])
		data = data[f.chunk:]
	}
	r.chunks = append(r.chunks, data)
	f.state[k] = r
	f.window1(r, 1)
}

func (f *fakeServer) window1(r *fakeReply, first int) {
	last := min(r.thru+f.window, len(r.chunks))
	for seq := first; seq <= last; seq++ {
		p := f.packet(r, seq)
		try := r.tries[seq]
		r.tries[seq]++
		if f.drop != nil && f.drop(seq, try) {
			continue
		}
		for range 1 + f.dup {
			f.sent = append(f.sent, p)
			f.log = append(f.log, logLine("server", p))
			f.out.WriteToUDP(p, r.to)
		}
	}
	r.sent = max(r.sent, last)
}

func (f *fakeServer) packet(r *fakeReply, seq int) []byte {
	n := len(r.chunks)
	data := r.chunks[seq-1]
	if n == 1 {
		return append([]byte{3, byte(r.cid >> 8), byte(r.cid)}, data...)
	}
	total, hl := 0, 7
	if seq == n {
		total = n
	}
	ack := seq == r.thru+f.window
	if ack {
		hl = 12
	}
	b := make([]byte, hl)
	b[0] = byte(hl)
	binary.BigEndian.PutUint16(b[1:], r.cid)
	binary.BigEndian.PutUint16(b[3:], uint16(seq))
	binary.BigEndian.PutUint16(b[5:], uint16(total))
	if ack {
		binary.BigEndian.PutUint16(b[7:], 1)
		b[11] = flagAckRequested
	}
	return append(b, data...)
}

// logLine shows a datagram's header in hex and the length of its data.
func logLine(who string, b []byte) string {
	h := int(b[0] & 0x3f)
	return fmt.Sprintf("%s % x +%d", who, b[:min(h, len(b))], len(b)-min(h, len(b)))
}

// transcript returns the log.
func (f *fakeServer) transcript() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.log, "\n") + "\n"
}

// requests returns the request texts received so far.
func (f *fakeServer) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.reqs...)
}

// fromClient returns every datagram the client sent.
func (f *fakeServer) fromClient() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.received...)
}

// tree answers like prosperod from a map of hsoname to reply text for
// GET-OBJECT-INFO, and of directory name to reply text for LIST.
func tree(objects, dirs map[string]string) func(string) string {
	return func(req string) string {
		lines, err := splitReply([]byte(req))
		if err != nil {
			return "ERROR " + quote(err.Error()) + "\n"
		}
		dir := ""
		for _, l := range lines {
			switch l[0] {
			case "GET-OBJECT-INFO":
				name := l[3]
				if !strings.HasPrefix(name, "/") {
					return "FAILURE NOT-AUTHORIZED\n"
				}
				if l[1] == "CONTENTS" {
					name += "#CONTENTS"
				}
				if r, ok := objects[name]; ok {
					return r
				}
				if _, ok := dirs[name]; ok {
					return "NONE-FOUND\n"
				}
				return "FAILURE NOT-FOUND\n"
			case "DIRECTORY":
				dir = l[2]
			case "LIST":
				if r, ok := dirs[dir]; ok {
					return r
				}
				if _, ok := objects[dir]; ok {
					return "FAILURE NOT-A-DIRECTORY\n"
				}
				return "FAILURE NOT-FOUND\n"
			}
		}
		return "ERROR no command\n"
	}
}
