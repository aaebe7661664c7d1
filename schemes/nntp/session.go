package nntp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

// maxBlockBytes and maxBlockLines bound a multi-line listing reply (LIST
// ACTIVE, OVER), so a server that never sends "." cannot fill memory while
// staying busy; Options.MaxSize lowers the byte bound.
const (
	maxBlockBytes = 64 << 20
	maxBlockLines = 1 << 20
)

// credentials for AUTHINFO; a missing one is asked of the prompter.
type credentials struct {
	user, pass       string
	hasUser, hasPass bool
	fromURL          bool // the user is an nntp URL's: a password that works is remembered
}

// session is one NNTP connection after the greeting.
type session struct {
	d    *Driver // whose pool the session returns to; nil: never pooled
	req  *fetch.Request
	conn net.Conn
	w    *wire.Conn   // commands and traced status lines
	data *wire.Reader // the same stream, untraced: article text and list data
	// timer bounds each status line in time, under w's reader (data
	// blocks are bounded in size, and their time is the caller's)
	timer *wire.ReplyTimer
	addr  string

	creds credentials
	caps  map[string]string // CAPABILITIES labels (upper case) → arguments; nil when unsupported

	reader    bool // the server is in reader mode (READER advertised, or MODE READER accepted)
	modeTried bool // MODE READER was sent
	authTried bool // AUTHINFO was sent
	selected  bool // a GROUP succeeded: switching modes now would lose it
	held      bool // a listing streams from the session and ends it (release)
}

// open connects to addr, reads the greeting and learns what the server
// offers, switching it to reader mode when it says that is needed.
func open(ctx context.Context, req *fetch.Request, addr string, creds credentials) (*session, error) {
	c, err := req.Dial(ctx, addr)
	if err != nil {
		return nil, err
	}
	s := &session{req: req, conn: c, addr: addr, creds: creds}
	s.timer = wire.NewReplyTimer(c)
	s.w = wire.NewConn(struct {
		io.Reader
		io.Writer
	}{s.timer, c}, 0, req.Options.Tracer)
	s.w.Mask = wire.MaskCommands("AUTHINFO PASS")
	// Data lines (articles, overviews, group lists) are not traced.
	s.data = s.w.R.Untraced()
	if err := s.greet(ctx); err != nil {
		c.Close()
		return nil, err
	}
	return s, nil
}

// greet reads the greeting (RFC 3977 §5.1: 200 posting allowed, 201 no
// posting) and the capabilities (§5.2), and sends MODE READER (§5.3) when
// the server advertises MODE-READER rather than READER.
func (s *session) greet(ctx context.Context) error {
	code, text, err := s.status(ctx, "greeting")
	if err != nil {
		return err
	}
	if code != 200 && code != 201 {
		return s.replyErr("greeting", "", code, text)
	}
	if err := s.capabilities(ctx); err != nil {
		return err
	}
	if s.caps != nil && !s.reader && s.hasCap("MODE-READER") {
		code, text, err := s.modeReader(ctx)
		if err != nil {
			return err
		}
		if code != 200 && code != 201 {
			return s.modeErr(code, text)
		}
	}
	return nil
}

// maxCapabilities bounds the lines of a CAPABILITIES reply, and
// maxCapabilityBytes their bytes: a line may be as long as any protocol
// line (64 KiB), and the list is kept for the session's life, pooled
// sessions included. A server lists a dozen capabilities in a few hundred
// bytes.
const (
	maxCapabilities    = 1000
	maxCapabilityBytes = 64 << 10
)

// capabilities sends CAPABILITIES; a server that does not know it (an
// RFC 977 server answers 500) leaves caps nil.
func (s *session) capabilities(ctx context.Context) error {
	if err := s.send(ctx, "CAPABILITIES", wire.Lit("CAPABILITIES")); err != nil {
		return err
	}
	code, _, err := s.status(ctx, "CAPABILITIES")
	if err != nil {
		return err
	}
	if code != 101 {
		s.caps = nil
		return nil
	}
	caps := map[string]string{}
	// Read whole before the fetch goes on: timed as a whole, as a
	// status line is.
	s.timer.Begin(s.req.Options.Idle())
	defer s.timer.End()
	lines, size := 0, 0
	err = s.readBlock(ctx, "CAPABILITIES", func(line string) error {
		s.req.Trace(fetch.DirReceived, line)
		// A server lists a dozen capabilities; each is held in a map,
		// so the list has bounds of its own, far below a data block's.
		if lines++; lines > maxCapabilities {
			return &fetch.Error{Kind: fetch.KindPolicy, Op: "CAPABILITIES", Offset: -1,
				Err: fmt.Errorf("%w: a capability list is limited to %d lines", fetch.ErrTooLarge, maxCapabilities)}
		}
		if size += len(line); size > maxCapabilityBytes {
			return &fetch.Error{Kind: fetch.KindPolicy, Op: "CAPABILITIES", Offset: -1,
				Err: fmt.Errorf("%w: a capability list is limited to %d bytes", fetch.ErrTooLarge, maxCapabilityBytes)}
		}
		label, args, _ := strings.Cut(strings.TrimSpace(line), " ")
		if label != "" {
			caps[strings.ToUpper(label)] = strings.TrimSpace(args)
		}
		return nil
	})
	if err != nil {
		return err
	}
	s.caps = caps
	if s.hasCap("READER") {
		s.reader = true
	}
	return nil
}

func (s *session) hasCap(label string) bool {
	_, ok := s.caps[label]
	return ok
}

// modeReader sends MODE READER once; on success the capabilities are
// asked again, as RFC 3977 §5.3 says they may change.
func (s *session) modeReader(ctx context.Context) (int, string, error) {
	s.modeTried = true
	if err := s.send(ctx, "MODE READER", wire.Lit("MODE READER")); err != nil {
		return 0, "", err
	}
	code, text, err := s.status(ctx, "MODE READER")
	if err != nil {
		return 0, "", err
	}
	if code == 200 || code == 201 {
		s.reader = true
		if s.caps != nil {
			if err := s.capabilities(ctx); err != nil {
				return 0, "", err
			}
		}
	}
	return code, text, nil
}

// modeErr is the error for a MODE READER that failed. RFC 3977 §5.3 gives
// 502 one meaning, reading service permanently unavailable, so it says so
// rather than guess at a cause.
func (s *session) modeErr(code int, text string) error {
	if code == 502 {
		return &fetch.Error{Kind: fetch.KindServer, Op: "MODE READER", Offset: -1, Code: code, Reply: clip(text),
			Err: fmt.Errorf("%w: the server does not permit reading news (reading service permanently unavailable)", fetch.ErrAuth)}
	}
	return s.replyErr("MODE READER", "", code, text)
}

// capLabel is the capability label a 401 reply names, its first word
// (RFC 3977 §3.2.1), in upper case as caps keeps them.
func capLabel(text string) string {
	f := strings.Fields(text)
	if len(f) == 0 {
		return ""
	}
	return strings.ToUpper(clip(f[0]))
}

// do sends a command and reads its status line. A 480 makes it
// authenticate and retry (RFC 4643 §2.1); a 401 MODE-READER makes it send
// MODE READER and retry (RFC 3977 §5.3: a transit server that knows reader
// commands but wants the switch first), and any other 401 is an error; a
// 500 or 502 before any group is selected, from a server not known to be
// in reader mode, makes it try MODE READER and retry (a transit-mode
// server that does not know reader commands). Each of these happens at
// most once on a connection. Other replies are the caller's to judge.
func (s *session) do(ctx context.Context, op string, parts ...wire.Part) (int, string, error) {
	for {
		if err := s.send(ctx, op, parts...); err != nil {
			return 0, "", err
		}
		code, text, err := s.status(ctx, op)
		if err != nil {
			return 0, "", err
		}
		switch {
		case code == 480 && !s.authTried:
			if err := s.authenticate(ctx, op, code, text); err != nil {
				return 0, "", err
			}
			continue
		case code == 401:
			// MODE READER once on a connection: a second 401 would
			// have it go round. After a GROUP the server was reading
			// already, and the switch would lose the group, so a 401
			// then is the server's own confusion, reported as it is.
			if capLabel(text) != "MODE-READER" || s.modeTried || s.selected {
				return 0, "", s.replyErr(op, "", code, text)
			}
			mc, mt, err := s.modeReader(ctx)
			if err != nil {
				return 0, "", err
			}
			if mc != 200 && mc != 201 {
				return 0, "", s.modeErr(mc, mt)
			}
			continue
		case (code == 500 || code == 502) && !s.reader && !s.modeTried && !s.selected:
			mc, _, err := s.modeReader(ctx)
			if err != nil {
				return 0, "", err
			}
			if mc == 200 || mc == 201 {
				continue
			}
		}
		return code, text, nil
	}
}

// authenticate runs AUTHINFO USER and, on 381, AUTHINFO PASS (RFC 4643
// §2.3). The password is masked in the trace by the connection's Mask.
func (s *session) authenticate(ctx context.Context, op string, code int, text string) error {
	s.authTried = true
	fail := func(cause error) error {
		return &fetch.Error{Kind: fetch.KindServer, Op: op, Offset: -1, Code: code, Reply: text,
			Err: fmt.Errorf("%w: the server wants AUTHINFO and no credentials were given: %w", fetch.ErrAuth, cause)}
	}
	if !s.creds.hasUser {
		u, err := s.req.Prompt(ctx, fetch.Question{Field: "user", Label: "News server " + s.addr + " user name"})
		if err != nil {
			return fail(err)
		}
		s.creds.user, s.creds.hasUser = u, true
	}
	c, t, err := s.doPlain(ctx, "AUTHINFO USER", wire.Lit("AUTHINFO USER "), wire.Arg("user", s.creds.user))
	if err != nil {
		return err
	}
	if c == 381 {
		if !s.creds.hasPass {
			p, err := s.req.Prompt(ctx, fetch.Question{Field: "password", Label: "News server " + s.addr + " password for " + s.creds.user, Secret: true})
			if err != nil {
				return fail(err)
			}
			s.creds.pass, s.creds.hasPass = p, true
		}
		c, t, err = s.doPlain(ctx, "AUTHINFO PASS", wire.Lit("AUTHINFO PASS "), wire.Arg("password", s.creds.pass))
		if err != nil {
			return err
		}
	}
	if c != 281 {
		if c < 400 {
			// 381 after the password, or anything else that is not success.
			return &fetch.Error{Kind: fetch.KindServer, Op: "AUTHINFO", Offset: -1, Code: c, Reply: t,
				Err: fmt.Errorf("%w: unexpected reply to AUTHINFO", fetch.ErrAuth)}
		}
		return s.replyErr("AUTHINFO", "user", c, t)
	}
	if s.d != nil && s.creds.fromURL && s.creds.hasPass {
		s.d.rememberPassword(s.creds.user, s.addr, s.creds.pass)
	}
	// RFC 4643 §2.5.1: capabilities may change after authentication.
	if s.caps != nil {
		return s.capabilities(ctx)
	}
	return nil
}

// doPlain sends a command and reads its status, with no retries.
func (s *session) doPlain(ctx context.Context, op string, parts ...wire.Part) (int, string, error) {
	if err := s.send(ctx, op, parts...); err != nil {
		return 0, "", err
	}
	return s.status(ctx, op)
}

func (s *session) send(_ context.Context, op string, parts ...wire.Part) error {
	if err := s.w.WriteLine(parts...); err != nil {
		var fe *fetch.Error
		if errors.As(err, &fe) {
			return fe
		}
		return s.ioErr(op, err)
	}
	return nil
}

// status reads one status line (RFC 3977 §3.2).
func (s *session) status(_ context.Context, op string) (int, string, error) {
	s.timer.Begin(s.req.IdleLimit()) // no request: a pooled session's QUIT
	line, err := s.w.R.ReadLine()
	s.timer.End()
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = fmt.Errorf("%w: the server closed the connection before replying", fetch.ErrTruncated)
		}
		return 0, "", s.readErr(op, "status line", err)
	}
	code, text, perr := parseStatus(line)
	if perr != nil {
		return 0, "", &fetch.Error{Kind: fetch.KindServer, Op: op, Offset: -1,
			Reply: clip(line), Err: perr}
	}
	return code, text, nil
}

// readBlock reads a multi-line data block (RFC 3977 §3.1.1) up to its "."
// line, undoing dot-stuffing, and hands each line to fn. A stream that
// ends first fails with fetch.ErrTruncated.
func (s *session) readBlock(_ context.Context, op string, fn func(line string) error) error {
	return s.readFrom(s.block(op), fn)
}

// readFrom calls fn with each line of the block b reads.
func (s *session) readFrom(b *blockReader, fn func(line string) error) error {
	for {
		line, err := b.next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if err := fn(line); err != nil {
			return err
		}
	}
}

// blockReader reads a data block a line at a time, within maxBlockLines
// and maxBlockBytes (or Options.MaxSize): for listings that stream.
type blockReader struct {
	s       *session
	op      string
	limit   int64
	size    int64
	n       int
	capture io.Writer // the listing's lines for an archive, or nil
}

// captured makes b copy the block's lines, dot-stuffing undone and each
// ended by CR LF as the protocol sends it, to the request's Capture: the
// raw form of a listing (an overview, the active list) for an archive.
func (s *session) captured(b *blockReader) *blockReader {
	if s.req.Capture != nil {
		b.capture = s.req.Capture.Payload(s.conn.RemoteAddr())
	}
	return b
}

func (s *session) block(op string) *blockReader {
	limit := int64(maxBlockBytes)
	if m := s.req.Options.MaxSize; m > 0 && m < limit {
		limit = m
	}
	return &blockReader{s: s, op: op, limit: limit}
}

// next is the block's next line, dot-stuffing undone; io.EOF after the
// "." line.
func (b *blockReader) next() (string, error) {
	line, err := b.s.data.ReadLine()
	if err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			err = fmt.Errorf("%w: the closing \".\" line never came", fetch.ErrTruncated)
		}
		return "", b.s.readErr(b.op, "line of a data block", err)
	}
	if line == "." {
		return "", io.EOF
	}
	if strings.HasPrefix(line, "..") {
		line = line[1:]
	}
	if b.size += int64(len(line)) + 2; b.n >= maxBlockLines || b.size > b.limit {
		return "", &fetch.Error{Kind: fetch.KindPolicy, Op: b.op, Offset: -1,
			Err: fmt.Errorf("%w: the reply passed %d lines or %d bytes", fetch.ErrTooLarge, maxBlockLines, b.limit)}
	}
	b.n++
	if b.capture != nil {
		io.WriteString(b.capture, line+"\r\n")
	}
	return line, nil
}

// readErr classifies a failure to read a line of the protocol element
// what ("status line"): a line past the bound is refused as a size bound
// (exit 4), naming what it was; anything else is ioErr's.
func (s *session) readErr(op, what string, err error) error {
	if errors.Is(err, fetch.ErrLineTooLong) {
		return &fetch.Error{Kind: fetch.KindPolicy, Op: op, Offset: -1, Err: fmt.Errorf("%s: %w", what, err)}
	}
	return s.ioErr(op, err)
}

// ioErr classifies a failure to read or write the connection.
func (s *session) ioErr(op string, err error) error {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	return &fetch.Error{Kind: fetch.KindNetwork, Op: op, Offset: -1, Err: err}
}

// replyErr turns an unwanted reply into an error that names what it
// means (RFC 3977 §3.2.1 and the command sections, RFC 4643 §2).
func (s *session) replyErr(op, part string, code int, text string) error {
	var cause error
	switch code {
	case 411:
		cause = fmt.Errorf("%w: no such newsgroup", fetch.ErrNotFound)
	case 412:
		cause = errors.New("no newsgroup selected")
	case 420, 423:
		cause = fmt.Errorf("%w: no article with that number", fetch.ErrNotFound)
	case 430:
		cause = fmt.Errorf("%w: no article with that message-id", fetch.ErrNotFound)
	case 480:
		cause = fmt.Errorf("%w: authentication required", fetch.ErrAuth)
	case 481:
		cause = fmt.Errorf("%w: the server rejected the user name or password", fetch.ErrAuth)
	case 482:
		cause = fmt.Errorf("%w: authentication commands out of sequence", fetch.ErrAuth)
	case 483:
		cause = fmt.Errorf("%w: the server requires an encrypted connection", fetch.ErrAuth)
	case 502:
		cause = fmt.Errorf("%w: access denied", fetch.ErrAuth)
	case 400:
		cause = errors.New("the news service is not available")
	case 401:
		// RFC 3977 §3.2.1: the client must first use the capability the
		// reply names.
		switch label := capLabel(text); {
		case label == "MODE-READER" && s.modeTried:
			cause = errors.New("the server still wants MODE READER, which was sent on this connection already")
		case label == "MODE-READER" && s.selected:
			cause = errors.New("the server wants MODE READER after a group was selected, which the switch would lose")
		case label == "":
			cause = errors.New("the server wants the connection's state changed first and names no capability")
		default:
			cause = fmt.Errorf("the server wants its %s capability used before this command, and this client does not use it", label)
		}
	case 500:
		cause = errors.New("the server does not know the command")
	case 501:
		cause = errors.New("the server rejected the command's syntax")
	case 503:
		cause = errors.New("the server does not offer this feature")
	default:
		cause = errors.New("unexpected reply")
	}
	return &fetch.Error{Kind: fetch.KindServer, Op: op, Part: part, Offset: -1,
		Code: code, Reply: clip(text), Err: cause}
}

// selectGroup sends GROUP (RFC 3977 §6.1.1) and reads its 211 reply.
func (s *session) selectGroup(ctx context.Context, group string, g *groupInfo) error {
	code, text, err := s.do(ctx, "GROUP", wire.Lit("GROUP "), wire.Arg("group", group))
	if err != nil {
		return err
	}
	if code != 211 {
		return s.replyErr("GROUP", "group", code, text)
	}
	info, err := parseGroupReply(text)
	if err != nil {
		return &fetch.Error{Kind: fetch.KindServer, Op: "GROUP", Offset: -1, Code: code, Reply: clip(text), Err: err}
	}
	if g != nil {
		*g = info
	}
	s.selected = true
	return nil
}

// quit ends the session politely and closes the connection; the reply to
// QUIT is not awaited.
func (s *session) quit() {
	s.w.WriteLine(wire.Lit("QUIT"))
	s.conn.Close()
}

// finish closes the session after a failure, and gives it back to the
// pool unless res holds a document or a listing streaming from it (those
// give it back when they end).
func (s *session) finish(res *fetch.Result, err error) (*fetch.Result, error) {
	if err != nil {
		s.conn.Close()
		return nil, err
	}
	if res.Document == nil && !s.held {
		s.release()
	}
	return res, nil
}

// endListing ends the session's part in a listing that streamed from it:
// back to the pool when the block was read to its end, a plain close when
// it was cut short (the rest of the block is still coming).
func (s *session) endListing(clean bool) error {
	if clean {
		s.release()
		return nil
	}
	return s.conn.Close()
}

// clip shortens server text kept in an error.
func clip(s string) string {
	const max = 512
	if len(s) > max {
		return s[:max] + "..."
	}
	return s
}

// wireArticleByID is ARTICLE <id> (RFC 3977 §6.2.1); the view has already
// refused ids with spaces, controls or angle brackets.
func wireArticleByID(id string) []wire.Part {
	return []wire.Part{wire.Lit("ARTICLE <"), wire.Arg("message-id", id), wire.Lit(">")}
}

// wireArticleByNumber is ARTICLE <number> in the selected group.
func wireArticleByNumber(n int64) []wire.Part {
	return []wire.Part{wire.Lit("ARTICLE " + strconv.FormatInt(n, 10))}
}
