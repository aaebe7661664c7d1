package prospero

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/fetchtest"
)

// stubs records the URLs other schemes' drivers were asked for and
// answers each with a document of its URL, or an error for the URLs in
// fail.
type stubs struct {
	mu   sync.Mutex
	urls []string
	fail map[string]bool
}

func (s *stubs) driver(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	u := req.URL.String()
	s.mu.Lock()
	s.urls = append(s.urls, u)
	s.mu.Unlock()
	if s.fail[req.URL.Scheme] {
		return nil, req.Errorf(fetch.KindNetwork, "dial", "connection refused")
	}
	return &fetch.Result{Kind: fetch.KindDocument, Document: &fetch.Document{
		Body: io.NopCloser(strings.NewReader("content of " + u)), Size: -1}}, nil
}

func (s *stubs) fetched() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.urls...)
}

// client has the prospero driver and stubs for ftp, gopher, wais and
// telnet, and allows the fake's port.
func client(f *fakeServer, st *stubs, opts fetch.Options) *fetch.Client {
	pol := &fetch.PortPolicy{}
	pol.Allow(f.Port())
	opts.Policy = pol
	if opts.IdleTimeout == 0 {
		opts.IdleTimeout = 10 * time.Second
	}
	c := fetch.NewClient(opts)
	c.Register("prospero", New(Config{RetransmitInterval: 100 * time.Millisecond}))
	for _, s := range []string{"ftp", "gopher", "wais", "telnet"} {
		c.Register(s, fetch.DriverFunc(st.driver))
	}
	return c
}

func readAll(t *testing.T, res *fetch.Result) string {
	t.Helper()
	if res.Document == nil {
		t.Fatalf("result is a %s, not a document", res.Kind)
	}
	b, err := io.ReadAll(res.Document.Body)
	res.Close()
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func hp(f *fakeServer) string { return "127.0.0.1(" + strconv.Itoa(f.Port()) + ")" }

// TestFetchThroughAFTP: the request is the three lines dirsrv's client
// sends; the AFTP method becomes an ftp:// URL relative to the anonymous
// root; nothing is fetched until the body is read (so --info fetches
// nothing), and Meta lists every method with the chosen one marked.
func TestFetchThroughAFTP(t *testing.T) {
	f := newFake(t, tree(map[string]string{"/pub/file one": objectReply}, nil)).start()
	st := &stubs{}
	var trace []string
	c := client(f, st, fetch.Options{Tracer: fetch.TracerFunc(func(d fetch.Direction, l string) {
		trace = append(trace, string(d)+" "+l)
	})})
	res, err := c.Fetch(context.Background(), "prospero://"+f.Addr+"//pub/file%20one")
	if err != nil {
		t.Fatal(err)
	}
	want := "VERSION 5 fetch\nAUTHENTICATE '' UNAUTHENTICATED anonymous\nGET-OBJECT-INFO #ALL ASCII '/pub/file one' 0\n"
	if r := f.requests(); len(r) != 1 || r[0] != want {
		t.Errorf("requests %q\nwant %q", r, want)
	}
	if got := st.fetched(); len(got) != 0 {
		t.Errorf("fetched %v before the body was read", got)
	}
	m := res.Document.Meta
	if m["prospero.chosen"] != "AFTP ftp://ftp.example:2121/pub/file%20one;type=i" ||
		!strings.HasSuffix(m["prospero.method.01"], "[chosen]") || !strings.HasPrefix(m["prospero.method.02"], "PROSPERO-CONTENTS") ||
		!strings.HasPrefix(m["prospero.method.03"], "LOCAL") {
		t.Errorf("meta %v", m)
	}
	if body := readAll(t, res); body != "content of ftp://ftp.example:2121/pub/file%20one;type=i" {
		t.Errorf("body %q", body)
	}
	if !strings.Contains(strings.Join(trace, "\n"), "* prospero: chose AFTP: ftp://ftp.example:2121/pub/file%20one;type=i") {
		t.Errorf("trace does not name the chosen method:\n%s", strings.Join(trace, "\n"))
	}
}

// TestPort25: a Prospero server cannot point the client at the SMTP
// port: the ftp:// URL it names is refused by the policy, before any
// connection.
func TestPort25(t *testing.T) {
	f := newFake(t, tree(map[string]string{
		"/x": "ATTRIBUTE OBJECT FIELD ACCESS-METHOD AFTP INTERNET-D 127.0.0.1(25) ASCII '/etc/passwd' BINARY\n",
	}, nil)).start()
	st := &stubs{}
	res, err := client(f, st, fetch.Options{}).Fetch(context.Background(), "prospero://"+f.Addr+"//x")
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(res.Document.Body)
	res.Close()
	if !errors.Is(err, fetch.ErrPortRefused) || fetch.KindOf(err) != fetch.KindPolicy {
		t.Errorf("error %v (kind %v), want a port refusal", err, fetch.KindOf(err))
	}
	if got := st.fetched(); len(got) != 0 {
		t.Errorf("the ftp driver was asked for %v", got)
	}
}

// TestFallback: when the chosen method fails, the next usable one is
// tried; LOCAL and PROSPERO-CONTENTS are not.
func TestFallback(t *testing.T) {
	f := newFake(t, tree(map[string]string{
		"/x": "ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE LOCAL '' '' '' ''\n" +
			"ATTRIBUTE OBJECT FIELD ACCESS-METHOD AFTP INTERNET-D f(2121) ASCII '/x' BINARY\n" +
			"ATTRIBUTE OBJECT FIELD ACCESS-METHOD GOPHER INTERNET-D g(7070) ASCII 0'/x' TEXT\n",
	}, nil)).start()
	st := &stubs{fail: map[string]bool{"ftp": true}}
	res, err := client(f, st, fetch.Options{}).Fetch(context.Background(), "prospero://"+f.Addr+"//x")
	if err != nil {
		t.Fatal(err)
	}
	if body := readAll(t, res); body != "content of gopher://g:7070/0/x" {
		t.Errorf("body %q", body)
	}
	if got := strings.Join(st.fetched(), " "); got != "ftp://f:2121/x;type=i gopher://g:7070/0/x" {
		t.Errorf("fetched %s", got)
	}
}

// TestListing: an object with no access method is listed as a directory;
// links to Prospero objects become prospero:// URLs, EXTERNAL links the
// URL of the method cached with them.
func TestListing(t *testing.T) {
	f := newFake(t, nil)
	dir := strings.NewReplacer("pros.example(1525)", hp(f), "pros.example", hp(f)).Replace(listReply)
	f.answer = tree(nil, map[string]string{"/": dir})
	f.start()
	st := &stubs{}
	res, err := client(f, st, fetch.Options{}).Fetch(context.Background(), "prospero://"+f.Addr+"//")
	if err != nil {
		t.Fatal(err)
	}
	if res.Listing == nil {
		t.Fatalf("a %s, not a listing", res.Kind)
	}
	if err := res.Listing.ReadAll(); err != nil {
		t.Fatal(err)
	}
	reqs := f.requests()
	if len(reqs) != 2 || !strings.HasSuffix(reqs[1], "DIRECTORY ASCII '/'\nLIST ATTRIBUTES COMPONENTS\n") {
		t.Errorf("requests %q", reqs)
	}
	var got []string
	for _, e := range res.Listing.Entries {
		got = append(got, string(e.Kind)+" "+e.Name+" "+e.URL)
	}
	want := []string{
		"dir pub prospero://" + f.Addr + "//pub",
		"file read me ftp://ftp.example:2121/pub/README;type=a",
		"dir menu gopher://gopher.example:70/1/menu",
		"file x prospero://" + f.Addr + "//x;OBJECT-VERSION=3",
		"raw secret ",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	fetchtest.CheckEntryURLs(t, "listing", res.Listing)
}

// TestEmptyHostIsTheServer: a link or a FORWARDED reply with an empty
// host names the server that answered, on its port, not the default one.
func TestEmptyHostIsTheServer(t *testing.T) {
	f := newFake(t, nil)
	f.answer = tree(map[string]string{"/old": "FORWARDED INTERNET-D '' ASCII '/new' 0\n", "/new": "NONE-FOUND\n"},
		map[string]string{"/": "LINK  L FILE y INTERNET-D '' ASCII '/y' 0\n", "/new": ""})
	f.start()
	var mu sync.Mutex
	var trace []string
	opts := fetch.Options{Tracer: fetch.TracerFunc(func(d fetch.Direction, l string) {
		mu.Lock()
		defer mu.Unlock()
		trace = append(trace, l)
	})}
	c := client(f, &stubs{}, opts)
	res, err := c.Fetch(context.Background(), "prospero://"+f.Addr+"//")
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Listing.ReadAll(); err != nil {
		t.Fatal(err)
	}
	if len(res.Listing.Entries) != 1 || res.Listing.Entries[0].URL != "prospero://"+f.Addr+"//y" {
		t.Errorf("entries %+v; want prospero://%s//y", res.Listing.Entries, f.Addr)
	}
	c.Fetch(context.Background(), "prospero://"+f.Addr+"//old")
	mu.Lock()
	defer mu.Unlock()
	if want := "prospero: forwarded to prospero://" + f.Addr + "//new"; !slices.Contains(trace, want) {
		t.Errorf("trace:\n%s\nwant the line %q", strings.Join(trace, "\n"), want)
	}
}

func TestServerErrors(t *testing.T) {
	f := newFake(t, tree(map[string]string{"/err": "ERROR unknown command 'X'\n", "/fail": "FAILURE SERVER-FAILED 'out of memory'\n"}, nil)).start()
	c := client(f, &stubs{}, fetch.Options{})
	cases := []struct {
		path, want string
		notFound   bool
	}{
		{"//nothing", `the server has no object "/nothing": server said FAILURE NOT-FOUND`, true},
		{"/relative", `not authorized to read "relative" (dirsrv refuses names without a leading "/"`, false},
		{"//err", "could not read the request: server said ERROR unknown command X", false},
		{"//fail", "server said FAILURE SERVER-FAILED out of memory", false},
	}
	for _, k := range cases {
		_, err := c.Fetch(context.Background(), "prospero://"+f.Addr+k.path)
		if err == nil || fetch.KindOf(err) != fetch.KindServer || !strings.Contains(err.Error(), k.want) ||
			errors.Is(err, fetch.ErrNotFound) != k.notFound {
			t.Errorf("%s: %v (kind %v), want %q", k.path, err, fetch.KindOf(err), k.want)
		}
	}
}

// TestForwardLoop: FORWARDED pointing back at itself ends after maxDepth
// requests.
func TestForwardLoop(t *testing.T) {
	f := newFake(t, nil)
	f.answer = tree(map[string]string{"/loop": "FORWARDED INTERNET-D " + hp(f) + " ASCII '/loop' 0\n"}, nil)
	f.start()
	_, err := client(f, &stubs{}, fetch.Options{}).Fetch(context.Background(), "prospero://"+f.Addr+"//loop")
	if err == nil || !strings.Contains(err.Error(), "Prospero hops") {
		t.Fatalf("error %v", err)
	}
	if n := len(f.requests()); n != maxDepth {
		t.Errorf("%d requests, want %d", n, maxDepth)
	}
}

// TestContents: a file offered only through PROSPERO-CONTENTS and LOCAL
// is read from its CONTENTS attribute.
func TestContents(t *testing.T) {
	f := newFake(t, tree(map[string]string{
		"/c":          "ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE PROSPERO-CONTENTS '' '' '' ''\nATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE LOCAL '' '' '' ''\n",
		"/c#CONTENTS": "ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA 'line one\nit''s line two\n'\n",
	}, nil)).start()
	res, err := client(f, &stubs{}, fetch.Options{}).Fetch(context.Background(), "prospero://"+f.Addr+"//c")
	if err != nil {
		t.Fatal(err)
	}
	// nothing more is asked until the body is read (--info)
	if n := len(f.requests()); n != 1 || !strings.HasSuffix(res.Document.Meta["prospero.method.01"], "[chosen]") {
		t.Errorf("%d requests before reading; meta %v", n, res.Document.Meta)
	}
	if body := readAll(t, res); body != "line one\nit's line two\n" {
		t.Errorf("body %q", body)
	}
}

// TestVersionForms: RFC 1738's ;OBJECT-VERSION= and the 1993 draft's %00
// both send the version; other fields are not sent.
func TestVersionForms(t *testing.T) {
	f := newFake(t, tree(map[string]string{"/x": "ATTRIBUTE OBJECT FIELD ACCESS-METHOD AFTP '' f '' '' BINARY\n"}, nil)).start()
	c := client(f, &stubs{}, fetch.Options{})
	for _, u := range []string{"//x;OBJECT-VERSION=12", "//x%0012", "//x%0012%00attr", "//x;OBJECT-VERSION=12;OTHER=y"} {
		res, err := c.Fetch(context.Background(), "prospero://"+f.Addr+u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		res.Close()
		r := f.requests()
		if !strings.HasSuffix(r[len(r)-1], "GET-OBJECT-INFO #ALL ASCII '/x' 12\n") {
			t.Errorf("%s sent %q", u, r[len(r)-1])
		}
	}
	for _, u := range []string{"//x%0012;OBJECT-VERSION=13", "//x;OBJECT-VERSION=-1", "//x%00a"} {
		if _, err := c.Fetch(context.Background(), "prospero://"+f.Addr+u); fetch.KindOf(err) != fetch.KindMalformed {
			t.Errorf("%s: %v, want a malformed-URL error", u, err)
		}
	}
}

// TestLineSafety: a decoded CR, LF or NUL in the hsoname is refused
// before anything is sent.
func TestLineSafety(t *testing.T) {
	f := newFake(t, tree(nil, nil)).start()
	c := client(f, &stubs{}, fetch.Options{})
	for _, bad := range []string{"%0D", "%0A", "%00"} {
		_, err := c.Fetch(context.Background(), "prospero://"+f.Addr+"//a"+bad+"b")
		if bad == "%00" {
			// %00 is the 1993 draft's version separator: "b" is no version
			if fetch.KindOf(err) != fetch.KindMalformed {
				t.Errorf("%s: %v", bad, err)
			}
			continue
		}
		if !errors.Is(err, fetch.ErrUnsafeLine) || fetch.KindOf(err) != fetch.KindPolicy {
			t.Errorf("%s: %v, want a line-safety refusal", bad, err)
		}
	}
	if n := len(f.fromClient()); n != 0 {
		t.Errorf("%d datagrams reached the server", n)
	}
}

// TestSOCKSRefused: UDP cannot go through a SOCKS dialer; the driver says
// so rather than bypass it.
func TestSOCKSRefused(t *testing.T) {
	f := newFake(t, tree(nil, nil)).start()
	c := client(f, &stubs{}, fetch.Options{Dialer: fetchtest.NewPipeDialer(nil)})
	_, err := c.Fetch(context.Background(), "prospero://"+f.Addr+"//x")
	if fetch.KindOf(err) != fetch.KindPolicy || !strings.Contains(err.Error(), "UDP") {
		t.Errorf("error %v", err)
	}
	if n := len(f.fromClient()); n != 0 {
		t.Errorf("%d datagrams sent around the proxy", n)
	}
}

// TestDefaultPort: a URL without a port asks UDP port 1525.
func TestDefaultPort(t *testing.T) {
	var mu sync.Mutex
	var trace []string
	c := fetch.NewClient(fetch.Options{IdleTimeout: 300 * time.Millisecond, Tracer: fetch.TracerFunc(func(d fetch.Direction, l string) {
		mu.Lock()
		trace = append(trace, l)
		mu.Unlock()
	})})
	c.Register("prospero", New(Config{}))
	if c.DefaultPortOf("prospero") != 1525 {
		t.Errorf("default port %d", c.DefaultPortOf("prospero"))
	}
	c.Fetch(context.Background(), "prospero://127.0.0.1//x")
	mu.Lock()
	defer mu.Unlock()
	if len(trace) == 0 || trace[0] != "ARDP over UDP to 127.0.0.1:1525" {
		t.Errorf("trace %q", trace)
	}
}

// TestAllowPort: a port the policy refuses (6000, X11) is asked only
// with --allow-port.
func TestAllowPort(t *testing.T) {
	for _, allow := range []bool{false, true} {
		var mu sync.Mutex
		var trace []string
		pol := &fetch.PortPolicy{}
		if allow {
			pol.Allow(6000)
		}
		c := fetch.NewClient(fetch.Options{Policy: pol, IdleTimeout: 300 * time.Millisecond, Tracer: fetch.TracerFunc(func(d fetch.Direction, l string) {
			mu.Lock()
			trace = append(trace, l)
			mu.Unlock()
		})})
		c.Register("prospero", New(Config{}))
		_, err := c.Fetch(context.Background(), "prospero://127.0.0.1:6000//x")
		mu.Lock()
		asked := len(trace) > 0 && trace[0] == "ARDP over UDP to 127.0.0.1:6000"
		mu.Unlock()
		if allow != asked || errors.Is(err, fetch.ErrPortRefused) == allow {
			t.Errorf("allow %v: asked %v, error %v", allow, asked, err)
		}
	}
}

// TestFallbackToContents: dirsrv lists PROSPERO-CONTENTS and LOCAL first
// and its own AFTP method (for files under its anonymous FTP area) after
// them; when that FTP server cannot be reached, the bytes come through
// CONTENTS.
func TestFallbackToContents(t *testing.T) {
	f := newFake(t, tree(map[string]string{
		"/pub/f": "ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE PROSPERO-CONTENTS '' '' '' ''\n" +
			"ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE LOCAL '' '' '' ''\n" +
			"ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE AFTP INTERNET-D pros.example ASCII '/pub/f' BINARY\n",
		"/pub/f#CONTENTS": "ATTRIBUTE OBJECT INTRINSIC CONTENTS SEQUENCE DATA bytes\n",
	}, nil)).start()
	st := &stubs{fail: map[string]bool{"ftp": true}}
	res, err := client(f, st, fetch.Options{}).Fetch(context.Background(), "prospero://"+f.Addr+"//pub/f")
	if err != nil {
		t.Fatal(err)
	}
	if res.Document.Meta["prospero.chosen"] != "AFTP ftp://pros.example/pub/f;type=i" {
		t.Errorf("meta %v", res.Document.Meta)
	}
	if body := readAll(t, res); body != "bytes" {
		t.Errorf("body %q", body)
	}
	if got := st.fetched(); len(got) != 1 {
		t.Errorf("fetched %v", got)
	}
}

// TestNoServer: nobody answers on the port: the fetch ends after the
// connect timeout (the wait for a first packet), not the idle timeout;
// the error names the bound that ended it.
func TestNoServer(t *testing.T) {
	const dial = 300 * time.Millisecond
	c := fetch.NewClient(fetch.Options{DialTimeout: dial, IdleTimeout: time.Hour})
	c.Register("prospero", New(Config{}))
	l, err := net.ListenUDP("udp4", &net.UDPAddr{IP: net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	port := l.LocalAddr().(*net.UDPAddr).Port
	l.Close() // a port nobody listens on
	start := time.Now()
	_, err = c.Fetch(context.Background(), "prospero://127.0.0.1:"+strconv.Itoa(port)+"//x")
	if !errors.Is(err, fetch.ErrTimeout) || fetch.KindOf(err) != fetch.KindNetwork || !strings.Contains(err.Error(), "no reply") || !strings.Contains(err.Error(), "within "+dial.String()) {
		t.Errorf("error %v, want no reply within the connect timeout %v", err, dial)
	}
	if took := time.Since(start); took < dial {
		t.Errorf("gave up after %v, before the connect timeout %v", took, dial)
	}
}

// TestLongReply: a reply of more lines than the client reads, though far
// within maxReply octets, is the server's error, naming the bound.
func TestLongReply(t *testing.T) {
	f := newFake(t, tree(map[string]string{"/x": strings.Repeat("X\n", maxReplyLines+1)}, nil)).start()
	_, err := client(f, &stubs{}, fetch.Options{}).Fetch(context.Background(), "prospero://"+f.Addr+"//x")
	if !errors.Is(err, fetch.ErrTooLarge) || fetch.KindOf(err).ExitCode() != 4 || !strings.Contains(err.Error(), "more than 100000 lines") {
		t.Errorf("error %v (kind %v), want a size refusal (exit 4) naming the line bound", err, fetch.KindOf(err))
	}
}

// TestLineTooLong: a reply line of more tokens than the client reads is
// refused as a size bound (exit 4), as a line past its bound is by every
// driver, naming the bound and the line; it was a malformed reply (exit 6).
func TestLineTooLong(t *testing.T) {
	f := newFake(t, tree(map[string]string{"/x": "X" + strings.Repeat(" a", maxLineTokens+1) + "\n"}, nil)).start()
	_, err := client(f, &stubs{}, fetch.Options{}).Fetch(context.Background(), "prospero://"+f.Addr+"//x")
	k := fetch.KindOf(err)
	if !errors.Is(err, fetch.ErrLineTooLong) || k != fetch.KindPolicy || k.ExitCode() != 4 {
		t.Fatalf("err = %v (kind %v, exit %d), want ErrLineTooLong refused by policy (exit 4)", err, k, k.ExitCode())
	}
	if !strings.Contains(err.Error(), "reply line 1 has more than 4096 tokens") {
		t.Errorf("%q does not name the bound", err)
	}
}

// TestShownMethodsBound: a document's metadata lists the first
// maxShownMethods of the methods offered and counts the rest.
func TestShownMethodsBound(t *testing.T) {
	var reply strings.Builder
	for i := range maxShownMethods + 5 {
		fmt.Fprintf(&reply, "ATTRIBUTE OBJECT FIELD ACCESS-METHOD AFTP INTERNET-D h%d.example(2121) ASCII '/x' BINARY\n", i)
	}
	methods, m := shownMethods(t, reply.String())
	if methods != maxShownMethods || m["prospero.method.more"] != "5 more access methods offered, not shown" ||
		!strings.Contains(m[fmt.Sprintf("prospero.method.%02d", maxShownMethods)], fmt.Sprintf("h%d.example", maxShownMethods-1)) {
		t.Errorf("%d methods shown, more %q", methods, m["prospero.method.more"])
	}
}

// shownMethods fetches //x, whose object info is reply, and returns its
// document's metadata and the access methods it lists.
func shownMethods(t *testing.T, reply string) (int, map[string]string) {
	t.Helper()
	f := newFake(t, tree(map[string]string{"/x": reply}, nil)).start()
	c := client(f, &stubs{}, fetch.Options{})
	res, err := c.Fetch(context.Background(), "prospero://"+f.Addr+"//x")
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	methods := 0
	for k := range res.Document.Meta {
		if strings.HasPrefix(k, "prospero.method.") && k != "prospero.method.more" {
			methods++
		}
	}
	return methods, res.Document.Meta
}

// TestFallbackBound: a server offering many methods that fail gets the
// chosen one and maxFallbacks more tried, not all of them; the trace and
// the error say how many were left.
func TestFallbackBound(t *testing.T) {
	var reply strings.Builder
	for i := range 10 {
		fmt.Fprintf(&reply, "ATTRIBUTE OBJECT FIELD ACCESS-METHOD AFTP INTERNET-D h%d.example(2121) ASCII '/x' BINARY\n", i)
	}
	f := newFake(t, tree(map[string]string{"/x": reply.String()}, nil)).start()
	st := &stubs{fail: map[string]bool{"ftp": true}}
	var mu sync.Mutex
	var trace []string
	c := client(f, st, fetch.Options{Tracer: fetch.TracerFunc(func(_ fetch.Direction, l string) {
		mu.Lock()
		trace = append(trace, l)
		mu.Unlock()
	})})
	res, err := c.Fetch(context.Background(), "prospero://"+f.Addr+"//x")
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(res.Document.Body)
	res.Close()
	if got := st.fetched(); len(got) != 1+maxFallbacks || got[0] != "ftp://h0.example:2121/x;type=i" {
		t.Errorf("fetched %v, want the chosen method and %d more", got, maxFallbacks)
	}
	if fetch.KindOf(err) != fetch.KindNetwork || !strings.Contains(err.Error(), "h0.example") ||
		!strings.Contains(err.Error(), "6 more access methods offered were not tried") {
		t.Errorf("error %v (kind %v), want the chosen method's, saying 6 were not tried", err, fetch.KindOf(err))
	}
	mu.Lock()
	defer mu.Unlock()
	if !strings.Contains(strings.Join(trace, "\n"), "prospero: 6 more access methods not tried") {
		t.Errorf("trace does not say what was left untried:\n%s", strings.Join(trace, "\n"))
	}
}

// TestLongHSOName: an hsoname too long for the one ARDP packet a request
// takes is refused before anything is sent, as a size bound, and the
// error names the hsoname, the URL part at fault.
func TestLongHSOName(t *testing.T) {
	f := newFake(t, tree(nil, nil)).start()
	c := client(f, &stubs{}, fetch.Options{})
	_, err := c.Fetch(context.Background(), "prospero://"+f.Addr+"//"+strings.Repeat("a", 2000))
	var fe *fetch.Error
	if !errors.As(err, &fe) || fe.Part != "hsoname" || fetch.KindOf(err) != fetch.KindPolicy || !errors.Is(err, fetch.ErrTooLarge) {
		t.Errorf("error %v, want a size refusal naming the hsoname", err)
	}
	if n := len(f.fromClient()); n != 0 {
		t.Errorf("%d datagrams reached the server", n)
	}
}

// TestContentsShownMethodsBound: an object read through PROSPERO-CONTENTS
// lists, as any document does, at most maxShownMethods of the methods
// offered in its metadata and counts the rest.
func TestContentsShownMethodsBound(t *testing.T) {
	var reply strings.Builder
	for range maxShownMethods + 5 {
		reply.WriteString("ATTRIBUTE OBJECT FIELD ACCESS-METHOD AFS '' '' '' ''\n")
	}
	reply.WriteString("ATTRIBUTE OBJECT INTRINSIC ACCESS-METHOD SEQUENCE PROSPERO-CONTENTS '' '' '' ''\n")
	methods, m := shownMethods(t, reply.String())
	if methods != maxShownMethods || m["prospero.method.more"] != "6 more access methods offered, not shown" || m["prospero.chosen"] != "PROSPERO-CONTENTS" {
		t.Errorf("%d methods shown, more %q, chosen %q", methods, m["prospero.method.more"], m["prospero.chosen"])
	}
}

// TestNoMethodErrorBound: an object that is not a directory and offers
// thousands of methods the client cannot follow fails with an error that
// names a few of them and counts the rest, not one that lists them all.
func TestNoMethodErrorBound(t *testing.T) {
	var reply strings.Builder
	for range 2000 {
		reply.WriteString("ATTRIBUTE OBJECT FIELD ACCESS-METHOD AFS '' '' '' ''\n")
	}
	f := newFake(t, tree(map[string]string{"/x": reply.String()}, nil)).start()
	c := client(f, &stubs{}, fetch.Options{})
	_, err := c.Fetch(context.Background(), "prospero://"+f.Addr+"//x")
	if fetch.KindOf(err) != fetch.KindServer || len(err.Error()) > 1000 || !strings.Contains(err.Error(), "1990 more") {
		t.Errorf("error of %d bytes: %.300s", len(err.Error()), err)
	}
}

// TestServerTextClipped: a server's text quoted in an error (a FAILURE's
// words, a malformed line, a forwarding address) is cut to a line's
// length, as the other drivers cut theirs: a reply may be 4 MiB.
func TestServerTextClipped(t *testing.T) {
	long := strings.Repeat("x", 100_000)
	for name, reply := range map[string]string{
		"failure":   "FAILURE NOT-FOUND " + long + "\n",
		"error":     "ERROR " + long + "\n",
		"link":      "LINK L FILE " + long + "\n",
		"attribute": "ATTRIBUTE OBJECT NATURE " + long + "\n",
		"intrinsic": "ATTRIBUTE OBJECT INTRINSIC " + long + "\n",
		"forwarded": "FORWARDED INTERNET-D " + long + "\n",
		"host":      "FORWARDED INTERNET-D " + long + "( ASCII /y\n",
	} {
		f := newFake(t, tree(map[string]string{"/x": reply}, nil)).start()
		c := client(f, &stubs{}, fetch.Options{})
		_, err := c.Fetch(context.Background(), "prospero://"+f.Addr+"//x")
		if err == nil || len(err.Error()) > 2000 {
			t.Errorf("%s: error of %d bytes", name, len(fmt.Sprint(err)))
		}
	}
}

// TestClippedTextIsUTF8: server text cut for an error (a FAILURE's words,
// a method's name) is cut between characters: cut at a byte count, an
// "é" split in two left the error a byte that is no UTF-8.
func TestClippedTextIsUTF8(t *testing.T) {
	for name, reply := range map[string]string{
		"failure": "FAILURE NOT-FOUND x" + strings.Repeat("é", 1000) + "\n",
		"method":  "ATTRIBUTE OBJECT FIELD ACCESS-METHOD x" + strings.Repeat("é", 100) + " '' '' '' ''\n",
	} {
		f := newFake(t, tree(map[string]string{"/x": reply}, nil)).start()
		c := client(f, &stubs{}, fetch.Options{})
		_, err := c.Fetch(context.Background(), "prospero://"+f.Addr+"//x")
		if err == nil || !utf8.ValidString(err.Error()) || !strings.Contains(err.Error(), "é...") {
			t.Errorf("%s: error %q, want valid UTF-8 cut after a whole character", name, err)
		}
	}
}
