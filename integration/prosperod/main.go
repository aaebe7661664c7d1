// Command prosperod is the test harness's Prospero directory server,
// written from the Prospero protocol v5 draft and the ARDP notes, serving
// a small virtual directory whose objects are reached through the
// harness's anonymous FTP and Gopher servers. It reproduces what the
// historical dirsrv (P5.3) is observed to do, so the fetch driver's tests
// exercise it:
//
//   - a one-packet reply has the 3-octet ARDP header (connection id only);
//     a longer one has 7-octet headers whose total is 0 until the last
//     packet, and 12-octet ones asking for an acknowledgement at the end
//     of each 16-packet window; nothing beyond the window is sent until
//     the client acknowledges (or sends its request again);
//   - replies leave from another UDP port than the one requests arrive on;
//   - tokens are quoted from their first special character on
//     ("'/pub/file'", "0'/doc.txt'"), two quotes inside quotes being one quote;
//   - LINK lines have two spaces after LINK; FIELD attributes leave out
//     the SEQUENCE word that INTRINSIC ones carry;
//   - every file gets PROSPERO-CONTENTS and LOCAL access methods with
//     empty fields after its own, and a file of the anonymous FTP area an
//     AFTP method after those;
//   - EXTERNAL links carry their access method as a CACHED attribute in
//     the listing;
//   - a name without a leading "/" is FAILURE NOT-AUTHORIZED, an unknown
//     one FAILURE NOT-FOUND.
//
// Usage:
//
//	prosperod -listen 127.0.0.1:18525 -ftp 127.0.0.1:18021 -gopher 127.0.0.1:18070 -content DIR
//	prosperod -probe 127.0.0.1:18525     (exit 0 once the server answers)
package main

import (
	"bytes"
	"encoding/binary"
	"flag"
	"fmt"
	"log"
	"net"
	"os"
	"sort"
	"strings"
	"sync"
	"time"
)

const (
	window    = 16   // packets sent before waiting for an acknowledgement
	chunkSize = 1250 // data octets per packet, as dirsrv
	bigCount  = 400  // links in /big: a reply of more than one window
	doneKeep  = 2 * time.Minute
	// maxKept bounds the replies kept for retransmission: a client sending
	// requests under ever new connection ids cannot make the server hold
	// more (the oldest is dropped; its client can ask again).
	maxKept = 256
)

func main() {
	listen := flag.String("listen", "127.0.0.1:18525", "UDP address to serve on")
	ftp := flag.String("ftp", "127.0.0.1:18021", "anonymous FTP server the AFTP methods name")
	gopher := flag.String("gopher", "127.0.0.1:18070", "Gopher server the GOPHER methods name")
	content := flag.String("content", "", "the FTP server's anonymous root (read for CONTENTS)")
	probe := flag.String("probe", "", "ask the server at this address for /hello.txt and exit 0 if it answers")
	flag.Parse()
	if *probe != "" {
		if err := probeServer(*probe); err != nil {
			fmt.Fprintln(os.Stderr, "probe:", err)
			os.Exit(1)
		}
		return
	}
	in, err := net.ListenPacket("udp", *listen)
	if err != nil {
		log.Fatal(err)
	}
	host, _, _ := net.SplitHostPort(*listen)
	out, err := net.ListenPacket("udp", net.JoinHostPort(host, "0"))
	if err != nil {
		log.Fatal(err)
	}
	s := &server{in: in, out: out, tree: newTree(*listen, *ftp, *gopher, *content), done: map[key]*reply{}}
	log.Printf("prosperod: requests on %s, replies from %s", in.LocalAddr(), out.LocalAddr())
	go func() { log.Fatal(s.serve(out)) }()
	log.Fatal(s.serve(in))
}

// key names one client request: its address and connection id.
type key struct {
	addr string
	cid  uint16
}

// reply is a reply being sent or kept for retransmission.
type reply struct {
	to       net.Addr
	cid      uint16
	chunks   [][]byte
	peerThru int // the client has every packet through this one
	sent     int // highest packet sent so far
	lastSend time.Time
	at       time.Time
}

type server struct {
	in, out net.PacketConn
	tree    *tree
	mu      sync.Mutex
	done    map[key]*reply
}

// serve reads datagrams from c until it fails.
func (s *server) serve(c net.PacketConn) error {
	buf := make([]byte, 65536)
	for {
		n, from, err := c.ReadFrom(buf)
		if err != nil {
			return err
		}
		s.packet(append([]byte(nil), buf[:n]...), from)
	}
}

// packet handles one datagram: a request, a request sent again (its
// received-through field acknowledges), or an acknowledgement.
func (s *server) packet(b []byte, from net.Addr) {
	if len(b) == 0 || b[0]>>6 != 0 {
		return
	}
	h := int(b[0] & 0x3f)
	if h > len(b) {
		return
	}
	var cid, seq, total, thru uint16 = 0, 1, 1, 0
	if h >= 3 {
		cid = binary.BigEndian.Uint16(b[1:])
	}
	if h >= 5 {
		seq = binary.BigEndian.Uint16(b[3:])
	}
	if h >= 7 {
		total = binary.BigEndian.Uint16(b[5:])
	}
	if h >= 9 {
		thru = binary.BigEndian.Uint16(b[7:])
	}
	k := key{from.String(), cid}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.expire()
	if r := s.done[k]; r != nil && cid != 0 {
		progress := int(thru) > r.peerThru
		if progress {
			r.peerThru = int(thru)
		}
		// an acknowledgement moves the window; a repeated request sends
		// what is outstanding again (at most once a second without
		// progress, as dirsrv does)
		if seq == 0 && progress {
			s.sendWindow(r, false)
		} else if seq != 0 && (progress || time.Since(r.lastSend) >= time.Second) {
			s.sendWindow(r, true)
		}
		return
	}
	if seq != 1 || total != 1 {
		return // control packets of unknown requests, multi-packet requests
	}
	text := s.tree.answer(string(b[h:]), from)
	r := &reply{to: from, cid: cid, at: time.Now()}
	data := []byte(text)
	for len(data) > chunkSize {
		r.chunks = append(r.chunks, data[:chunkSize])
		data = data[chunkSize:]
	}
	r.chunks = append(r.chunks, data)
	if cid != 0 {
		if len(s.done) >= maxKept {
			s.dropOldest()
		}
		s.done[k] = r
	}
	s.sendWindow(r, false)
}

// sendWindow sends the packets after the client's received-through up to
// the end of its window; again says to resend ones already sent.
func (s *server) sendWindow(r *reply, again bool) {
	first := r.sent + 1
	if again {
		first = r.peerThru + 1
	}
	last := min(r.peerThru+window, len(r.chunks))
	for seq := first; seq <= last; seq++ {
		s.out.WriteTo(s.encode(r, seq), r.to)
	}
	r.sent = max(r.sent, last)
	r.lastSend = time.Now()
}

// encode builds packet seq of r with the header dirsrv would give it.
func (s *server) encode(r *reply, seq int) []byte {
	n := len(r.chunks)
	data := r.chunks[seq-1]
	if n == 1 {
		return append([]byte{3, byte(r.cid >> 8), byte(r.cid)}, data...)
	}
	total := 0
	if seq == n {
		total = n // unknown to the sender until the reply is complete
	}
	hl := 7
	ack := seq == r.peerThru+window
	if ack {
		hl = 12
	}
	b := make([]byte, hl, hl+len(data))
	b[0] = byte(hl)
	binary.BigEndian.PutUint16(b[1:], r.cid)
	binary.BigEndian.PutUint16(b[3:], uint16(seq))
	binary.BigEndian.PutUint16(b[5:], uint16(total))
	if ack {
		binary.BigEndian.PutUint16(b[7:], 1) // the request's one packet
		b[11] = 0x80
	}
	return append(b, data...)
}

// dropOldest forgets the reply kept longest.
func (s *server) dropOldest() {
	var oldest key
	var at time.Time
	for k, r := range s.done {
		if at.IsZero() || r.at.Before(at) {
			oldest, at = k, r.at
		}
	}
	delete(s.done, oldest)
}

func (s *server) expire() {
	for k, r := range s.done {
		if time.Since(r.at) > doneKeep {
			delete(s.done, k)
		}
	}
}

// ---------------------------------------------------------------- text

// quote writes a token as dirsrv does: quoting starts at the first
// character that needs it and runs to the end; quotes are doubled.
func quote(s string) string {
	if s == "" {
		return "''"
	}
	i := strings.IndexAny(s, " \t\n\r\f\v/'+,")
	if i < 0 {
		return s
	}
	return s[:i] + "'" + strings.ReplaceAll(s[i:], "'", "''") + "'"
}

// tokenize splits request text into lines of unquoted tokens.
func tokenize(s string) ([][]string, error) {
	var lines [][]string
	var line []string
	var tok strings.Builder
	in, q := false, false
	flush := func() {
		if in {
			line = append(line, tok.String())
		}
		tok.Reset()
		in = false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q && c == '\'' && i+1 < len(s) && s[i+1] == '\'':
			tok.WriteByte('\'')
			i++
		case q && c == '\'':
			q = false
		case q:
			tok.WriteByte(c)
		case c == '\'':
			q, in = true, true
		case c == ' ' || c == '\t' || c == '\r':
			flush()
		case c == '\n':
			flush()
			if len(line) > 0 {
				lines = append(lines, line)
			}
			line = nil
		default:
			tok.WriteByte(c)
			in = true
		}
	}
	if q {
		return nil, fmt.Errorf("unterminated quote")
	}
	flush()
	if len(line) > 0 {
		lines = append(lines, line)
	}
	return lines, nil
}

// ---------------------------------------------------------------- the tree

// object is one entry of the virtual tree.
type object struct {
	dir     bool
	methods [][]string // the object's own access methods (FIELD attributes)
	// aftp is the method dirsrv adds (INTRINSIC, after PROSPERO-CONTENTS
	// and LOCAL) for a file under its anonymous FTP directory.
	aftp     []string
	contents string // for PROSPERO-CONTENTS: a path in the content tree
	forward  string // FORWARDED to this hsoname on the same server
	links    []link // a directory's links
}

type link struct {
	target, name, host, hsoname string
	cached                      []string // an EXTERNAL link's access method
}

type tree struct {
	self    string // this server as host(port)
	content string
	objects map[string]*object
}

func hostParen(addr string) string {
	h, p, _ := net.SplitHostPort(addr)
	return h + "(" + p + ")"
}

func newTree(self, ftp, gopher, content string) *tree {
	me, f, g := hostParen(self), hostParen(ftp), hostParen(gopher)
	aftp := func(path, mode string) []string { return []string{"AFTP", "INTERNET-D", f, "ASCII", path, mode} }
	t := &tree{self: me, content: content, objects: map[string]*object{}}
	file := func(name string, m ...[]string) {
		t.objects[name] = &object{methods: m, contents: name}
	}
	file("/hello.txt", aftp("/hello.txt", "BINARY"))
	file("/pub/README", aftp("/pub/README", "TEXT"))
	file("/pub/data.bin", aftp("/pub/data.bin", "BINARY"))
	file("/1m.bin", aftp("/1m.bin", "BINARY"))
	file("/name with spaces.txt", aftp("/name with spaces.txt", "BINARY"))
	file("/semi;colon.txt", aftp("/semi;colon.txt", "BINARY"))
	// the object's bytes through Gopher: type and selector in one field
	file("/gopher/doc.txt", []string{"GOPHER", "INTERNET-D", g, "ASCII", "0/doc.txt", "TEXT"})
	// methods this client must not or cannot follow before a good one
	file("/prefer-aftp.txt", []string{"AFS", "", "", "ASCII", "/afs/x"}, aftp("/hello.txt", "BINARY"))
	// a method pointing at the SMTP port: the FTP driver's policy refuses it
	file("/port25.txt", []string{"AFTP", "INTERNET-D", "127.0.0.1(25)", "ASCII", "/hello.txt", "BINARY"})
	// only the methods dirsrv appends: read through CONTENTS
	file("/contents-only.txt")
	t.objects["/contents-only.txt"].contents = "/hello.txt"
	// a file in the server's anonymous FTP area: the AFTP method comes
	// after the two dirsrv adds to every file
	t.objects["/ftp-area/hello.txt"] = &object{contents: "/hello.txt", aftp: aftp("/hello.txt", "BINARY")}
	// a loop of forwarding pointers
	t.objects["/loop"] = &object{forward: "/loop"}
	t.objects["/moved.txt"] = &object{forward: "/hello.txt"}

	t.objects["/"] = &object{dir: true, links: []link{
		{target: "DIRECTORY", name: "pub", host: me, hsoname: "/pub"},
		{target: "FILE", name: "hello.txt", host: me, hsoname: "/hello.txt"},
		{target: "FILE", name: "name with spaces.txt", host: me, hsoname: "/name with spaces.txt"},
		{target: "DIRECTORY", name: "big", host: me, hsoname: "/big"},
		{target: "EXTERNAL", name: "doc.txt", host: g, hsoname: "0/doc.txt", cached: []string{"GOPHER", "", "", "", "", "TEXT"}},
	}}
	t.objects["/pub"] = &object{dir: true, links: []link{
		{target: "FILE", name: "data.bin", host: me, hsoname: "/pub/data.bin"},
		{target: "EXTERNAL", name: "README", host: f, hsoname: "/pub/README", cached: []string{"AFTP", "", "", "", "", "TEXT"}},
	}}
	big := &object{dir: true}
	for i := 1; i <= bigCount; i++ {
		name := fmt.Sprintf("/big/file-%03d with a long name to fill the packets.txt", i)
		big.links = append(big.links, link{target: "FILE", name: name[len("/big/"):], host: me, hsoname: name})
		file(name, aftp("/hello.txt", "BINARY"))
	}
	t.objects["/big"] = big
	return t
}

// answer runs the commands of one request and returns the reply text.
func (t *tree) answer(req string, from net.Addr) string {
	lines, err := tokenize(req)
	if err != nil {
		return "ERROR Malformed input line: " + quote(err.Error()) + "\n"
	}
	var b bytes.Buffer
	var dir string
	for _, l := range lines {
		switch l[0] {
		case "VERSION":
			if len(l) == 1 {
				b.WriteString("VERSION 5 prosperod\n")
			} else if l[1] != "5" {
				b.WriteString("VERSION-NOT-SUPPORTED TRY 5\n")
				return b.String()
			}
		case "AUTHENTICATE":
		case "GET-OBJECT-INFO":
			if len(l) < 4 || len(l) > 5 {
				return b.String() + "ERROR wrong number of arguments\n"
			}
			t.getObjectInfo(&b, l[1], l[3])
			return b.String()
		case "DIRECTORY":
			if len(l) < 3 {
				return b.String() + "ERROR wrong number of arguments\n"
			}
			dir = l[2]
		case "LIST":
			t.list(&b, dir)
			return b.String()
		default:
			return b.String() + "ERROR unknown command " + quote(l[0]) + "\n"
		}
	}
	return b.String()
}

// lookup finds an object as dirsrv would: names must be absolute.
func (t *tree) lookup(b *bytes.Buffer, name string) *object {
	if !strings.HasPrefix(name, "/") {
		b.WriteString("FAILURE NOT-AUTHORIZED\n")
		return nil
	}
	o := t.objects[name]
	if o == nil {
		b.WriteString("FAILURE NOT-FOUND\n")
	}
	return o
}

func (t *tree) getObjectInfo(b *bytes.Buffer, attrs, name string) {
	o := t.lookup(b, name)
	if o == nil {
		return
	}
	if o.forward != "" {
		fmt.Fprintf(b, "FORWARDED INTERNET-D %s ASCII %s 0\n", t.self, quote(o.forward))
		return
	}
	if o.dir {
		b.WriteString("NONE-FOUND\n")
		return
	}
	if attrs == "CONTENTS" {
		data, err := os.ReadFile(t.content + o.contents)
		if err != nil {
			b.WriteString("FAILURE SERVER-FAILED " + quote(err.Error()) + "\n")
			return
		}
		b.WriteString("ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA " + quote(string(data)) + "\n")
		return
	}
	for _, m := range o.methods {
		b.WriteString("ATTRIBUTE OBJECT FIELD ACCESS-METHOD" + seq(m) + "\n")
	}
	b.WriteString("ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE PROSPERO-CONTENTS '' '' '' ''\n")
	b.WriteString("ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE LOCAL '' '' '' ''\n")
	if o.aftp != nil {
		b.WriteString("ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE" + seq(o.aftp) + "\n")
	}
}

func seq(v []string) string {
	var s strings.Builder
	for _, t := range v {
		s.WriteString(" " + quote(t))
	}
	return s.String()
}

func (t *tree) list(b *bytes.Buffer, dir string) {
	o := t.lookup(b, dir)
	if o == nil {
		return
	}
	if !o.dir {
		b.WriteString("FAILURE NOT-A-DIRECTORY\n")
		return
	}
	if len(o.links) == 0 {
		b.WriteString("NONE-FOUND\n")
		return
	}
	links := append([]link(nil), o.links...)
	sort.SliceStable(links, func(i, j int) bool { return links[i].name < links[j].name })
	for _, k := range links {
		fmt.Fprintf(b, "LINK  L %s %s INTERNET-D %s ASCII %s 0\n", k.target, quote(k.name), quote(k.host), quote(k.hsoname))
		if k.cached != nil {
			b.WriteString("ATTRIBUTE CACHED FIELD ACCESS-METHOD" + seq(k.cached) + "\n")
		}
	}
}

// ---------------------------------------------------------------- probe

// probeServer sends one request and waits for a complete one-packet or
// first packet of a reply with the same connection id.
func probeServer(addr string) error {
	to, err := net.ResolveUDPAddr("udp", addr)
	if err != nil {
		return err
	}
	c, err := net.ListenUDP("udp", &net.UDPAddr{IP: to.IP})
	if err != nil {
		return err
	}
	defer c.Close()
	const cid = 0x5eed
	msg := "VERSION 5 probe\nGET-OBJECT-INFO #ALL ASCII '/hello.txt' 0\n"
	pkt := append([]byte{9, cid >> 8, cid & 0xff, 0, 1, 0, 1, 0, 0}, msg...)
	buf := make([]byte, 65536)
	for try := 0; try < 3; try++ {
		if _, err := c.WriteToUDP(pkt, to); err != nil {
			return err
		}
		c.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
		for {
			n, _, err := c.ReadFromUDP(buf)
			if err != nil {
				break
			}
			if n >= 3 && binary.BigEndian.Uint16(buf[1:]) == cid && bytes.Contains(buf[:n], []byte("ACCESS-METHOD")) {
				return nil
			}
		}
	}
	return fmt.Errorf("no ARDP reply from %s", addr)
}
