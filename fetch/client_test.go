package fetch

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"
)

// recorder is a driver that records the request it was given.
type recorder struct {
	got     *Request
	body    string
	unsized bool // the document's Size is unknown (-1), not len(body)
}

func (r *recorder) Fetch(_ context.Context, req *Request) (*Result, error) {
	r.got = req
	size := int64(len(r.body))
	if r.unsized {
		size = -1
	}
	return &Result{Kind: KindDocument, Document: &Document{Body: io.NopCloser(strings.NewReader(r.body)), Size: size}}, nil
}

func TestFetchDispatchesAndDropsFragment(t *testing.T) {
	rec := &recorder{body: "hello"}
	c := NewClient(Options{})
	c.Register("http", rec)
	res, err := c.Fetch(context.Background(), "HTTP://example.test:8080/a/b?q#frag")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if rec.got.URL.HasFragment || rec.got.URL.Fragment != "" {
		t.Errorf("fragment reached the driver: %+v", rec.got.URL)
	}
	if rec.got.URL.Scheme != "http" || rec.got.URL.Port != 8080 {
		t.Errorf("URL = %+v", rec.got.URL)
	}
	if strings.Contains(res.URL.String(), "frag") {
		t.Errorf("result URL %s keeps the fragment", res.URL)
	}
	b, _ := io.ReadAll(res.Document.Body)
	if string(b) != "hello" {
		t.Errorf("body %q", b)
	}
}

func TestUnknownSchemeNamesAvailable(t *testing.T) {
	c := NewClient(Options{})
	c.Register("http", &recorder{})
	c.Register("gopher", &recorder{})
	_, err := c.Fetch(context.Background(), "x-nothing://host/")
	if !errors.Is(err, ErrUnknownScheme) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"x-nothing://host/", `"x-nothing"`, "gopher, http"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}

func TestRegisterXScheme(t *testing.T) {
	c := NewClient(Options{})
	rec := &recorder{body: "x"}
	c.Register("x-test", rec)
	res, err := c.Fetch(context.Background(), "x-test://host:4000/")
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if rec.got == nil {
		t.Fatal("driver not called")
	}
}

func TestRegisterTwicePanics(t *testing.T) {
	c := NewClient(Options{})
	c.Register("http", &recorder{})
	for _, name := range []string{"http", "HTTP", "1bad", "", "a b"} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register(%q) did not panic", name)
				}
			}()
			c.Register(name, &recorder{})
		}()
	}
}

func TestPolicyBeforeDriver(t *testing.T) {
	rec := &recorder{}
	c := NewClient(Options{})
	c.Register("http", rec)
	c.Register("gopher", rec)
	for _, u := range []string{"http://127.0.0.1:25/", "gopher://127.0.0.1:21/", "http://127.0.0.1:70/"} {
		_, err := c.Fetch(context.Background(), u)
		if KindOf(err) != KindPolicy || !errors.Is(err, ErrPortRefused) {
			t.Errorf("%s: err = %v, want port refusal", u, err)
		}
		if !strings.Contains(err.Error(), u) {
			t.Errorf("%s: error %q does not name the URL", u, err)
		}
	}
	if rec.got != nil {
		t.Fatal("driver was called for a refused port")
	}
	c.Options.Policy = &PortPolicy{}
	c.Options.Policy.Allow(25)
	if _, err := c.Fetch(context.Background(), "http://127.0.0.1:25/"); err != nil {
		t.Fatalf("allowed port: %v", err)
	}
}

// TestMaxSize: a body of unknown size is cut at the limit, with a policy
// error; one announced over the limit fails before its first byte.
func TestMaxSize(t *testing.T) {
	for _, tc := range []struct {
		unsized bool
		want    int
	}{{true, 10}, {false, 0}} {
		c := NewClient(Options{MaxSize: 10})
		c.Register("http", &recorder{body: strings.Repeat("a", 25), unsized: tc.unsized})
		res, err := c.Fetch(context.Background(), "http://h/")
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(res.Document.Body)
		res.Close()
		if !errors.Is(err, ErrTooLarge) || KindOf(err) != KindPolicy {
			t.Fatalf("unsized %v: err = %v", tc.unsized, err)
		}
		if len(b) != tc.want {
			t.Errorf("unsized %v: read %d bytes, want %d", tc.unsized, len(b), tc.want)
		}
		if !tc.unsized && !strings.Contains(err.Error(), "announced 25") {
			t.Errorf("the error does not give the size announced: %v", err)
		}
	}

	c2 := NewClient(Options{MaxSize: 10})
	c2.Register("http", &recorder{body: strings.Repeat("a", 10)})
	res, err := c2.Fetch(context.Background(), "http://h/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if b, err := io.ReadAll(res.Document.Body); err != nil || len(b) != 10 {
		t.Fatalf("exactly the limit: %d bytes, %v", len(b), err)
	}
}

func TestProxyDispatchesToGatewayScheme(t *testing.T) {
	rec := &recorder{}
	c := NewClient(Options{Proxy: func(u *URL) (*URL, error) { return Parse("http://127.0.0.1:3128/") }})
	c.Register("http", rec)
	res, err := c.Fetch(context.Background(), "ftp://ftp.example/pub/file")
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if rec.got.Proxy == nil || rec.got.URL.Scheme != "ftp" {
		t.Fatalf("request = %+v", rec.got)
	}
}

func TestProxyFromEnvironment(t *testing.T) {
	t.Setenv("gopher_proxy", "127.0.0.1:3128")
	t.Setenv("no_proxy", "local.test")
	u, _ := Parse("gopher://far.test/")
	p, err := ProxyFromEnvironment(u)
	if err != nil || p == nil || p.HostPort(80) != "127.0.0.1:3128" {
		t.Fatalf("proxy = %v, %v", p, err)
	}
	u, _ = Parse("gopher://a.local.test/")
	if p, _ := ProxyFromEnvironment(u); p != nil {
		t.Fatalf("no_proxy ignored: %v", p)
	}
}

// TestProxyVariable: the variable named is the one ProxyFromEnvironment
// took the gateway from, in the case it was written in, and none when it
// took none (HTTP_PROXY is never read; no_proxy sends the host direct).
func TestProxyVariable(t *testing.T) {
	for _, k := range []string{"gopher_proxy", "GOPHER_PROXY", "http_proxy", "HTTP_PROXY", "no_proxy", "NO_PROXY"} {
		t.Setenv(k, "")
	}
	t.Setenv("GOPHER_PROXY", "127.0.0.1:3128")
	t.Setenv("HTTP_PROXY", "127.0.0.1:3128")
	t.Setenv("no_proxy", "local.test")
	for _, tt := range []struct{ url, want string }{
		{"gopher://far.test/", "GOPHER_PROXY"},
		{"gopher://a.local.test/", ""},
		{"http://far.test/", ""},
	} {
		u, _ := Parse(tt.url)
		p, _ := ProxyFromEnvironment(u)
		if got := ProxyVariable(u); got != tt.want || (got == "") != (p == nil) {
			t.Errorf("%s: %q (gateway %v), want %q", tt.url, got, p, tt.want)
		}
	}
	t.Setenv("gopher_proxy", "127.0.0.1:3129")
	if u, _ := Parse("gopher://far.test/"); ProxyVariable(u) != "gopher_proxy" {
		t.Errorf("with both cases set: %q, want gopher_proxy, the one read", ProxyVariable(u))
	}
}

func TestIdleLimit(t *testing.T) {
	var none *Request
	if got := none.IdleLimit(); got != DefaultIdleTimeout {
		t.Errorf("no request: %v, want the default %v", got, DefaultIdleTimeout)
	}
	if got := (&Request{}).IdleLimit(); got != DefaultIdleTimeout {
		t.Errorf("no idle timeout set: %v, want the default %v", got, DefaultIdleTimeout)
	}
	if got := (&Request{Options: Options{IdleTimeout: 3 * time.Second}}).IdleLimit(); got != 3*time.Second {
		t.Errorf("idle timeout 3s: %v", got)
	}
}

func TestDialIdleTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			defer c.Close()
			c.SetReadDeadline(time.Now().Add(time.Minute))
			io.Copy(io.Discard, c) // says nothing until the client gives up
		}
	}()
	u, _ := Parse("http://" + ln.Addr().String() + "/")
	const idle = 150 * time.Millisecond
	req := &Request{URL: u, Options: Options{IdleTimeout: idle}}
	conn, err := req.Dial(context.Background(), ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	_, err = conn.Read(make([]byte, 1))
	if !errors.Is(err, ErrTimeout) || KindOf(err) != KindNetwork {
		t.Fatalf("read err = %v", err)
	}
	if d := time.Since(start); d > 20*idle { // generous: a loaded machine is slow to wake
		t.Fatalf("idle timeout took %v", d)
	}
}

func TestDialCancelClosesConn(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err == nil {
			defer c.Close()
			c.SetReadDeadline(time.Now().Add(time.Minute))
			io.Copy(io.Discard, c) // until the client gives up
		}
	}()
	u, _ := Parse("http://" + ln.Addr().String() + "/")
	req := &Request{URL: u}
	ctx, cancel := context.WithCancel(context.Background())
	conn, err := req.Dial(ctx, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	const after = 100 * time.Millisecond
	time.AfterFunc(after, cancel)
	start := time.Now()
	if _, err := conn.Read(make([]byte, 1)); err == nil {
		t.Fatal("read succeeded after cancel")
	}
	if d := time.Since(start); d > 20*after {
		t.Fatalf("cancel took %v", d)
	}
}

func TestAnswers(t *testing.T) {
	a := Answers{"query": "gopher"}
	if v, err := a.Prompt(context.Background(), Question{Field: "query"}); err != nil || v != "gopher" {
		t.Fatalf("%q %v", v, err)
	}
	if _, err := a.Prompt(context.Background(), Question{Field: "password"}); !errors.Is(err, ErrNoAnswer) {
		t.Fatalf("err = %v", err)
	}
}

// A gateway must not be a way around the port policy: the URL's own port
// is checked as well as the gateway's.
func TestPolicyThroughGateway(t *testing.T) {
	rec := &recorder{}
	c := NewClient(Options{Proxy: func(u *URL) (*URL, error) { return Parse("http://127.0.0.1:3128/") }})
	c.Register("http", rec)
	for _, u := range []string{"http://127.0.0.1:25/x", "ftp://127.0.0.1:25/x", "gopher://h:21/"} {
		if _, err := c.Fetch(context.Background(), u); !errors.Is(err, ErrPortRefused) {
			t.Errorf("%s through a gateway: %v", u, err)
		}
	}
	c.Options.Proxy = func(u *URL) (*URL, error) { return Parse("http://127.0.0.1:25/") }
	if _, err := c.Fetch(context.Background(), "ftp://h/x"); !errors.Is(err, ErrPortRefused) {
		t.Errorf("gateway on port 25: %v", err)
	}
	if rec.got != nil {
		t.Fatal("the driver was called")
	}
}

// TestDoCopiesRequest: the driver gets a copy with the per-request inputs,
// the client's options with the request's overrides, and the URL without
// its fragment; the caller's Request is left as it was.
func TestDoCopiesRequest(t *testing.T) {
	rec := &recorder{body: "0123456789"}
	clientTracer := TracerFunc(func(Direction, string) {})
	c := NewClient(Options{MaxSize: 100, MaxTime: time.Hour, Tracer: clientTracer, DialTimeout: time.Second})
	c.Register("x-rec", rec)
	in, err := NewRequest("x-rec:thing#frag")
	if err != nil {
		t.Fatal(err)
	}
	reqTracer := &countTracer{}
	in.Offset, in.Query, in.Raw, in.Form = 3, "words", true, map[string]string{"1": "a"}
	in.MaxSize, in.Tracer = 4, reqTracer
	before := *in
	res, err := c.Do(context.Background(), in)
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(res.Document.Body)
	res.Close()
	if !errors.Is(err, ErrTooLarge) {
		t.Errorf("the request's MaxSize of 4 did not apply: %v", err)
	}
	got := rec.got
	if got == in || got.URL == in.URL || got.URL.HasFragment || !in.URL.HasFragment {
		t.Errorf("the driver got the caller's request or URL, or a fragment: %+v", got.URL)
	}
	if got.Offset != 3 || got.Query != "words" || !got.Raw || got.Form["1"] != "a" || got.Client != c {
		t.Errorf("per-request inputs lost: %+v", got)
	}
	if got.Options.MaxSize != 4 || got.Options.MaxTime != time.Hour || got.Options.Tracer != reqTracer || got.Options.DialTimeout != time.Second {
		t.Errorf("options in force %+v", got.Options)
	}
	if in.Client != nil || in.Options.MaxSize != 0 || in.Proxy != nil || in.Offset != before.Offset || in.URL != before.URL {
		t.Errorf("Do changed the caller's request: %+v", in)
	}
	if c.Options.MaxSize != 100 || c.Options.Tracer == nil {
		t.Errorf("Do changed the client's options: %+v", c.Options)
	}
	if _, err := c.Do(context.Background(), &Request{}); KindOf(err) != KindUsage {
		t.Errorf("a request without a URL: %v", err)
	}
}

type countTracer struct{ n int }

func (c *countTracer) Trace(Direction, string) { c.n++ }

// TestDoMaxTime: a request's MaxTime bounds its own fetch only.
func TestDoMaxTime(t *testing.T) {
	c := NewClient(Options{})
	c.Register("x-slow", DriverFunc(func(ctx context.Context, req *Request) (*Result, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}))
	req, _ := NewRequest("x-slow:a")
	req.MaxTime = 20 * time.Millisecond
	start := time.Now()
	if _, err := c.Do(context.Background(), req); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err %v", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Fatalf("took %v", d)
	}
}

// idler counts CloseIdle calls.
type idler struct {
	recorder
	n int
}

func (i *idler) CloseIdle() { i.n++ }

// TestCloseIdle: each pooling driver is asked once, however many schemes
// it serves.
func TestCloseIdle(t *testing.T) {
	d := &idler{}
	c := NewClient(Options{})
	c.Register("x-a", d)
	c.Register("x-b", d)
	c.Register("x-c", &recorder{})
	c.CloseIdle()
	if err := c.Close(); err != nil || d.n != 2 {
		t.Fatalf("Close %v, CloseIdle calls %d, want 2", err, d.n)
	}
}

// TestRebind: a connection rebound to a new context is closed by that
// context, not by the one it was dialled with; a closed one cannot be
// rebound.
func TestRebind(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	ctx1, cancel1 := context.WithCancel(context.Background())
	c := NewDeadlineConn(ctx1, a, time.Minute)
	ctx2, cancel2 := context.WithCancel(context.Background())
	if !Rebind(c, ctx2) {
		t.Fatal("Rebind of an open connection failed")
	}
	cancel1()
	go b.Write([]byte("x"))
	if n, err := c.Read(make([]byte, 1)); n != 1 || err != nil {
		t.Fatalf("the old context closed the rebound connection: %d, %v", n, err)
	}
	cancel2()
	if _, err := c.Read(make([]byte, 1)); err == nil {
		t.Fatal("the new context did not close it")
	}
	if Rebind(c, context.Background()) {
		t.Fatal("Rebind of a closed connection succeeded")
	}
	if Rebind(a, context.Background()) {
		t.Fatal("Rebind of a plain connection succeeded")
	}
}

// TestMaxSizeHugeDoesNotPanic: a MaxSize of math.MaxInt64 (the largest
// --max-size the command accepts, or a library caller's "no real limit")
// reads a small document; max-n+1 once overflowed and sliced p with a
// negative bound.
func TestMaxSizeHugeDoesNotPanic(t *testing.T) {
	c := NewClient(Options{MaxSize: 1<<63 - 1})
	c.Register("http", &recorder{body: "hello"})
	res, err := c.Fetch(context.Background(), "http://h/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	var b []byte
	func() {
		defer func() {
			if p := recover(); p != nil {
				t.Fatalf("Read panicked with MaxSize = MaxInt64: %v", p)
			}
		}()
		b, err = io.ReadAll(res.Document.Body)
	}()
	if err != nil || string(b) != "hello" {
		t.Fatalf("got %q, %v", b, err)
	}
}

// streamUntilDone is a listing stream whose next entry never comes before
// its context ends, and whose failure then is what a driver sees of it: a
// closed connection.
type streamUntilDone struct{ ctx context.Context }

func (s streamUntilDone) Next() (Entry, error) {
	<-s.ctx.Done()
	return Entry{}, &Error{Kind: KindNetwork, Op: "read", Offset: -1, Err: net.ErrClosed}
}
func (s streamUntilDone) Close() error { return nil }

// TestListingMaxTime: a streaming listing cut by MaxTime fails as a
// document would, naming the maximum time and its setting, not the
// closed connection the driver saw.
func TestListingMaxTime(t *testing.T) {
	c := NewClient(Options{MaxTime: 20 * time.Millisecond})
	c.Register("x-list", DriverFunc(func(ctx context.Context, req *Request) (*Result, error) {
		return &Result{Kind: KindListing, Listing: NewStreamListing("l", streamUntilDone{ctx})}, nil
	}))
	res, err := c.Fetch(context.Background(), "x-list:a")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	for res.Listing.Next() {
	}
	err = res.Listing.Err()
	var fe *Error
	if !errors.Is(err, ErrMaxTime) || !errors.As(err, &fe) || fe.Setting != "Options.MaxTime" || fe.URL != "x-list:a" {
		t.Fatalf("err %v (setting %q), want the maximum time, Options.MaxTime", err, fe.Setting)
	}
}
