// Package wais is the fetch driver of wais: URLs (RFC 1738 §3.9): WAIS
// database searches and document retrieval over the WAIS protocol
// (Z39.50-1988 with the WAIS extensions; the codec is package apdu).
//
// URL grammar (RFC 1738 §3.9; the port defaults to 210):
//
//	wais://host:port/database                 a database to search
//	wais://host:port/database?search         a keyword search
//	wais://host:port/database/wtype/wpath     one document
//	wais://host:port/database/wtype/length/docid
//	                                          one document, as Lynx wrote it
//
// The last is Lynx's and libwww's form (HTWAIS.c), which RFC 1738's
// cannot be mistaken for: the document id is written field by field
// ("2=db;3=0%20812%20/srv/db/x.txt;") and rebuilt into the binary id the
// server gave; the length is a note (--info shows it), not a bound (see
// ParseURL).
//
// Access algorithm:
//
//   - database?search: one keyword search (a SearchAPDU of query type 3,
//     the decoded search as the seed words, "+" read as a space and "%2B"
//     as a plus, RFC 1630), sent as the first message: no Init, which no
//     server requires. The answer is
//     a listing of the document headers: headline, score, size, WAIS
//     types, source, each with its document URL. A search that matched
//     nothing is answered by freeWAIS with the database's catalog as a
//     single score-0 hit; the listing shows it as the catalog.
//   - a URL without a database, or a document URL without a document
//     id, is malformed (the URL view refuses it): nothing is sent.
//   - database alone: the search words come from Request.Query, else
//     from the prompter ("query"); with neither the fetch fails with
//     fetch.ErrNoAnswer.
//   - database/wtype/wpath: the wpath, %-decoded, is the document id sent
//     back byte for byte; type-1 queries ask for the document in slices of
//     Config.ChunkSize bytes until a slice comes back short or the server
//     says "Request out of range" (diagnostic SF). The body streams; its
//     MIME type follows from wtype (TEXT is text/plain, HTML text/html,
//     WSRC application/x-wais-source, GIF image/gif...). The size is known
//     only when the first slice is the last; the metadata (--info) shows
//     the length and headline a freeWAIS document id implies ("start end
//     path").
//   - Request.Offset resumes: the first slice starts there, and the
//     Document's Offset says so. A slice at the offset that finds nothing
//     is followed by one for the byte before it: the document ends
//     exactly at the offset (an empty body) or before it, which fails as
//     the file and ftp drivers fail (KindServer, "cannot resume at byte
//     N").
//   - The first slice is asked for before Fetch returns, --info too: a
//     document has no other request that tells whether it exists (nor a
//     size), and the Request does not say that the body will go unread.
//     What the first slice holds reaches the body, and an archive's
//     Capture, only when it is read.
//
// Listing entries are built as wais://host:port/database/wtype/wpath, the
// wtype the first type of the header (TEXT when none) and the wpath the
// document id with every octet but RFC 1738's unreserved ones %-encoded,
// so any document id, binary or not, comes back as it was sent.
//
// The database, the wtype and the search words are text the server reads
// as C strings: a CR, LF or NUL in them is refused (fetch.ErrUnsafeLine).
// The document id is binary data (freeWAIS ids hold NULs) and is sent as
// is.
//
// Diagnostics become errors of kind fetch.KindServer (exit 6) whose Reply
// is the code and text ("S1 The following database is not available:
// x"); errors.As gives the *Diagnostic. Every message read is bounded by
// Config.MaxMessage, every read by the idle timeout, and a message from
// its first byte to its last by the idle timeout too. A search's answer is
// bounded further by what it asked for: at most 2*MaxDocuments+16 records
// (headers and diagnostics) of at most 4 KiB each: more records is the
// server's error (apdu.ErrTooManyRecords, fetch.KindServer), more bytes a
// refusal like any oversized message (fetch.ErrTooLarge). A retrieval's
// answer is bounded by twice the ChunkSize and 64 KiB.
package wais

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
	"github.com/fetchproject/fetch/schemes/wais/apdu"
)

// Defaults for Config fields left zero.
const (
	// DefaultChunkSize is the slice a retrieval asks for: Lynx's, well
	// within the 100,000-byte buffer of freeWAIS-sf's server.
	DefaultChunkSize = 10000
	// DefaultMaxDocuments is how many headers a search asks for.
	DefaultMaxDocuments = 200
	// DefaultMaxMessage bounds one message read from the server.
	DefaultMaxMessage = 16 << 20
	// maxPosition is where byte positions end: freeWAIS keeps them in a
	// C long, 32 bits on the servers of its time.
	maxPosition = 1<<31 - 1
	// maxRecordBytes is what a search response may spend on one record
	// (a document header or a diagnostic) when its size is bounded: a
	// freeWAIS header (document id, headline, types, source, date) is a
	// few hundred bytes.
	maxRecordBytes = 4 << 10
	// maxSliceRecords bounds the records of a retrieval's response: a
	// slice comes as one text and perhaps a diagnostic ("out of range"),
	// and a flood of empty records (3 bytes each on the wire, some 150 in
	// memory) within the slice's byte bound is refused.
	maxSliceRecords = 64
)

// DefaultPort is WAIS's port (RFC 1738 §3.9).
const DefaultPort = 210

// serverName is what the header's server field carries (Lynx sends the
// same).
const serverName = "wais"

// Config holds the driver's settings.
type Config struct {
	ChunkSize    int // bytes a retrieval asks for at a time; DefaultChunkSize when 0
	MaxDocuments int // headers a search asks for; DefaultMaxDocuments when 0
	MaxMessage   int // largest message accepted; DefaultMaxMessage when 0
}

// Driver fetches wais: URLs.
type Driver struct {
	cfg Config
}

var (
	_ fetch.Driver        = (*Driver)(nil)
	_ fetch.DefaultPorter = (*Driver)(nil)
)

// New returns a driver with cfg.
func New(cfg Config) *Driver {
	if cfg.ChunkSize <= 0 {
		cfg.ChunkSize = DefaultChunkSize
	}
	if cfg.MaxDocuments <= 0 {
		cfg.MaxDocuments = DefaultMaxDocuments
	}
	if cfg.MaxMessage <= 0 {
		cfg.MaxMessage = DefaultMaxMessage
	}
	return &Driver{cfg: cfg}
}

// DefaultPort is 210.
func (d *Driver) DefaultPort() int { return DefaultPort }

// Diagnostic is a diagnostic record the server returned.
type Diagnostic struct {
	Code string // "S1", "SF"...
	Text string
}

func (e *Diagnostic) Error() string {
	return "WAIS diagnostic " + e.Code
}

// Fetch searches a database or retrieves a document.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	w, err := ParseURL(req.URL)
	if err != nil {
		return nil, err
	}
	if err := checkText(req, "database", w.Database); err != nil {
		return nil, err
	}
	if err := checkDatabase(w.Database); err != nil {
		return nil, err
	}
	if w.IsDoc {
		if err := checkText(req, "wtype", w.WType); err != nil {
			return nil, err
		}
		return d.retrieve(ctx, req, w)
	}
	words, err := searchWords(ctx, req, w)
	if err != nil {
		return nil, err
	}
	if err := checkText(req, "search", words); err != nil {
		return nil, err
	}
	return d.search(ctx, req, w.Database, words)
}

// searchWords is the search of w, or the per-request query when the URL
// names a database alone. It is the one place this driver reads a
// per-request input.
func searchWords(ctx context.Context, req *fetch.Request, w *URL) (string, error) {
	if w.HasSearch && strings.TrimSpace(w.Search) != "" {
		return w.Search, nil // "+" is a space there, read by ParseURL
	}
	// No words ("db" or "db?"): --query's, or the person's.
	if q := req.Query; q != "" {
		return q, nil
	}
	q, err := req.Prompt(ctx, fetch.Question{Field: "query", Label: "Search " + w.Database + " for"})
	if errors.Is(err, fetch.ErrNoAnswer) {
		return "", &fetch.Error{Kind: fetch.KindUsage, Part: "search", Offset: -1,
			Err: fmt.Errorf("%w: the URL names the database %q to search: add ?words to it or give --query", fetch.ErrNoAnswer, w.Database)}
	}
	return q, err
}

// checkText refuses a CR, LF or NUL in a part the server reads as a C
// string.
func checkText(req *fetch.Request, part, s string) error {
	if i := strings.IndexAny(s, "\r\n\x00"); i >= 0 {
		return &fetch.Error{Kind: fetch.KindPolicy, Op: "wais", Part: part, Offset: -1,
			Err: fmt.Errorf("%w (byte %d of the decoded %s)", fetch.ErrUnsafeLine, i, part)}
	}
	return nil
}

// maxDatabase is the longest database name sent: a SearchAPDU carries it
// in its counted header part, which holds 65,535 bytes in all.
const maxDatabase = 60 << 10

// checkDatabase refuses a database name that a SearchAPDU cannot carry as
// one name: one holding 0x1F, which separates the names of several
// databases there, or one too long for the APDU's header.
func checkDatabase(db string) error {
	if i := strings.IndexByte(db, apdu.DatabaseDelimiter); i >= 0 {
		return &fetch.Error{Kind: fetch.KindPolicy, Op: "wais", Part: "database", Offset: -1,
			Err: fmt.Errorf("byte %d of the decoded database is 0x1F, which separates database names in a WAIS search", i)}
	}
	if len(db) > maxDatabase {
		return &fetch.Error{Kind: fetch.KindPolicy, Op: "wais", Part: "database", Offset: -1,
			Err: fmt.Errorf("%w: a database name of %d bytes (a WAIS search carries at most %d)", fetch.ErrTooLarge, len(db), maxDatabase)}
	}
	return nil
}

// session is one connection to a WAIS server.
type session struct {
	req     *fetch.Request
	conn    net.Conn
	r       *bufio.Reader
	timer   *wire.ReplyTimer // under r: a message may take the idle timeout from its first byte to its last
	max     int              // largest message read
	records int              // most records a response may hold; 0 for no bound
	tee     io.Writer        // the next response message as received, for an archive
}

func (d *Driver) dial(ctx context.Context, req *fetch.Request) (*session, error) {
	c, err := req.Dial(ctx, req.URL.HostPort(DefaultPort))
	if err != nil {
		return nil, err
	}
	timer := wire.NewReplyTimer(c)
	return &session{req: req, conn: c, r: bufio.NewReaderSize(timer, 64<<10), timer: timer, max: d.cfg.MaxMessage}, nil
}

// exchange sends one search and reads its response.
func (s *session) exchange(op string, q *apdu.Search) (*apdu.SearchResponse, error) {
	b, err := q.Marshal()
	if err != nil {
		return nil, &fetch.Error{Kind: fetch.KindPolicy, Op: op, Offset: -1, Err: err}
	}
	s.req.Trace(fetch.DirSent, fmt.Sprintf("%s: SearchAPDU, query type %s, %d bytes", op, q.QueryType, len(b)))
	if _, err := s.conn.Write(apdu.AppendMessage(nil, serverName, b)); err != nil {
		return nil, s.readErr(op, err)
	}
	var r io.Reader = s.r
	if s.tee != nil {
		r, s.tee = io.TeeReader(s.r, s.tee), nil
	}
	// A message is read whole, so it is bounded in time as a whole, as
	// an FTP reply is: each byte renews the idle timeout, and a server
	// trickling a search's answer or a slice would hold the fetch.
	s.timer.Begin(s.req.Options.Idle())
	_, m, err := apdu.ReadMessage(r, s.max)
	s.timer.End()
	if err != nil {
		return nil, s.readErr(op, err)
	}
	p, err := apdu.DecodeLimit(m, s.records)
	if errors.Is(err, apdu.ErrTooManyRecords) && q.Seeds != nil {
		err = fmt.Errorf("%w, for a search asking for at most %d documents", err, q.Seeds.MaxDocuments)
	}
	if err != nil {
		return nil, s.readErr(op, err)
	}
	resp, ok := p.(*apdu.SearchResponse)
	if !ok {
		return nil, s.readErr(op, fmt.Errorf("%w: a %T where a SearchResponse was due", apdu.ErrMalformed, p))
	}
	s.req.Trace(fetch.DirReceived, fmt.Sprintf("%s: SearchResponse, status %d, %d records, %d bytes", op, resp.Status, resp.RecordsReturned, len(m)))
	return resp, nil
}

func (s *session) netErr(op string, err error) error {
	return &fetch.Error{Kind: fetch.KindNetwork, Op: op, Offset: -1, Err: err}
}

// readErr classifies a failure to send a request or read its response: a
// connection the server closes before the response is whole is a
// truncated transfer (the document's end was never signalled), an oversized message a policy
// refusal, a malformed one the server's fault.
func (s *session) readErr(op string, err error) error {
	var tl *apdu.ErrTooLarge
	switch {
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return s.netErr(op, fmt.Errorf("%w: the connection closed before the server's response was complete", fetch.ErrTruncated))
	case errors.Is(err, syscall.EPIPE), errors.Is(err, syscall.ECONNRESET):
		return s.netErr(op, fmt.Errorf("%w: the server closed the connection: %w", fetch.ErrTruncated, err))
	case errors.As(err, &tl):
		return &fetch.Error{Kind: fetch.KindPolicy, Op: op, Offset: -1,
			Err: fmt.Errorf("%w: %v", fetch.ErrTooLarge, err)}
	case errors.Is(err, apdu.ErrMalformed):
		return &fetch.Error{Kind: fetch.KindServer, Op: op, Offset: -1, Err: err}
	}
	return s.netErr(op, err)
}

// diagErr is the error a diagnostic record becomes.
func (s *session) diagErr(op string, d apdu.Diagnostic) error {
	return &fetch.Error{Kind: fetch.KindServer, Op: op, Offset: -1,
		Reply: clip(strings.TrimSpace(d.Code + " " + d.Info)), Err: &Diagnostic{Code: d.Code, Text: d.Info}}
}

// clip keeps a server's text to a readable length and without controls.
func clip(s string) string {
	if len(s) > 300 {
		s = s[:300] + "..."
	}
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return '?'
		}
		return r
	}, s)
}

// --- search ------------------------------------------------------------------

func (d *Driver) search(ctx context.Context, req *fetch.Request, db, words string) (*fetch.Result, error) {
	s, err := d.dial(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.conn.Close()
	if req.Capture != nil {
		// An archive gets the search's response message as it came:
		// the 25-byte WAIS header and the SearchResponse APDU.
		s.tee = req.Capture.Payload(s.conn.RemoteAddr())
	}
	s.records, s.max = searchBounds(d.cfg.MaxDocuments, s.max)
	resp, err := s.exchange("search", apdu.NewKeywordSearch(db, words, d.cfg.MaxDocuments))
	if err != nil {
		return nil, err
	}
	var info apdu.ResponseInfo
	if resp.Info != nil {
		info = *resp.Info
	}
	if len(info.Headers) == 0 && len(info.Diagnostics) > 0 {
		return nil, s.diagErr("search", info.Diagnostics[0])
	}
	l := &fetch.Listing{Title: fmt.Sprintf("WAIS search of %s for %q", db, words)}
	catalog := len(info.Headers) == 1 && isCatalog(&info.Headers[0])
	if catalog && len(info.Diagnostics) > 0 {
		// freeWAIS adds the catalog to every answer without hits, a
		// failed search's (a diagnostic) too: the diagnostic is the
		// answer, not "no document matched".
		return nil, s.diagErr("search", info.Diagnostics[0])
	}
	if catalog {
		l.Title = fmt.Sprintf("WAIS search of %s for %q: no document matched; the database's catalog follows", db, words)
	}
	for i := range info.Headers {
		e, err := entry(req.URL, db, &info.Headers[i], catalog)
		if err != nil {
			return nil, err
		}
		l.Entries = append(l.Entries, e)
	}
	for _, dg := range info.Diagnostics {
		l.Entries = append(l.Entries, fetch.Entry{Name: clip(dg.Code + " " + dg.Info), Kind: fetch.EntryError, Size: -1})
	}
	u := req.URL.Clone()
	if !strings.Contains(u.Path, "?") {
		// "+" is a space in a search part: a real one is "%2B" (RFC 1630).
		u.Path += "?" + strings.ReplaceAll(fetch.Escape(words, ""), "+", "%2B")
	}
	return &fetch.Result{Kind: fetch.KindListing, URL: u, Listing: l}, nil
}

// searchBounds is how many records, and how many bytes (at most
// maxMessage), the answer to a search asking for maxDocs documents may
// hold. The server sends at most maxDocs headers; the bound leaves room
// for diagnostics beside them and for a server that overshoots the count
// it was given, and refuses the flood of tiny records that would cost far
// more memory than its bytes (and no listing could show anyway). The
// byte bound follows from the record bound, as a retrieval's follows
// from its slice.
func searchBounds(maxDocs, maxMessage int) (records, bytes int) {
	records = 2*maxDocs + 16
	bytes = maxMessage
	// Compared by division, so a large MaxDocuments cannot overflow.
	if records < (maxMessage-64<<10)/maxRecordBytes {
		bytes = records*maxRecordBytes + 64<<10
	}
	return records, bytes
}

// isCatalog recognises freeWAIS's answer to a search that matched
// nothing: one hit of score 0 whose headline names the catalog and says
// nothing matched ("Search produced no result. Here's the Catalog for
// database: db"). A real hit can score 0 too (freeWAIS-sf scores
// weight/1000), and may be named "catalog".
func isCatalog(h *apdu.DocHeader) bool {
	hl := strings.ToLower(h.Headline)
	if h.Score != 0 || !strings.Contains(hl, "catalog") {
		return false
	}
	for _, none := range []string{"no result", "no match", "no document", "nothing"} {
		if strings.Contains(hl, none) {
			return true
		}
	}
	return false
}

// entry is the listing entry of one document header.
func entry(base *fetch.URL, db string, h *apdu.DocHeader, catalog bool) (fetch.Entry, error) {
	// The URL asks for the document in its first type that a request
	// can carry (TEXT when it names none); a header without a document
	// id, or with no such type, gets none: this client would refuse it.
	wtype := ""
	for _, t := range h.Types {
		if t != "" && !strings.ContainsAny(t, "\r\n\x00") {
			wtype = t
			break
		}
	}
	if wtype == "" && !slices.ContainsFunc(h.Types, func(t string) bool { return t != "" }) {
		wtype = "TEXT"
	}
	var link string
	if len(h.DocID) > 0 && wtype != "" {
		u := base.Clone()
		u.Path = DocumentPath(db, wtype, h.DocID)
		u.HasPath = true
		u.Fragment, u.HasFragment = "", false
		link = u.String()
	}
	name := strings.TrimRight(h.Headline, " \t\r\n")
	switch {
	case catalog:
		name = "Catalog of database " + db + " (the search matched nothing)"
	case name == "":
		name = string(h.DocID)
	}
	e := fetch.Entry{
		Name: name,
		URL:  link,
		Kind: fetch.EntryFile,
		Type: strings.Join(h.Types, ","),
		Size: -1,
	}
	if link == "" {
		e.Kind = fetch.EntryText // a line of the listing, not a link
	}
	if h.Length >= 0 {
		e.Size = h.Length
	}
	var desc []string
	if catalog {
		desc = append(desc, "the server's headline: "+h.Headline)
	}
	if h.Score != apdu.Unused {
		score := h.Score
		e.Score = &score
		desc = append(desc, "score "+strconv.FormatInt(h.Score, 10))
	}
	if h.Lines != apdu.Unused {
		desc = append(desc, strconv.FormatInt(h.Lines, 10)+" lines")
	}
	if len(h.Types) > 0 {
		desc = append(desc, "types "+strings.Join(h.Types, " "))
	}
	if h.Source != "" {
		desc = append(desc, "source "+h.Source)
	}
	if h.Date != "" {
		desc = append(desc, "date "+h.Date)
	}
	e.ID = fetch.Escape(string(h.DocID), "")
	desc = append(desc, "docid "+e.ID)
	e.Description = clip(strings.Join(desc, "; "))
	return e, nil
}

// DocumentPath is the url-path of a document: database, wtype and the
// document id, each %-encoded but for RFC 1738's unreserved characters.
func DocumentPath(db, wtype string, docid []byte) string {
	return fetch.Escape(db, "") + "/" + fetch.Escape(wtype, "") + "/" + fetch.Escape(string(docid), "")
}

// --- retrieval ---------------------------------------------------------------

// mimeTypes maps WAIS types to MIME types (those Lynx knew, and a few the
// freeWAIS-sf indexer assigns).
var mimeTypes = map[string]string{
	"TEXT":      "text/plain",
	"WSRC":      "application/x-wais-source",
	"HTML":      "text/html",
	"TEXT-HTML": "text/html",
	"GIF":       "image/gif",
	"JPEG":      "image/jpeg",
	"TIFF":      "image/tiff",
	"PS":        "application/postscript",
	"DVI":       "application/x-dvi",
	"PDF":       "application/pdf",
}

// MIMEType is the MIME type a WAIS type implies; unknown types are
// application/octet-stream.
func MIMEType(wtype string) string {
	if m, ok := mimeTypes[strings.ToUpper(wtype)]; ok {
		return m
	}
	return "application/octet-stream"
}

func (d *Driver) retrieve(ctx context.Context, req *fetch.Request, w *URL) (*fetch.Result, error) {
	off := req.Offset
	switch {
	case off < 0:
		return nil, &fetch.Error{Kind: fetch.KindUsage, Op: "resume", Offset: -1,
			Err: fmt.Errorf("negative resume offset %d", off)}
	case off >= maxPosition:
		return nil, &fetch.Error{Kind: fetch.KindPolicy, Op: "resume", Offset: -1,
			Err: fmt.Errorf("%w: cannot resume at byte %d: a WAIS request addresses bytes before %d", fetch.ErrTooLarge, off, int64(maxPosition))}
	}
	s, err := d.dial(ctx, req)
	if err != nil {
		return nil, err
	}
	b := &body{s: s, db: w.Database, docid: []byte(w.WPath), wtype: w.WType, chunk: int64(d.cfg.ChunkSize), next: off}
	err = b.fetchChunk()
	if err == nil && off > 0 && b.done && len(b.buf) == 0 {
		err = b.reaches(off)
	}
	if err != nil || b.done {
		s.conn.Close()
	}
	if err != nil {
		return nil, err
	}
	var rc io.ReadCloser = b
	if req.Capture != nil {
		// An archive gets the document's bytes as the slices carried them.
		rc = struct {
			io.Reader
			io.Closer
		}{req.CapturePayload(b, s.conn.RemoteAddr()), b}
	}
	doc := &fetch.Document{Body: rc, MIMEType: MIMEType(w.WType), Size: -1, Offset: off, Meta: map[string]string{
		"wais-database": w.Database,
		"wais-type":     w.WType,
		"wais-docid":    fetch.Escape(w.WPath, ""),
	}}
	if b.done && b.err == nil {
		doc.Size = off + int64(len(b.buf)) // the first slice was the rest of the document
	}
	describeDocID(doc, b.docid)
	if _, ok := doc.Meta["length"]; !ok && w.Lynx {
		doc.Meta["length"] = strconv.FormatInt(w.Length, 10)
	}
	return &fetch.Result{Kind: fetch.KindDocument, Document: doc}, nil
}

// body streams a document slice by slice.
type body struct {
	s     *session
	db    string
	docid []byte
	wtype string
	chunk int64
	next  int64  // where the next slice starts
	buf   []byte // the current slice, not yet read
	done  bool   // no slice follows buf
	err   error  // what ends the document after buf

	closed atomic.Bool
}

// fetchChunk asks for the slice at b.next and keeps its text; done is
// set when the server says it was the last.
func (b *body) fetchChunk() error {
	start, end := b.next, min(b.next+b.chunk, maxPosition)
	if start >= maxPosition {
		return &fetch.Error{Kind: fetch.KindPolicy, Op: "retrieve", Offset: -1,
			Err: fmt.Errorf("%w: the document goes on past byte %d, the last a WAIS request can address", fetch.ErrTooLarge, start)}
	}
	text, last, err := b.slice(start, end)
	if err != nil {
		return err
	}
	b.buf, b.next, b.done = text, end, last
	return nil
}

// reaches checks that the document holds byte off-1, when a retrieval
// resumed at off found nothing there. A server answers a slice starting
// at the document's end as it answers one past it, with "out of range"
// and no text (freeWAIS-sf), so the byte before the offset tells a local
// copy that is already whole from one longer than the document, which is
// no part of it (as the file and ftp drivers refuse a resume past the
// end).
func (b *body) reaches(off int64) error {
	b.s.req.Trace(fetch.DirInfo, fmt.Sprintf("nothing at byte %d: asking for the byte before it, to tell the document's end from a shorter document", off))
	text, _, err := b.slice(off-1, off)
	if err != nil {
		return err
	}
	if len(text) == 0 {
		return &fetch.Error{Kind: fetch.KindServer, Op: "resume", Offset: -1,
			Err: fmt.Errorf("cannot resume at byte %d: the document ends before it", off)}
	}
	return nil
}

// slice asks for bytes [start, end) of the document: their text, and
// whether the server said the document ends there (the "out of range"
// diagnostic, or fewer bytes than asked for).
func (b *body) slice(start, end int64) (text []byte, last bool, err error) {
	// A slice's response holds the slice and a little framing: anything
	// much larger is refused before it is read.
	b.s.max = min(b.s.max, int(b.chunk)*2+64<<10)
	b.s.records = maxSliceRecords
	// An empty wtype ("db//id") is sent as TEXT, as the historical
	// client library does: freeWAIS-sf's server reads the type of every
	// retrieval and fails on a query without one.
	wtype := b.wtype
	if wtype == "" {
		wtype = "TEXT"
	}
	resp, err := b.s.exchange("retrieve", apdu.NewRetrieval(b.db, b.docid, wtype, start, end))
	if err != nil {
		return nil, false, err
	}
	var info apdu.ResponseInfo
	if resp.Info != nil {
		info = *resp.Info
	}
	for _, t := range info.Texts {
		if len(t.DocID) > 0 && !bytes.Equal(t.DocID, b.docid) {
			return nil, false, b.s.readErr("retrieve", fmt.Errorf("%w: the text returned belongs to another document", apdu.ErrMalformed))
		}
		text = append(text, t.Text...)
	}
	if int64(len(text)) > end-start {
		return nil, false, b.s.readErr("retrieve", fmt.Errorf("%w: %d bytes returned for a slice of %d", apdu.ErrMalformed, len(text), end-start))
	}
	outOfRange := false
	for _, dg := range info.Diagnostics {
		if dg.Code == "SF" && strings.Contains(strings.ToLower(dg.Info), "out of range") {
			outOfRange = true
			continue
		}
		return nil, false, b.s.diagErr("retrieve", dg)
	}
	if len(info.Texts) == 0 && !outOfRange {
		return nil, false, b.s.readErr("retrieve", fmt.Errorf("%w: a retrieval response with neither text nor diagnostic", apdu.ErrMalformed))
	}
	return text, outOfRange || int64(len(text)) < end-start, nil
}

func (b *body) Read(p []byte) (int, error) {
	if b.closed.Load() {
		return 0, net.ErrClosed
	}
	for len(b.buf) == 0 {
		if b.done {
			if b.err != nil {
				return 0, b.err
			}
			return 0, io.EOF
		}
		if err := b.fetchChunk(); err != nil {
			b.done, b.err = true, err
			b.s.conn.Close()
			return 0, err
		}
		if b.done {
			b.s.conn.Close() // the server is not held while the last slice is read
		}
	}
	n := copy(p, b.buf)
	b.buf = b.buf[n:]
	return n, nil
}

// Close ends the transfer; it may be called while a Read is blocked, so
// it only marks the body closed and closes the connection.
func (b *body) Close() error {
	b.closed.Store(true)
	b.s.conn.Close()
	return nil
}

// describeDocID adds what a freeWAIS document id tells about the
// document to its metadata, for --info: the local id, the byte length
// when the id carries a range, and the headline freeWAIS gives a
// plain-text file ("name   /directory/"). The length is not the Size:
// it is the server's note, not an announcement the transfer is held to.
func describeDocID(doc *fetch.Document, docid []byte) {
	id, ok := apdu.ParseDocID(docid)
	if !ok {
		return
	}
	local := id.Fields[apdu.DocIDDistributorLocalID]
	if local == "" {
		local = id.Fields[apdu.DocIDOriginalLocalID]
	}
	if local == "" {
		return
	}
	doc.Meta["wais-local-id"] = clip(local)
	l, ok := apdu.ParseLocalID(local)
	if !ok {
		return
	}
	if l.End > l.Start {
		doc.Meta["length"] = strconv.FormatInt(l.End-l.Start, 10)
	}
	if dir, name, ok := cutLast(l.Path, "/"); ok && name != "" {
		doc.Meta["headline"] = clip(name + "   " + dir + "/")
	}
}

func cutLast(s, sep string) (before, after string, ok bool) {
	if i := strings.LastIndex(s, sep); i >= 0 {
		return s[:i], s[i+len(sep):], true
	}
	return s, "", false
}
