package fetch

import (
	"context"
	"errors"
	"io"
	"iter"
	"time"
)

// ResultKind says which of the four shapes a Result has.
type ResultKind string

// The shapes of a result.
const (
	KindDocument ResultKind = "document" // a streamed body
	KindListing  ResultKind = "listing"  // directory, menu, group, search results
	KindSession  ResultKind = "session"  // an interactive connection (telnet)
	KindSent     ResultKind = "sent"     // a message was delivered (mailto)
)

// Result is what dereferencing a URL produced. Exactly one of Document,
// Listing, Session and Sent is set, as Kind says.
type Result struct {
	Kind ResultKind
	// URL is the canonical URL of what was fetched: after redirects, or
	// with a trailing slash when a name turned out to be a directory.
	// Errors from the Document's Body name it, so it is not to be changed
	// while the body is read. It may be the request's own URL (Do copies
	// one only to remove a fragment): change a Clone.
	URL *URL

	Document *Document
	Listing  *Listing
	Session  Session
	Sent     *Sent

	// Native holds driver-specific values about the whole result; As
	// reaches them (and the Document's).
	Native []any `json:"-"`
}

// Close releases the result's connection, if it holds one.
func (r *Result) Close() error {
	if r == nil {
		return nil
	}
	if r.Document != nil && r.Document.Body != nil {
		return r.Document.Body.Close()
	}
	if r.Session != nil {
		return r.Session.Close()
	}
	if r.Listing != nil {
		return r.Listing.Close()
	}
	return nil
}

// Document is a resource's content, streamed from the server. Body
// returns an error rather than io.EOF when the transfer ends short of
// what the protocol announced.
type Document struct {
	Body     io.ReadCloser `json:"-"`
	MIMEType string        `json:"mime_type,omitempty"`
	Size     int64         `json:"size"` // -1 when unknown
	ModTime  time.Time     `json:"mod_time,omitzero"`
	// Offset is where Body starts within the resource when resuming.
	Offset int64 `json:"offset,omitempty"`
	// Meta holds protocol facts worth showing with --info (headers,
	// Gopher+ attributes, article headers), under the Meta* key constants
	// of this package and of the drivers: lower case, one spelling.
	Meta map[string]string `json:"meta,omitempty"`
	// Native holds driver-specific values (the FTP reply, Gopher+
	// attributes, NNTP article headers); As reaches them by type.
	Native []any `json:"-"`
}

// EntryKind says what a listing entry points at.
type EntryKind string

// Kinds of listing entries.
const (
	EntryFile    EntryKind = "file"
	EntryDir     EntryKind = "dir"
	EntryLink    EntryKind = "link"
	EntrySearch  EntryKind = "search"
	EntryText    EntryKind = "text"    // an informational line, not a link
	EntryError   EntryKind = "error"   // the server reported an error in place
	EntrySession EntryKind = "session" // telnet and tn3270 links
	EntryForm    EntryKind = "form"    // Gopher+ ASK items
	EntryRaw     EntryKind = "raw"     // a line the parser could not read, kept as is
	EntryOther   EntryKind = "other"
)

// Entry is one item of a listing. URL is absolute and fetchable by the
// client that produced it (empty only for text, error and raw lines).
type Entry struct {
	Name string    `json:"name"`
	URL  string    `json:"url,omitempty"`
	Kind EntryKind `json:"kind"`
	Type string    `json:"type,omitempty"` // MIME or protocol type
	// Item is the protocol's own type of the item: the gopher type
	// character ("0", "1", "7"), an FTP fact ("type=dir", "type=file").
	Item string `json:"item,omitempty"`
	// Native holds driver-specific values (a gopher.Item, ftp.Facts); As
	// reaches them by type.
	Native      []any     `json:"-"`
	Size        int64     `json:"size"` // -1 when unknown
	Date        time.Time `json:"date,omitzero"`
	Description string    `json:"description,omitempty"`
	Raw         string    `json:"raw,omitempty"` // the server's line, when kept
	// Score is a search hit's relevance on the server's own scale (a
	// WAIS score, 0 a score too); nil when the server rates none.
	Score *int64 `json:"score,omitempty"`
	// ID is the item's identifier at its server where the protocol has
	// one apart from its name (a WAIS document id), %-encoded.
	ID string `json:"id,omitempty"`
}

// Listing is a set of entries: a directory, a gopher menu, a news group,
// search results.
//
// A listing either holds its entries (Entries, for small listings) or
// streams them from the server (NewStreamListing), so that a million-entry
// menu or group list is handled in bounded memory. Read either kind the
// same way, one entry at a time:
//
//	for l.Next() {
//		use(l.Entry())
//	}
//	if err := l.Err(); err != nil { ... }
//
// A streaming listing holds its connection until the end is read or the
// Result is closed; an error the server causes mid-way (a reply past a
// bound, a dropped connection) is reported by Err. A listing is read by
// one goroutine at a time.
type Listing struct {
	Title string `json:"title,omitempty"`
	// Entries holds the entries of a listing held whole (Next walks it);
	// nil while a stream is being read (see ReadAll).
	Entries []Entry `json:"entries"`

	stream EntryStream
	pos    int // the next of Entries for Next
	cur    Entry
	err    error
	done   bool
	guard  func(error) error // the client's classification of stream errors
	cancel func()            // releases the fetch's context (Client.FetchURL)
}

// EntryStream is the source of a streaming listing's entries, written by
// a driver.
type EntryStream interface {
	// Next returns the next entry, or io.EOF after the last one. It is
	// not called again after it returns an error.
	Next() (Entry, error)
	// Close releases the connection or session; it is called once, at
	// the end of the stream or when the listing is closed early.
	Close() error
}

// NewStreamListing is a listing whose entries are read from s as the
// caller asks for them.
func NewStreamListing(title string, s EntryStream) *Listing {
	return &Listing{Title: title, stream: s}
}

// Streaming reports whether entries are still to be read from a stream.
func (l *Listing) Streaming() bool { return l != nil && l.stream != nil }

// Next advances to the next entry, reporting false at the end or on an
// error (see Err).
func (l *Listing) Next() bool {
	if l.done {
		return false
	}
	if l.stream == nil {
		if l.pos >= len(l.Entries) {
			l.done = true
			return false
		}
		l.cur = l.Entries[l.pos]
		l.pos++
		return true
	}
	e, err := l.stream.Next()
	if err != nil {
		if err == io.EOF {
			err = nil
		} else if l.guard != nil {
			err = l.guard(err)
		}
		l.finish(err)
		return false
	}
	l.cur = e
	return true
}

// Entry is the entry Next advanced to.
func (l *Listing) Entry() Entry { return l.cur }

// Err is the error that ended the listing early, nil after a clean end.
func (l *Listing) Err() error { return l.err }

// All yields each entry in turn, then a final non-nil error if the
// listing ended early: for e, err := range l.All() { ... }.
func (l *Listing) All() iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		for l.Next() {
			if !yield(l.Entry(), nil) {
				return
			}
		}
		if err := l.Err(); err != nil {
			yield(Entry{}, err)
		}
	}
}

// ReadAll reads the rest of a streaming listing into Entries and releases
// its connection: the compatibility path for callers that want a slice
// (small listings, tests). It returns what Err would.
func (l *Listing) ReadAll() error {
	if l == nil {
		return nil
	}
	if l.stream == nil {
		return l.err
	}
	var es []Entry
	for l.Next() {
		es = append(es, l.cur)
	}
	if es == nil {
		es = []Entry{}
	}
	l.Entries, l.pos = es, 0
	l.done = l.err != nil
	return l.err
}

// Close releases the listing's connection, if it still holds one. An
// entry left unread is not an error.
func (l *Listing) Close() error {
	if l == nil {
		return nil
	}
	if l.stream == nil {
		if c := l.cancel; c != nil {
			l.cancel = nil
			c()
		}
		return nil
	}
	return l.finish(nil)
}

// finish ends the stream once: it records err, closes the source and
// releases the fetch's context.
func (l *Listing) finish(err error) error {
	if l.err == nil {
		l.err = err
	}
	l.done = true
	var cerr error
	if s := l.stream; s != nil {
		l.stream = nil
		cerr = s.Close()
		if errors.Is(cerr, io.EOF) {
			cerr = nil
		}
	}
	if c := l.cancel; c != nil {
		l.cancel = nil
		c()
	}
	return cerr
}

// Guard is for the Client: it has each error of the stream passed through
// wrap and calls cancel when the listing ends or is closed.
func (l *Listing) Guard(wrap func(error) error, cancel func()) {
	l.guard, l.cancel = wrap, cancel
	if l.stream == nil && cancel != nil {
		// A listing held whole needs no context any more.
		l.cancel = nil
		cancel()
	}
}

// Session is a live interactive connection, such as a telnet login.
type Session interface {
	// Run connects the user's terminal (in, out) to the session until one
	// side closes or ctx ends.
	Run(ctx context.Context, in io.Reader, out io.Writer) error
	Close() error
}

// Sent confirms that a message was handed to a server.
type Sent struct {
	Server     string   `json:"server"`
	Recipients []string `json:"recipients"`
	MessageID  string   `json:"message_id,omitempty"`
	Reply      string   `json:"reply"` // the server's final reply, e.g. the queue id
}
