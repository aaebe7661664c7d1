package ftp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

// retrieve sends TYPE, EPSV or PASV (the data connection is dialled while
// the next commands run), SIZE (see countIn150), MDTM (unless the request
// does not want the time), REST and RETR for the URL's name. When
// RETR is refused with 550 and CWD <name> succeeds (tried only when no
// ;type= says the name is a file), the name is a directory: isDir is
// true and the session is inside it.
func (s *session) retrieve(ctx context.Context, fu *URL) (doc *fetch.Document, isDir bool, err error) {
	arg := s.pathArg(fu.Dirs, fu.Name)
	typ := transferType(fu.Type)
	if err := s.setType(typ); err != nil {
		return nil, false, err
	}
	offset := s.req.Offset
	if typ == "A" {
		// No byte count of a local copy names a place in the server's
		// file: servers count REST in the bytes they store (vsftpd) or
		// refuse it in ASCII mode (pyftpdlib: 501), while the copy has
		// local line ends, or with --raw the wire's CR LF. The document
		// comes whole (its Offset 0), and a caller writes it whole again.
		offset = 0
	}
	// In ASCII mode the size on the wire is not the file's. SIZE is left
	// out once this server's 150 replies have been seen to carry the same
	// count (see countIn150).
	askSize := typ == "I" && !(s.countIn150 && offset == 0)
	dc, err := s.startData(ctx, askSize || !s.req.NoModTime || offset > 0)
	if err != nil {
		return nil, false, err
	}
	defer func() {
		if err != nil || isDir {
			dc.close()
		}
	}()
	size := int64(-1)
	if askSize {
		if size, err = s.size(arg); err != nil {
			return nil, false, err
		}
	}
	var mod time.Time
	if !s.req.NoModTime {
		if r, err := s.cmd("MDTM", wire.Lit("MDTM "), wire.Arg("name", arg)); err != nil {
			return nil, false, err
		} else if r.Code == 213 {
			mod, _ = parseMDTM(strings.TrimSpace(r.Text()))
		}
	}
	if size >= 0 && offset > size {
		return nil, false, errorf(fetch.KindServer, "REST", "cannot resume at byte %d: the file has %d bytes", offset, size)
	}
	if offset > 0 && size < 0 {
		// Without the file's size nothing tells the rest from the whole
		// file sent again by a server that accepts REST and ignores it:
		// the copy would be the partial one and then all of the file.
		return nil, false, errorf(fetch.KindServer, "REST", "cannot resume at byte %d: the server gives no size (SIZE) to check the rest against; fetch the file whole", offset)
	}
	if offset > 0 {
		r, err := s.cmd("REST", wire.Lit("REST "+strconv.FormatInt(offset, 10)))
		if err != nil {
			return nil, false, err
		}
		if r.Code != 350 {
			return nil, false, s.refused("REST", r, errors.New("the server cannot resume"))
		}
	}
	if err := dc.ready(); err != nil {
		return nil, false, err
	}
	r, err := s.cmd("RETR", wire.Lit("RETR "), wire.Arg("name", arg))
	if err != nil {
		return nil, false, err
	}
	if r.Class() != 1 && r.Class() != 2 {
		if offset > 0 {
			// The restart marker was not used: a server may keep it for
			// the next transfer command (RFC 3659 §5.3), the LIST below
			// or the next request's RETR on a pooled connection, which
			// would then start at this offset. REST 0 clears it, as
			// RFC 3659 §5.3 asks; a connection whose server refuses
			// that is not reused.
			zr, err := s.cmd("REST", wire.Lit("REST 0"))
			if err != nil {
				return nil, false, err
			}
			if zr.Code != 350 {
				s.noReuse = true
			}
		}
		if r.Code == 550 && fu.Type == 0 {
			// Perhaps a directory (RFC 1738 §3.2.2 does not say which a
			// name is; a CWD into it tells). Not when ";type=a" or
			// ";type=i" says it is a file, to be retrieved: its access
			// algorithm is RETR alone.
			s.leaveHome()
			s.atKnown = false
			cr, err := s.cmd("CWD", wire.Lit("CWD "), wire.Arg("name", arg))
			if err != nil {
				return nil, false, err
			}
			if cr.Class() == 2 {
				if s.method() != MethodNoCWD {
					s.at, s.atKnown = append(slices.Clip(fu.Dirs), fu.Name), true
				}
				return nil, true, nil
			}
		}
		return nil, false, s.refused("RETR", r, nil)
	}
	sizeAfter := ""
	if typ == "I" && offset == 0 {
		n, ok := byteCount(r)
		ok = ok && r.Class() == 1
		switch {
		case !askSize && ok:
			size = n
		case !askSize:
			// No count this time (a 125, a 150 without one, a 226 at
			// once): SIZE is asked once the data has ended, so that
			// this file is checked too, and before the next ones.
			s.countIn150 = false
			sizeAfter = arg
			s.req.Trace(fetch.DirInfo, "no byte count in this reply: SIZE is asked after the data, and before RETR again")
		case size >= 0:
			s.countIn150 = ok && n == size
			if s.countIn150 {
				s.req.Trace(fetch.DirInfo, "the server's 150 reply gives SIZE's count: SIZE is left out on this connection from now on")
			}
		default:
			// SIZE gave no count: the 150 reply's, if any, bounds
			// the data.
			s.countIn150 = false
			if ok {
				size = n
			}
		}
	}
	data, err := dc.conn(ctx)
	if err != nil {
		return nil, false, err
	}
	data = s.req.CaptureReads(data) // the file as sent, before ASCII conversion
	t := &transfer{s: s, data: data, want: -1, final: r.Class() == 2, sizeAfter: sizeAfter}
	if size >= 0 {
		t.want = size - offset
	}
	doc = &fetch.Document{Body: t, Size: size, ModTime: mod, Offset: offset, MIMEType: guessMIME(fu.Name),
		Native: []any{Reply(r)}}
	if fu.Type == 'a' {
		doc.MIMEType = "text/plain"
		if !s.req.Raw {
			doc.Body = &asciiBody{transfer: t}
		}
	}
	return doc, false, nil
}

// byteCount reads the "(N bytes)" that many servers (vsftpd, ProFTPD,
// wu-ftpd) put at the end of RETR's 150 reply.
func byteCount(r reply) (int64, bool) {
	if len(r.Lines) == 0 {
		return 0, false
	}
	t := strings.TrimSuffix(strings.TrimSpace(r.Lines[len(r.Lines)-1]), ".")
	i := strings.LastIndexByte(t, '(')
	if i < 0 {
		return 0, false
	}
	num, ok := strings.CutSuffix(strings.ToLower(t[i+1:]), " bytes)")
	if !ok || num == "" || len(num) > 18 {
		return 0, false
	}
	for _, c := range num {
		if c < '0' || c > '9' {
			return 0, false
		}
	}
	n, err := strconv.ParseInt(num, 10, 64)
	return n, err == nil
}

// parseMDTM reads a 213 reply's time, YYYYMMDDHHMMSS[.sss] in UTC
// (RFC 3659 §2.3).
func parseMDTM(s string) (time.Time, error) {
	if i := strings.IndexByte(s, '.'); i >= 0 {
		s = s[:i]
	}
	if len(s) != 14 {
		return time.Time{}, fmt.Errorf("%w: MDTM time %q", ErrBadReply, clip(s))
	}
	return time.ParseInLocation("20060102150405", s, time.UTC)
}

// transfer is a RETR's data connection as a document body. The end of the
// data is only a success once the control connection says 2xx and the
// byte count matches SIZE; otherwise Read fails with fetch.ErrTruncated.
type transfer struct {
	s    *session
	data net.Conn
	n    int64 // bytes read from the data connection
	want int64 // bytes SIZE promised from the offset on, or -1
	// sizeAfter, when set, is the name to ask SIZE of after the final
	// reply: SIZE was left out and RETR's reply gave no count.
	sizeAfter string
	final     bool  // the final reply was read
	err       error // sticky: io.EOF after a good end
	shut      bool
}

func (t *transfer) Read(p []byte) (int, error) {
	if t.err != nil {
		return 0, t.err
	}
	n, err := t.data.Read(p)
	t.n += int64(n)
	switch {
	case err == nil:
		return n, nil
	case err == io.EOF:
		t.err = t.finish()
		if t.err == nil {
			t.err = io.EOF
		}
	default:
		t.err = &fetch.Error{Kind: fetch.KindNetwork, Op: "RETR", Offset: -1,
			Err: fmt.Errorf("data connection after %d bytes: %w", t.n, err)}
	}
	return n, t.err
}

// WriteToFile moves the file from the data connection into f without
// copying it through the process (fetch.FileWriter), where the system and
// f allow; the end is checked as Read checks it.
func (t *transfer) WriteToFile(f *os.File, max int64) (int64, error) {
	if t.err == io.EOF {
		return 0, nil
	}
	if t.err != nil {
		return 0, t.err
	}
	n, err := fetch.SpliceConn(t.data, f, max)
	t.n += n
	switch {
	case errors.Is(err, errors.ErrUnsupported) && n == 0:
		return 0, err
	case err == nil && (max < 0 || n < max):
		// the data connection ended
		if t.err = t.finish(); t.err == nil {
			t.err = io.EOF
			return n, nil
		}
		return n, t.err
	case err == nil:
		return n, nil // max moved; the next Read tells what follows
	case fetch.KindOf(err) == fetch.KindLocal:
		return n, err // writing f failed: the connection is as it was
	}
	t.err = &fetch.Error{Kind: fetch.KindNetwork, Op: "RETR", Offset: -1,
		Err: fmt.Errorf("data connection after %d bytes: %w", t.n, err)}
	return n, t.err
}

// finish reads the final reply after the data connection has ended.
func (t *transfer) finish() error {
	t.data.Close()
	if !t.final {
		t.final = true
		r, err := t.s.readReply("RETR")
		if err != nil {
			return t.truncated(fmt.Sprintf("no final reply after %d bytes (%v)", t.n, err), reply{})
		}
		if r.Class() != 2 {
			return t.truncated(fmt.Sprintf("the server ended the transfer after %d bytes", t.n), r)
		}
	}
	if err := t.askSize(); err != nil {
		return err
	}
	if t.want >= 0 && t.n < t.want {
		return t.truncated(fmt.Sprintf("%d of %d bytes", t.n, t.want), reply{})
	}
	return t.overlong()
}

// overlong is the error for a transfer of more bytes than SIZE (or the
// 150 reply's count) left from the offset: a server that said 350 to
// REST and sent the file from its start, or a file that changed. Those
// bytes are not the document asked for, whatever the final reply said.
func (t *transfer) overlong() error {
	if t.want < 0 || t.n <= t.want {
		return nil
	}
	return &fetch.Error{Kind: fetch.KindServer, Op: "RETR", Offset: -1,
		Err: fmt.Errorf("%d bytes arrived where %d were announced", t.n, t.want)}
}

// askSize sends the SIZE left out before RETR (sizeAfter), once the
// transfer's final reply is in, and sets want from its answer.
func (t *transfer) askSize() error {
	if t.sizeAfter == "" {
		return nil
	}
	name := t.sizeAfter
	t.sizeAfter = ""
	n, err := t.s.size(name)
	if err == nil && n >= 0 {
		t.want = n
	}
	return err
}

// size asks SIZE of name: the byte count of a 213 reply, -1 for any other
// reply or a count that is not one.
func (s *session) size(name string) (int64, error) {
	r, err := s.cmd("SIZE", wire.Lit("SIZE "), wire.Arg("name", name))
	if err != nil || r.Code != 213 {
		return -1, err
	}
	if n, err := strconv.ParseInt(strings.TrimSpace(r.Text()), 10, 64); err == nil && n >= 0 {
		return n, nil
	}
	return -1, nil
}

func (t *transfer) truncated(msg string, r reply) error {
	return &fetch.Error{Kind: fetch.KindNetwork, Op: "RETR", Offset: -1,
		Code: r.Code, Reply: clip(r.Text()), Err: fmt.Errorf("%w: %s", fetch.ErrTruncated, msg)}
}

// Close ends the transfer and gives the session back to the pool (or
// closes it after a failure). Closed before the end of the
// data, it still reads the final reply: a transfer whose bytes all came
// and that the server calls complete is not an error; anything else is
// fetch.ErrTruncated.
func (t *transfer) Close() error {
	if t.shut {
		return nil
	}
	t.shut = true
	var err error
	switch {
	case t.err == nil:
		t.data.Close()
		if t.final {
			// The server said 2xx before any data; nothing more to read.
			err = t.askSize()
			if err == nil && t.want >= 0 && t.n < t.want {
				err = t.truncated(fmt.Sprintf("closed after %d of %d bytes", t.n, t.want), reply{})
			}
			if err == nil {
				err = t.overlong()
			}
		} else {
			t.final = true
			r, rerr := t.s.readReply("RETR")
			switch {
			case rerr != nil:
				err = t.truncated(fmt.Sprintf("closed after %d bytes with no final reply", t.n), reply{})
			case r.Class() != 2 || t.want < 0 || t.n < t.want:
				err = t.truncated(fmt.Sprintf("closed after %d bytes", t.n), r)
			default:
				err = t.overlong()
			}
		}
		t.err = err
		if err != nil {
			t.s.nc.Close()
			return err
		}
	case t.err != io.EOF:
		t.data.Close()
		t.s.nc.Close()
		return t.err
	}
	t.s.done(true)
	return err
}

// asciiBody turns the line ends of a TYPE A transfer into the local "\n"
// (RFC 959 §3.1.1.1: ASCII data travels in NVT-ASCII form, where CR LF
// ends a line). A bare CR also becomes "\n", as curl does, so the output
// is the same as curl's for the same URL.
type asciiBody struct {
	*transfer
	buf   []byte
	out   []byte
	cr    bool // the last byte read was a CR held back
	ended error
}

// WriteToFile hides the transfer's: an ASCII file is converted as it is
// read, never moved into a file as sent.
func (a *asciiBody) WriteToFile(*os.File, int64) (int64, error) { return 0, errors.ErrUnsupported }

func (a *asciiBody) Read(p []byte) (int, error) {
	for len(a.out) == 0 {
		if a.ended != nil {
			return 0, a.ended
		}
		if cap(a.buf) == 0 {
			a.buf = make([]byte, 32<<10)
		}
		n, err := a.transfer.Read(a.buf[:cap(a.buf)])
		a.out = a.convert(a.out[:0], a.buf[:n])
		if err != nil {
			if a.cr {
				a.out = append(a.out, '\n')
				a.cr = false
			}
			a.ended = err
		}
	}
	n := copy(p, a.out)
	a.out = a.out[n:]
	return n, nil
}

func (a *asciiBody) convert(dst, src []byte) []byte {
	for _, c := range src {
		if a.cr {
			a.cr = false
			dst = append(dst, '\n')
			if c == '\n' {
				continue
			}
		}
		if c == '\r' {
			a.cr = true
			continue
		}
		dst = append(dst, c)
	}
	return dst
}

// maxListing and maxListingLines bound one listing: its bytes, line ends
// included, and its lines. The listing streams, so these bound the time a
// server can keep it going, not memory. The line bound is a variable so
// that a test can lower it and stay small.
const maxListing = 64 << 20

var maxListingLines = 1 << 20

// list lists the current directory (arg empty) or arg: MLSD when FEAT
// offers MLST (RFC 3659 §7), else LIST. dirs locate the entries' URLs.
// The listing streams from the data connection; the session is held
// until it ends or is closed.
func (s *session) list(ctx context.Context, dirs []string, arg string) (*fetch.Listing, error) {
	feats, err := s.feat()
	if err != nil {
		return nil, err
	}
	verb := "LIST"
	if _, ok := feats["MLST"]; ok {
		verb = "MLSD"
	}
	src, err := s.transferLines(ctx, verb, arg)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	conv := func(line string) (fetch.Entry, bool) {
		var e fetch.Entry
		var ok bool
		if verb == "MLSD" {
			e, ok = parseMLSD(line)
		} else {
			e, ok = parseList(line, now)
		}
		if !ok {
			return e, false // "." and ".."
		}
		if e.Kind != fetch.EntryRaw && e.Kind != fetch.EntryText {
			e.URL = s.entryURL(dirs, e.Name, e.Kind == fetch.EntryDir)
			if e.Kind == fetch.EntryFile {
				e.Type = guessMIME(e.Name)
			}
		}
		return e, true
	}
	return fetch.NewStreamListing("/"+strings.Join(dirs, "/"), &entryStream{src: src, conv: conv}), nil
}

// nameList is ;type=d: NLST <name>, each line a name (RFC 1738 §3.2.2).
// Servers answer NLST of a directory with bare names or with
// "<name>/entry"; both are placed inside <name>.
func (s *session) nameList(ctx context.Context, fu *URL) (*fetch.Listing, error) {
	src, err := s.transferLines(ctx, "NLST", s.pathArg(fu.Dirs, fu.Name))
	if err != nil {
		return nil, err
	}
	dirs := fu.Dirs
	arg := s.pathArg(fu.Dirs, fu.Name)
	// The prefix a server puts before each entry: the argument and one
	// "/" (nocwd's argument of a directory ends in "/" already:
	// "NLST pub/" may give "pub/x"; "NLST /" gives "/x").
	prefix := arg
	if arg != "" && !strings.HasSuffix(arg, "/") {
		prefix += "/"
	}
	if fu.Name != "" {
		dirs = append(append([]string(nil), fu.Dirs...), fu.Name)
	}
	conv := func(line string) (fetch.Entry, bool) {
		if line == "" {
			return fetch.Entry{}, false
		}
		name := line
		d := dirs
		switch {
		case fu.Name != "" && name == arg:
			// NLST of a single file names the file itself.
			d, name = fu.Dirs, fu.Name
		case arg != "" && strings.HasPrefix(name, arg+"/"):
			name = name[len(arg)+1:]
		case prefix != "" && strings.HasPrefix(name, prefix) && len(name) > len(prefix):
			name = name[len(prefix):]
		}
		if name == "." || name == ".." {
			return fetch.Entry{}, false
		}
		return fetch.Entry{Name: name, Kind: fetch.EntryOther, Size: -1, URL: s.entryURL(d, name, false), Raw: line}, true
	}
	return fetch.NewStreamListing("/"+strings.Join(dirs, "/"), &entryStream{src: src, conv: conv}), nil
}

// entryStream turns a listing's lines into entries as they are read; conv
// reports false for lines that are no entry.
type entryStream struct {
	src  *listLines
	conv func(string) (fetch.Entry, bool)
}

func (e *entryStream) Next() (fetch.Entry, error) {
	for {
		line, err := e.src.next()
		if err != nil {
			return fetch.Entry{}, err
		}
		if ent, ok := e.conv(line); ok {
			return ent, nil
		}
	}
}

// Close ends the transfer and the session: QUIT after a complete
// listing, a plain close when it was cut short.
func (e *entryStream) Close() error {
	l := e.src
	if l.s == nil {
		return nil
	}
	l.data.Close()
	if l.ended {
		l.s.done(true) // back to the pool: the final reply is read
	} else {
		l.s.nc.Close()
	}
	l.s = nil
	return nil
}

// listLines reads a listing's data connection a line at a time, within
// maxListing and maxListingLines; after the data it reads the final
// reply, which must be 2xx.
type listLines struct {
	s     *session
	verb  string
	r     reply // the reply to the command
	data  io.Closer
	lr    *wire.Reader
	total int
	n     int
	last  bool // the line read last had no line end: the data is over
	ended bool // the data and the final reply are read
}

// transferLines runs a listing command in ASCII mode and returns its
// lines to read; the data must end with a 2xx final reply.
func (s *session) transferLines(ctx context.Context, verb, arg string) (*listLines, error) {
	if err := s.setType("A"); err != nil {
		return nil, err
	}
	dc, err := s.openData(ctx)
	if err != nil {
		return nil, err
	}
	parts := []wire.Part{wire.Lit(verb)}
	if arg != "" {
		parts = append(parts, wire.Lit(" "), wire.Arg("path", arg))
	}
	r, err := s.cmd(verb, parts...)
	if err != nil {
		dc.close()
		return nil, err
	}
	if r.Class() != 1 && r.Class() != 2 {
		dc.close()
		return nil, s.refused(verb, r, nil)
	}
	data, err := dc.conn(ctx)
	if err != nil {
		dc.close()
		return nil, err
	}
	data = s.req.CaptureReads(data) // the listing as sent, before parsing
	return &listLines{s: s, verb: verb, r: r, data: data, lr: wire.NewReader(data, 0, nil)}, nil
}

// next is the listing's next line; io.EOF after the last, once the final
// reply said the transfer succeeded.
func (l *listLines) next() (string, error) {
	if l.last || l.ended {
		return "", l.end()
	}
	line, err := l.lr.ReadLine()
	switch {
	case err == io.EOF:
		return "", l.end()
	case err == io.ErrUnexpectedEOF: // last line without its end
		l.last = true
	case errors.Is(err, fetch.ErrLineTooLong):
		// A size bound, as the listing's own bounds below are.
		return "", &fetch.Error{Kind: fetch.KindPolicy, Op: l.verb, Offset: -1,
			Err: fmt.Errorf("listing line: %w", err)}
	case err != nil:
		return "", &fetch.Error{Kind: fetch.KindNetwork, Op: l.verb, Offset: -1, Err: err}
	}
	l.total += len(line) + 2 // the line end
	if l.total > maxListing || l.n >= maxListingLines {
		return "", &fetch.Error{Kind: fetch.KindPolicy, Op: l.verb, Offset: -1,
			Err: fmt.Errorf("%w: a listing over %d bytes or %d lines", fetch.ErrTooLarge, maxListing, maxListingLines)}
	}
	l.n++
	return line, nil
}

// end closes the data connection and reads the final reply.
func (l *listLines) end() error {
	if l.ended {
		return io.EOF
	}
	l.data.Close()
	if l.r.Class() != 2 {
		fr, err := l.s.readReply(l.verb)
		if err != nil {
			return err
		}
		if fr.Class() != 2 {
			return &fetch.Error{Kind: fetch.KindNetwork, Op: l.verb, Offset: -1, Code: fr.Code, Reply: clip(fr.Text()),
				Err: fmt.Errorf("%w: the listing ended with a failure", fetch.ErrTruncated)}
		}
	}
	l.ended = true
	return io.EOF
}
