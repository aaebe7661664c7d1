package fetch

import (
	"context"
	"fmt"
	"io"
	"os"
	"regexp"
	"sort"
	"strings"
)

// Client dispatches URLs to the driver registered for their scheme. Each
// client has its own registry, so a program or a test builds one with
// exactly the drivers it wants. The zero Client has no drivers.
type Client struct {
	// Options apply to every fetch this client makes.
	Options Options

	drivers map[string]Driver
}

// NewClient returns a client with no drivers and the given options.
func NewClient(opts Options) *Client {
	return &Client{Options: opts}
}

var schemeName = regexp.MustCompile(`^[a-z][a-z0-9+.-]*$`)

// Register makes d the driver for scheme. Registering a scheme twice, or a
// name that is not a scheme, is a programming error and panics.
func (c *Client) Register(scheme string, d Driver) {
	scheme = strings.ToLower(scheme)
	if !schemeName.MatchString(scheme) {
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

// Fetch parses rawURL and dereferences it. A document's Body must be closed
// by the caller (Result.Close does it).
func (c *Client) Fetch(ctx context.Context, rawURL string) (*Result, error) {
	u, err := Parse(rawURL)
	if err != nil {
		return nil, err
	}
	return c.FetchURL(ctx, u)
}

// DefaultPortOf is the default port for scheme as this client knows it:
// the built-in table, the policy's additions, then the driver's own.
func (c *Client) DefaultPortOf(scheme string) int {
	if n := c.Options.Policy.defaultPort(scheme); n != 0 {
		return n
	}
	if dp, ok := c.drivers[scheme].(DefaultPorter); ok {
		return dp.DefaultPort()
	}
	return 0
}

// FetchURL dereferences u. The fragment is removed first: it is never sent.
func (c *Client) FetchURL(ctx context.Context, u *URL) (*Result, error) {
	u = u.Clone()
	u.Fragment, u.HasFragment = "", false

	req := &Request{URL: u, Options: c.Options, Client: c}
	scheme := u.Scheme
	if c.Options.Proxy != nil {
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
		return nil, &Error{Kind: KindPolicy, Op: "dispatch", URL: u.Redacted(), Part: "scheme", Offset: 0,
			Err: fmt.Errorf("%w %q; available: %s", ErrUnknownScheme, scheme, strings.Join(c.Schemes(), ", "))}
	}

	// The port policy is applied before any connection: to the URL's own
	// host when it names one, whoever connects to it (a gateway would talk
	// to that port on the URL's behalf), and to the gateway itself.
	if err := c.checkPort(req, u); err != nil {
		return nil, err
	}
	if req.Proxy != nil {
		if err := c.checkPort(req, req.Proxy); err != nil {
			return nil, err
		}
	}

	var cancel context.CancelFunc = func() {}
	if c.Options.MaxTime > 0 {
		ctx, cancel = context.WithTimeout(ctx, c.Options.MaxTime)
	}
	res, err := d.Fetch(ctx, req)
	if err != nil {
		cancel()
		if fe, ok := err.(*Error); ok && fe.URL == "" {
			fe.URL = u.Redacted()
		}
		return nil, err
	}
	if res.URL == nil {
		res.URL = u
	}
	if res.Document != nil && res.Document.Body != nil {
		res.Document.Body = &guardedBody{
			ReadCloser: res.Document.Body,
			max:        c.Options.MaxSize,
			cancel:     cancel,
			url:        res.URL.Redacted(),
		}
	} else if res.Session != nil {
		res.Session = guardedSession{res.Session, cancel}
	} else if res.Listing != nil {
		res.Listing.Guard(listingError(res.URL.Redacted()), cancel)
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
	max    int64
	n      int64
	cancel context.CancelFunc
	url    string
}

func (b *guardedBody) Read(p []byte) (int, error) {
	if b.max > 0 && int64(len(p)) > b.max-b.n+1 {
		p = p[:b.max-b.n+1]
	}
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	if b.max > 0 && b.n > b.max {
		over := int(b.n - b.max)
		b.n = b.max
		return n - over, &Error{Kind: KindPolicy, Op: "read", URL: b.url, Offset: -1,
			Err: fmt.Errorf("%w (%d bytes; raise --max-size)", ErrTooLarge, b.max)}
	}
	if err != nil && err != io.EOF {
		// A failure the driver classified, or a local file's, keeps its
		// kind; anything else arrived over the network.
		k := KindOf(err)
		if k == KindUnknown {
			k = KindNetwork
		}
		err = Wrap(k, "read", err)
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
	name := u.Scheme + "_proxy"
	v := os.Getenv(name)
	if v == "" && u.Scheme != "http" {
		v = os.Getenv(strings.ToUpper(name))
	}
	if v == "" || noProxy(u.Host) {
		return nil, nil
	}
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
	return p, nil
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
// guardedBody does for a document, and names the URL.
func listingError(url string) func(error) error {
	return func(err error) error {
		k := KindOf(err)
		if k == KindUnknown {
			k = KindNetwork
		}
		err = Wrap(k, "list", err)
		if fe, ok := err.(*Error); ok && fe.URL == "" {
			fe.URL = url
		}
		return err
	}
}
