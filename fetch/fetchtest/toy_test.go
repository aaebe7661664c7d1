package fetchtest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
	"github.com/fetchproject/fetch/fetch/wire"
)

// The toy protocol exists to test the suite: a client sends
// "GET <selector>" or "LIST <selector>"; a server answers "OK <n>" and n
// bytes (n = -1: until the close) then ".", or "OK list" and one name a
// line then ".". The toy driver does everything right unless a knob
// breaks one safeguard, so each check can be shown to fail.

const toyPort = 7000

// knobs each break one thing the suite checks.
type knobs struct {
	noLineCheck    bool // send the selector unchecked
	sendFirst      bool // say HELLO before checking the selector
	noPortCheck    bool // opaque form: dial the configured server unchecked
	ownPolicy      bool // opaque form: check the port with the default policy, not the request's
	wrongDefault   bool // dial toyPort+1 when the URL names no port
	rawDial        bool // net.Dial with a fixed 5 s deadline: no idle timeout, no context
	timeoutKind    bool // report timeouts as KindServer
	cleanEOF       bool // a short transfer ends in io.EOF
	leakGoroutine  bool // leave a goroutine behind on every fetch
	leakFD         bool // leave a file open on every fetch
	relativeURLs   bool // listing entries get "/name"
	unboundedLines bool // read status lines with no bound
	lineKind       bool // report an over-long line as KindServer
	endlessListing bool // no bound on a listing
	shortListing   bool // drop entries past 65536
	panicOnGarbage bool // panic on a reply that starts with 0xff
	unknownKind    bool // errors of no kind for a bad status line
}

// leaks holds what the leaking knobs leave behind, released by cleanup.
var leaks struct {
	sync.Mutex
	release chan struct{}
	files   []*os.File
}

func releaseLeaks() {
	leaks.Lock()
	defer leaks.Unlock()
	if leaks.release != nil {
		close(leaks.release)
		leaks.release = nil
	}
	for _, f := range leaks.files {
		f.Close()
	}
	leaks.files = nil
}

type toyDriver struct {
	server string // for the opaque form "x-toy:selector"
	k      knobs
}

func (d *toyDriver) DefaultPort() int { return toyPort }

func (d *toyDriver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	u := req.URL
	raw, addr, host, port := u.Path, u.HostPort(toyPort), u.Host, u.PortOr(toyPort)
	if d.k.wrongDefault && u.Port == 0 {
		addr = net.JoinHostPort(u.Host, strconv.Itoa(toyPort+1))
	}
	if !u.Slashes {
		raw = u.Opaque
		h, p, err := net.SplitHostPort(d.server)
		if err != nil {
			h, p = d.server, strconv.Itoa(toyPort)
		}
		host, addr = h, net.JoinHostPort(h, p)
		port, _ = strconv.Atoi(p)
		switch {
		case d.k.noPortCheck:
		case d.k.ownPolicy:
			if err := (&fetch.PortPolicy{}).Check(req.Client.Registry(), "x-toy", port); err != nil {
				return nil, err
			}
		default:
			if err := req.CheckPort("x-toy", port); err != nil {
				return nil, err
			}
		}
	}
	sel, err := fetch.Unescape(raw)
	if err != nil {
		return nil, fetch.Wrap(fetch.KindMalformed, "parse", err)
	}
	var conn net.Conn
	dial := func() error {
		if conn != nil {
			return nil
		}
		if d.k.rawDial {
			c, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				return fetch.Wrap(fetch.KindNetwork, "dial", err)
			}
			c.SetDeadline(time.Now().Add(5 * time.Second))
			conn = c
			return nil
		}
		conn, err = req.Dial(ctx, addr)
		return err
	}
	if d.k.sendFirst {
		if err := dial(); err != nil {
			return nil, err
		}
		io.WriteString(conn, "HELLO\r\n")
	}
	if !d.k.noLineCheck {
		if err := fetch.CheckLine("selector", sel); err != nil {
			if conn != nil {
				conn.Close()
			}
			return nil, err
		}
	}
	if err := dial(); err != nil {
		return nil, err
	}
	if d.k.leakGoroutine {
		leaks.Lock()
		if leaks.release == nil {
			leaks.release = make(chan struct{})
		}
		ch := leaks.release
		leaks.Unlock()
		go func() { <-ch }()
	}
	if d.k.leakFD {
		if f, err := os.Open(os.DevNull); err == nil {
			leaks.Lock()
			leaks.files = append(leaks.files, f)
			leaks.Unlock()
		}
	}
	listing := strings.HasSuffix(sel, "/")
	verb := "GET "
	if listing {
		verb = "LIST "
	}
	if _, err := io.WriteString(conn, verb+sel+"\r\n"); err != nil {
		conn.Close()
		return nil, d.netErr(err)
	}
	r := &toyReader{wr: wire.NewReader(conn, 0, nil), unbounded: d.k.unboundedLines}
	status, err := r.line()
	if err != nil {
		conn.Close()
		return nil, d.netErr(err)
	}
	if d.k.panicOnGarbage && strings.HasPrefix(status, "\xff") {
		panic("toy: garbage")
	}
	arg, ok := strings.CutPrefix(status, "OK ")
	if !ok {
		conn.Close()
		if d.k.unknownKind {
			return nil, errors.New("toy: bad status line")
		}
		return nil, &fetch.Error{Kind: fetch.KindServer, Op: "GET", Offset: -1, Reply: status, Err: errors.New("refused")}
	}
	if listing {
		defer conn.Close()
		return d.list(r, host, port)
	}
	n, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || n < -1 {
		conn.Close()
		return nil, &fetch.Error{Kind: fetch.KindServer, Op: "GET", Offset: -1, Reply: status, Err: errors.New("bad length")}
	}
	body := &toyBody{r: r, left: n, conn: conn, d: d}
	return &fetch.Result{Kind: fetch.KindDocument, Document: &fetch.Document{Body: body, Size: n}}, nil
}

func (d *toyDriver) netErr(err error) error {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	k := fetch.KindNetwork
	switch {
	case errors.Is(err, fetch.ErrLineTooLong):
		k = fetch.KindPolicy
		if d.k.lineKind {
			k = fetch.KindServer
		}
		err = fmt.Errorf("status line: %w", err)
	case d.k.timeoutKind && errors.Is(err, fetch.ErrTimeout):
		k = fetch.KindServer
	}
	return &fetch.Error{Kind: k, Op: "read", Offset: -1, Err: err}
}

func (d *toyDriver) list(r *toyReader, host string, port int) (*fetch.Result, error) {
	l := &fetch.Listing{}
	total := 0
	for {
		line, err := r.line()
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				err = fmt.Errorf("%w: no \".\"", fetch.ErrTruncated)
			}
			return nil, d.netErr(err)
		}
		if line == "." {
			break
		}
		if total += len(line); total > 16<<20 && !d.k.endlessListing {
			return nil, &fetch.Error{Kind: fetch.KindPolicy, Op: "LIST", Offset: -1, Err: fetch.ErrTooLarge}
		}
		if d.k.shortListing && len(l.Entries) >= 65536 {
			continue
		}
		u := "x-toy://" + net.JoinHostPort(host, strconv.Itoa(port)) + "/" + fetch.Escape(line, "")
		if d.k.relativeURLs {
			u = "/" + line
		}
		l.Entries = append(l.Entries, fetch.Entry{Name: line, URL: u, Kind: fetch.EntryFile, Size: -1})
	}
	return &fetch.Result{Kind: fetch.KindListing, Listing: l}, nil
}

// toyReader reads lines bounded (wire) or not (bufio).
type toyReader struct {
	wr        *wire.Reader
	unbounded bool
}

func (r *toyReader) line() (string, error) {
	if r.unbounded {
		s, err := r.wr.B.ReadString('\n')
		if err != nil {
			if err == io.EOF && s != "" {
				err = io.ErrUnexpectedEOF
			}
			return s, err
		}
		return strings.TrimRight(s, "\r\n"), nil
	}
	return r.wr.ReadLine()
}

// toyBody streams n bytes and the "." line.
type toyBody struct {
	r    *toyReader
	left int64
	conn net.Conn
	d    *toyDriver
	done bool
}

func (b *toyBody) Read(p []byte) (int, error) {
	if b.done {
		return 0, io.EOF
	}
	if b.left == 0 {
		line, err := b.r.line()
		if err != nil || line != "." {
			return 0, b.short(err)
		}
		b.done = true
		return 0, io.EOF
	}
	if b.left > 0 && int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.wr.B.Read(p)
	if b.left > 0 {
		b.left -= int64(n)
	}
	switch {
	case err == io.EOF && b.left < 0:
		b.done = true
		return n, io.EOF
	case err == io.EOF:
		return n, b.short(nil)
	case err != nil:
		return n, b.d.netErr(err)
	}
	return n, nil
}

func (b *toyBody) short(err error) error {
	if b.d.k.cleanEOF {
		b.done = true
		return io.EOF
	}
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return b.d.netErr(err)
	}
	return &fetch.Error{Kind: fetch.KindNetwork, Op: "GET", Offset: -1, Err: fmt.Errorf("%w: short", fetch.ErrTruncated)}
}

func (b *toyBody) Close() error { return b.conn.Close() }

// toyHarness describes the toy driver with knobs k; opaque uses the
// "x-toy:selector" form with the server from the configuration, and
// dropOptions makes the client ignore every option but the timeouts.
func toyHarness(k knobs, opaque, dropOptions bool) *fetchtest.Harness {
	doc := func(addr string) string { return "x-toy://" + addr + "/doc" }
	list := func(addr string) string { return "x-toy://" + addr + "/dir/" }
	sel := func(addr, v string) string { return "x-toy://" + addr + "/" + fetch.Escape(v, "") }
	if opaque {
		doc = func(string) string { return "x-toy:doc" }
		list = func(string) string { return "x-toy:dir/" }
		sel = func(_, v string) string { return "x-toy:" + fetch.Escape(v, "") }
	}
	return &fetchtest.Harness{
		Scheme:      "x-toy",
		DefaultPort: toyPort,
		NewClient: func(opts fetch.Options, server string) *fetch.Client {
			if dropOptions {
				opts = fetch.Options{IdleTimeout: opts.IdleTimeout, MaxTime: opts.MaxTime, Dialer: opts.Dialer, Policy: opts.Policy}
			}
			c := fetch.NewClient(opts)
			c.Register("x-toy", &toyDriver{server: server, k: k})
			return c
		},
		DocumentURL: doc,
		ListingURL:  list,
		Open:        toyOpen,
		ListingLine: func(name string) string { return name + "\r\n" },
		EndMarker:   true,
		LinePrefix: func(p *fetchtest.Peer) (string, error) {
			_, err := p.ReadLine()
			return "OK ", err
		},
		Wire: []fetchtest.WirePart{{Name: "selector", Example: "doc", URL: sel}},
		Seeds: [][]byte{
			[]byte("OK 5\r\nhello.\r\n"),
			[]byte("OK list\r\na\r\nb c\r\n.\r\n"),
			[]byte("\xffOK\r\n"),
		},
	}
}

// toyOpen is the toy server: it reads the request and says OK.
func toyOpen(p *fetchtest.Peer, o fetchtest.Opening) (*fetchtest.Content, error) {
	line, err := p.ReadLine()
	if err != nil {
		return nil, err
	}
	if line == "HELLO" {
		if line, err = p.ReadLine(); err != nil {
			return nil, err
		}
	}
	head := "OK " + strconv.FormatInt(o.Length, 10)
	if strings.HasPrefix(line, "LIST ") {
		head = "OK list"
	}
	if err := p.WriteLine(head); err != nil {
		return nil, err
	}
	return &fetchtest.Content{
		W: p,
		End: func() error {
			if o.Length < 0 && !strings.HasPrefix(line, "LIST ") {
				return p.Close()
			}
			p.WriteLine(".")
			p.Hold()
			return nil
		},
		Abort: func() { p.Close() },
	}, nil
}
