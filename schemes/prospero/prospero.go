// Package prospero is the driver for prospero:// URLs (RFC 1738 §3.11):
// it asks a Prospero directory server, over ARDP on UDP, how an object is
// reached, and fetches it through the access method the server names.
//
// URL grammar, every part %-decoded before it is sent:
//
//	prospero://<host>:<port>/<hsoname>;<field>=<value>...   (RFC 1738 §3.11)
//	prospero://<host>:<port>/<hsoname>%00<version>%00<attribute>...   (1993 draft)
//
// The port is 1525 by default. hsonames of dirsrv begin with "/", so its
// URLs carry a double slash: prospero://host//pub/file names "/pub/file".
// The version is ";OBJECT-VERSION=n" or the text after the first "%00";
// 0 (the current version) when neither is given. Other fields and
// attributes are accepted and not sent (the trace says so).
//
// The access algorithm (Prospero protocol v5):
//
//  1. One request of three lines: "VERSION 5 fetch"; AUTHENTICATE with
//     empty options, UNAUTHENTICATED and the principal; "GET-OBJECT-INFO
//     #ALL ASCII <hsoname> <version>".
//  2. FORWARDED: the object moved; its new prospero:// URL is fetched
//     (at most maxDepth Prospero hops in all, so a loop ends).
//  3. Each ACCESS-METHOD attribute is mapped to a URL (see mapMethod);
//     the first that maps, in the server's order, is chosen. dirsrv appends
//     PROSPERO-CONTENTS and LOCAL methods to every file: they are used only
//     when nothing else is (LOCAL never).
//  4. A document is fetched through the chosen URL with the same client,
//     under that scheme's own port policy, when its Body is first read, so
//     `fetch --info` shows the methods (Document.Meta, the chosen one
//     marked; the first maxShownMethods and a count of the rest) without
//     fetching. If the chosen method fails, the next ones
//     are tried in turn, at most maxFallbacks (3) of them. A listing or
//     session method is fetched at once.
//  5. A file with no usable method but PROSPERO-CONTENTS (which dirsrv
//     offers for files only) is read with "GET-OBJECT-INFO CONTENTS".
//  6. Any other object is read as a directory: "DIRECTORY ASCII
//     <hsoname>", "LIST ATTRIBUTES COMPONENTS"; each link becomes an entry
//     whose URL is prospero:// (or, for an EXTERNAL link, the URL of the
//     access method cached with it in the listing).
//
// FAILURE NOT-FOUND is fetch.ErrNotFound (exit 6); FAILURE NOT-AUTHORIZED,
// other FAILUREs and ERROR are server errors carrying the server's text.
//
// ARDP runs on an unconnected UDP socket of this package (fetch.Request.Dial
// is TCP only): replies may come from another port of the server. A SOCKS
// dialer (Options.Dialer) cannot carry UDP, and the driver refuses rather
// than bypass it. Per-request inputs: none.
package prospero

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"strconv"
	"strings"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// DefaultPort is Prospero's port (RFC 1738 §3.11).
const DefaultPort = 1525

// Limits.
const (
	// maxReply bounds one reply in memory (a listing, a CONTENTS value).
	// A reply is held whole, as its text: its packets and their join go
	// once it is read, its lines are read from it one at a time (their
	// tokens substrings of it), and a listing's entries are made from it
	// as they are asked for. Measured at this bound, a directory of
	// 99,990 links took 28 MB resident, and an object of 74,000 access
	// methods, its metadata printed (--info), 53 to 59 MB: a fetch stays
	// under 64 MiB. Documents come through the other access methods,
	// streamed; only a CONTENTS value is read inline.
	maxReply = 4 << 20
	// maxDepth bounds Prospero hops in one fetch: FORWARDED replies and
	// methods that lead back to prospero:// URLs.
	maxDepth = 8
	// maxFallbacks bounds the methods tried after the chosen one fails.
	// Each is a connection to a host the server names, so a server
	// listing thousands of methods must not turn one fetch into thousands
	// of connections and as many connect timeouts. Real servers offer an
	// object by one method or two (its archive and a mirror) beside
	// PROSPERO-CONTENTS and LOCAL; three fallbacks cover them.
	maxFallbacks = 3
	// maxShownMethods bounds the methods a document's metadata lists
	// (--info, --json): past it, a count. Real servers offer two to
	// four; a server offering 74,000 made their JSON alone 77 MB.
	maxShownMethods = 1000
	// protocolVersion is the Prospero protocol spoken.
	protocolVersion = 5
	softwareID      = "fetch"
)

// Config holds the driver's settings.
type Config struct {
	// Principal is the name sent in AUTHENTICATE '' UNAUTHENTICATED;
	// "anonymous" when empty (the local user's name is not disclosed).
	Principal string
	// RetransmitInterval is how long to wait for a reply packet before
	// sending the request again (doubling each time); 1 s when zero.
	RetransmitInterval time.Duration
}

// Driver fetches prospero URLs.
type Driver struct{ cfg Config }

var (
	_ fetch.Driver        = (*Driver)(nil)
	_ fetch.DefaultPorter = (*Driver)(nil)
)

// New returns a prospero driver.
func New(cfg Config) *Driver {
	if cfg.Principal == "" {
		cfg.Principal = "anonymous"
	}
	if cfg.RetransmitInterval <= 0 {
		cfg.RetransmitInterval = defaultRTO
	}
	return &Driver{cfg: cfg}
}

// DefaultPort is 1525.
func (d *Driver) DefaultPort() int { return DefaultPort }

type depthKey struct{}

// target is what a prospero URL asks for.
type target struct {
	hsoname string
	version string
}

// readURL reads the URL's view into the hsoname and version to send.
func readURL(req *fetch.Request) (target, error) {
	v, err := ParseURL(req.URL)
	if err != nil {
		return target{}, err
	}
	t := target{hsoname: v.HSOName, version: v.Version}
	for _, f := range v.Fields {
		switch {
		case strings.EqualFold(f.Name, "OBJECT-VERSION"):
			if t.version != "" && t.version != f.Value {
				return t, fieldErr(req, "field", "the version is given twice (%q and %q)", t.version, f.Value)
			}
			t.version = f.Value
		default:
			req.Trace(fetch.DirInfo, fmt.Sprintf("prospero: field %q=%q is not sent", f.Name, f.Value))
		}
	}
	if t.version == "" {
		t.version = "0"
	}
	if _, err := strconv.ParseUint(t.version, 10, 31); err != nil || strings.Trim(t.version, "0123456789") != "" {
		return t, fieldErr(req, "version", "the object version %q is not a decimal number", t.version)
	}
	if err := fetch.CheckLine("hsoname", t.hsoname); err != nil {
		return t, err
	}
	return t, nil
}

func fieldErr(req *fetch.Request, part, format string, args ...any) error {
	return &fetch.Error{Kind: fetch.KindMalformed, Op: "prospero URL", Part: part, Offset: -1,
		Err: fmt.Errorf(format, args...)}
}

// Fetch resolves the URL through the Prospero server and fetches it.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	t, err := readURL(req)
	if err != nil {
		return nil, err
	}
	depth, _ := ctx.Value(depthKey{}).(int)
	if depth >= maxDepth {
		return nil, req.Errorf(fetch.KindServer, "resolve", "more than %d Prospero hops (FORWARDED or methods leading back to Prospero): a loop?", maxDepth)
	}
	ctx = context.WithValue(ctx, depthKey{}, depth+1)
	if req.Options.Dialer != nil {
		return nil, req.Errorf(fetch.KindPolicy, "dial", "prospero speaks UDP, which the configured proxy dialer (SOCKS) cannot carry; refusing to bypass it")
	}
	s, err := d.open(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	o := origin{host: req.URL.Host, hsoname: t.hsoname}

	rep, err := d.ask(ctx, req, s, t, "GET-OBJECT-INFO #ALL ASCII "+quote(t.hsoname)+" "+t.version)
	if err != nil {
		return nil, d.failure(req, "GET-OBJECT-INFO", t, err)
	}
	if rep.Forwarded != nil {
		return d.forward(ctx, req, rep.Forwarded)
	}
	budget := maxMethodURLBytes
	ms := resolveMethods(accessMethods(rep.Attrs), o, &budget)
	if req.Options.Tracer != nil { // an object may offer 100,000 methods
		for _, m := range ms {
			req.Trace(fetch.DirInfo, "prospero: method "+m.String())
		}
	}
	if i := chosen(ms); i >= 0 {
		return d.follow(ctx, req, t, ms, i)
	}

	// No method to follow. dirsrv offers PROSPERO-CONTENTS for files
	// only: their bytes come through Prospero itself. Anything else is
	// read as a directory.
	if offersContents(ms) {
		return d.contents(ctx, req, t, ms)
	}
	list, err := d.ask(ctx, req, s, t, "DIRECTORY ASCII "+quote(t.hsoname)+"\nLIST ATTRIBUTES COMPONENTS")
	if re, ok := err.(*ReplyError); ok && re.Code == "NOT-A-DIRECTORY" {
		return nil, noMethod(req, ms)
	}
	if err != nil {
		return nil, d.failure(req, "LIST", t, err)
	}
	if list.Forwarded != nil {
		return d.forward(ctx, req, list.Forwarded)
	}
	return &fetch.Result{Kind: fetch.KindListing, Listing: d.listing(req, t, list)}, nil
}

// open resolves the server's address and opens the UDP session.
func (d *Driver) open(ctx context.Context, req *fetch.Request) (*session, error) {
	port := req.URL.PortOr(DefaultPort)
	host := req.URL.Host
	addr, err := netip.ParseAddr(host)
	if err != nil {
		rctx, cancel := context.WithTimeout(ctx, dialTimeout(req))
		ips, lerr := net.DefaultResolver.LookupNetIP(rctx, "ip", host)
		cancel()
		if lerr != nil || len(ips) == 0 {
			if lerr == nil {
				lerr = fmt.Errorf("no address for %s", host)
			}
			return nil, &fetch.Error{Kind: fetch.KindNetwork, Op: "resolve " + host, Offset: -1, Err: lerr}
		}
		addr = ips[0]
		for _, ip := range ips {
			if ip.Is4() || ip.Is4In6() {
				addr = ip
				break
			}
		}
	}
	server := net.UDPAddrFromAddrPort(netip.AddrPortFrom(addr.Unmap(), uint16(port)))
	req.Trace(fetch.DirInfo, "ARDP over UDP to "+server.String())
	s, err := openSession(ctx, server, req.Options.Idle(), d.cfg.RetransmitInterval, maxReply, req.Trace)
	if err != nil {
		return nil, &fetch.Error{Kind: fetch.KindNetwork, Op: "open UDP socket", Offset: -1, Err: err}
	}
	s.first = dialTimeout(req)
	s.allow = func(port int) error { return req.CheckPort(req.URL.Scheme, port) }
	return s, nil
}

func dialTimeout(req *fetch.Request) time.Duration {
	if req.Options.DialTimeout > 0 {
		return req.Options.DialTimeout
	}
	return fetch.DefaultDialTimeout
}

// ask sends the request header and command lines, which name t's
// hsoname, as one ARDP message and parses the reply. A FAILURE or ERROR
// comes back as *ReplyError.
func (d *Driver) ask(ctx context.Context, req *fetch.Request, s *session, t target, commands string) (*Reply, error) {
	text := requestText(d.cfg.Principal, commands)
	if q := quote(t.hsoname); len(text) > maxRequestData && len(text)-len(q) <= maxRequestData {
		// The request goes in one packet; the hsoname is what the URL
		// makes too long for it: say so, before anything is sent.
		return nil, &fetch.Error{Kind: fetch.KindPolicy, Op: "ARDP request", Part: "hsoname", Offset: -1,
			Err: fmt.Errorf("%w: an hsoname of %d bytes (%d quoted) makes a request of %d octets, and one ARDP packet carries at most %d", fetch.ErrTooLarge, len(t.hsoname), len(q), len(text), maxRequestData)}
	}
	for _, l := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
		req.Trace(fetch.DirSent, l)
	}
	raw, err := s.do(ctx, []byte(text))
	if err != nil {
		return nil, err
	}
	if req.Capture != nil {
		// An archive gets each reply's text as received; the last one
		// asked (the directory) is what a listing holds.
		req.Capture.Payload(s.replied).Write(raw)
	}
	// The reply's tokens, and what is kept of them, are substrings of
	// reply: the bytes received are not held past here.
	reply := string(raw)
	n, err := checkReply(reply)
	if errors.Is(err, fetch.ErrLineTooLong) || errors.Is(err, fetch.ErrTooLarge) {
		// A line or a reply past its bound is refused as a size bound
		// (exit 4), as every driver's is.
		return nil, req.Errorf(fetch.KindPolicy, "reply", "%w", err)
	}
	if err != nil {
		return nil, req.Errorf(fetch.KindServer, "reply", "%v", err)
	}
	lr := lineReader{text: reply}
	for i := 0; lr.next(); i++ {
		if i == 200 {
			req.Trace(fetch.DirReceived, fmt.Sprintf("(%d more lines)", n-i))
			break
		}
		req.Trace(fetch.DirReceived, lr.line.String())
	}
	rep, err := parseReply(reply)
	if err != nil {
		if _, ok := err.(*ReplyError); ok {
			return rep, err
		}
		return nil, req.Errorf(fetch.KindServer, "reply", "%v", err)
	}
	for _, w := range rep.Warnings {
		req.Trace(fetch.DirInfo, "warning: prospero server: "+w)
	}
	return rep, nil
}

// requestText is one message: the version and authentication header
// every request of dirsrv's own client starts with, then the commands.
func requestText(principal, commands string) string {
	return fmt.Sprintf("VERSION %d %s\nAUTHENTICATE '' UNAUTHENTICATED %s\n%s\n",
		protocolVersion, softwareID, quote(principal), commands)
}

// failure turns a failed request into the error a caller can act on.
func (d *Driver) failure(req *fetch.Request, op string, t target, err error) error {
	re, ok := err.(*ReplyError)
	if !ok {
		return err
	}
	e := &fetch.Error{Kind: fetch.KindServer, Op: op, Part: "hsoname", Offset: -1, Reply: clip(re.Error())}
	switch {
	case re.Word == "FAILURE" && re.Code == "NOT-FOUND":
		e.Err = fmt.Errorf("%w: the server has no object %q", fetch.ErrNotFound, t.hsoname)
	case re.Word == "FAILURE" && re.Code == "NOT-AUTHORIZED":
		why := "not authorized to read " + strconv.Quote(t.hsoname)
		if !strings.HasPrefix(t.hsoname, "/") {
			why += ` (dirsrv refuses names without a leading "/": write prospero://host//name)`
		}
		e.Err = fmt.Errorf("%s", why)
	case re.Word == "FAILURE":
		e.Err = fmt.Errorf("the server failed the request")
	default:
		e.Part = ""
		e.Err = fmt.Errorf("the server could not read the request")
	}
	return e
}

// maxNamedMethods bounds the methods noMethod's error names, and
// maxMethodName the bytes it shows of each name: a server may offer
// thousands, or one with a name of megabytes, and an error is a line.
const (
	maxNamedMethods = 10
	maxMethodName   = 64
)

func noMethod(req *fetch.Request, ms []Method) error {
	var names []string
	for _, m := range ms[:min(len(ms), maxNamedMethods)] {
		names = append(names, cutText(m.Name(), maxMethodName))
	}
	offered := "none"
	if len(names) > 0 {
		offered = strings.Join(names, ", ")
	}
	if n := len(ms) - len(names); n > 0 {
		offered += fmt.Sprintf(" and %d more", n)
	}
	return req.Errorf(fetch.KindServer, "resolve", "no access method this client can follow (offered: %s), and not a directory", offered)
}

// forward fetches the object where a FORWARDED reply says it went.
func (d *Driver) forward(ctx context.Context, req *fetch.Request, f *Link) (*fetch.Result, error) {
	u, err := linkURL(f, replyHost(req.URL))
	if err != nil {
		return nil, req.Errorf(fetch.KindServer, "FORWARDED", "%v", err)
	}
	req.Trace(fetch.DirInfo, "prospero: forwarded to "+u)
	pu, err := fetch.Parse(u)
	if err != nil {
		return nil, req.Errorf(fetch.KindServer, "FORWARDED", "%v", err)
	}
	return fetchVia(ctx, req, pu)
}

// fetchVia fetches u, the URL a Prospero object resolved to, with the
// same client and the per-request inputs of req (an offset to resume
// from, limits, the tracer), under u's own scheme and port policy.
func fetchVia(ctx context.Context, req *fetch.Request, u *fetch.URL) (*fetch.Result, error) {
	next := *req
	next.URL = u
	return req.Client.Do(ctx, &next)
}

// follow fetches the chosen method: a document when its Body is first
// read, anything else now.
func (d *Driver) follow(ctx context.Context, req *fetch.Request, t target, ms []Method, i int) (*fetch.Result, error) {
	m := ms[i]
	req.Trace(fetch.DirInfo, fmt.Sprintf("prospero: chose %s: %s", m.Name(), m.URL))
	if m.Kind != fetch.KindDocument {
		u, _ := fetch.Parse(m.URL)
		return fetchVia(ctx, req, u)
	}
	meta := methodMeta(t, m.Name()+" "+m.URL, ms)
	body := &methodBody{ctx: ctx, req: req}
	for _, m := range ms[i:] {
		switch {
		case m.URL == "" || m.Kind != fetch.KindDocument:
		case len(body.ms) <= maxFallbacks:
			body.ms = append(body.ms, m)
		default:
			body.untried++
		}
	}
	if offersContents(ms) {
		body.contents = d.readContents(ctx, req, t)
	}
	doc := &fetch.Document{Body: body, Size: -1, Meta: meta}
	if req.Offset > 0 {
		// The method's fetch is asked to resume at req.Offset; whether it
		// did (FTP REST) or not (PROSPERO-CONTENTS) is known only once it
		// is made, and the caller reads Document.Offset before the body
		// to decide whether to append or to write whole: fetch it now.
		if body.err = body.open(); body.err != nil {
			return nil, body.err
		}
		if body.res != nil && body.res.Document != nil {
			in := body.res.Document
			doc.Offset, doc.Size, doc.ModTime, doc.MIMEType = in.Offset, in.Size, in.ModTime, in.MIMEType
		}
	}
	return &fetch.Result{Kind: fetch.KindDocument, Document: doc}, nil
}

// methodMeta is a document's metadata: its hsoname, the method chosen,
// and the methods offered, the first maxShownMethods of them and a count
// of the rest.
func methodMeta(t target, chosen string, ms []Method) map[string]string {
	shown := ms[:min(len(ms), maxShownMethods)]
	meta := make(map[string]string, 3+len(shown))
	meta["prospero.hsoname"] = t.hsoname
	meta["prospero.chosen"] = chosen
	for k, m := range shown {
		meta[fmt.Sprintf("prospero.method.%02d", k+1)] = m.String()
	}
	if n := len(ms) - len(shown); n > 0 {
		meta["prospero.method.more"] = fmt.Sprintf("%d more access methods offered, not shown", n)
	}
	return meta
}

// methodBody fetches the chosen method's document on the first Read, and
// falls back to the next usable methods, in order and at most
// maxFallbacks of them, when one fails, and last to PROSPERO-CONTENTS
// when the server offered it.
type methodBody struct {
	ctx context.Context
	req *fetch.Request
	// ms are the methods to try: the chosen one, then at most
	// maxFallbacks more that give a document, in the server's order.
	ms       []Method
	untried  int // the usable methods offered past those
	contents func() (io.Reader, error)
	res      *fetch.Result
	rc       io.ReadCloser
	err      error
}

func (b *methodBody) Read(p []byte) (int, error) {
	if b.rc == nil && b.err == nil {
		b.err = b.open()
	}
	if b.err != nil {
		return 0, b.err
	}
	return b.rc.Read(p)
}

func (b *methodBody) open() error {
	var first error
	for _, m := range b.ms {
		u, err := fetch.Parse(m.URL)
		if err == nil {
			var res *fetch.Result
			res, err = fetchVia(b.ctx, b.req, u)
			if err == nil && res.Document == nil {
				res.Close()
				err = b.req.Errorf(fetch.KindServer, m.Name(), "%s gave a %s, not a document", m.URL, res.Kind)
			}
			if err == nil {
				b.res, b.rc = res, res.Document.Body
				return nil
			}
		}
		b.req.Trace(fetch.DirInfo, fmt.Sprintf("prospero: %s method failed: %v", m.Name(), err))
		if first == nil {
			first = err
		}
	}
	if b.untried > 0 { // the chosen method and maxFallbacks more have failed
		b.req.Trace(fetch.DirInfo, fmt.Sprintf("prospero: %d more access methods not tried: at most %d after the chosen one are", b.untried, maxFallbacks))
		// The error stays the chosen method's (its kind, its errors.Is
		// chain); the text says the rest were not all tried.
		first = fmt.Errorf("%w (%d more access methods offered were not tried: at most %d after the chosen one are)", first, b.untried, maxFallbacks)
	}
	if b.contents != nil {
		b.req.Trace(fetch.DirInfo, "prospero: falling back to PROSPERO-CONTENTS")
		r, err := b.contents()
		if err == nil {
			b.rc = io.NopCloser(r)
			return nil
		}
		b.req.Trace(fetch.DirInfo, fmt.Sprintf("prospero: PROSPERO-CONTENTS failed: %v", err))
	}
	if first == nil {
		first = b.req.Errorf(fetch.KindServer, "resolve", "no access method left to try")
	}
	return first
}

func (b *methodBody) Close() error {
	if b.res != nil {
		return b.res.Close()
	}
	if b.err == nil {
		b.err = fmt.Errorf("body closed")
	}
	return nil
}

// contents returns a file whose only method is PROSPERO-CONTENTS: its
// bytes are its CONTENTS attributes (see contentsOf), asked for in a
// new request when the Body is first read, so --info asks nothing more.
func (d *Driver) contents(ctx context.Context, req *fetch.Request, t target, ms []Method) (*fetch.Result, error) {
	for k, m := range ms {
		if strings.EqualFold(m.Name(), "PROSPERO-CONTENTS") {
			ms[k].Chosen = true
		}
	}
	meta := methodMeta(t, "PROSPERO-CONTENTS", ms)
	req.Trace(fetch.DirInfo, "prospero: chose PROSPERO-CONTENTS")
	body := &contentsBody{open: d.readContents(ctx, req, t)}
	return &fetch.Result{Kind: fetch.KindDocument, Document: &fetch.Document{Body: body, Size: -1, Meta: meta}}, nil
}

// readContents returns a function that asks for the CONTENTS attribute of
// t in a request of its own and returns its bytes.
func (d *Driver) readContents(ctx context.Context, req *fetch.Request, t target) func() (io.Reader, error) {
	return func() (io.Reader, error) {
		s, err := d.open(ctx, req)
		if err != nil {
			return nil, err
		}
		defer s.Close()
		rep, err := d.ask(ctx, req, s, t, "GET-OBJECT-INFO CONTENTS ASCII "+quote(t.hsoname)+" "+t.version)
		if err != nil {
			return nil, d.failure(req, "GET-OBJECT-INFO CONTENTS", t, err)
		}
		if body, ok := contentsOf(rep.Attrs); ok {
			return req.CapturePayload(strings.NewReader(body), s.replied), nil // the file's bytes for an archive
		}
		return nil, req.Errorf(fetch.KindServer, "GET-OBJECT-INFO CONTENTS", "the reply carries no CONTENTS DATA or TAGGED attribute")
	}
}

// contentsOf joins the CONTENTS attributes of a reply, in order, as
// Prospero's own client writes them (vcache, prospero_contents_get): a
// DATA value is the object's bytes; a TAGGED one, which archie's server
// sends for its catalogue items, is written "tag: value", a newline
// between it and what follows when its value does not end with one.
func contentsOf(attrs []Attribute) (string, bool) {
	var b strings.Builder
	found, newline := false, false
	for _, a := range attrs {
		if a.Name != "CONTENTS" {
			continue
		}
		v := a.Value
		switch {
		case len(v) >= 2 && v[0] == "DATA":
			if newline {
				b.WriteByte('\n')
			}
			b.WriteString(v[1])
			newline = false
		case len(v) >= 3 && v[0] == "TAGGED":
			if newline {
				b.WriteByte('\n')
			}
			b.WriteString(v[1] + ": " + v[2])
			newline = !strings.HasSuffix(v[2], "\n")
		default:
			continue
		}
		found = true
	}
	return b.String(), found
}

// contentsBody reads what open returns, calling it on the first Read.
type contentsBody struct {
	open func() (io.Reader, error)
	r    io.Reader
	err  error
}

func (b *contentsBody) Read(p []byte) (int, error) {
	if b.r == nil && b.err == nil {
		b.r, b.err = b.open()
	}
	if b.err != nil {
		return 0, b.err
	}
	return b.r.Read(p)
}

func (b *contentsBody) Close() error {
	if b.r == nil && b.err == nil {
		b.err = errors.New("body closed")
	}
	return nil
}

// listing turns a LIST reply into entries, one at a time as they are
// read: 100,000 entries held took 21 MB beside the reply.
func (d *Driver) listing(req *fetch.Request, t target, r *Reply) *fetch.Listing {
	return fetch.NewStreamListing(t.hsoname, &entries{
		links:  r.readLinks(),
		host:   replyHost(req.URL),
		budget: maxMethodURLBytes,
	})
}

// entries is a LIST reply's links made into entries.
type entries struct {
	links  *linkReader
	host   string // the server that answered, for links with an empty host
	budget int    // for the URLs of the reply's EXTERNAL links together
}

func (s *entries) Next() (fetch.Entry, error) {
	if s.links == nil {
		return fetch.Entry{}, io.EOF
	}
	k, ok := s.links.read()
	if !ok {
		return fetch.Entry{}, io.EOF
	}
	e := fetch.Entry{Name: k.Name, Size: -1, Type: k.Target}
	switch {
	case k.Target == "NULL" || k.Target == "SYMBOLIC":
		e.Kind, e.Raw = fetch.EntryRaw, "LINK "+Line{k.Type, k.Target, k.Name, k.HostType, k.Host, k.NameType, k.HSOName, k.Version}.String()
	case k.Target == "EXTERNAL":
		ms := resolveMethods(accessMethods(k.Attrs), origin{host: k.Host, hsoname: k.HSOName}, &s.budget)
		if i := chosen(ms); i >= 0 {
			e.URL, e.Description = ms[i].URL, ms[i].Name()+" method"
			e.Kind = fetch.EntryFile
			if ms[i].Kind == fetch.KindListing {
				e.Kind = fetch.EntryDir
			}
		} else {
			e.Kind, e.Raw = fetch.EntryRaw, "EXTERNAL link with no access method this client can follow"
		}
	default:
		u, err := linkURL(&k, s.host)
		if err != nil {
			e.Kind, e.Raw = fetch.EntryRaw, err.Error()
			break
		}
		e.URL, e.Kind = u, fetch.EntryFile
		if strings.Contains(k.Target, "DIRECTORY") || k.Type == "U" {
			e.Kind = fetch.EntryDir
		}
	}
	return e, nil
}

// Close lets the reply go.
func (s *entries) Close() error {
	s.links = nil
	return nil
}

// replyHost is the server u asks, as a reply writes a host ("host" or
// "host(port)"): what a link or a forward with an empty host means, the
// server that answered, on its port.
func replyHost(u *fetch.URL) string {
	if u.Port != 0 && u.Port != DefaultPort {
		return u.Host + "(" + strconv.Itoa(u.Port) + ")"
	}
	return u.Host
}

// linkURL is the prospero:// URL of a link to a Prospero object.
func linkURL(k *Link, defHost string) (string, error) {
	host, port, err := splitHost(k.Host, defHost)
	if err != nil {
		return "", err
	}
	if k.HSOName == "" || strings.ContainsAny(k.HSOName, "\x00\r\n") {
		return "", fmt.Errorf("link %q has an unusable hsoname", clip(k.Name))
	}
	hp := host
	if strings.Contains(host, ":") {
		hp = "[" + host + "]"
	}
	if port != 0 && port != DefaultPort {
		hp += ":" + strconv.Itoa(port)
	}
	u := "prospero://" + hp + "/" + fetch.Escape(k.HSOName, "/:@&=")
	if k.Version != "" && k.Version != "0" {
		u += ";OBJECT-VERSION=" + fetch.Escape(k.Version, "")
	}
	if _, err := fetch.Parse(u); err != nil {
		return "", err
	}
	return u, nil
}
