package http

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	nethttp "net/http"
	"net/http/httptest"
	neturl "net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

func newClient(opts fetch.Options) *fetch.Client {
	c := fetch.NewClient(opts)
	d := newDriver(Config{})
	c.Register("http", d)
	c.Register("https", d)
	return c
}

func TestRequestURIAsWritten(t *testing.T) {
	var got []string
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		got = append(got, r.RequestURI)
		fmt.Fprint(w, "ok")
	}))
	defer srv.Close()
	c := newClient(fetch.Options{})
	for _, tt := range []struct{ path, want string }{
		{"/%7Euser/a%2Fb;p?q=1&r=%20#frag", "/%7Euser/a%2Fb;p?q=1&r=%20"},
		{"", "/"},
		{"/search?", "/search?"},
	} {
		got = nil
		res, err := c.Fetch(context.Background(), srv.URL+tt.path)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(res.Document.Body)
		res.Close()
		if len(got) != 1 || got[0] != tt.want {
			t.Errorf("%q sent %q, want %q", tt.path, got, tt.want)
		}
	}
}

func TestStatusErrors(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		switch r.URL.Path {
		case "/missing":
			nethttp.NotFound(w, r)
		case "/forbidden":
			w.WriteHeader(403)
		default:
			w.WriteHeader(500)
		}
	}))
	defer srv.Close()
	c := newClient(fetch.Options{})
	for path, code := range map[string]int{"/missing": 404, "/forbidden": 403, "/broken": 500} {
		_, err := c.Fetch(context.Background(), srv.URL+path)
		var fe *fetch.Error
		if !errors.As(err, &fe) || fe.Code != code || fetch.KindOf(err).ExitCode() != 6 {
			t.Errorf("%s: %v", path, err)
		}
	}
}

// TestRedirectWithUserinfo: a Location holding a user and password is
// refused as a first URL would be (exit 3): net/http would have sent them
// as Basic credentials, and the password named the hop in the WARC record
// and the result.
func TestRedirectWithUserinfo(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		if r.URL.Path == "/start" {
			nethttp.Redirect(w, r, "http://user:s3cret@"+r.Host+"/next", nethttp.StatusFound)
			return
		}
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	_, err := newClient(fetch.Options{}).Fetch(context.Background(), srv.URL+"/start")
	if fetch.KindOf(err).ExitCode() != 3 || strings.Contains(fmt.Sprint(err), "s3cret") || !strings.Contains(fmt.Sprint(err), "user:****@") {
		t.Errorf("a redirect to a URL with a password: %v; want exit 3 naming the hop without the password", err)
	}
}

// TestRedirectUnparsedLocation: a Location net/http cannot parse is a
// malformed URL from the server (exit 3), as one this driver refuses is,
// not a network failure (exit 5); its password stays masked.
func TestRedirectUnparsedLocation(t *testing.T) {
	addr := rawServer(t, "HTTP/1.1 301 Moved\r\nLocation: http://u:s3cret@[::1/\r\nContent-Length: 0\r\n\r\n", nil)
	_, err := newClient(fetch.Options{}).Fetch(context.Background(), "http://"+addr+"/")
	if fetch.KindOf(err).ExitCode() != 3 || strings.Contains(fmt.Sprint(err), "s3cret") || !strings.Contains(fmt.Sprint(err), "Location") {
		t.Errorf("a Location that is no URL: %v; want exit 3 naming the Location, without the password", err)
	}
}

func TestRedirects(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		switch r.URL.Path {
		case "/to-index":
			nethttp.Redirect(w, r, "/index", nethttp.StatusMovedPermanently)
		case "/loop":
			nethttp.Redirect(w, r, "/loop", nethttp.StatusFound)
		case "/to-smtp":
			nethttp.Redirect(w, r, "http://127.0.0.1:25/", nethttp.StatusFound)
		case "/to-ftp":
			nethttp.Redirect(w, r, "ftp://127.0.0.1/", nethttp.StatusFound)
		case "/index":
			fmt.Fprint(w, "index")
		}
	}))
	defer srv.Close()
	c := newClient(fetch.Options{})
	res, err := c.Fetch(context.Background(), srv.URL+"/to-index")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(res.Document.Body)
	res.Close()
	if string(b) != "index" || !strings.HasSuffix(res.URL.String(), "/index") {
		t.Fatalf("%q at %s", b, res.URL)
	}
	for _, p := range []string{"/loop", "/to-smtp", "/to-ftp"} {
		_, err := c.Fetch(context.Background(), srv.URL+p)
		if fetch.KindOf(err) != fetch.KindPolicy {
			t.Errorf("%s: %v, want a policy refusal", p, err)
		}
	}
}

// rawServer answers every connection with resp, then runs after.
func rawServer(t *testing.T, resp string, after func(net.Conn)) string {
	addr, _ := recordingServer(t, resp, after)
	return addr
}

// recordingServer is rawServer that also reports each request line.
func recordingServer(t *testing.T, resp string, after func(net.Conn)) (string, <-chan string) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	lines := make(chan string, 8)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				line, _ := bufio.NewReader(c).ReadString('\n')
				select {
				case lines <- line:
				default:
				}
				io.WriteString(c, resp)
				if after != nil {
					after(c)
				}
			}()
		}
	}()
	return ln.Addr().String(), lines
}

func TestTruncatedBody(t *testing.T) {
	for _, c := range []struct{ head, says string }{
		{"Content-Length: 100", "before its Content-Length"},
		{"Transfer-Encoding: chunked", "before its last chunk"},
	} {
		addr := rawServer(t, "HTTP/1.1 200 OK\r\n"+c.head+"\r\n\r\n"+"9\r\nonly this", nil)
		cl := newClient(fetch.Options{})
		res, err := cl.Fetch(context.Background(), "http://"+addr+"/")
		if err != nil {
			t.Fatal(err)
		}
		_, err = io.ReadAll(res.Document.Body)
		res.Close()
		if !errors.Is(err, fetch.ErrTruncated) || fetch.KindOf(err).ExitCode() != 5 || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: err = %v, want one that says %q", c.head, err, c.says)
		}
	}
}

// A server that goes silent, mid-body or before the status line: the
// idle timeout of the connection's reads ends the wait, reported as a
// timeout.
func TestStallTimesOut(t *testing.T) {
	for name, resp := range map[string]string{
		"mid-body":           "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nsome",
		"before the headers": "",
	} {
		t.Run(name, func(t *testing.T) {
			addr := rawServer(t, resp, func(c net.Conn) {
				c.SetReadDeadline(time.Now().Add(time.Minute))
				io.Copy(io.Discard, c) // until the client gives up
			})
			const idle = 200 * time.Millisecond
			c := newClient(fetch.Options{IdleTimeout: idle})
			start := time.Now()
			res, err := c.Fetch(context.Background(), "http://"+addr+"/")
			if err == nil {
				_, err = io.ReadAll(res.Document.Body)
				res.Close()
			}
			if !errors.Is(err, fetch.ErrTimeout) || fetch.KindOf(err).ExitCode() != 5 || time.Since(start) > 20*idle {
				t.Fatalf("err = %v after %v, want a timeout", err, time.Since(start))
			}
		})
	}
}

// TestTrickledHeaderTimesOut: a response header whose bytes each come
// inside the idle timeout must still be whole within twice that time of
// the request; the trickle alone would last 20 s.
func TestTrickledHeaderTimesOut(t *testing.T) {
	addr := rawServer(t, "HTTP/1.1 200 OK\r\n", func(c net.Conn) {
		for range 200 {
			if _, err := io.WriteString(c, "X"); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		io.WriteString(c, ": y\r\nContent-Length: 0\r\n\r\n")
	})
	const idle = 400 * time.Millisecond
	start := time.Now()
	res, err := newClient(fetch.Options{IdleTimeout: idle}).Fetch(context.Background(), "http://"+addr+"/")
	if err == nil {
		res.Close()
	}
	if !errors.Is(err, fetch.ErrTimeout) || fetch.KindOf(err).ExitCode() != 5 {
		t.Fatalf("err = %v after %v, want a timeout", err, time.Since(start))
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the header was read for %v; the idle timeout is %v", d, idle)
	}
}

// TestUnaskedPartialContent: a 206 to a request without a Range is the
// document only when its Content-Range covers all of it.
func TestUnaskedPartialContent(t *testing.T) {
	for _, tt := range []struct {
		rng  string
		body string
		ok   bool
	}{
		{"bytes 0-4/5", "01234", true},
		{"bytes 5-9/10", "56789", false},
		{"bytes 0-4/10", "01234", false},
		{"bytes 0-4/*", "01234", false},
		{"", "01234", false},
	} {
		t.Run(tt.rng, func(t *testing.T) {
			addr := rawServer(t, "HTTP/1.1 206 Partial Content\r\nContent-Range: "+tt.rng+"\r\nContent-Length: 5\r\n\r\n"+tt.body, nil)
			res, err := newClient(fetch.Options{}).Fetch(context.Background(), "http://"+addr+"/")
			if tt.ok {
				if err != nil {
					t.Fatal(err)
				}
				defer res.Close()
				if b, err := io.ReadAll(res.Document.Body); err != nil || string(b) != tt.body {
					t.Errorf("%q, %v", b, err)
				}
				return
			}
			if err == nil {
				res.Close()
				t.Fatal("a part of the document was taken for all of it")
			}
			if fetch.KindOf(err) != fetch.KindServer || !strings.Contains(err.Error(), "part of the document") {
				t.Errorf("err = %v", err)
			}
		})
	}
}

// TestTrickledErrorPage: the error page read before a 404 is reported
// (so that the connection can be kept) gets the idle time as a whole, not
// the idle time between each of its bytes: the trickle lasts 20 s.
func TestTrickledErrorPage(t *testing.T) {
	addr := rawServer(t, "HTTP/1.1 404 Not Found\r\nContent-Length: 200\r\n\r\n", func(c net.Conn) {
		for range 200 {
			if _, err := io.WriteString(c, "x"); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	const idle = 400 * time.Millisecond
	start := time.Now()
	_, err := newClient(fetch.Options{IdleTimeout: idle}).Fetch(context.Background(), "http://"+addr+"/")
	if !errors.Is(err, fetch.ErrNotFound) {
		t.Fatalf("err = %v, want not found", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the 404 took %v to report; the idle timeout is %v", d, idle)
	}
}

func TestResumeRange(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		nethttp.ServeContent(w, r, "f", time.Time{}, strings.NewReader("0123456789"))
	}))
	defer srv.Close()
	c := newClient(fetch.Options{})
	req, err := fetch.NewRequest(srv.URL + "/f")
	if err != nil {
		t.Fatal(err)
	}
	req.Offset = 6
	res, err := c.Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	b, _ := io.ReadAll(res.Document.Body)
	if string(b) != "6789" || res.Document.Size != 10 {
		t.Fatalf("%q size %d", b, res.Document.Size)
	}
	res.Close()

	// The Range was the resumed request's alone: the driver's shared
	// header did not keep it for the next one.
	res, err = c.Fetch(context.Background(), srv.URL+"/f")
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(res.Document.Body)
	if string(b) != "0123456789" {
		t.Fatalf("the request after a resumed one read %q", b)
	}
}

func TestGatewaySendsWholeURL(t *testing.T) {
	addr, got := recordingServer(t, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nhello", nil)
	res, trace := viaGateway(t, "http://"+addr, "gopher://gopher.example/0about#frag")
	// -v shows every line the gateway gets.
	if want := "> GET gopher://gopher.example/0about HTTP/1.1 (to gateway " + addr + ")\n> Host: gopher.example\n> Connection: close\n> Accept: */*\n"; !strings.Contains(trace.String(), want) {
		t.Errorf("trace:\n%s\nwant it to hold\n%s", trace.String(), want)
	}
	defer res.Close()
	b, _ := io.ReadAll(res.Document.Body)
	if string(b) != "hello" {
		t.Fatalf("body %q", b)
	}
	if line := <-got; line != "GET gopher://gopher.example/0about HTTP/1.1\r\n" {
		t.Fatalf("request line %q", line)
	}
}

// TestGatewayHeaderBounds: a gateway's response header has a server's
// bounds: 64 KiB, and twice the idle time as a whole; the same header
// straight from a server is refused for its size as a size bound (exit
// 4), not as a network failure. A body past the header's bound is read
// whole.
func TestGatewayHeaderBounds(t *testing.T) {
	const idle = 400 * time.Millisecond
	big := "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", 1<<20) + "\r\nContent-Length: 2\r\n\r\nok"
	trickle := func(c net.Conn) {
		for range 200 { // 20 s in all
			if _, err := io.WriteString(c, "X"); err != nil {
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		io.WriteString(c, ": y\r\nContent-Length: 0\r\n\r\n")
	}
	gateway := func(addr string) *fetch.Client {
		c := fetch.NewClient(fetch.Options{IdleTimeout: idle, Proxy: func(*fetch.URL) (*fetch.URL, error) { return fetch.Parse("http://" + addr) }})
		d := newDriver(Config{})
		c.Register("http", d)
		c.Register("https", d)
		return c
	}
	for _, tt := range []struct {
		name  string
		c     func() *fetch.Client
		url   func() string
		is    error
		kind  fetch.Kind
		limit time.Duration
	}{
		{"gateway, 1 MiB header", func() *fetch.Client { return gateway(rawServer(t, big, nil)) },
			func() string { return "gopher://gopher.example/0about" }, fetch.ErrLineTooLong, fetch.KindPolicy, 10 * time.Second},
		{"gateway, trickled header", func() *fetch.Client { return gateway(rawServer(t, "HTTP/1.1 200 OK\r\n", trickle)) },
			func() string { return "gopher://gopher.example/0about" }, fetch.ErrTimeout, fetch.KindNetwork, 10 * time.Second},
		// https: the answer to the CONNECT that opens the tunnel, which
		// net/http reads with bounds of its own (a minute).
		{"gateway, 1 MiB answer to CONNECT", func() *fetch.Client { return gateway(rawServer(t, big, nil)) },
			func() string { return "https://secure.example/" }, fetch.ErrLineTooLong, fetch.KindPolicy, 10 * time.Second},
		{"gateway, trickled answer to CONNECT", func() *fetch.Client { return gateway(rawServer(t, "HTTP/1.1 200 OK\r\n", trickle)) },
			func() string { return "https://secure.example/" }, fetch.ErrTimeout, fetch.KindNetwork, 10 * time.Second},
	} {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			res, err := tt.c().Fetch(context.Background(), tt.url())
			if err == nil {
				res.Close()
			}
			if !errors.Is(err, tt.is) || fetch.KindOf(err) != tt.kind {
				t.Fatalf("err = %v (kind %v), want %v of kind %v", err, fetch.KindOf(err), tt.is, tt.kind)
			}
			if d := time.Since(start); d > tt.limit {
				t.Errorf("took %v", d)
			}
		})
	}
	t.Run("server, 1 MiB header", func(t *testing.T) {
		addr := rawServer(t, big, nil)
		_, err := newClient(fetch.Options{}).Fetch(context.Background(), "http://"+addr+"/")
		if !errors.Is(err, fetch.ErrLineTooLong) || fetch.KindOf(err) != fetch.KindPolicy {
			t.Fatalf("err = %v (kind %v)", err, fetch.KindOf(err))
		}
	})
	t.Run("gateway, long body", func(t *testing.T) {
		body := strings.Repeat("b", 1<<20)
		addr := rawServer(t, "HTTP/1.1 200 OK\r\nContent-Length: "+strconv.Itoa(len(body))+"\r\n\r\n"+body, nil)
		res, err := gateway(addr).Fetch(context.Background(), "gopher://gopher.example/0about")
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		if b, err := io.ReadAll(res.Document.Body); err != nil || string(b) != body {
			t.Errorf("%d bytes, %v", len(b), err)
		}
	})
}

// TestLineBounds: a response header block past MaxResponseHeaderBytes
// (from a server or a gateway), a chunk-size line past net/http's line
// bound and a trailer section past its buffer are each refused as a size
// bound (exit 4) whose message names the bound and what passed it, as
// the README says of every driver; they were the server's fault (exit 6)
// or, for the chunked body, a network failure (exit 5).
func TestLineBounds(t *testing.T) {
	big := "HTTP/1.1 200 OK\r\nX-Big: " + strings.Repeat("a", 1<<20) + "\r\nContent-Length: 2\r\n\r\nok"
	chunked := "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	gateway := func(addr string) *fetch.Client {
		c := fetch.NewClient(fetch.Options{Proxy: func(*fetch.URL) (*fetch.URL, error) { return fetch.Parse("http://" + addr) }})
		d := newDriver(Config{})
		c.Register("http", d)
		c.Register("https", d)
		return c
	}
	for _, tt := range []struct {
		name, reply string
		gateway     bool
		says        []string
	}{
		{"server header", big, false, []string{"GET: ", "response header block of more than 65536 bytes"}},
		{"gateway header", big, true, []string{"gateway http://127.0.0.1:", "response header block of more than 65536 bytes"}},
		{"chunk-size line", chunked + "2" + strings.Repeat(";x", 8<<10) + "\r\nok\r\n0\r\n\r\n", false,
			[]string{"chunk-size line of 4096 bytes or more"}},
		{"chunk-size line from a gateway", chunked + "2" + strings.Repeat(";x", 8<<10) + "\r\nok\r\n0\r\n\r\n", true,
			[]string{"chunk-size line of 4096 bytes or more"}},
		{"trailer", chunked + "2\r\nok\r\n0\r\nX-T: " + strings.Repeat("t", 8<<10) + "\r\n\r\n", false,
			[]string{"trailer section of more than 4096 bytes"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr := rawServer(t, tt.reply, nil)
			c, u := newClient(fetch.Options{}), "http://"+addr+"/"
			if tt.gateway {
				c, u = gateway(addr), "gopher://gopher.example/0about"
			}
			res, err := c.Fetch(context.Background(), u)
			if err == nil {
				_, err = io.ReadAll(res.Document.Body)
				res.Close()
			}
			k := fetch.KindOf(err)
			if !errors.Is(err, fetch.ErrLineTooLong) || k != fetch.KindPolicy || k.ExitCode() != 4 {
				t.Fatalf("err = %v (kind %v, exit %d), want ErrLineTooLong refused by policy (exit 4)", err, k, k.ExitCode())
			}
			for _, want := range tt.says {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%q does not say %q", err, want)
				}
			}
		})
	}
}

func TestResumeRejectsWrongRange(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		w.Header().Set("Content-Range", "bytes 0-9/10")
		w.WriteHeader(nethttp.StatusPartialContent)
		io.WriteString(w, "0123456789")
	}))
	defer srv.Close()
	req, err := fetch.NewRequest(srv.URL + "/f")
	if err != nil {
		t.Fatal(err)
	}
	req.Offset = 5
	_, err = newClient(fetch.Options{}).Do(context.Background(), req)
	if fetch.KindOf(err).ExitCode() != 6 || !strings.Contains(err.Error(), "does not resume") {
		t.Fatalf("a 206 from byte 0 for offset 5: %v", err)
	}
}

// TestResumeRejectsShortRange: a resume's 206 must run from the offset to
// the document's end; a part that stops short (or a body shorter than its
// range, or a part of a document of unknown length) would be saved as if
// it were the rest.
func TestResumeRejectsShortRange(t *testing.T) {
	for _, tt := range []struct {
		rng, length, body string
		ok                bool
	}{
		{"bytes 5-9/10", "5", "56789", true},
		{"bytes 5-9/*", "5", "56789", false}, // the document may go on
		{"bytes 5-7/10", "3", "567", false},
		{"bytes 5-9/10", "3", "567", false},
		{"bytes 5-4/10", "0", "", false},
	} {
		t.Run(tt.rng+" "+tt.length, func(t *testing.T) {
			addr := rawServer(t, "HTTP/1.1 206 Partial Content\r\nContent-Range: "+tt.rng+"\r\nContent-Length: "+tt.length+"\r\n\r\n"+tt.body, nil)
			req, err := fetch.NewRequest("http://" + addr + "/f")
			if err != nil {
				t.Fatal(err)
			}
			req.Offset = 5
			res, err := newClient(fetch.Options{}).Do(context.Background(), req)
			if tt.ok {
				if err != nil {
					t.Fatal(err)
				}
				res.Close()
				return
			}
			if err == nil {
				res.Close()
				t.Fatal("a part short of the end taken for the rest")
			}
			if fetch.KindOf(err).ExitCode() != 6 || !strings.Contains(err.Error(), "does not resume") {
				t.Errorf("err = %v", err)
			}
		})
	}
}

// TestResumePartWithoutLength: a resumed part without a Content-Length
// (chunked, or ended by the close) is held to its Content-Range: a body
// short of it fails as truncated, one past it as too large; it was saved
// as if it were the rest.
func TestResumePartWithoutLength(t *testing.T) {
	for _, tt := range []struct {
		name, resp string
		want       error // nil: the part is whole
	}{
		{"chunked whole", "Transfer-Encoding: chunked\r\n\r\n5\r\n56789\r\n0\r\n\r\n", nil},
		{"close whole", "Connection: close\r\n\r\n56789", nil},
		{"chunked short", "Transfer-Encoding: chunked\r\n\r\n2\r\n56\r\n0\r\n\r\n", fetch.ErrTruncated},
		{"close short", "Connection: close\r\n\r\n56", fetch.ErrTruncated},
		{"close long", "Connection: close\r\n\r\n56789ab", fetch.ErrTooLarge},
	} {
		t.Run(tt.name, func(t *testing.T) {
			addr := rawServer(t, "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 5-9/10\r\n"+tt.resp, nil)
			req, err := fetch.NewRequest("http://" + addr + "/f")
			if err != nil {
				t.Fatal(err)
			}
			req.Offset = 5
			res, err := newClient(fetch.Options{}).Do(context.Background(), req)
			if err != nil {
				t.Fatal(err)
			}
			defer res.Close()
			b, err := io.ReadAll(res.Document.Body)
			if tt.want == nil && (err != nil || string(b) != "56789") || tt.want != nil && !errors.Is(err, tt.want) {
				t.Errorf("read %q, %v; want %v", b, err, tt.want)
			}
		})
	}
}

func TestResultURLWithoutRedirect(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {}))
	defer srv.Close()
	res, err := newClient(fetch.Options{}).Fetch(context.Background(), srv.URL+"/a%2Fb?q")
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if got := res.URL.String(); got != srv.URL+"/a%2Fb?q" {
		t.Fatalf("result URL %s", got)
	}
}

// Credentials given with -H go to the URL's host, never to another host a
// redirect names.
func TestHeadersNotForwardedAcrossHosts(t *testing.T) {
	got := make(chan string, 2)
	other := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		got <- "other:" + r.Header.Get("Authorization") + ":" + r.Header.Get("Referer")
	}))
	defer other.Close()
	first := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		got <- "first:" + r.Header.Get("Authorization")
		// Another host name for the same loopback server.
		nethttp.Redirect(w, r, strings.Replace(other.URL, "127.0.0.1", "localhost", 1)+"/x", nethttp.StatusFound)
	}))
	defer first.Close()
	c := fetch.NewClient(fetch.Options{})
	c.Register("http", newDriver(Config{Header: []string{"Authorization: Bearer SECRET"}}))
	res, err := c.Fetch(context.Background(), first.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if a, b := <-got, <-got; a != "first:Bearer SECRET" || b != "other::" {
		t.Fatalf("first %q, then %q", a, b)
	}
}

// nameDialer dials a loopback address in place of a host:port, or of a
// host on any port: test servers under host names of their own.
type nameDialer map[string]string

func (m nameDialer) DialContext(ctx context.Context, network, addr string) (net.Conn, error) {
	if to := m[addr]; to != "" {
		addr = to
	} else if host, _, err := net.SplitHostPort(addr); err == nil && m[host] != "" {
		addr = m[host]
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// TestCredentialsStayWithOrigin: the -H credentials (Authorization,
// Cookie, and every header SecretHeader names: X-Api-Key, ...) go to the
// first URL's origin only: not to a subdomain, not to another port of the
// same host, and not back to the origin once a hop has left it; a
// redirect within the origin keeps them.
func TestCredentialsStayWithOrigin(t *testing.T) {
	type seen struct{ where, auth, cookie, key string }
	got := make(chan seen, 8)
	var originAddr string
	origin := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		got <- seen{"origin" + r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Cookie"), r.Header.Get("X-Api-Key")}
		if to := r.URL.Query().Get("to"); to != "" {
			nethttp.Redirect(w, r, to, nethttp.StatusFound)
		}
	}))
	defer origin.Close()
	other := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		got <- seen{"other" + r.URL.Path, r.Header.Get("Authorization"), r.Header.Get("Cookie"), r.Header.Get("X-Api-Key")}
		if r.URL.Path == "/away" {
			nethttp.Redirect(w, r, "http://site.test:"+originAddr+"/back", nethttp.StatusFound)
		}
	}))
	defer other.Close()
	_, originAddr, _ = net.SplitHostPort(origin.Listener.Addr().String())
	_, otherPort, _ := net.SplitHostPort(other.Listener.Addr().String())
	dialer := nameDialer{"site.test": origin.Listener.Addr().String(), "evil.site.test": other.Listener.Addr().String(),
		"site.test:" + otherPort: other.Listener.Addr().String()}
	for _, tt := range []struct {
		name, to string
		want     []string // where each request went; the first to the origin carries the credentials
		keep     int      // how many requests carry them
	}{
		{"within the origin", "/same", []string{"origin/", "origin/same"}, 2},
		{"a subdomain", "http://evil.site.test:" + otherPort + "/x", []string{"origin/", "other/x"}, 1},
		{"another port", "http://site.test:" + otherPort + "/x", []string{"origin/", "other/x"}, 1},
		{"away and back", "http://evil.site.test:" + otherPort + "/away", []string{"origin/", "other/away", "origin/back"}, 1},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := fetch.NewClient(fetch.Options{Dialer: dialer})
			c.Register("http", newDriver(Config{Header: []string{"Authorization: Bearer SECRET", "Cookie: session=SECRET", "X-Api-Key: SECRET"}}))
			res, err := c.Fetch(context.Background(), "http://site.test:"+originAddr+"/?to="+neturl.QueryEscape(tt.to))
			if err != nil {
				t.Fatal(err)
			}
			res.Close()
			for i, where := range tt.want {
				s := <-got
				carried := s.auth == "Bearer SECRET" && s.cookie == "session=SECRET" && s.key == "SECRET"
				if s.where != where || carried != (i < tt.keep) || !carried && (s.auth != "" || s.cookie != "" || s.key != "") {
					t.Errorf("request %d: %+v (want it at %s, credentials %v)", i+1, s, where, i < tt.keep)
				}
			}
		})
	}
}

// sameOrigin compares scheme, host and port, a missing port being the
// scheme's: https to http on one host is another origin.
func TestSameOrigin(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		same bool
	}{
		{"http://h.test/a", "http://H.TEST:80/b", true},
		{"https://h.test/", "https://h.test:443/x", true},
		{"https://h.test/", "http://h.test/", false},
		{"http://h.test/", "http://h.test:8080/", false},
		{"http://h.test/", "http://sub.h.test/", false},
		{"http://[::1]:8080/", "http://[::1]:8080/x", true},
	} {
		a, _ := neturl.Parse(tt.a)
		b, _ := neturl.Parse(tt.b)
		if got := sameOrigin(a, b); got != tt.same {
			t.Errorf("sameOrigin(%s, %s) = %v", tt.a, tt.b, got)
		}
	}
}

// TestSchemeRelativeRedirectHost: a Location of "//other.test/x" is asked
// of other.test with its own Host header, not the first URL's.
func TestSchemeRelativeRedirectHost(t *testing.T) {
	hosts := make(chan string, 2)
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		hosts <- r.Host
		if r.URL.Path == "/" {
			w.Header().Set("Location", "//cdn.test/x")
			w.WriteHeader(nethttp.StatusFound)
		}
	}))
	defer srv.Close()
	c := fetch.NewClient(fetch.Options{Dialer: nameDialer{"origin.test": srv.Listener.Addr().String(), "cdn.test": srv.Listener.Addr().String()}})
	c.RegisterScheme(Schemes(Config{})...) // port 80 is http's own
	res, err := c.Fetch(context.Background(), "http://origin.test/")
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if a, b := <-hosts, <-hosts; a != "origin.test" || b != "cdn.test" {
		t.Errorf("Host headers %q then %q, want origin.test then cdn.test", a, b)
	}
}

// An https URL goes through a gateway as a CONNECT tunnel, never as a
// plain-text GET.
func TestHTTPSThroughGatewayUsesConnect(t *testing.T) {
	addr, line := recordingServer(t, "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 0\r\n\r\n", nil)
	c := fetch.NewClient(fetch.Options{Proxy: func(*fetch.URL) (*fetch.URL, error) { return fetch.Parse("http://" + addr) }})
	d := newDriver(Config{})
	c.Register("http", d)
	c.Register("https", d)
	if _, err := c.Fetch(context.Background(), "https://secure.example:8443/p"); err == nil {
		t.Fatal("no error from a refusing gateway")
	}
	if l := <-line; l != "CONNECT secure.example:8443 HTTP/1.1\r\n" {
		t.Fatalf("gateway got %q", l)
	}
}

// A plain http URL goes to the gateway whole, and the redirect trace masks
// passwords.
func TestHTTPThroughGateway(t *testing.T) {
	addr, line := recordingServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", nil)
	c := fetch.NewClient(fetch.Options{Proxy: func(*fetch.URL) (*fetch.URL, error) { return fetch.Parse("http://" + addr) }})
	c.Register("http", newDriver(Config{}))
	res, err := c.Fetch(context.Background(), "http://far.example:8080/a%2Fb?x=1")
	if err != nil {
		t.Fatal(err)
	}
	res.Close()
	if l := <-line; l != "GET http://far.example:8080/a%2Fb?x=1 HTTP/1.1\r\n" {
		t.Fatalf("gateway got %q", l)
	}
}

// viaGateway fetches raw through the HTTP gateway at gateway, tracing
// the exchange as -v shows it.
func viaGateway(t *testing.T, gateway, raw string) (*fetch.Result, *strings.Builder) {
	t.Helper()
	c := fetch.NewClient(fetch.Options{Proxy: func(*fetch.URL) (*fetch.URL, error) { return fetch.Parse(gateway) }})
	c.Register("http", newDriver(Config{}))
	return tracedDo(t, c, raw)
}

// tracedDo fetches raw with c, tracing the exchange as -v shows it.
func tracedDo(t *testing.T, c *fetch.Client, raw string) (*fetch.Result, *strings.Builder) {
	t.Helper()
	req, err := fetch.NewRequest(raw)
	if err != nil {
		t.Fatal(err)
	}
	trace := &strings.Builder{}
	req.Tracer = fetch.TracerFunc(func(d fetch.Direction, l string) { fmt.Fprintf(trace, "%c %s\n", d, l) })
	res, err := c.Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	return res, trace
}

// TestTraceThroughGateway: -v shows the request a gateway gets, with its
// absolute URL, as net/http sends it, and the gateway's credentials
// masked; never the origin form that goes to a server.
func TestTraceThroughGateway(t *testing.T) {
	addr, line := recordingServer(t, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", nil)
	res, trace := viaGateway(t, "http://joe:hunter2@"+addr, "http://far.example:8080/a%2Fb?x=1#frag")
	res.Close()
	sent := <-line
	got := trace.String()
	if want := "> " + strings.TrimSuffix(sent, "\r\n") + "\n"; want != "> GET http://far.example:8080/a%2Fb?x=1 HTTP/1.1\n" || !strings.Contains(got, want) {
		t.Errorf("the gateway got %q; trace:\n%s", sent, got)
	}
	for _, l := range []string{"> Host: far.example:8080\n", "> Proxy-Authorization: ****\n", "< HTTP/1.1 200 OK\n"} {
		if !strings.Contains(got, l) {
			t.Errorf("no %q in the trace:\n%s", l, got)
		}
	}
	if strings.Contains(got, "GET /a") || strings.Contains(got, "hunter2") || strings.Contains(got, basicAuth("joe", "hunter2")[len("Basic "):]) {
		t.Errorf("trace:\n%s", got)
	}
}

// TestTraceConnect: -v shows an https request through a gateway as it
// goes: the CONNECT (its credentials masked) and the gateway's answer,
// then the request in origin form inside the tunnel.
func TestTraceConnect(t *testing.T) {
	srv := httptest.NewTLSServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		io.WriteString(w, "secure "+r.Host+r.URL.RequestURI())
	}))
	defer srv.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	connect := make(chan *nethttp.Request, 1)
	go func() { // a gateway that tunnels every CONNECT to srv
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		r, err := nethttp.ReadRequest(bufio.NewReader(c))
		if err != nil {
			return
		}
		connect <- r
		s, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			return
		}
		defer s.Close()
		io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
		go io.Copy(s, c)
		io.Copy(c, s)
	}()
	c := fetch.NewClient(fetch.Options{Proxy: func(*fetch.URL) (*fetch.URL, error) { return fetch.Parse("http://joe:hunter2@" + ln.Addr().String()) }})
	d := newDriver(Config{Insecure: true, Header: []string{"X-Api-Key: K3Y"}})
	c.Register("http", d)
	c.Register("https", d)
	res, trace := tracedDo(t, c, "https://secure.example/p?q")
	b, _ := io.ReadAll(res.Document.Body)
	res.Close()
	if string(b) != "secure secure.example/p?q" {
		t.Fatalf("body %q", b)
	}
	r := <-connect
	if r.Method != "CONNECT" || r.RequestURI != "secure.example:443" || r.Header.Get("User-Agent") != UserAgent || r.Header.Get("X-Api-Key") != "" {
		t.Errorf("the gateway got %s %s, header %v", r.Method, r.RequestURI, r.Header)
	}
	got := trace.String()
	at := 0
	for _, l := range []string{
		"* connecting to " + ln.Addr().String() + "\n",
		"> CONNECT secure.example:443 HTTP/1.1\n", "> Host: secure.example:443\n",
		"> Proxy-Authorization: ****\n", "> User-Agent: " + UserAgent + "\n",
		"< HTTP/1.1 200 Connection established\n",
		"> GET /p?q HTTP/1.1\n", "> Host: secure.example\n", "> X-Api-Key: ****\n",
		"< HTTP/1.1 200 OK\n",
	} {
		i := strings.Index(got[at:], l)
		if i < 0 {
			t.Fatalf("no %q after byte %d of the trace:\n%s", l, at, got)
		}
		at += i + len(l)
	}
	if strings.Count(got, "> CONNECT") != 1 || strings.Count(got, "> GET") != 1 || strings.Contains(got, "hunter2") || strings.Contains(got, "K3Y") {
		t.Errorf("trace:\n%s", got)
	}
}

// TestTraceMasksCredentials: -v shows the name of every header sent and
// received, and "****" for the value of each that may hold a credential:
// the -H ones (Authorization, Cookie, X-Api-Key, ...) and the server's
// Set-Cookie; the others are shown as they went.
func TestTraceMasksCredentials(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		w.Header().Set("Set-Cookie", "sid=srv-S3CRET; HttpOnly")
		w.Header().Set("WWW-Authenticate", `Basic realm="shown"`)
		w.Header().Set("Content-Type", "text/plain")
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	c := fetch.NewClient(fetch.Options{})
	c.Register("http", newDriver(Config{Header: []string{
		"Authorization: Bearer T0KEN", "Cookie: session=C00KIE", "X-Api-Key: K3Y",
		"x-auth-token: T0KEN2", "X-Session-Id: SESS", "Accept-Language: en-shown",
	}}))
	res, trace := tracedDo(t, c, srv.URL+"/doc")
	res.Close()
	got := trace.String()
	for _, secret := range []string{"T0KEN", "C00KIE", "K3Y", "T0KEN2", "SESS", "S3CRET"} {
		if strings.Contains(got, secret) {
			t.Errorf("%q is in the trace:\n%s", secret, got)
		}
	}
	for _, line := range []string{
		"> Authorization: ****\n", "> Cookie: ****\n", "> X-Api-Key: ****\n", "> X-Auth-Token: ****\n",
		"> X-Session-Id: ****\n", "> Accept-Language: en-shown\n", "< Set-Cookie: ****\n",
		"< Www-Authenticate: Basic realm=\"shown\"\n", "< Content-Type: text/plain\n",
	} {
		if !strings.Contains(got, line) {
			t.Errorf("no %q in the trace:\n%s", line, got)
		}
	}
}

// metaKey's constants are the lower-case forms of canonical header names:
// a name it lists answers as strings.ToLower would, and a constant that
// net/http's canonical form could never reach would be dead.
func TestMetaKey(t *testing.T) {
	for _, name := range []string{
		"Accept-Ranges", "Age", "Cache-Control", "Connection", "Content-Disposition",
		"Content-Encoding", "Content-Language", "Content-Length", "Content-Range",
		"Content-Type", "Date", "Etag", "Expires", "Keep-Alive", "Last-Modified",
		"Location", "Server", "Set-Cookie", "Transfer-Encoding", "Vary",
		"X-Unlisted", "Www-Authenticate",
	} {
		if got, want := metaKey(name), strings.ToLower(name); got != want {
			t.Errorf("metaKey(%q) = %q, want %q", name, got, want)
		}
		if nethttp.CanonicalHeaderKey(name) != name {
			t.Errorf("%q is not a canonical header name", name)
		}
	}
	var key string
	if n := testing.AllocsPerRun(10, func() { key = metaKey("Content-Type") }); n != 0 || key != "content-type" {
		t.Errorf("metaKey of a listed name allocates %v times", n)
	}
}

// Last-Modified becomes the document's ModTime, unless the request says
// no date is wanted (a batch), which spares parsing it.
func TestModTime(t *testing.T) {
	addr := rawServer(t, "HTTP/1.1 200 OK\r\nLast-Modified: Tue, 03 Nov 1992 17:04:05 GMT\r\nContent-Length: 2\r\n\r\nok", nil)
	want := time.Date(1992, time.November, 3, 17, 4, 5, 0, time.UTC)
	c := newClient(fetch.Options{})
	for _, skip := range []bool{false, true} {
		u, err := c.Parse("http://" + addr + "/x")
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Do(context.Background(), &fetch.Request{URL: u, NoModTime: skip})
		if err != nil {
			t.Fatalf("NoModTime %v: %v", skip, err)
		}
		res.Close()
		if got := res.Document.ModTime; skip && !got.IsZero() || !skip && !got.Equal(want) {
			t.Errorf("NoModTime %v: ModTime %v", skip, got)
		}
	}
}

// TestGatewayStatusRetry: a gateway's HTTP status for a URL of another
// scheme is judged as HTTP's by fetch.Temporary: 503 is retried, 404 not.
func TestGatewayStatusRetry(t *testing.T) {
	for code, want := range map[string]bool{"503 Service Unavailable": true, "404 Not Found": false} {
		addr := rawServer(t, "HTTP/1.1 "+code+"\r\nContent-Length: 0\r\n\r\n", nil)
		c := fetch.NewClient(fetch.Options{Proxy: func(*fetch.URL) (*fetch.URL, error) { return fetch.Parse("http://" + addr) }})
		c.Register("http", newDriver(Config{}))
		_, err := c.Fetch(context.Background(), "ftp://ftp.example/pub/f")
		if err == nil || fetch.Temporary(err) != want {
			t.Errorf("gateway %s for an ftp: URL: %v, Temporary %v, want %v", code, err, fetch.Temporary(err), want)
		}
	}
}

// TestRedirectedHook: Request.Redirected sees each hop's URL before it is
// followed, and its error ends the fetch with it.
func TestRedirectedHook(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		if r.URL.Path == "/from" {
			nethttp.Redirect(w, r, "/to", nethttp.StatusFound)
			return
		}
		io.WriteString(w, "at "+r.URL.Path)
	}))
	defer srv.Close()
	refused := errors.New("not there")
	for _, refuse := range []bool{false, true} {
		req, err := fetch.NewRequest(srv.URL + "/from")
		if err != nil {
			t.Fatal(err)
		}
		var seen []string
		req.Redirected = func(ctx context.Context, to *fetch.URL) error {
			if ctx == nil {
				t.Error("no context")
			}
			seen = append(seen, to.String())
			if refuse {
				return refused
			}
			return nil
		}
		res, err := newClient(fetch.Options{}).Do(context.Background(), req)
		if len(seen) != 1 || seen[0] != srv.URL+"/to" {
			t.Errorf("hops seen: %q", seen)
		}
		if refuse {
			if !errors.Is(err, refused) {
				t.Errorf("err = %v, want the hook's", err)
			}
			continue
		}
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Document.Body)
		res.Close()
		if string(body) != "at /to" {
			t.Errorf("body %q", body)
		}
	}
}
