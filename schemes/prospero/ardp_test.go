package prospero

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// golden compares got with testdata/name, or writes it with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\ngot  %q\nwant %q", name, got, want)
	}
}

// fixedCID makes connection ids predictable for golden files.
func fixedCID(t *testing.T, id uint16) {
	old := cidSource
	cidSource = func() uint16 { return id }
	t.Cleanup(func() { cidSource = old })
}

// TestRequestPacketGolden pins the exact datagram a prospero URL sends:
// the 9-octet client header (connection id, packet 1 of 1, nothing
// received), then the lines dirsrv's own client sends, the hsoname quoted
// from its first "/".
func TestRequestPacketGolden(t *testing.T) {
	text := requestText("anonymous", "GET-OBJECT-INFO #ALL ASCII "+quote("/pub/it's here")+" 0")
	pkt := EncodeRequest(0x1525, 0, []byte(text))
	golden(t, "request.golden", pkt)
	if want := []byte{9, 0x15, 0x25, 0, 1, 0, 1, 0, 0}; !bytes.Equal(pkt[:9], want) {
		t.Errorf("header % x, want % x", pkt[:9], want)
	}
	if !strings.HasSuffix(text, "GET-OBJECT-INFO #ALL ASCII '/pub/it''s here' 0\n") {
		t.Errorf("request text %q", text)
	}
	if got := EncodeAck(0x1525, 16); !bytes.Equal(got, []byte{9, 0x15, 0x25, 0, 0, 0, 0, 0, 16}) {
		t.Errorf("ack % x", got)
	}
}

func TestDecodePacket(t *testing.T) {
	cases := []struct {
		name string
		in   []byte
		want Packet
		err  bool
	}{
		// dirsrv's one-packet reply: connection id only, 1 of 1 implied
		{"short", []byte{3, 0x12, 0x34, 'O', 'K'}, Packet{HeaderLen: 3, CID: 0x1234, Seq: 1, Total: 1}, false},
		{"no cid", []byte{1, 'x'}, Packet{HeaderLen: 1, Seq: 1, Total: 1}, false},
		// a middle packet of a long reply: total not known yet
		{"long, total 0", []byte{7, 0, 9, 0, 5, 0, 0, 'd'}, Packet{HeaderLen: 7, CID: 9, Seq: 5}, false},
		{"last", []byte{7, 0, 9, 0, 6, 0, 6}, Packet{HeaderLen: 7, CID: 9, Seq: 6, Total: 6}, false},
		// end of a window: acknowledge me
		{"ack requested", []byte{12, 0, 9, 0, 16, 0, 0, 0, 1, 0, 0, 0x80},
			Packet{HeaderLen: 12, CID: 9, Seq: 16, RcvdThru: 1, HasWait: true, Flags: 0x80}, false},
		{"wait", []byte{11, 0, 9, 0, 0, 0, 0, 0, 0, 0, 30}, Packet{HeaderLen: 11, CID: 9, HasWait: true, Wait: 30}, false},
		{"refused", []byte{13, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1}, Packet{HeaderLen: 13, CID: 9, HasWait: true, Option: 1}, false},
		{"empty", nil, Packet{}, true},
		{"version 1", []byte{0x40 | 3, 0, 1}, Packet{}, true},
		{"header past end", []byte{9, 0, 1}, Packet{}, true},
		{"zero header", []byte{0}, Packet{}, true},
		{"seq past total", []byte{7, 0, 1, 0, 3, 0, 2}, Packet{}, true},
		{"short redirect", []byte{13, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 4}, Packet{}, true},
	}
	for _, c := range cases {
		p, err := DecodePacket(c.in)
		if (err != nil) != c.err {
			t.Errorf("%s: err %v", c.name, err)
			continue
		}
		if err != nil {
			continue
		}
		p.Data = nil
		if fmt.Sprint(p) != fmt.Sprint(c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, p, c.want)
		}
	}
}

// bigReply is reply text of about n packets.
func bigReply(n int) string {
	var b strings.Builder
	for i := 0; b.Len() < n*1250-100; i++ {
		fmt.Fprintf(&b, "LINK  L FILE 'file %05d' INTERNET-D h ASCII '/dir/file %05d' 0\n", i, i)
	}
	return b.String()
}

// testSession talks to f; retransmissions start after 50 ms unless rto
// says otherwise.
func testSession(t *testing.T, f *fakeServer, idle time.Duration, rto ...time.Duration) *session {
	t.Helper()
	addr, _ := net.ResolveUDPAddr("udp", f.Addr)
	r := 50 * time.Millisecond
	if len(rto) > 0 {
		r = rto[0]
	}
	s, err := openSession(context.Background(), addr, idle, r, maxReply, func(fetch.Direction, string) {})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestReassemblyGolden pins a 40-packet reply from another port: 16
// packets, the last asking for an acknowledgement, the client's ack of 16,
// the next window, and the last packet carrying the total.
func TestReassemblyGolden(t *testing.T) {
	fixedCID(t, 0xbeef)
	reply := bigReply(40)
	f := newFake(t, func(string) string { return reply }).start()
	// no retransmission may come between the packets, however busy the
	// machine: the transcript must be exactly the window exchange
	s := testSession(t, f, time.Minute, time.Minute)
	got, err := s.do(context.Background(), []byte("LIST\n"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != reply {
		t.Fatalf("reassembled %d octets, want %d", len(got), len(reply))
	}
	tr := f.transcript()
	golden(t, "reassembly.golden", []byte(tr))
	if n := strings.Count(tr, "client 09 be ef 00 00 00 00 00"); n != 2 {
		t.Errorf("%d acknowledgements, want 2 (after packets 16 and 32):\n%s", n, tr)
	}
}

// TestLossAndDuplicates: packets lost (one in the middle, the one that
// asks for an acknowledgement, the last), every packet duplicated, an ack
// ignored: the reply still arrives whole and in order.
func TestLossAndDuplicates(t *testing.T) {
	reply := bigReply(40)
	cases := []struct {
		name string
		set  func(f *fakeServer)
	}{
		{"lost 5 and 16 once", func(f *fakeServer) {
			f.drop = func(seq, try int) bool { return (seq == 5 || seq == 16) && try == 0 }
		}},
		{"lost last twice", func(f *fakeServer) {
			f.drop = func(seq, try int) bool { return seq == 40 && try < 2 }
		}},
		{"lost first", func(f *fakeServer) {
			f.drop = func(seq, try int) bool { return seq == 1 && try == 0 }
		}},
		{"duplicated", func(f *fakeServer) { f.dup = 2 }},
		{"ack lost", func(f *fakeServer) { f.ignoreAcks = 1 }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFake(t, func(string) string { return reply })
			c.set(f)
			f.start()
			s := testSession(t, f, 10*time.Second)
			got, err := s.do(context.Background(), []byte("LIST\n"))
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != reply {
				t.Fatalf("reassembled %d octets, want %d", len(got), len(reply))
			}
		})
	}
}

// TestRequestLost: the request itself is lost (the server hears nothing
// the first time); the client sends it again.
func TestRequestLost(t *testing.T) {
	f := newFake(t, func(string) string { return "NONE-FOUND\n" })
	f.loseRequests = 2
	f.start()
	s := testSession(t, f, 10*time.Second)
	got, err := s.do(context.Background(), []byte("X\n"))
	if err != nil || string(got) != "NONE-FOUND\n" {
		t.Fatalf("%q, %v", got, err)
	}
	if n := len(f.fromClient()); n < 2 {
		t.Errorf("client sent %d datagrams, want the request at least twice", n)
	}
}

// TestForeignPackets: packets of another connection id, garbage, and a
// reply on a different port than the request went to.
func TestForeignPackets(t *testing.T) {
	f := newFake(t, nil)
	f.raw = [][]byte{
		{0xff, 1, 2},                        // not ARDP
		{3, 0x77, 0x77, 'n', 'o'},           // another connection
		{3, 0xab, 0xcd, 'O', 'K', '\n'},     // ours
		{3, 0xab, 0xcd, 'A', 'G', 'A', 'I'}, // a duplicate after the end
	}
	fixedCID(t, 0xabcd)
	f.start()
	s := testSession(t, f, 10*time.Second)
	got, err := s.do(context.Background(), []byte("X\n"))
	if err != nil || string(got) != "OK\n" {
		t.Fatalf("%q, %v", got, err)
	}
}

// TestSilentServer: no reply ends in a network timeout, reported as the
// idle time, after sending the request again with backoff. The idle time
// is forty times the first retransmission interval, so the retransmissions
// happen however late a busy machine wakes the client; a client that
// never gave up would run into the test's own deadline.
func TestSilentServer(t *testing.T) {
	f := newFake(t, nil)
	f.silent = true
	f.start()
	const idle, rto = 2 * time.Second, 50 * time.Millisecond
	s := testSession(t, f, idle, rto)
	ctx, cancel := context.WithTimeout(context.Background(), 30*idle)
	defer cancel()
	start := time.Now()
	_, err := s.do(ctx, []byte("X\n"))
	took := time.Since(start)
	if !errors.Is(err, fetch.ErrTimeout) || fetch.KindOf(err) != fetch.KindNetwork || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %v (kind %v), want a network timeout", err, fetch.KindOf(err))
	}
	if !strings.Contains(err.Error(), "within "+idle.String()) {
		t.Errorf("error %q does not name the idle time %v", err, idle)
	}
	if took < idle {
		t.Errorf("gave up after %v, before the idle time %v", took, idle)
	}
	// 50 ms, 100, 200, 400, 800: five retransmissions fit in 2 s
	if n := len(f.fromClient()); n < 3 {
		t.Errorf("%d requests sent, want retransmissions", n)
	}
}

// TestStalledWindow: a server that sends one window and then nothing,
// ignoring acknowledgements and repeats, times out rather than hangs.
// The idle time is forty times the first retransmission interval: a
// client that a busy machine leaves unscheduled for half a second must
// still take in the whole first window before it counts as stalled.
func TestStalledWindow(t *testing.T) {
	reply := bigReply(40)
	f := newFake(t, func(string) string { return reply })
	f.drop = func(seq, try int) bool { return seq > 16 }
	f.start()
	s := testSession(t, f, 2*time.Second)
	_, err := s.do(context.Background(), []byte("X\n"))
	if !errors.Is(err, fetch.ErrTimeout) || !strings.Contains(err.Error(), "stalled after 16 packets") {
		t.Fatalf("error %v", err)
	}
}

// TestCancel: cancelling the context while the client waits for a reply
// ends the exchange at once, not at the idle timeout.
func TestCancel(t *testing.T) {
	f := newFake(t, nil)
	f.silent = true
	f.start()
	addr, _ := net.ResolveUDPAddr("udp", f.Addr)
	ctx, cancel := context.WithCancel(context.Background())
	s, err := openSession(ctx, addr, time.Minute, time.Second, maxReply, func(fetch.Direction, string) {})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	done := make(chan error, 1)
	go func() { _, err := s.do(ctx, []byte("X\n")); done <- err }()
	<-f.heard // the request is out: do is waiting for the reply
	cancel()
	// a cancel not heeded would end in the idle timeout (a minute) instead
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want context.Canceled", err)
	}
}

func TestReassemblyBounds(t *testing.T) {
	r := newReassembly(100)
	if _, err := r.add(Packet{Seq: 1, Data: make([]byte, 101)}); err == nil {
		t.Error("a packet over the bound was accepted")
	}
	r = newReassembly(1 << 20)
	if ok, _ := r.add(Packet{Seq: 300, Data: []byte("x")}); ok {
		t.Error("a packet 300 beyond the gap was held")
	}
	r.add(Packet{Seq: 3, Data: []byte("c")})
	if _, err := r.add(Packet{Seq: 2, Total: 2}); err == nil {
		t.Error("a total below a packet already received was accepted")
	}
	r.add(Packet{Seq: 1, Data: []byte("a")})
	r.add(Packet{Seq: 2, Data: []byte("b")})
	if _, err := r.add(Packet{Seq: 4, Total: 4, Data: []byte("d")}); err != nil || !r.complete() || string(r.bytes()) != "abcd" {
		t.Errorf("complete %v, %q, %v", r.complete(), r.bytes(), err)
	}
	if _, err := r.add(Packet{Seq: 4, Total: 5}); err == nil {
		t.Error("a changed total was accepted")
	}
}

// TestSequencedControl: a packet flagged as sequenced control (0x40)
// takes its place in the sequence but adds nothing to the reply.
func TestSequencedControl(t *testing.T) {
	fixedCID(t, 0x0c0c)
	f := newFake(t, nil)
	f.raw = [][]byte{
		{7, 0x0c, 0x0c, 0, 1, 0, 0, 'a'},
		{12, 0x0c, 0x0c, 0, 2, 0, 0, 0, 0, 0, 0, flagSeqControl, 'X', 'X'},
		{7, 0x0c, 0x0c, 0, 3, 0, 3, 'b'},
	}
	f.start()
	got, err := testSession(t, f, 10*time.Second).do(context.Background(), []byte("X\n"))
	if err != nil || string(got) != "ab" {
		t.Fatalf("%q, %v", got, err)
	}
}

// TestRepeatingServer: a server that sends the same packet over and over
// does not hold the exchange open past the idle timeout.
func TestRepeatingServer(t *testing.T) {
	fixedCID(t, 0x0d0d)
	f := newFake(t, nil)
	pkt := []byte{7, 0x0d, 0x0d, 0, 1, 0, 0, 'a'}
	f.raw = [][]byte{pkt}
	f.start()
	defer repeat(f, pkt)()
	// Were the repeats taken for life, the exchange would run into the
	// test's deadline, far past the idle time.
	const idle = 500 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 60*idle)
	defer cancel()
	_, err := testSession(t, f, idle).do(ctx, []byte("X\n"))
	if !errors.Is(err, fetch.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "within "+idle.String()) {
		t.Errorf("error %v, want the idle timeout of %v", err, idle)
	}
}

// TestRepeatedWait: a server that asks the client to wait, over and
// over, with nothing else, is given maxWaits idle periods and then the
// idle timeout ends the exchange; unbounded, it would run into the test's
// deadline.
func TestRepeatedWait(t *testing.T) {
	fixedCID(t, 0x0e0e)
	f := newFake(t, nil)
	wait := []byte{11, 0x0e, 0x0e, 0, 0, 0, 0, 0, 0, 0, 1} // control packet: wait 1 s
	f.raw = [][]byte{wait}
	f.start()
	defer repeat(f, wait)()
	const idle = 300 * time.Millisecond
	ctx, cancel := context.WithTimeout(context.Background(), 200*idle)
	defer cancel()
	_, err := testSession(t, f, idle).do(ctx, []byte("X\n"))
	if !errors.Is(err, fetch.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "within "+idle.String()) {
		t.Errorf("error %v, want the idle timeout of %v", err, idle)
	}
}

// TestTrickledReply: a server sending new packets of nothing (sequenced,
// no data, no total), each within the idle timeout, renewed the timeout
// with each and held the exchange for up to 65,535 of them. A reply gets
// the idle timeout from its first packet, and one more for every 64 KiB it
// brings; the test's deadline, far past it, is what ended the exchange
// before.
func TestTrickledReply(t *testing.T) {
	fixedCID(t, 0x0f0f)
	f := newFake(t, nil)
	f.silent = true
	f.start()
	const idle = 300 * time.Millisecond
	done := make(chan struct{})
	defer close(done)
	go func() {
		<-f.heard
		f.mu.Lock()
		to := f.from
		f.mu.Unlock()
		for seq := uint16(1); ; seq++ {
			select {
			case <-done:
				return
			case <-time.After(idle / 3):
			}
			p := []byte{7, 0x0f, 0x0f, 0, 0, 0, 0} // a header alone: no data, no total
			binary.BigEndian.PutUint16(p[3:], seq)
			f.out.WriteToUDP(p, to)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 60*idle)
	defer cancel()
	_, err := testSession(t, f, idle).do(ctx, []byte("X\n"))
	if !errors.Is(err, fetch.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "the idle timeout, and one more every 64 KiB") {
		t.Errorf("error %v, want the reply's timeout of %v", err, idle)
	}
}

// TestSlowSteadyReply: a large reply over a lossy path, slower as a whole
// than the idle timeout but always moving, still arrives: one packet of
// every window of 16 is lost once and waits a retransmission (100 ms), so
// the reply comes at some 160 KB/s, above the pace a reply must keep (64
// KiB an idle timeout, here a second). Bounded by the idle timeout as a
// whole, it was cut short.
func TestSlowSteadyReply(t *testing.T) {
	big := strings.Repeat("LINK L DIRECTORY x ASCII 0 /x\n", 400_000/31)
	f := newFake(t, func(string) string { return big })
	f.drop = func(seq, try int) bool { return seq%16 == 0 && try == 0 }
	f.start()
	const idle = time.Second
	ctx, cancel := context.WithTimeout(context.Background(), 60*idle)
	defer cancel()
	start := time.Now()
	got, err := testSession(t, f, idle, 100*time.Millisecond).do(ctx, []byte("X\n"))
	if err != nil {
		t.Fatalf("after %v: %v", time.Since(start), err)
	}
	if len(got) != len(big) {
		t.Errorf("%d bytes, want %d", len(got), len(big))
	}
}

// repeat sends pkt to the client every 20 ms, once it has sent its
// request, until the function it returns is called.
func repeat(f *fakeServer, pkt []byte) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
			return
		case <-f.heard:
		}
		f.mu.Lock()
		to := f.from
		f.mu.Unlock()
		for {
			select {
			case <-done:
				return
			case <-time.After(20 * time.Millisecond):
				f.out.WriteToUDP(pkt, to)
			}
		}
	}()
	return func() { close(done) }
}

// TestReplyPastBound: a reply longer than the session's bound is refused
// as a size bound (exit 4), as every driver's is, naming the bound.
func TestReplyPastBound(t *testing.T) {
	f := newFake(t, func(string) string { return bigReply(4) }).start()
	addr, _ := net.ResolveUDPAddr("udp", f.Addr)
	s, err := openSession(context.Background(), addr, time.Minute, 50*time.Millisecond, 2000, func(fetch.Direction, string) {})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	_, err = s.do(context.Background(), []byte("VERSION 5 x\n"))
	k := fetch.KindOf(err)
	if !errors.Is(err, fetch.ErrTooLarge) || k.ExitCode() != 4 || !strings.Contains(err.Error(), "limited to 2000 octets") {
		t.Errorf("err = %v (kind %v), want a size refusal (exit 4) naming the bound", err, k)
	}
}

// TestRedirectFollowed: a server that answers with a redirect (ARDP
// option 4, as dirsrv's ardp_redirect sends) has the request sent to the
// server it names, as a new exchange, and that server's reply is the
// reply; a redirect's port goes through the port policy.
func TestRedirectFollowed(t *testing.T) {
	b := newFake(t, func(req string) string { return "ANSWERED BY B\n" }).start()
	a := newFake(t, nil)
	a.redirect = b.in.LocalAddr().(*net.UDPAddr)
	a.start()
	s := testSession(t, a, 10*time.Second)
	var traced []string
	s.trace = func(_ fetch.Direction, l string) { traced = append(traced, l) }
	got, err := s.do(context.Background(), []byte("X\n"))
	if err != nil || string(got) != "ANSWERED BY B\n" {
		t.Fatalf("%q, %v", got, err)
	}
	if len(a.requests()) != 1 || len(b.requests()) != 1 || b.requests()[0] != "X\n" {
		t.Errorf("A heard %q, B heard %q; want the request once each", a.requests(), b.requests())
	}
	if !strings.Contains(strings.Join(traced, "\n"), "redirected the request to "+b.Addr) {
		t.Errorf("the redirect is not traced: %q", traced)
	}

	// The port policy decides whether the redirect is followed.
	c := newFake(t, func(string) string { return "SHOULD NOT BE ASKED\n" }).start()
	a2 := newFake(t, nil)
	a2.redirect = c.in.LocalAddr().(*net.UDPAddr)
	a2.start()
	s = testSession(t, a2, 10*time.Second)
	refused := errors.New("port refused by the test's policy")
	s.allow = func(port int) error { return refused }
	if _, err := s.do(context.Background(), []byte("X\n")); !errors.Is(err, refused) {
		t.Errorf("a refused redirect: %v", err)
	}
	if n := len(c.requests()); n != 0 {
		t.Errorf("the refused server was sent %d requests", n)
	}
}

// TestRedirectNotifyFollowed: option 5 (redirect and notify) has option
// 4's fields and is followed as it is, for the later requests of the
// session too; it was taken for a reply packet, which never came whole.
func TestRedirectNotifyFollowed(t *testing.T) {
	b := newFake(t, func(req string) string { return "ANSWERED BY B\n" }).start()
	a := newFake(t, func(string) string { return "FROM A\n" })
	a.redirect, a.redirectOnce, a.redirectOption = b.in.LocalAddr().(*net.UDPAddr), true, 5 // redirect and notify
	a.start()
	s := testSession(t, a, 10*time.Second)
	for _, req := range []string{"1\n", "2\n"} {
		got, err := s.do(context.Background(), []byte(req))
		if err != nil || string(got) != "ANSWERED BY B\n" {
			t.Fatalf("request %q: %q, %v; want B's answer", req, got, err)
		}
	}
	if ra, rb := a.requests(), b.requests(); len(ra) != 1 || len(rb) != 2 {
		t.Errorf("A heard %q, B heard %q; want A the first, B both", ra, rb)
	}
}

// TestRedirectLoop: two servers naming each other end the exchange after
// maxRedirects, with an error, not for ever.
func TestRedirectLoop(t *testing.T) {
	a, b := newFake(t, nil), newFake(t, nil)
	a.redirect, b.redirect = b.in.LocalAddr().(*net.UDPAddr), a.in.LocalAddr().(*net.UDPAddr)
	a.start()
	b.start()
	s := testSession(t, a, 10*time.Second)
	_, err := s.do(context.Background(), []byte("X\n"))
	if err == nil || !strings.Contains(err.Error(), "redirects") || fetch.KindOf(err) != fetch.KindServer {
		t.Fatalf("err = %v", err)
	}
	if n := len(a.requests()) + len(b.requests()); n != maxRedirects+1 {
		t.Errorf("%d requests sent, want %d", n, maxRedirects+1)
	}
}

// TestRedirectUnreachable: a redirect to an address the socket cannot
// reach (off loopback from a loopback socket) or that is no server is an
// error naming it, and nothing is sent there.
func TestRedirectUnreachable(t *testing.T) {
	for _, to := range []*net.UDPAddr{
		{IP: net.IPv4(192, 0, 2, 1), Port: 1525},
		{IP: net.IPv4zero, Port: 1525},
		{IP: net.IPv4(127, 0, 0, 1), Port: 0},
	} {
		a := newFake(t, nil)
		a.redirect = to
		a.start()
		s := testSession(t, a, 10*time.Second)
		_, err := s.do(context.Background(), []byte("X\n"))
		if err == nil || !strings.Contains(err.Error(), to.IP.String()) || fetch.KindOf(err) != fetch.KindServer {
			t.Errorf("redirect to %v: err = %v", to, err)
		}
	}
}

// TestRedirectHoldsForOneMessage: option 4 redirects "all
// subsequent packets in this message" (the protocol's octet 12 table;
// option 5 is the one that moves later requests): a session that asks
// again, as the driver does (GET-OBJECT-INFO, then LIST), asks the server
// it was opened for, not the one an earlier reply redirected to.
func TestRedirectHoldsForOneMessage(t *testing.T) {
	b := newFake(t, func(string) string { return "FROM B\n" }).start()
	a := newFake(t, func(string) string { return "FROM A\n" })
	a.redirect, a.redirectOnce = b.in.LocalAddr().(*net.UDPAddr), true
	a.start()
	s := testSession(t, a, 10*time.Second)
	if got, err := s.do(context.Background(), []byte("1\n")); err != nil || string(got) != "FROM B\n" {
		t.Fatalf("redirected request: %q, %v", got, err)
	}
	if got, err := s.do(context.Background(), []byte("2\n")); err != nil || string(got) != "FROM A\n" {
		t.Errorf("the next request: %q, %v; want it asked of A, which answers it", got, err)
	}
	if ra, rb := a.requests(), b.requests(); len(ra) != 2 || len(rb) != 1 {
		t.Errorf("A heard %q, B heard %q; want A both, B the redirected one", ra, rb)
	}
}

// TestRedirectRefusedPortNamed: a redirect whose port the policy
// refuses is an error that says the server redirected, and where to: the
// URL's own port is not the one refused.
func TestRedirectRefusedPortNamed(t *testing.T) {
	to := &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 25}
	a := newFake(t, nil)
	a.redirect = to
	a.start()
	u, err := fetch.Parse("prospero://" + a.Addr + "//x")
	if err != nil {
		t.Fatal(err)
	}
	req := &fetch.Request{URL: u}
	s := testSession(t, a, 10*time.Second)
	s.allow = func(port int) error { return req.CheckPort("prospero", port) }
	_, err = s.do(context.Background(), []byte("X\n"))
	if !errors.Is(err, fetch.ErrPortRefused) || fetch.KindOf(err) != fetch.KindPolicy ||
		!strings.Contains(err.Error(), "redirect") || !strings.Contains(err.Error(), to.String()) {
		t.Errorf("err = %v (kind %v); want a port refusal naming the redirect to %v", err, fetch.KindOf(err), to)
	}
}

// TestRedirectMidReply: a redirect after packets of the reply came
// starts the exchange again with the server named: what came before is
// dropped, not joined to the new server's reply; and the server that
// answered is the one an archive names.
func TestRedirectMidReply(t *testing.T) {
	fixedCID(t, 0x0a0b)
	b := newFake(t, func(string) string { return "FROM B\n" }).start()
	a := newFake(t, nil)
	to := b.in.LocalAddr().(*net.UDPAddr)
	redirect := []byte{19, 0x0a, 0x0b, 0, 0, 0, 0, 0, 0, 0, 0, 0, optRedirect, 127, 0, 0, 1, byte(to.Port >> 8), byte(to.Port)}
	a.raw = [][]byte{
		{7, 0x0a, 0x0b, 0, 1, 0, 0, 'P', 'A', 'R', 'T', '1'}, // packet 1, total unknown
		redirect,
	}
	a.start()
	s := testSession(t, a, 10*time.Second)
	got, err := s.do(context.Background(), []byte("X\n"))
	if err != nil || string(got) != "FROM B\n" {
		t.Fatalf("%q, %v; want B's reply alone", got, err)
	}
	if s.replied.String() != b.Addr || s.server.String() != a.Addr {
		t.Errorf("replied %v, server %v; want %v, %v", s.replied, s.server, b.Addr, a.Addr)
	}
}

// TestRedirectAfterFlagFields: the address of a redirect (option 4)
// follows the fields the flags of octet 11 add, in the order of their
// bits (protocol v5, appendix ARDP, "Octets 13 and above"): additional
// address information (a type, a length, that many octets), a priority
// (2 octets), a protocol id (2 octets).
func TestRedirectAfterFlagFields(t *testing.T) {
	addr := []byte{127, 0, 0, 2, 0x13, 0x88}
	head := func(flags byte, fields ...byte) []byte {
		b := []byte{0, 0, 9, 0, 0, 0, 0, 0, 0, 0, 0, flags, optRedirect}
		b = append(append(b, fields...), addr...)
		b[0] = byte(len(b))
		return append(b, 'x')
	}
	for name, in := range map[string][]byte{
		"no flag fields": head(0x80),
		"priority":       head(0x02, 0xff, 0xfe),
		"protocol id":    head(0x04, 0, 7),
		"all three":      head(0x07, 1, 3, 10, 0, 0, 0, 5, 0, 7),
	} {
		p, err := DecodePacket(in)
		if err != nil || !bytes.Equal(p.Redirect, addr) || string(p.Data) != "x" {
			t.Errorf("%s: redirect %v, data %q, err %v; want %v", name, p.Redirect, p.Data, err, addr)
		}
	}
	// flag fields that leave no room for the address in the header
	if _, err := DecodePacket(head(0x01, 1, 40)); err == nil {
		t.Error("address information past the header: no error")
	}
}
