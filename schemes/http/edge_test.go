package http

import (
	"context"
	"errors"
	"io"
	nethttp "net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
)

// TestGatewayInformational: a gateway's 100 Continue (or 103 Early
// Hints) before its final answer is skipped, as net/http's transport skips
// a server's; the document is the 200's body, not an empty success.
func TestGatewayInformational(t *testing.T) {
	addr := rawServer(t, "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n"+
		"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello", nil)
	c := fetch.NewClient(fetch.Options{Proxy: func(*fetch.URL) (*fetch.URL, error) { return fetch.Parse("http://" + addr) }})
	d := newDriver(Config{})
	c.Register("http", d)
	res, err := c.Fetch(context.Background(), "gopher://gopher.example/0about")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	b, err := io.ReadAll(res.Document.Body)
	if err != nil || string(b) != "hello" || res.Document.Meta[fetch.MetaStatus] != "200 OK" {
		t.Fatalf("read %q, %v, status %q; want the 200's body", b, err, res.Document.Meta[fetch.MetaStatus])
	}
	// The interim answers share the header's bound: a flood is refused.
	flood := rawServer(t, strings.Repeat("HTTP/1.1 100 Continue\r\n\r\n", 100000), nil)
	c = fetch.NewClient(fetch.Options{Proxy: func(*fetch.URL) (*fetch.URL, error) { return fetch.Parse("http://" + flood) }})
	c.Register("http", d)
	if res, err := c.Fetch(context.Background(), "gopher://gopher.example/0about"); err == nil {
		res.Close()
		t.Fatal("a flood of 100 Continue was taken")
	} else if !errors.Is(err, fetch.ErrLineTooLong) {
		t.Errorf("a flood of 100 Continue: %v", err)
	}
}

// TestSwitchingProtocols: a 101 to a GET that asked for no upgrade
// (from a server or a gateway) is no document: it was taken for an empty
// one, exit 0.
func TestSwitchingProtocols(t *testing.T) {
	reply := "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: x\r\n\r\nhello"
	t.Run("server", func(t *testing.T) {
		addr := rawServer(t, reply, nil)
		res, err := newClient(fetch.Options{}).Fetch(context.Background(), "http://"+addr+"/")
		if err == nil {
			b, _ := io.ReadAll(res.Document.Body)
			res.Close()
			t.Fatalf("a 101 gave a document (%q)", b)
		}
		if fetch.KindOf(err) != fetch.KindServer {
			t.Errorf("err = %v (kind %v)", err, fetch.KindOf(err))
		}
	})
	t.Run("gateway", func(t *testing.T) {
		addr := rawServer(t, reply, nil)
		c := fetch.NewClient(fetch.Options{Proxy: func(*fetch.URL) (*fetch.URL, error) { return fetch.Parse("http://" + addr) }})
		c.Register("http", newDriver(Config{}))
		res, err := c.Fetch(context.Background(), "gopher://gopher.example/0about")
		if err == nil {
			b, _ := io.ReadAll(res.Document.Body)
			res.Close()
			t.Fatalf("a 101 gave a document (%q)", b)
		}
		if fetch.KindOf(err) != fetch.KindServer {
			t.Errorf("err = %v (kind %v)", err, fetch.KindOf(err))
		}
	})
}

// TestRedirectResultURL: after a redirect, the result names the
// URL whose document it is. A Location this grammar refuses (a bad escape
// in its search) left the result naming the first URL, whose document it
// was not: -O named the file after it and links resolved against it.
func TestRedirectResultURL(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		if r.URL.Path == "/start" {
			w.Header().Set("Location", "/next?a%zz")
			w.WriteHeader(nethttp.StatusFound)
			return
		}
		io.WriteString(w, "next")
	}))
	defer srv.Close()
	res, err := newClient(fetch.Options{}).Fetch(context.Background(), srv.URL+"/start")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	if got := res.URL.String(); !strings.HasSuffix(got, "/next?a%25zz") {
		t.Errorf("the document of /next?a%%zz is named %s", got)
	}
}

// TestResumePartStopsAtRange: a resumed part without a
// Content-Length that runs past its Content-Range fails, and the bytes
// past it never reach the caller: "-C N URL >> part" would append them.
func TestResumePartStopsAtRange(t *testing.T) {
	addr := rawServer(t, "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 6-9/10\r\nTransfer-Encoding: chunked\r\n\r\n"+
		"7\r\n6789XYZ\r\n0\r\n\r\n", nil)
	req, err := fetch.NewRequest("http://" + addr + "/")
	if err != nil {
		t.Fatal(err)
	}
	req.Offset = 6
	res, err := newClient(fetch.Options{}).Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	b, err := io.ReadAll(res.Document.Body)
	if err == nil || string(b) != "6789" {
		t.Fatalf("read %q, %v; want %q and an error", b, err, "6789")
	}
}

// TestResumeComplete: resuming at the document's end, the server
// answers 416 with "Content-Range: bytes */N": the copy is whole, as file:
// and ftp: (and curl) report, not a server refusal (exit 6). A 416 naming
// another length is still refused.
func TestResumeComplete(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		nethttp.ServeContent(w, r, "f", time.Time{}, strings.NewReader("0123456789"))
	}))
	defer srv.Close()
	c := newClient(fetch.Options{})
	for _, tt := range []struct {
		off int64
		ok  bool
	}{{10, true}, {12, false}} {
		req, err := fetch.NewRequest(srv.URL + "/f")
		if err != nil {
			t.Fatal(err)
		}
		req.Offset = tt.off
		res, err := c.Do(context.Background(), req)
		if !tt.ok {
			if err == nil {
				res.Close()
				t.Errorf("offset %d past the end: no error", tt.off)
			}
			continue
		}
		if err != nil {
			t.Fatalf("offset %d at the end: %v", tt.off, err)
		}
		b, err := io.ReadAll(res.Document.Body)
		res.Close()
		if err != nil || len(b) != 0 || res.Document.Offset != 10 || res.Document.Size != 10 {
			t.Errorf("offset %d: %q, %v, offset %d size %d", tt.off, b, err, res.Document.Offset, res.Document.Size)
		}
	}
}

// TestRedirectPortNamesHop: a redirect refused for its port names
// the hop's URL (as a refused gateway names the gateway) as the hop at
// fault, after the first URL, whose port was allowed.
func TestRedirectPortNamesHop(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		nethttp.Redirect(w, r, "http://127.0.0.1:25/mail", nethttp.StatusFound)
	}))
	defer srv.Close()
	_, err := newClient(fetch.Options{}).Fetch(context.Background(), srv.URL+"/start")
	var fe *fetch.Error
	if !errors.As(err, &fe) || fetch.KindOf(err) != fetch.KindPolicy {
		t.Fatalf("err = %v, want a policy refusal", err)
	}
	if !strings.Contains(err.Error(), "redirect to http://127.0.0.1:25/mail: ") {
		t.Errorf("%q does not name the redirect's URL", err)
	}
}

// TestRedirectRefusalNamesFirstURL: a hop refused for a password in its
// URL or for its port is reported about the URL that was asked for, the
// hop named after it, as a refused scheme and too many redirects are:
// the error named the hop alone, and a batch's message could not be told
// to belong to its line of the list. The exit status stays the one the
// refusal had, and the hop's password stays masked.
func TestRedirectRefusalNamesFirstURL(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		switch r.URL.Path {
		case "/userredir":
			nethttp.Redirect(w, r, "http://user:s3cret@127.0.0.1:18080/hello.txt", nethttp.StatusFound)
		case "/portredir":
			nethttp.Redirect(w, r, "http://127.0.0.1:25/mail", nethttp.StatusFound)
		}
	}))
	defer srv.Close()
	for _, tt := range []struct {
		path, hop string
		kind      fetch.Kind
	}{
		{"/userredir", "http://user:****@127.0.0.1:18080/hello.txt", fetch.KindMalformed},
		{"/portredir", "http://127.0.0.1:25/mail", fetch.KindPolicy},
	} {
		first := srv.URL + tt.path
		_, err := newClient(fetch.Options{}).Fetch(context.Background(), first)
		var fe *fetch.Error
		if !errors.As(err, &fe) || fe.Kind != tt.kind {
			t.Errorf("%s: err = %v, want a %v error", tt.path, err, tt.kind)
			continue
		}
		msg := err.Error()
		if fe.URL != first || !strings.HasPrefix(msg, first+": redirect to "+tt.hop+": ") || strings.Contains(msg, "s3cret") {
			t.Errorf("%s: %q (URL %q); want it about %s, naming the hop %s", tt.path, msg, fe.URL, first, tt.hop)
		}
	}
}

// TestRetryAfterHuge: a Retry-After of more seconds than int64
// holds is the longest wait, not none: it was dropped, and a batch
// retried after its own short backoff a server that asked for the
// longest wait of all ("600" waited the batch's cap of 5 minutes).
func TestRetryAfterHuge(t *testing.T) {
	for _, v := range []string{"600", "99999999999999999999"} {
		addr := rawServer(t, "HTTP/1.1 503 Service Unavailable\r\nRetry-After: "+v+"\r\nContent-Length: 0\r\n\r\n", nil)
		_, err := newClient(fetch.Options{}).Fetch(context.Background(), "http://"+addr+"/")
		if d, ok := fetch.RetryAfter(err); !ok || d < 600*time.Second {
			t.Errorf("Retry-After: %s gave %v, %v (err %v)", v, d, ok, err)
		}
	}
}

// TestRedirectGatewayPortNamesGateway: a redirect whose URL has a
// gateway of its own on a refused port is refused naming that gateway and
// the hop, as the client names a first URL's gateway: it named the first
// URL alone, as if its own port had been refused.
func TestRedirectGatewayPortNamesGateway(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		nethttp.Redirect(w, r, strings.Replace("http://"+r.Host+"/next", "127.0.0.1", "localhost", 1), nethttp.StatusFound)
	}))
	defer srv.Close()
	c := newClient(fetch.Options{Proxy: func(u *fetch.URL) (*fetch.URL, error) {
		if u.Host == "localhost" {
			return fetch.Parse("http://user:s3cret@127.0.0.1:25")
		}
		return nil, nil
	}})
	_, err := c.Fetch(context.Background(), srv.URL+"/start")
	if fetch.KindOf(err) != fetch.KindPolicy {
		t.Fatalf("err = %v, want a policy refusal", err)
	}
	msg := err.Error()
	if !strings.Contains(msg, "gateway http://user:****@127.0.0.1:25") || !strings.Contains(msg, "localhost") || strings.Contains(msg, "s3cret") {
		t.Errorf("%q does not name the hop's gateway (or shows its password)", msg)
	}
}

// TestGatewayDialNamesGateway: a gateway that refuses the connection is
// named as the gateway, with where it was set (Options.ProxyFrom) and its
// password masked, whether the URL goes whole to it (gopher:) or through
// net/http's transport (http:): the message named the address alone, and
// a forgotten gopher_proxy read as a wrong port of the URL's server.
func TestGatewayDialNamesGateway(t *testing.T) {
	addr := fetchtest.RefusedAddr(t)
	gw := "http://u:s3cret@" + addr + "/"
	c := fetch.NewClient(fetch.Options{
		Proxy:     func(*fetch.URL) (*fetch.URL, error) { return fetch.Parse(gw) },
		ProxyFrom: func(u *fetch.URL) string { return u.Scheme + "_proxy" },
	})
	d := newDriver(Config{})
	c.Register("http", d)
	for _, rawURL := range []string{"gopher://127.0.0.1:18071/", "http://127.0.0.1:18080/hello.txt"} {
		scheme, _, _ := strings.Cut(rawURL, ":")
		_, err := c.Fetch(context.Background(), rawURL)
		var fe *fetch.Error
		if !errors.As(err, &fe) || fetch.KindOf(err) != fetch.KindNetwork {
			t.Errorf("%s: err = %v, want a network failure", rawURL, err)
			continue
		}
		want := "gateway http://u:****@" + addr + "/ (from " + scheme + "_proxy): dial " + addr + ": "
		if msg := err.Error(); !strings.HasPrefix(msg, rawURL+": "+want) || strings.Contains(msg, "s3cret") {
			t.Errorf("%s: %q; want it to begin %q", rawURL, msg, rawURL+": "+want)
		}
	}
}

// TestTooManyRedirectsMasksHop: the message for one redirect too many
// names the last hop with its password masked as every other URL is
// ("****"; net/url's Redacted wrote "xxxxx").
func TestTooManyRedirectsMasksHop(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		nethttp.Redirect(w, r, "http://user:s3cret@127.0.0.1:18080/hello.txt", nethttp.StatusFound)
	}))
	defer srv.Close()
	c := fetch.NewClient(fetch.Options{})
	c.Register("http", newDriver(Config{MaxRedirects: -1}))
	_, err := c.Fetch(context.Background(), srv.URL+"/")
	if err == nil || fetch.KindOf(err) != fetch.KindPolicy || !strings.Contains(err.Error(), "(last to http://user:****@127.0.0.1:18080/hello.txt)") {
		t.Errorf("%v; want the refusal naming the hop, password masked", err)
	}
}

// TestGatewayAnswerNamesGateway: a gateway's refusal of a URL sent whole
// to it (502 for a server it could not reach) names the gateway and where
// it was set: the message read as the gopher server's own answer, which
// no gopher server gives.
func TestGatewayAnswerNamesGateway(t *testing.T) {
	srv := httptest.NewServer(nethttp.HandlerFunc(func(w nethttp.ResponseWriter, r *nethttp.Request) {
		nethttp.Error(w, "no route", nethttp.StatusBadGateway)
	}))
	defer srv.Close()
	gw := srv.URL + "/"
	c := fetch.NewClient(fetch.Options{
		Proxy:     func(*fetch.URL) (*fetch.URL, error) { return fetch.Parse(gw) },
		ProxyFrom: func(u *fetch.URL) string { return u.Scheme + "_proxy" },
	})
	c.Register("http", newDriver(Config{}))
	_, err := c.Fetch(context.Background(), "gopher://127.0.0.1:18071/1/")
	want := "gateway " + gw + " (from gopher_proxy): GET"
	if fetch.KindOf(err) != fetch.KindServer || err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "502") {
		t.Errorf("err = %v (kind %v); want the server's refusal naming %q", err, fetch.KindOf(err), want)
	}
}
