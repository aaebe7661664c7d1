package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// Client dispatches URLs to the driver registered for their scheme. Each
// client has its own registry, so a program or a test builds one with
// exactly the drivers it wants. The zero Client has no drivers.
//
// A Client is safe for concurrent use by many goroutines once its drivers
// are registered: what belongs to one fetch travels on its Request, and
// the drivers keep their sessions in pools that hand each one to one
// request at a time. Close (or CloseIdle) releases the pooled sessions.
type Client struct {
	// Options apply to every fetch this client makes. They must not be
	// changed once the client is in use.
	Options Options

	drivers  map[string]Driver
	registry Registry // scheme records: grammar, views, ports (scheme.go)
}

// NewClient returns a client with no drivers and the given options.
func NewClient(opts Options) *Client {
	return &Client{Options: opts}
}

// isSchemeName reports whether s is a scheme name in lower case, as
// Register and Registry.Add hold them: a letter, then what
// urlIsSchemeChar allows, with no capital letter.
func isSchemeName(s string) bool {
	if s == "" || !urlIsAlpha(s[0]) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if c := s[i]; !urlIsSchemeChar(c) || 'A' <= c && c <= 'Z' {
			return false
		}
	}
	return true
}

// Register makes d the driver for scheme. Registering a scheme twice, or a
// name that is not a scheme, is a programming error and panics. Register
// adds the driver alone: the scheme keeps the generic grammar, has no view
// and no default port the policy knows of. RegisterScheme adds a scheme
// package's whole record (ftp.Schemes(cfg) ...).
func (c *Client) Register(scheme string, d Driver) {
	scheme = strings.ToLower(scheme)
	if !isSchemeName(scheme) {
		panic(fmt.Sprintf("fetch: Register of invalid scheme name %q", scheme))
	}
	if d == nil {
		panic("fetch: Register of nil driver for " + scheme)
	}
	if _, dup := c.drivers[scheme]; dup {
		panic("fetch: Register called twice for scheme " + scheme)
	}
	if c.drivers == nil {
		c.drivers = map[string]Driver{}
	}
	c.drivers[scheme] = d
}

// Schemes lists the registered schemes, sorted.
func (c *Client) Schemes() []string {
	out := make([]string, 0, len(c.drivers))
	for s := range c.drivers {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// Driver returns the driver registered for scheme, if any.
func (c *Client) Driver(scheme string) (Driver, bool) {
	d, ok := c.drivers[strings.ToLower(scheme)]
	return d, ok
}

// Fetch parses rawURL and dereferences it with no per-request inputs; it
// is Do(ctx, c.NewRequest(rawURL)). A document's Body must be closed by the
// caller (Result.Close does it).
func (c *Client) Fetch(ctx context.Context, rawURL string) (*Result, error) {
	req, err := c.NewRequest(rawURL)
	if err != nil {
		return nil, err
	}
	return c.Do(ctx, req)
}

// NewRequest parses rawURL by the grammar of its scheme's record in this
// client (Client.Parse) into a request with no per-request inputs. The
// package's NewRequest reads only the generic syntax.
func (c *Client) NewRequest(rawURL string) (*Request, error) {
	u, err := c.Parse(rawURL)
	if err != nil {
		return nil, err
	}
	return &Request{URL: u}, nil
}

// CloseIdle closes the sessions the drivers keep unused (IdleCloser);
// they keep pooling afterwards.
func (c *Client) CloseIdle() {
	seen := map[Driver]bool{}
	for _, s := range c.Schemes() {
		d := c.drivers[s]
		if ic, ok := d.(IdleCloser); ok && !seen[d] {
			seen[d] = true
			ic.CloseIdle()
		}
	}
}

// Close releases what the client holds between requests: it closes the
// idle sessions of every driver. Sessions still in use close when their
// request ends or go back to a pool that Close or CloseIdle empties
// again; the client stays usable. Close always returns nil; it is an
// error-returning method so that a Client is an io.Closer.
func (c *Client) Close() error {
	c.CloseIdle()
	return nil
}

// DefaultPortOf is the default port for scheme as this client knows it:
// the policy's additions, the scheme's record, then the driver's own.
func (c *Client) DefaultPortOf(scheme string) int {
	if n := c.Options.Policy.defaultPort(&c.registry, scheme); n != 0 {
		return n
	}
	if dp, ok := c.drivers[scheme].(DefaultPorter); ok {
		return dp.DefaultPort()
	}
	return 0
}

// FetchURL dereferences u with no per-request inputs; it is
// Do(ctx, NewRequestURL(u)).
func (c *Client) FetchURL(ctx context.Context, u *URL) (*Result, error) {
	return c.Do(ctx, NewRequestURL(u))
}

// direct reports whether scheme's record keeps its URLs from gateways
// (Scheme.Direct).
func (c *Client) direct(scheme string) bool {
	rec, _ := c.registry.Lookup(scheme)
	return rec.Direct
}

// Do dereferences the request's URL with the request's inputs and the
// client's settings; ctx bounds the whole fetch, the Body's reading
// included. The fragment is removed first (from a copy): it is never
// sent. Do does not modify in, and in.URL is not to change while the
// fetch runs: the Result may name it. A Request may be given to Do again
// (a Body reader is consumed by the first).
func (c *Client) Do(ctx context.Context, in *Request) (*Result, error) {
	if in == nil || in.URL == nil {
		return nil, &Error{Kind: KindUsage, Op: "dispatch", Offset: -1, Err: fmt.Errorf("a request without a URL")}
	}
	req := new(Request)
	*req = *in
	u := in.URL
	if u.HasFragment {
		u = u.Clone()
		u.Fragment, u.HasFragment = "", false
	}
	req.URL, req.Client, req.Proxy = u, c, nil
	req.Options = c.Options
	if in.MaxSize > 0 {
		req.Options.MaxSize = in.MaxSize
	}
	if in.MaxTime > 0 {
		req.Options.MaxTime = in.MaxTime
	}
	if in.Tracer != nil {
		req.Options.Tracer = in.Tracer
	}

	scheme := u.Scheme
	if c.Options.Proxy != nil && !c.direct(scheme) {
		p, err := c.Options.Proxy(u)
		if err != nil {
			return nil, Wrap(KindUsage, "proxy", err)
		}
		if p != nil {
			req.Proxy = p
			scheme = p.Scheme
		}
	}
	d, ok := c.drivers[scheme]
	if !ok {
		return nil, unknownScheme(u, scheme, c.Schemes())
	}

	// The port policy is applied before any connection: to the URL's own
	// host when it names one, whoever connects to it (a gateway would talk
	// to that port on the URL's behalf), and to the gateway itself.
	if err := c.checkPort(req, u); err != nil {
		if _, verr := c.registry.View(u); verr != nil {
			// A URL its scheme refuses (file://h:99/x, whose scheme
			// has no port) is malformed first: --allow-port would not
			// mend it, so the policy's message would mislead.
			return nil, verr
		}
		return nil, err
	}
	if req.Proxy != nil {
		if err := c.checkPort(req, req.Proxy); err != nil {
			// The port refused is the gateway's, not the URL's: said so,
			// or the message reads as if the URL's port were at fault.
			if fe, ok := err.(*Error); ok {
				fe.Op = req.Options.Gateway(u, req.Proxy) + ": " + fe.Op
			}
			return nil, err
		}
	}

	var cancel context.CancelFunc = func() {}
	if req.Options.MaxTime > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, req.Options.MaxTime, maxTimeError{req.Options.MaxTime})
	}
	res, err := d.Fetch(ctx, req)
	if err != nil {
		err = finish(ctx, u.Redacted(), err)
		cancel()
		return nil, err
	}
	if res.URL == nil {
		res.URL = u
	}
	if res.Document != nil && res.Document.Body != nil {
		res.Document.Body = &guardedBody{
			ReadCloser: res.Document.Body,
			max:        req.Options.MaxSize,
			announced:  res.Document.Size - res.Document.Offset,
			cancel:     cancel,
			ctx:        ctx,
			url:        res.URL,
		}
	} else if res.Session != nil {
		res.Session = guardedSession{res.Session, cancel}
	} else if res.Listing != nil {
		res.Listing.Guard(listingError(ctx, res.URL.Redacted()), cancel)
	} else {
		cancel()
	}
	return res, nil
}

// checkPort applies the policy to the port target would connect to. A
// scheme without a port of its own (file) opens no connection unless the
// URL names a port.
func (c *Client) checkPort(req *Request, target *URL) error {
	if target.Host == "" {
		return nil
	}
	port := target.PortOr(c.DefaultPortOf(target.Scheme))
	if port == 0 && target.Port == 0 {
		return nil
	}
	return req.CheckPort(target.Scheme, port)
}

// guardedBody enforces the maximum size and releases the fetch's context
// when the body is closed.
type guardedBody struct {
	io.ReadCloser
	max int64
	n   int64
	// announced is what the server said the body holds (the document's
	// Size less its Offset), negative when it said nothing: a body
	// announced over max fails at its first read, before a byte of it
	// is written anywhere, and --info, which reads none, still shows it.
	announced int64
	cancel    context.CancelFunc
	ctx       context.Context // the fetch's: why it ended explains a failed read
	url       *URL            // named in errors (redacted only then: most bodies read without one)
}

// tooLarge is the error for a body over the limit; more says why, if
// not empty.
func (b *guardedBody) tooLarge(more string) error {
	return &Error{Kind: KindPolicy, Op: "read", URL: b.url.Redacted(), Offset: -1, Setting: "Options.MaxSize",
		Err: fmt.Errorf("%w (%d bytes)%s", ErrTooLarge, b.max, more)}
}

// announcedTooLarge reports a body whose announced size is over the limit
// before any of it has been read.
func (b *guardedBody) announcedTooLarge() error {
	if b.max > 0 && b.n == 0 && b.announced > b.max {
		return b.tooLarge(fmt.Sprintf(": the server announced %d", b.announced))
	}
	return nil
}

func (b *guardedBody) Read(p []byte) (int, error) {
	if err := b.announcedTooLarge(); err != nil {
		return 0, err
	}
	// At most one byte past the bound, to tell an end there from more
	// (compared so that a bound of math.MaxInt64 does not overflow).
	if b.max > 0 && int64(len(p))-1 > b.max-b.n {
		p = p[:b.max-b.n+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	if b.max > 0 && b.n > b.max {
		over := int(b.n - b.max)
		b.n = b.max
		return n - over, b.tooLarge("")
	}
	if err != nil && err != io.EOF {
		err = streamError(b.ctx, b.url.Redacted(), "read", err)
	}
	return n, err
}

// WriteToFile moves the document into f when the driver's body can (see
// FileWriter), never past the size limit: what remains is read, and a
// document over the limit fails there as it does in Read.
func (b *guardedBody) WriteToFile(f *os.File, max int64) (int64, error) {
	fw, ok := b.ReadCloser.(FileWriter)
	if !ok {
		return 0, errNoSplice
	}
	if err := b.announcedTooLarge(); err != nil {
		return 0, err
	}
	if b.max > 0 && (max < 0 || max > b.max-b.n) {
		max = b.max - b.n
	}
	n, err := fw.WriteToFile(f, max)
	b.n += n
	if err != nil && !errors.Is(err, errNoSplice) && KindOf(err) != KindLocal {
		err = streamError(b.ctx, b.url.Redacted(), "read", err)
	}
	return n, err
}

func (b *guardedBody) Close() error {
	err := b.ReadCloser.Close()
	b.cancel()
	return err
}

// ProxyFromEnvironment reads the gateway for u from the environment in
// the tradition of Lynx and libwww: <scheme>_proxy (or its upper-case
// form, except HTTP_PROXY, which CGI programs can be made to set), with
// no_proxy listing hosts to reach directly.
func ProxyFromEnvironment(u *URL) (*URL, error) {
	name := ProxyVariable(u)
	if name == "" {
		return nil, nil
	}
	v := os.Getenv(name)
	if !strings.Contains(v, "://") {
		v = "http://" + v
	}
	p, err := Parse(v)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if p.Scheme != "http" {
		return nil, fmt.Errorf("%s: only http:// gateways are supported, not %s", name, p.Scheme)
	}
	if p.Host == "" {
		// "http://" would be dialled as ":80", this machine.
		return nil, fmt.Errorf("%s: the gateway names no host: a gateway is http://HOST[:PORT]/", name)
	}
	return p, nil
}

// ProxyVariable names the environment variable ProxyFromEnvironment takes
// u's gateway from ("gopher_proxy", or "GOPHER_PROXY" when only that one
// is set), or is "" when it takes none: the Options.ProxyFrom of a client
// whose Proxy is ProxyFromEnvironment.
func ProxyVariable(u *URL) string {
	name := u.Scheme + "_proxy"
	if os.Getenv(name) == "" && u.Scheme != "http" {
		name = strings.ToUpper(name)
	}
	if os.Getenv(name) == "" || noProxy(u.Host) {
		return ""
	}
	return name
}

func noProxy(host string) bool {
	v := os.Getenv("no_proxy")
	if v == "" {
		v = os.Getenv("NO_PROXY")
	}
	for _, h := range strings.Split(v, ",") {
		h = strings.TrimPrefix(strings.TrimSpace(strings.ToLower(h)), ".")
		if h == "*" || h != "" && (host == h || strings.HasSuffix(host, "."+h)) {
			return true
		}
	}
	return false
}

// guardedSession releases the fetch's context when the session closes.
type guardedSession struct {
	Session
	cancel context.CancelFunc
}

func (s guardedSession) Close() error {
	err := s.Session.Close()
	s.cancel()
	return err
}

// listingError classifies an error that ends a streaming listing, as
// guardedBody does for a document: it names the URL, and when the
// fetch's context has ended (MaxTime, the caller's deadline or cancel)
// that end is the cause.
func listingError(ctx context.Context, url string) func(error) error {
	return func(err error) error { return streamError(ctx, url, "list", err) }
}

// streamError is the error that ends a document's or listing's stream
// after the fetch returned: a failure the driver classified, or a local
// file's, keeps its kind, anything else arrived over the network; then
// finish names the URL and the context's end.
func streamError(ctx context.Context, url, op string, err error) error {
	k := KindOf(err)
	if k == KindUnknown {
		k = KindNetwork
	}
	return finish(ctx, url, Wrap(k, op, err))
}
