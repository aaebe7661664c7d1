package mailto

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

// smtpMaxLine bounds one reply line (RFC 5321 §4.5.3.1.5 allows 512;
// go-smtp reads up to 2000).
const smtpMaxLine = 2000

// smtpMaxReplyLines bounds the lines of one multi-line reply read before
// TLS (the greeting, EHLO), so a server that never ends one cannot fill
// memory; an EHLO reply lists a few dozen extensions at most.
const smtpMaxReplyLines = 4096

// send hands msg to the submission server: EHLO, STARTTLS and AUTH when
// configured, MAIL FROM, one RCPT TO per recipient, DATA (RFC 5321 §3.3).
// It returns the server's final reply, which carries its queue id.
func (d *Driver) send(ctx context.Context, req *fetch.Request, m *draft, msg []byte) (string, error) {
	server := d.cfg.SMTPServer
	host, err := serverHost(req, server)
	if err != nil {
		return "", err
	}
	// A loopback server may have the password in clear text: it never
	// leaves this machine. Through a proxy (Options.Dialer, --socks5) the
	// loopback is the proxy's, and the password would cross the network.
	local := isLoopback(host) && req.Options.Dialer == nil
	if d.cfg.User != "" && !d.cfg.StartTLS && !local {
		e := req.Errorf(fetch.KindPolicy, "AUTH", "refusing to send the SMTP password in clear text to %s: enable STARTTLS", server)
		e.Setting = "mailto.Config.StartTLS"
		return "", e
	}
	if err := fetch.CheckLine("user", d.cfg.User); err != nil {
		return "", err
	}

	dialed, err := req.Dial(ctx, server)
	if err != nil {
		return "", err
	}
	defer dialed.Close()
	raw := &errConn{Conn: dialed}
	hello := helloName(raw)
	mask := authMask()

	var conn net.Conn
	if d.cfg.StartTLS {
		tc, greeting, err := startTLS(ctx, raw, req.Options.Tracer, hello, req.Options.Idle(), &tls.Config{
			ServerName:         host,
			InsecureSkipVerify: d.cfg.TLSInsecure,
		})
		if err != nil {
			if rerr := raw.readErr(); rerr != nil && fetch.KindOf(err) != fetch.KindNetwork {
				err = smtpError("STARTTLS", "", rerr)
			}
			return "", err
		}
		// go-smtp expects a greeting first; the server's own came before
		// STARTTLS, so it is replayed, untraced, above the TLS layer.
		conn = &greetedConn{Conn: wire.TraceConn(guardReplies(tc, req.Options.Idle(), true), req.Options.Tracer, mask), greeting: "220 " + greeting + "\r\n"}
	} else {
		conn = wire.TraceConn(guardReplies(raw, req.Options.Idle(), true), req.Options.Tracer, mask)
	}

	c := smtp.NewClient(conn)
	defer c.Close()
	c.CommandTimeout = req.Options.Idle()
	c.SubmissionTimeout = req.Options.Idle()
	fail := func(op, part string, err error) (string, error) {
		var se *smtp.SMTPError
		if rerr := raw.readErr(); rerr != nil && !errors.As(err, &se) {
			// net/textproto hands over a line cut short by a timeout or a
			// close as if complete; the connection's own error tells.
			err = fmt.Errorf("%w (the reply was cut short: %v)", rerr, err)
		}
		return "", smtpError(op, part, err)
	}

	if err := c.Hello(hello); err != nil {
		return fail("EHLO", "", err)
	}
	if d.cfg.User != "" {
		if ok, _ := c.Extension("AUTH"); !ok {
			return "", req.Errorf(fetch.KindServer, "AUTH", "%s offers no SMTP AUTH, and a user is configured", server)
		}
		if err := c.Auth(sasl.NewPlainClient("", d.cfg.User, d.cfg.Password)); err != nil {
			return fail("AUTH", "user", err)
		}
	}
	if err := c.Mail(m.From.Spec(), &smtp.MailOptions{UTF8: m.needsUTF8()}); err != nil {
		return fail("MAIL FROM", "from", err)
	}
	for _, a := range m.recipients() {
		if err := c.Rcpt(a.Spec(), nil); err != nil {
			_ = c.Reset() // send nothing to the others either
			_ = c.Quit()
			return fail("RCPT TO", "recipient <"+a.Spec()+">", err)
		}
	}
	w, err := c.Data()
	if err != nil {
		return fail("DATA", "", err)
	}
	if _, err := w.Write(msg); err != nil {
		return fail("DATA", "", err)
	}
	resp, err := w.CloseWithResponse()
	if err != nil {
		var se *smtp.SMTPError
		_, ferr := fail("DATA", "", err)
		var fe *fetch.Error
		if !errors.As(err, &se) && errors.As(ferr, &fe) {
			// The final dot may have reached the server, which may have
			// queued the message: never a failure to retry (a second
			// copy), whatever cut the reply short.
			fe.Err = fmt.Errorf("%w (%w: the message may have been sent)", fe.Err, fetch.ErrMaybeDone)
		}
		return "", ferr
	}
	_ = c.Quit()
	return "250 " + resp.StatusText, nil
}

// serverHost checks the configured "host:port" and returns its host.
func serverHost(req *fetch.Request, server string) (string, error) {
	host, port, err := net.SplitHostPort(server)
	if n, perr := strconv.Atoi(port); err != nil || host == "" || perr != nil || n < 1 || n > 65535 {
		shown, why := server, ""
		if at := strings.LastIndexByte(server, '@'); at >= 0 {
			// "user:password@host", as in a URL: never echoed.
			shown, why = "****"+server[at:], ", without a user or password"
		}
		e := req.Errorf(fetch.KindUsage, "mailto", "the SMTP server %q is not host:port%s", shown, why)
		e.Setting = "mailto.Config.SMTPServer"
		return "", e
	}
	return host, nil
}

// smtpError turns a go-smtp failure into a fetch.Error: a server reply
// keeps its code and text (KindServer); a broken connection is a network
// failure.
func smtpError(op, part string, err error) error {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		cause := fmt.Errorf("the server refused %s", op)
		switch {
		case op == "AUTH" && (se.Code == 535 || se.Code == 534):
			cause = fmt.Errorf("%w: the server refused the login", fetch.ErrAuth)
		case op == "RCPT TO" && (se.Code == 550 || se.Code == 551 || se.Code == 553):
			cause = fmt.Errorf("%w: the server refused the recipient", fetch.ErrNotFound)
		case op == "RCPT TO":
			cause = errors.New("the server refused the recipient")
		}
		return &fetch.Error{Kind: fetch.KindServer, Op: op, Part: part, Offset: -1, Code: se.Code, Reply: se.Message, Err: cause}
	}
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	k := fetch.KindOf(err)
	var pe textproto.ProtocolError
	switch {
	case errors.As(err, &pe):
		k = fetch.KindServer
	case k == fetch.KindUnknown:
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) {
			k = fetch.KindNetwork
		} else {
			k = fetch.KindServer
		}
	}
	return &fetch.Error{Kind: k, Op: op, Part: part, Offset: -1, Err: err}
}

// isLoopback reports a host that names this machine.
func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// helloName is the EHLO argument: the local address as an address literal
// (RFC 5321 §4.1.4 allows it when there is no meaningful host name).
func helloName(c net.Conn) string {
	if a, ok := c.LocalAddr().(*net.TCPAddr); ok {
		if ip4 := a.IP.To4(); ip4 != nil {
			return "[" + ip4.String() + "]"
		}
		return "[IPv6:" + a.IP.String() + "]"
	}
	return "localhost"
}

// authMask hides AUTH's initial response and every SASL line after it
// (RFC 4954 §4) in the trace, until the next SMTP command.
func authMask() func(string) string {
	inAuth := false
	return func(line string) string {
		up := strings.ToUpper(line)
		if strings.HasPrefix(up, "AUTH ") {
			inAuth = true
			if f := strings.Fields(line); len(f) > 2 {
				return f[0] + " " + f[1] + " ****"
			}
			return line
		}
		if inAuth {
			verb, _, _ := strings.Cut(up, " ")
			switch verb {
			case "MAIL", "RCPT", "DATA", "RSET", "QUIT", "NOOP", "EHLO", "HELO", "VRFY":
				inAuth = false
			default:
				return "****"
			}
		}
		return line
	}
}

// startTLS reads the greeting, says EHLO and upgrades the connection with
// STARTTLS (RFC 3207), tracing the clear-text part. It returns the TLS
// connection and the greeting's text. Bytes the server sends after its
// 220 and before the handshake would be read as if they came over TLS
// (the STARTTLS injection of CVE-2011-0411), so they end the session.
func startTLS(ctx context.Context, raw net.Conn, t fetch.Tracer, hello string, limit time.Duration, cfg *tls.Config) (net.Conn, string, error) {
	// The clear-text replies are guarded in time too; TLS reads raw.
	wc := wire.NewConn(guardReplies(raw, limit, false), smtpMaxLine, t)
	code, greeting, err := readReply(wc.R)
	if err != nil {
		return nil, "", err
	}
	if code != 220 {
		return nil, "", replyError("greeting", code, greeting)
	}
	if err := wc.WriteLine(wire.Lit("EHLO "), wire.Arg("hello", hello)); err != nil {
		return nil, "", fetch.Wrap(fetch.KindNetwork, "EHLO", err)
	}
	code, text, err := readReply(wc.R)
	if err != nil {
		return nil, "", err
	}
	if code != 250 {
		return nil, "", replyError("EHLO", code, text)
	}
	offered := false
	for _, l := range strings.Split(text, "\n")[1:] {
		if strings.EqualFold(strings.TrimSpace(l), "STARTTLS") {
			offered = true
		}
	}
	if !offered {
		return nil, "", &fetch.Error{Kind: fetch.KindServer, Op: "STARTTLS", Offset: -1,
			Err: errors.New("the server does not offer STARTTLS, and StartTLS is configured")}
	}
	if err := wc.WriteLine(wire.Lit("STARTTLS")); err != nil {
		return nil, "", fetch.Wrap(fetch.KindNetwork, "STARTTLS", err)
	}
	code, text, err = readReply(wc.R)
	if err != nil {
		return nil, "", err
	}
	if code != 220 {
		return nil, "", replyError("STARTTLS", code, text)
	}
	if wc.R.B.Buffered() > 0 {
		return nil, "", &fetch.Error{Kind: fetch.KindServer, Op: "STARTTLS", Offset: -1,
			Err: errors.New("the server sent data after its STARTTLS reply, before TLS began (RFC 3207 §6)")}
	}
	// Each read of raw waits at most the idle timeout, but a server that
	// sends a byte within each would hold the handshake for ever: it gets
	// the idle timeout as a whole, as the http driver's does.
	tc := tls.Client(raw, cfg)
	hctx, cancel := context.WithTimeout(ctx, limit)
	defer cancel()
	if err := tc.HandshakeContext(hctx); err != nil {
		if ctx.Err() == nil && hctx.Err() != nil {
			err = fmt.Errorf("%w: %v", fetch.ErrTimeout, err)
		}
		return nil, "", &fetch.Error{Kind: fetch.KindNetwork, Op: "TLS handshake", Offset: -1, Err: err}
	}
	if t != nil {
		t.Trace(fetch.DirInfo, "TLS "+tls.VersionName(tc.ConnectionState().Version)+" established with "+cfg.ServerName)
	}
	first, _, _ := strings.Cut(greeting, "\n")
	return tc, first, nil
}

// readReply reads one SMTP reply, joining the lines of a multi-line reply
// with "\n" (RFC 5321 §4.2).
func readReply(r *wire.Reader) (int, string, error) {
	var lines []string
	code := 0
	for {
		line, err := r.ReadLine()
		if errors.Is(err, fetch.ErrLineTooLong) {
			return 0, "", lineTooLong()
		}
		if err != nil {
			return 0, "", fetch.Wrap(fetch.KindNetwork, "read reply", err)
		}
		if len(line) < 3 || (len(line) > 3 && line[3] != ' ' && line[3] != '-') {
			return 0, "", &fetch.Error{Kind: fetch.KindServer, Op: "read reply", Offset: -1, Reply: line,
				Err: errors.New("malformed SMTP reply")}
		}
		n, err := strconv.Atoi(line[:3])
		if err != nil || n < 200 || n > 599 || (code != 0 && n != code) {
			return 0, "", &fetch.Error{Kind: fetch.KindServer, Op: "read reply", Offset: -1, Reply: line,
				Err: errors.New("malformed SMTP reply code")}
		}
		code = n
		if len(lines) >= smtpMaxReplyLines {
			return 0, "", replyTooLong()
		}
		if len(line) > 4 {
			lines = append(lines, line[4:])
		} else {
			lines = append(lines, "")
		}
		if len(line) == 3 || line[3] == ' ' {
			return code, strings.Join(lines, "\n"), nil
		}
	}
}

// replyError is an unexpected reply to op.
func replyError(op string, code int, text string) error {
	return &fetch.Error{Kind: fetch.KindServer, Op: op, Offset: -1, Code: code, Reply: text,
		Err: fmt.Errorf("unexpected reply to %s", op)}
}

// greetedConn yields greeting before the bytes of its connection.
type greetedConn struct {
	net.Conn
	greeting string
}

func (c *greetedConn) Read(p []byte) (int, error) {
	if c.greeting != "" {
		n := copy(p, c.greeting)
		c.greeting = c.greeting[n:]
		return n, nil
	}
	return c.Conn.Read(p)
}

// errConn remembers the first error a read from its connection returned.
type errConn struct {
	net.Conn
	mu  sync.Mutex
	err error
}

func (c *errConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if err != nil {
		c.mu.Lock()
		if c.err == nil {
			c.err = err
		}
		c.mu.Unlock()
	}
	return n, err
}

func (c *errConn) readErr() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// replyGuard bounds the replies read through it, whoever reads them: it
// sits under go-smtp, whose reader takes a reply of any number of lines
// and, behind an idle timeout that each byte renews, for any time. It
// fails the read that passes a bound: smtpMaxLine bytes a line,
// smtpMaxReplyLines lines a reply, and limit from a reply's first byte to
// its last. Where a reply ends is where its reader ends it (see ends),
// since a guard that saw an end the reader did not see would start its
// count and its clock again on every line.
type replyGuard struct {
	net.Conn
	limit     time.Duration
	textproto bool      // the reader is net/textproto's (go-smtp's), not readReply
	start     time.Time // of the reply being read; zero between replies
	lineLen   int       // bytes of the current line so far
	lines     int       // complete lines of the current reply
	head      [4]byte   // the current line's first bytes
	code      [3]byte   // the reply's code, once its first line continues it
	multi     bool      // the reply's first line continued it ("xyz-")
	err       error
}

// guardReplies guards the replies read from c by readReply, or with
// textproto by go-smtp's reader.
func guardReplies(c net.Conn, limit time.Duration, textproto bool) *replyGuard {
	return &replyGuard{Conn: c, limit: limit, textproto: textproto}
}

// ends tells whether the line just read (its lineLen bytes, newline
// included) ends the reply, as the guard's reader sees it (RFC 5321 §4.2:
// "xyz-" continues a reply, "xyz " or "xyz" ends it). readReply fails a
// reply whose lines change code or are malformed, so for it any line but
// "xyz-..." ends one. net/textproto continues a reply past such lines:
// once the first line is "xyz-", only "xyz " with the same code ends it,
// and a line of another code, a short one or one of any other shape is
// more of it.
func (g *replyGuard) ends() bool {
	cont := g.lineLen >= 5 && g.head[3] == '-'
	if !g.multi {
		if cont {
			g.multi, g.code = true, [3]byte(g.head[:3])
		}
		return !cont
	}
	if !g.textproto {
		return !cont
	}
	// A first line "abc-" or "099-" continues the reply with code 0
	// for net/textproto, which no line then has.
	return validCode(g.code) && g.lineLen >= 5 && g.head[3] == ' ' && [3]byte(g.head[:3]) == g.code
}

// validCode tells whether c is a reply code net/textproto reads as one:
// three digits, 100 or more.
func validCode(c [3]byte) bool {
	for _, b := range c {
		if b < '0' || b > '9' {
			return false
		}
	}
	return c[0] >= '1'
}

func (g *replyGuard) Read(p []byte) (int, error) {
	if g.err != nil {
		return 0, g.err
	}
	n, err := g.Conn.Read(p)
	for _, b := range p[:n] {
		if g.start.IsZero() {
			g.start = time.Now()
		}
		if g.lineLen < len(g.head) {
			g.head[g.lineLen] = b
		}
		g.lineLen++
		if b == '\n' {
			g.lines++
			if g.ends() {
				g.start, g.lines, g.multi = time.Time{}, 0, false // the reply is complete
			} else if g.lines >= smtpMaxReplyLines {
				g.err = replyTooLong()
			}
			g.lineLen, g.head = 0, [4]byte{}
		} else if g.lineLen > smtpMaxLine {
			g.err = lineTooLong()
		}
		if g.err != nil {
			return 0, g.err
		}
	}
	if !g.start.IsZero() && g.limit > 0 && time.Since(g.start) > g.limit {
		g.err = &fetch.Error{Kind: fetch.KindNetwork, Op: "read reply", Offset: -1,
			Err: fmt.Errorf("%w: one reply took more than %v (a reply is bounded by the timeout as a whole)", fetch.ErrTimeout, g.limit)}
		return 0, g.err
	}
	return n, err
}

func replyTooLong() error {
	return &fetch.Error{Kind: fetch.KindPolicy, Op: "read reply", Offset: -1,
		Err: fmt.Errorf("%w: an SMTP reply is limited to %d lines", fetch.ErrTooLarge, smtpMaxReplyLines)}
}

func lineTooLong() error {
	return &fetch.Error{Kind: fetch.KindPolicy, Op: "read reply", Offset: -1,
		Err: fmt.Errorf("%w: an SMTP reply line is limited to %d bytes", fetch.ErrLineTooLong, smtpMaxLine)}
}
