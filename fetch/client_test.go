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
	got  *Request
	body string
}

func (r *recorder) Fetch(_ context.Context, req *Request) (*Result, error) {
	r.got = req
	return &Result{Kind: KindDocument, Document: &Document{Body: io.NopCloser(strings.NewReader(r.body)), Size: int64(len(r.body))}}, nil
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

func TestMaxSize(t *testing.T) {
	c := NewClient(Options{MaxSize: 10})
	c.Register("http", &recorder{body: strings.Repeat("a", 25)})
	res, err := c.Fetch(context.Background(), "http://h/")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	b, err := io.ReadAll(res.Document.Body)
	if !errors.Is(err, ErrTooLarge) || KindOf(err) != KindPolicy {
		t.Fatalf("err = %v", err)
	}
	if len(b) != 10 {
		t.Fatalf("read %d bytes past the limit", len(b))
	}

	c2 := NewClient(Options{MaxSize: 10})
	c2.Register("http", &recorder{body: strings.Repeat("a", 10)})
	res, err = c2.Fetch(context.Background(), "http://h/")
	if err != nil {
		t.Fatal(err)
	}
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
