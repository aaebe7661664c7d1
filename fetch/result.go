package fetch

import (
	"context"
	"io"
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
}

// Listing is a set of entries: a directory, a gopher menu, a news group,
// search results.
type Listing struct {
	Title   string  `json:"title,omitempty"`
	Entries []Entry `json:"entries"`
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
