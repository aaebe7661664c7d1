// Package gopher is the driver for gopher:// URLs: plain Gopher (RFC 1436)
// and the Gopher+ extensions (views, attributes, +ASK forms), with the URL
// forms of RFC 1738 §3.4.
//
// URL grammar (RFC 1738 §3.4.1), every field %-decoded before it is sent:
//
//	gopher://<host>:<port>/<gophertype><selector>%09<search>%09<gopher+_string>
//
// The driver connects to host:port (70 by default), sends the selector,
// then a tab and the search when the URL has one, then a tab and the
// Gopher+ string when it has one, then CR LF; the empty search that a
// Gopher+ URL must carry is not sent for items other than searches (see
// sendsSearch). The type character is never sent; it decides how the
// reply is read:
//
//   - 1 and 7 (search results) are menus, returned as a fetch.Listing whose
//     entries carry absolute URLs (telnet:// for type 8, tn3270:// for T,
//     the target of "h" items whose selector is "URL:...", Gopher+ URLs for
//     items the server marks "+" or "?").
//   - 0 is text: a line holding a lone "." ends it and a leading ".." loses
//     one dot (RFC 1436). Servers that close without the "." line are common
//     (pygopherd, gophernicus) and their text ends at the close.
//   - every other type is read until the server closes.
//
// Gopher+ strings (§3.4.3–3.4.9): "+" the default view, "+<view> <lang>"
// an alternate view, "!" and "$" the attributes of an item or of every item
// of a directory (optionally "!+ABSTRACT +SMELL"), "?" an item with a +ASK
// form, which the driver fetches, asks (Request.Form or the prompter), and
// answers with the §3.4.9 data block. Gopher+ replies start with a length
// line: "+N" (exactly N bytes follow, fewer is fetch.ErrTruncated), "+-1"
// (ends at a "." line), "+-2" (ends at the close), "--N" (an error block
// with its code). Attribute replies are parsed into Attributes (see
// DocumentAttributes and RenderAttributes); one of more than 4 MiB,
// 10,000 items or 100,000 lines is fetch.ErrTooLarge.
//
// Per-request inputs: Request.Query is the search of a type 7 URL without
// one (else the prompter is asked for the field "query"); Request.Form
// answers +ASK questions by label or by 1-based index; Request.Raw returns
// the reply exactly as received, length line and terminator included; a
// Gopher+ reply that ends short of its length line's framing is still
// fetch.ErrTruncated.
// Without it, text (type 0, and views of a text/ type) comes with local
// line ends (LF), whichever the server sent (fetch.LocalLines).
//
// Attribute requests naming blocks ("!+ABSTRACT", "$+ADMIN") are answered
// by some servers with the document itself (pygopherd) or with every
// block (gophernicus): a reply that is not an attribute block makes the
// driver ask again for "!" or "$" and keep the named blocks (and +INFO)
// itself. A server that sends nothing at all is traced as a warning, or
// fails with ErrEmpty when Config.FailEmpty is set.
//
// The RFC 1738 §6 safeguard: a decoded CR, LF or NUL in the selector, the
// search or the Gopher+ string is refused before connecting, except in the
// CR LF separators of the §3.4.9 form-answer production; so is a tab in
// a search that comes from Request.Query or the prompter.
package gopher

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"syscall"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

// DefaultPort is the gopher port (RFC 1738 §3.4.1).
const DefaultPort = 70

// Limits on what the driver holds in memory: menus and attribute replies
// are parsed whole; documents are streamed and not bounded here.
const (
	defaultMaxMenu = 32 << 20 // a menu or search result
	maxAttributes  = 4 << 20  // a "!" or "$" reply
	maxErrorBlock  = 64 << 10 // the data of a "--N" reply
)

// maxMenuEntries bounds a menu's items (streamed, so a bound on lines and
// time, not memory). A variable so that a test can lower it and stay
// small: the bound's logic does not depend on its size.
var maxMenuEntries = 1 << 20

// Config holds the driver's settings; every per-request input comes from
// the request (Query, Form, Raw).
type Config struct {
	// FailEmpty makes a reply of no bytes at all an error (ErrEmpty)
	// rather than an empty document with a warning.
	FailEmpty bool
}

// ErrEmpty is a server's reply of nothing at all: it closed the
// connection without a byte.
var ErrEmpty = errors.New("the server sent nothing")

// rawMode reports a request for the reply exactly as received; read here
// only, so that where the setting lives can change in one place.
func rawMode(req *fetch.Request) bool { return req.Raw }

// Driver fetches gopher URLs.
type Driver struct{ cfg Config }

var _ fetch.Driver = (*Driver)(nil)

// New returns a driver with cfg.
func New(cfg Config) *Driver { return &Driver{cfg: cfg} }

// Fetch dereferences a gopher URL (RFC 1738 §3.4).
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	u := req.URL
	g, err := ParseURL(u)
	if err != nil {
		return nil, err
	}
	switch g.Type {
	case '8', 'T':
		// RFC 1436: these name a terminal session, not a document.
		scheme := "telnet"
		if g.Type == 'T' {
			scheme = "tn3270"
		}
		return nil, req.Errorf(fetch.KindUsage, "gopher", "type %c names a %s session, not a document: fetch %s",
			g.Type, scheme, sessionURL(scheme, g.Selector, u.Host, u.Port))
	}
	if g.Type != '7' && g.HasSearch && !g.HasPlus && g.Search != "" && strings.ContainsRune("+!$", rune(g.Search[0])) {
		// "0sel%09+" sends "sel<tab>+", the bytes of "0sel%09%09+" (whose
		// empty search sendsSearch leaves out): every Gopher+ server takes
		// it for a Gopher+ request and answers with a length line. Outside
		// a search the field means nothing else, so read the reply as the
		// Gopher+ reply it is.
		g.Plus, g.HasPlus, g.Search = g.Search, true, ""
	}
	resURL := u
	if g.Type == '7' && !g.HasSearch {
		// RFC 1738 §3.4.2: a search needs its words; ask for them.
		q := req.Query
		if q == "" {
			q, err = req.Prompt(ctx, fetch.Question{Field: "query", Label: "Search for"})
			if err != nil {
				return nil, err
			}
		}
		g.Search, g.HasSearch = q, true
		if resURL, err = d.urlFor(u, g); err != nil {
			return nil, err
		}
	}
	rq, err := newRequest(g)
	if err != nil {
		return nil, err // the client names the URL
	}
	if g.HasPlus && g.Plus == "?" {
		return d.fetchForm(ctx, req, g)
	}
	return d.fetch(ctx, req, g.Type, rq, resURL)
}

// urlFor is the URL of g on u's server.
func (d *Driver) urlFor(u *fetch.URL, g *URL) (*fetch.URL, error) {
	s := URLString(u.Host, u.Port, g.Type, g.Selector, g.Search, g.HasSearch, g.Plus, g.HasPlus)
	return fetch.Parse(s)
}

// request is what is sent: selector, search and Gopher+ string (RFC 1738
// §3.4.3), and, for the §3.4.9 production, the form's data block.
type request struct {
	selector  string
	search    string
	hasSearch bool
	plus      string // the whole Gopher+ string, for tracing and URLs
	hasPlus   bool
	form      *formBlock // the plus string split as §3.4.9 defines
	secret    map[int]bool
	// internal: the driver reads the reply itself (a form's +ASK
	// block), whole and parsed, raw mode or not.
	internal bool
}

// newRequest checks g's fields for the line protocol before anything is
// dialed: selector and search may hold no CR, LF or NUL, the search no
// tab; the Gopher+ string may hold CR LF only as the §3.4.9 form
// production.
func newRequest(g *URL) (*request, error) {
	if err := fetch.CheckLine("selector", g.Selector); err != nil {
		return nil, err
	}
	if err := fetch.CheckLine("search", g.Search); err != nil {
		return nil, err
	}
	// A tab ends the search (RFC 1738 §3.4.2-3.4.3): one in a query
	// would send the rest as a Gopher+ string. A URL's search holds
	// none (its %09 splits it); a query from the request or the
	// prompter may.
	if i := strings.IndexByte(g.Search, '\t'); i >= 0 {
		return nil, &fetch.Error{Kind: fetch.KindPolicy, Op: "line safety", Part: "search", Offset: -1,
			Err: fmt.Errorf("byte %d of the search is a tab, which would end it and send the rest as a Gopher+ string", i)}
	}
	rq := &request{selector: g.Selector, search: g.Search, hasSearch: sendsSearch(g.Type, g.Search, g.HasSearch, g.HasPlus), plus: g.Plus, hasPlus: g.HasPlus}
	if g.HasPlus && strings.ContainsAny(g.Plus, "\r\n\x00") {
		f, err := parseFormPlus(g.Plus)
		if err != nil {
			return nil, err
		}
		rq.form = f
	} else if g.HasPlus && strings.HasPrefix(g.Plus, "+") && hasDataFlag(g.Plus) {
		// "+[view]<tab>1" announces a data block (Gopher+ §2.4) that only
		// the whole §3.4.9 production carries: sent alone, the server
		// would wait for it and the fetch for the server.
		return nil, &fetch.Error{Kind: fetch.KindMalformed, Op: "gopher+ string", Part: "gopher+ string", Offset: -1,
			Err: errors.New(`"+[view]<tab>1" announces a form's data block, which the URL does not carry (RFC 1738 §3.4.9: +%091%0D%0A+-1%0D%0A<answers>.%0D%0A)`)}
	}
	return rq, nil
}

// sendsSearch tells whether the search field goes on the wire. RFC 1738
// §3.4.3 makes a Gopher+ URL carry "%09<search>" even when the search is
// empty; for items other than searches (type 7) that empty field is left
// out, as Gopher+ §2.4 and Appendix II send requests ("selector<tab>+",
// "selector<tab>!") and as §3.4.9's own example shows
// ("<a_gopher_selector><tab>+<tab>1"). Servers depend on it: gophernicus
// answers "<tab>$" with attributes but "<tab><tab>$" with a menu.
func sendsSearch(typ byte, search string, hasSearch, hasPlus bool) bool {
	if hasPlus && search == "" && typ != '7' {
		return false
	}
	return hasSearch
}

// write sends the request line (and the form's data block).
func (rq *request) write(c *wire.Conn) error {
	parts := []wire.Part{wire.Arg("selector", rq.selector)}
	if rq.hasSearch {
		parts = append(parts, wire.Lit("\t"), wire.Arg("search", rq.search))
	}
	if !rq.hasPlus {
		return c.WriteLine(parts...)
	}
	if rq.form == nil {
		parts = append(parts, wire.Lit("\t"), wire.Arg("gopher+ string", rq.plus))
		return c.WriteLine(parts...)
	}
	// RFC 1738 §3.4.9: <selector><tab>...+<tab>1 CR LF, +-1 CR LF, one
	// answer a line, "." CR LF.
	parts = append(parts, wire.Lit("\t"), wire.Arg("gopher+ string", rq.form.head))
	if err := c.WriteLine(parts...); err != nil {
		return err
	}
	if err := c.WriteLine(wire.Lit("+-1")); err != nil {
		return err
	}
	for i, a := range rq.form.answers {
		if rq.secret[i] {
			c.Mask = func(string) string { return "****" }
		}
		err := c.WriteLine(wire.Arg("form answer", a))
		c.Mask = nil
		if err != nil {
			return err
		}
	}
	return c.WriteLine(wire.Lit("."))
}

// isPlus reports a request that a Gopher+ server answers with a length line.
func (rq *request) isPlus() bool {
	return rq.hasPlus && rq.plus != "" && strings.ContainsRune("+!$", rune(rq.plus[0]))
}

// attributeRequest reports a "!" or "$" request (RFC 1738 §3.4.6).
func (rq *request) attributeRequest() bool {
	return rq.hasPlus && rq.plus != "" && (rq.plus[0] == '!' || rq.plus[0] == '$')
}

// exchange dials, sends rq and reads the head of the reply.
func (d *Driver) exchange(ctx context.Context, req *fetch.Request, rq *request) (net.Conn, *reply, error) {
	// a connection carries one request and its reply
	conn, err := req.DialTransfer(ctx, req.URL.HostPort(DefaultPort))
	if err != nil {
		return nil, nil, err
	}
	// What is read before the fetch returns may take the idle timeout
	// from its first byte to its last, like an FTP reply, not that much
	// between each of its bytes: the head of every reply (with a "--N"
	// error block, or a plain error item), and an attribute reply whole.
	// A document or a menu streams, and is timed no further.
	raw := rawMode(req) && !rq.internal
	whole := rq.attributeRequest() && !raw
	timer := wire.NewReplyTimer(conn)
	timer.Begin(req.Options.Idle())
	var w io.Writer = conn
	var form *bytes.Buffer
	if rq.form != nil {
		// A form's lines go out in one write, however long its answers:
		// pygopherd answers from the selector line and may close before
		// lines written after it arrive, which then fail unsent (and
		// untraced).
		form = new(bytes.Buffer)
		w = form
	}
	c := wire.NewConn(struct {
		io.Reader
		io.Writer
	}{timer, w}, 0, req.Options.Tracer)
	werr := rq.write(c)
	if werr == nil && form != nil {
		_, werr = conn.Write(form.Bytes())
	}
	if werr != nil && !errors.Is(werr, syscall.EPIPE) && !errors.Is(werr, syscall.ECONNRESET) {
		conn.Close()
		return nil, nil, netErr(req, "send request", werr)
	}
	// A server that answers from the selector line alone (pygopherd with a
	// form block) may close before the rest of the request is written: its
	// answer is still there to read.
	rep, err := readReply(c.R.B, rq.isPlus(), raw, req.Options.Tracer)
	if err != nil {
		conn.Close()
		if werr != nil {
			return nil, nil, netErr(req, "send request", werr)
		}
		if terr := timer.Err(); terr != nil {
			err = terr
		}
		return nil, nil, annotate(req, err)
	}
	if !whole {
		timer.End()
	}
	rep.timer = timer
	rep.body = req.CapturePayload(rep.body, conn.RemoteAddr()) // the item as sent, before conversion or parsing
	return conn, rep, nil
}

// fetch sends rq and turns the reply into a result for item type typ.
func (d *Driver) fetch(ctx context.Context, req *fetch.Request, typ byte, rq *request, resURL *fetch.URL) (*fetch.Result, error) {
	conn, rep, err := d.exchange(ctx, req, rq)
	if err != nil {
		return nil, err
	}
	if rep.empty {
		if d.cfg.FailEmpty {
			conn.Close()
			return nil, &fetch.Error{Kind: fetch.KindServer, Op: "gopher", Offset: -1, Err: ErrEmpty}
		}
		req.Trace(fetch.DirInfo, "warning: "+req.URL.Redacted()+": the server sent nothing (gopher.Config.FailEmpty makes this an error)")
	}
	res := &fetch.Result{URL: resURL}
	meta := map[string]string{MetaType: string(typ)}
	if rep.plus {
		meta[MetaLength] = strconv.FormatInt(rep.length, 10)
	}
	size := int64(-1)
	if rep.plus && rep.length >= 0 {
		size = rep.length
	}

	if rawMode(req) {
		mt := mimeType(typ, rq.selector, rq.plus)
		if rq.attributeRequest() {
			mt = AttributesMIMEType
		}
		res.Kind = fetch.KindDocument
		res.Document = &fetch.Document{Body: &readCloser{rep.body, conn}, MIMEType: mt, Size: -1, Meta: meta}
		return res, nil
	}

	switch {
	case rq.attributeRequest():
		data, err := d.attributes(ctx, req, rq, conn, rep)
		if err != nil {
			return nil, err
		}
		attrs, err := parseAttributes(data)
		if err != nil {
			return nil, annotate(req, err) // attributes closed conn
		}
		for k, v := range attributesMeta(attrs) {
			meta[k] = v
		}
		res.Kind = fetch.KindDocument
		res.Document = &fetch.Document{Body: io.NopCloser(strings.NewReader(data)), MIMEType: AttributesMIMEType, Size: int64(len(data)), Meta: meta,
			Native: []any{attrs}}
		return res, nil

	case isMenuType(typ) && !hasView(rq):
		limit := int64(defaultMaxMenu)
		if m := req.Options.MaxSize; m > 0 && m < limit {
			limit = m
		}
		// The menu streams: the connection is released when the listing
		// ends or the result is closed.
		m := newMenuStream(rep.body, conn, req.URL.Host, req.URL.PortOr(DefaultPort), limit, req.Options.Tracer)
		m.annot = func(err error) error { return annotate(req, err) }
		// The items read ahead (the title, leading text and error
		// items) are read before the fetch returns: timed as a whole
		// too, since blank lines, which are no items, could otherwise
		// trickle for as long as the menu's size allows.
		rep.timer.Begin(req.Options.Idle())
		err := m.prime()
		rep.timer.End()
		if err != nil {
			m.Close()
			if terr := rep.timer.Err(); terr != nil {
				err = terr
			}
			return nil, annotate(req, err)
		}
		if m.end {
			if err := menuError(m.pending); err != nil {
				m.Close()
				return nil, annotate(req, err)
			}
		}
		res.Kind = fetch.KindListing
		res.Listing = fetch.NewStreamListing(m.title, m)
		return res, nil
	}

	body := rep.body
	if typ == '0' && !rep.plus {
		// RFC 1436 text: "." ends it, ".." is unstuffed; a close ends it too.
		body = newTextReader(body, false)
	}
	mt := mimeType(typ, rq.selector, rq.plus)
	if typ == '0' || strings.HasPrefix(mt, "text/") {
		// Text in local line ends; the size the server announced counted
		// its own.
		body, size = fetch.LocalLines(body), -1
	}
	if view, lang, ok := viewOf(rq); ok {
		meta[MetaView] = view
		if lang != "" {
			meta[MetaLanguage] = lang
		}
	}
	res.Kind = fetch.KindDocument
	res.Document = &fetch.Document{Body: &readCloser{body, conn}, MIMEType: mt, Size: size, Meta: meta}
	return res, nil
}

// hasView reports a request for a named (non-menu) view of a directory.
func hasView(rq *request) bool {
	v, _, ok := viewOf(rq)
	return ok && !strings.Contains(strings.ToLower(v), "gopher")
}

// viewOf splits a "+<view> <language>" Gopher+ string (RFC 1738 §3.4.8).
func viewOf(rq *request) (view, lang string, ok bool) {
	if !rq.hasPlus || len(rq.plus) < 2 || rq.plus[0] != '+' {
		return "", "", false
	}
	s := rq.plus[1:]
	if rq.form != nil {
		s = strings.TrimPrefix(rq.form.head, "+")
		if i := strings.IndexByte(s, '\t'); i >= 0 {
			s = s[:i]
		}
		if s == "" {
			return "", "", false
		}
	}
	view, lang, _ = strings.Cut(s, " ")
	return view, strings.TrimSpace(lang), view != ""
}

// readCloser reads r and closes c.
type readCloser struct {
	r io.Reader
	c io.Closer
}

func (rc *readCloser) Read(p []byte) (int, error) { return rc.r.Read(p) }
func (rc *readCloser) Close() error               { return rc.c.Close() }

// readAll reads r whole, failing past max bytes. The reply is read into
// the string returned, its one copy: the attributes parsed from it and
// the document's body share it. With an error it returns what it read,
// at most max bytes.
func readAll(r io.Reader, max int64) (string, error) {
	var b strings.Builder
	_, err := io.Copy(&b, io.LimitReader(r, max+1))
	s := b.String()
	if err == nil && int64(len(s)) > max {
		s, err = s[:max], fmt.Errorf("%w (a reply held in memory is limited to %d bytes)", fetch.ErrTooLarge, max)
	}
	return s, err
}

// reply is a server's answer: its body, framed as its head line says.
type reply struct {
	empty  bool  // the server closed without sending a byte
	plus   bool  // a Gopher+ length line came first
	length int64 // N, -1 or -2 from that line
	body   io.Reader
	timer  *wire.ReplyTimer // under body: Begin and End time a read of more of the reply's head
}

// readReply reads the head of a reply from b. For a Gopher+ request a
// length line ("+N", "+-1", "+-2") frames the body and "--N" is an error
// block; a server that answers in plain Gopher is read as such. A plain
// reply that is nothing but a type 3 error item is an error.
func readReply(b *bufio.Reader, plusRequested, raw bool, t fetch.Tracer) (*reply, error) {
	head, err := readHead(b)
	if err != nil && err != io.EOF {
		return nil, err
	}
	if len(head) == 0 {
		return &reply{empty: true, body: b}, nil
	}
	rest := io.MultiReader(bytes.NewReader(head), b)
	if plusRequested {
		if ok, n, isErr := parseStatus(head); isErr || ok {
			if t != nil {
				t.Trace(fetch.DirReceived, strings.TrimRight(string(head), "\r\n"))
			}
			if isErr {
				return nil, readPlusError(b, n)
			}
			rep := &reply{plus: true, length: n}
			if raw {
				// The bytes pass through as received; the checks at the
				// close are the ones the non-raw readers below make, so
				// that a short reply is an error in either mode. "+-2"
				// ends at the close and promises nothing to check.
				var data io.Reader = b
				switch {
				case n >= 0:
					data = &rawLength{r: b, want: n}
				case n == -1:
					data = &rawDot{r: b}
				}
				rep.body = io.MultiReader(bytes.NewReader(head), data)
				return rep, nil
			}
			switch {
			case n >= 0:
				rep.body = &lengthReader{r: b, left: n}
			case n == -1:
				rep.body = newTextReader(b, true)
			default:
				rep.body = b
			}
			return rep, nil
		}
	}
	if raw {
		return &reply{body: rest}, nil
	}
	if len(head) > 0 && head[0] == '3' {
		if err := plainError(head, b); err != nil {
			return nil, err
		}
	}
	return &reply{body: rest}, nil
}

// readHead returns the reply's first line, or its first 4 KiB when no
// line ends there (a binary file), without assuming either.
func readHead(b *bufio.Reader) ([]byte, error) {
	line, err := b.ReadSlice('\n')
	out := append([]byte(nil), line...)
	if err == bufio.ErrBufferFull {
		err = nil
	}
	return out, err
}

// parseStatus reads a Gopher+ length line: ok for "+N", "+-1", "+-2";
// isErr for "--N" (and "-N"), with n the data length of the error block.
func parseStatus(head []byte) (ok bool, n int64, isErr bool) {
	s := string(head)
	if !strings.HasSuffix(s, "\n") {
		return false, 0, false
	}
	s = strings.TrimSuffix(strings.TrimSuffix(s, "\n"), "\r")
	if len(s) < 2 || len(s) > 21 || (s[0] != '+' && s[0] != '-') {
		return false, 0, false
	}
	num := s[1:]
	if num == "-1" || num == "-2" {
		n = int64(-1)
		if num == "-2" {
			n = -2
		}
	} else {
		for i := 0; i < len(num); i++ {
			if num[i] < '0' || num[i] > '9' {
				return false, 0, false
			}
		}
		v, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return false, 0, false
		}
		n = v
	}
	if s[0] == '-' {
		return false, n, true
	}
	return true, n, false
}

// PlusError is the error block of a Gopher+ "--N" reply: its code (1 item
// not available, 2 try again later, 3 item has moved), the administrator
// contact from its first line and the message lines.
type PlusError struct {
	Code    int
	Contact string
	Message string
	// MovedTo is the URL of the new location for code 3, when given.
	MovedTo string
}

func (e *PlusError) Error() string {
	var what string
	switch e.Code {
	case 1:
		what = "item is not available"
	case 2:
		what = "try again later"
	case 3:
		what = "item has moved"
		if e.MovedTo != "" {
			what += " to " + e.MovedTo
		}
	default:
		what = "error " + strconv.Itoa(e.Code)
	}
	return "gopher+ server: " + what
}

// Is makes code 1 match fetch.ErrNotFound.
func (e *PlusError) Is(target error) bool { return target == fetch.ErrNotFound && e.Code == 1 }

// readPlusError reads the data of a "--N" reply (Gopher+ §2.3) into a
// *fetch.Error carrying the code and message.
func readPlusError(b *bufio.Reader, n int64) error {
	var r io.Reader
	switch {
	case n >= 0:
		r = &lengthReader{r: b, left: n}
	case n == -1:
		r = newTextReader(b, false)
	default:
		r = b
	}
	// A block cut at the bound, or shorter than announced, still has
	// its code and the start of its message.
	data, err := readAll(r, maxErrorBlock)
	cut := errors.Is(err, fetch.ErrTooLarge)
	if err != nil && !cut && !errors.Is(err, fetch.ErrTruncated) {
		return err
	}
	pe := parsePlusError(data)
	// The message shown is the block's start; PlusError keeps all that
	// was read.
	shown := pe.Message
	if len(shown) > 512 {
		shown = shown[:512] + "..."
	}
	if cut {
		note := fmt.Sprintf(" (the error block was cut at %d bytes)", maxErrorBlock)
		pe.Message += note
		shown += note
	}
	return &fetch.Error{Kind: fetch.KindServer, Op: "gopher+", Offset: -1, Code: pe.Code, Reply: shown, Err: pe}
}

// parsePlusError splits an error block: "<code> <contact>" then message.
func parsePlusError(data string) *PlusError {
	lines := strings.Split(strings.ReplaceAll(data, "\r\n", "\n"), "\n")
	pe := &PlusError{}
	first := strings.TrimSpace(lines[0])
	code, contact, _ := strings.Cut(first, " ")
	if v, err := strconv.Atoi(code); err == nil {
		pe.Code = v
		pe.Contact = strings.TrimSpace(contact)
	} else {
		pe.Contact = first
	}
	var msg []string
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		if l == "" || l == "." {
			continue
		}
		msg = append(msg, l)
	}
	if pe.Code == 3 {
		// The error code is followed by the gopher descriptor of the
		// new place: on the first line, or as the message.
		for _, cand := range append([]string{strings.TrimSpace(contact)}, msg...) {
			if it, ok := parseItem(cand); ok && it.Host != "" {
				pe.MovedTo = it.URL("", 0)
				break
			}
		}
	}
	pe.Message = strings.Join(msg, " ")
	if pe.Message == "" {
		pe.Message = pe.Contact
	}
	return pe
}

// plainError recognises a plain Gopher reply that is only a type 3 error
// item (and info lines), as pygopherd sends for a missing selector, and
// turns it into an error. It looks at most 4 KiB ahead without consuming;
// a reply longer than that is left alone. A short document can look much
// the same (a table of tab-separated columns whose rows begin with "3"),
// so every line must be a whole menu item and the error item must point
// nowhere: no host, a stand-in such as error.host, or port 0.
func plainError(head []byte, b *bufio.Reader) error {
	it, ok := parseItem(strings.TrimRight(string(head), "\r\n"))
	if !ok || it.Type != '3' || !bytes.HasSuffix(head, []byte("\n")) || !nowhere(it) {
		return nil
	}
	more, err := b.Peek(4096)
	if err != io.EOF {
		return nil // more than a short error reply, or a failure the body will report
	}
	for _, l := range strings.Split(string(more), "\n") {
		l = strings.TrimRight(l, "\r")
		if l == "" || l == "." {
			continue
		}
		if next, ok := parseItem(l); !ok || next.Type != 'i' && next.Type != '3' {
			return nil
		}
	}
	return &fetch.Error{Kind: fetch.KindServer, Op: "gopher", Offset: -1, Reply: it.Name,
		Err: fmt.Errorf("%w: the server answered with an error item", fetch.ErrNotFound)}
}

// nowhere tells whether an error item's host and port name no server, as
// servers write them: pygopherd, gophernicus and Bucktooth "error.host",
// others "null.host", "(NULL)", "fake" or nothing.
func nowhere(it Item) bool {
	switch strings.ToLower(it.Host) {
	case "", "error.host", "null.host", "(null)", "fake", "none", "error":
		return true
	}
	return it.Port == 0
}

// menuError turns a menu that holds nothing but error items into an error.
func menuError(entries []fetch.Entry) error {
	var first string
	n := 0
	for _, e := range entries {
		switch e.Kind {
		case fetch.EntryError:
			if n == 0 {
				first = e.Name
			}
			n++
		case fetch.EntryText:
		default:
			return nil
		}
	}
	if n == 0 {
		return nil
	}
	return &fetch.Error{Kind: fetch.KindServer, Op: "gopher", Offset: -1, Reply: first,
		Err: fmt.Errorf("%w: the server answered with an error item", fetch.ErrNotFound)}
}

// lengthReader gives exactly left bytes of r; a close before that is
// fetch.ErrTruncated (Gopher+ "+N").
type lengthReader struct {
	r    io.Reader
	left int64
	got  int64
}

func (l *lengthReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	l.got += int64(n)
	if err == io.EOF {
		if l.left > 0 {
			return n, fmt.Errorf("%w: %d of the %d bytes announced by the Gopher+ length line arrived",
				fetch.ErrTruncated, l.got, l.got+l.left)
		}
		err = nil
	}
	if l.left == 0 && err == nil {
		return n, nil
	}
	return n, err
}

// rawLength passes the data of a "+N" reply through unchanged and fails
// with fetch.ErrTruncated if the close comes before N bytes. It counts
// the data alone, not the length line, so that no sum can overflow for an
// N near the largest int64.
type rawLength struct {
	r    io.Reader
	want int64
	got  int64
}

func (c *rawLength) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.got += int64(n)
	if err == io.EOF && c.got < c.want {
		return n, fmt.Errorf("%w: %d of the %d bytes announced by the Gopher+ length line arrived",
			fetch.ErrTruncated, c.got, c.want)
	}
	return n, err
}

// rawDot passes the data of a "+-1" reply through unchanged and fails
// with fetch.ErrTruncated if the close comes before the "." line that
// ends it. It ends the data where textReader does: a line holding only
// "." (with LF, CR LF, or the close after it). Bytes after that line are
// passed on too, as received, and do not make the reply short.
type rawDot struct {
	r     io.Reader
	state int // one of the dot* constants
}

// States of rawDot: where in a line the last byte left it.
const (
	dotLineStart = iota // at the start of a line
	dotOnly             // the line so far is "."
	dotCR               // the line so far is ".\r"
	dotInLine           // inside any other line
	dotEnded            // the "." line has arrived
)

func (c *rawDot) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.scan(p[:n])
	if err == io.EOF && c.state != dotEnded && c.state != dotOnly {
		// A "." just before the close ends the data, as in textReader.
		return n, fmt.Errorf("%w: the server closed before the \".\" line that ends the data", fetch.ErrTruncated)
	}
	return n, err
}

// scan moves the state over data.
func (c *rawDot) scan(data []byte) {
	for i := 0; i < len(data) && c.state != dotEnded; i++ {
		b := data[i]
		switch c.state {
		case dotLineStart:
			switch b {
			case '.':
				c.state = dotOnly
			case '\n':
			default:
				c.state = dotInLine
			}
		case dotOnly:
			switch b {
			case '\n':
				c.state = dotEnded
			case '\r':
				c.state = dotCR
			default:
				c.state = dotInLine
			}
		case dotCR:
			if b == '\n' {
				c.state = dotEnded
			} else {
				c.state = dotInLine
			}
		case dotInLine:
			// Skip to the line's end at once: most bytes are here.
			j := bytes.IndexByte(data[i:], '\n')
			if j < 0 {
				return
			}
			i += j
			c.state = dotLineStart
		}
	}
}

// netErr wraps a failure to talk to the server. The client names the URL
// in every error, once; the driver does not.
func netErr(_ *fetch.Request, op string, err error) error {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	return &fetch.Error{Kind: fetch.KindNetwork, Op: op, Offset: -1, Err: err}
}

// annotate gives a reading failure its kind (the client adds the URL): a
// bound passed (a menu's size, a line's) is a refusal by policy, exit 4.
func annotate(_ *fetch.Request, err error) error {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	k := fetch.KindOf(err)
	if k == fetch.KindUnknown {
		k = fetch.KindNetwork
	}
	return &fetch.Error{Kind: k, Op: "read reply", Offset: -1, Err: err}
}
