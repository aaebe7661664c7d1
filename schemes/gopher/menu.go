package gopher

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

// Item is one line of a gopher menu (RFC 1436 §3.8): type, display string,
// selector, host and port, and the Gopher+ field ("+" or "?") when the
// server sends one.
type Item struct {
	Type     byte
	Name     string
	Selector string
	Host     string
	Port     int
	Plus     string
}

// itemJSON is Item as JSON, with the type as a one-character string.
type itemJSON struct {
	Type     string `json:"type"`
	Name     string `json:"name"`
	Selector string `json:"selector"`
	Host     string `json:"host"`
	Port     int    `json:"port"`
	Plus     string `json:"plus,omitempty"`
}

// MarshalJSON writes the type as a string ("0", "1", "h"...).
func (it Item) MarshalJSON() ([]byte, error) {
	return json.Marshal(itemJSON{string([]byte{it.Type}), it.Name, it.Selector, it.Host, it.Port, it.Plus})
}

// UnmarshalJSON reads what MarshalJSON writes.
func (it *Item) UnmarshalJSON(b []byte) error {
	var j itemJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	*it = Item{Name: j.Name, Selector: j.Selector, Host: j.Host, Port: j.Port, Plus: j.Plus}
	if j.Type != "" {
		it.Type = j.Type[0]
	}
	return nil
}

// parseItem splits a menu line. Lines with fewer than the four
// tab-separated fields are not items (info lines without fields are
// accepted as such). Fields past the fifth are ignored (Gopher+ §2.1).
func parseItem(line string) (Item, bool) {
	if line == "" {
		return Item{}, false
	}
	it := Item{Type: line[0]}
	f := strings.Split(line[1:], "\t")
	it.Name = f[0]
	if len(f) < 4 {
		if it.Type == 'i' {
			if len(f) > 1 {
				it.Selector = f[1]
			}
			return it, true
		}
		return Item{}, false
	}
	it.Selector, it.Host = f[1], strings.TrimSpace(f[2])
	port := strings.TrimSpace(f[3])
	if len(f) > 4 && port != "" && !isPort(port) {
		// A tab in the display string (servers that put one there): a
		// selector holds no tab, so selector, host, port and the Gopher+
		// field are the last fields, the display string the rest.
		k := len(f) - 3 // the selector's index with no Gopher+ field
		switch strings.TrimSpace(f[len(f)-1]) {
		case "+", "?", "":
			k-- // the last field is the Gopher+ one
		}
		if k >= 2 && isPort(strings.TrimSpace(f[k+2])) {
			it.Name = strings.Join(f[:k], "\t")
			it.Selector, it.Host, port = f[k], strings.TrimSpace(f[k+1]), strings.TrimSpace(f[k+2])
			f = append([]string{it.Name}, f[k:]...)
		}
	}
	if port != "" {
		n, err := strconv.Atoi(port)
		if err != nil || n < 0 || n > 65535 {
			if it.Type == 'i' || it.Type == '3' {
				return it, true
			}
			return Item{}, false
		}
		it.Port = n
	}
	if len(f) > 4 {
		it.Plus = strings.TrimSpace(f[4])
	}
	return it, true
}

// URL is the item's URL (RFC 1738 §3.4, and the draft's conversion of
// links to other protocols): defHost and defPort stand in for a missing
// host or port. It is empty for items that are not links, and for items
// whose host cannot stand in a URL.
func (it Item) URL(defHost string, defPort int) string {
	return checkedURL(it.url(defHost, defPort))
}

// checkedURL is s when it parses as a URL that names its host, else "":
// a server's host field can hold anything, and one such as "#" or "/"
// would end the host before it began ("telnet://#/").
func checkedURL(s string) string {
	if s == "" {
		return ""
	}
	if u, err := fetch.Parse(s); err != nil || u.Slashes && u.Host == "" && u.Scheme != "file" {
		return ""
	}
	return s
}

func (it Item) url(defHost string, defPort int) string {
	host, port := it.Host, it.Port
	if host == "" {
		host = defHost
		if port == 0 {
			port = defPort
		}
	}
	if host == "" {
		return ""
	}
	switch it.Type {
	case 'i', '3':
		return ""
	case '8':
		return sessionURL("telnet", it.Selector, host, port)
	case 'T':
		return sessionURL("tn3270", it.Selector, host, port)
	case 'h':
		if rest, ok := strings.CutPrefix(it.Selector, "URL:"); ok {
			// Only an absolute URL that names its host (file: aside).
			if u, err := fetch.Parse(rest); err == nil && u.Scheme != "" && (!u.Slashes || u.Host != "" || u.Scheme == "file") {
				return u.String()
			}
		}
	case '7':
		// A search is linked without its words, so that fetching it asks.
		return URLString(host, port, it.Type, it.Selector, "", false, "", false)
	}
	switch it.Plus {
	case "+", "?":
		// RFC 1738 §3.4.4: Gopher+ items link to their default view, and
		// items with a form to the "?" form.
		return URLString(host, port, it.Type, it.Selector, "", true, it.Plus, true)
	}
	return URLString(host, port, it.Type, it.Selector, "", false, "", false)
}

// sessionURL is the telnet:// or tn3270:// URL of a type 8 or T item: the
// selector is the login name (RFC 1436 §3.8, as Lynx and LWP convert it).
func sessionURL(scheme, user, host string, port int) string {
	var b strings.Builder
	b.WriteString(scheme)
	b.WriteString("://")
	if user != "" {
		b.WriteString(fetch.Escape(user, ""))
		b.WriteByte('@')
	}
	b.WriteString(fetch.FormatHost(host)) // a host field "a#b" must not end the host at "#"
	if port != 0 && port != 23 {
		b.WriteString(":" + strconv.Itoa(port))
	}
	b.WriteByte('/')
	return b.String()
}

// typeStrings are the item types as Entry.Item strings, made once rather
// than for each of a menu's items.
var typeStrings = func() (t [256]string) {
	for i := range t {
		t[i] = string(rune(i))
	}
	return t
}()

// entry turns an item into a listing entry.
func (it Item) entry(defHost string, defPort int) fetch.Entry {
	// Item is the gopher type character; As reaches the whole Item of a
	// linked entry (text and error lines, often most of a menu, keep
	// their memory to the character alone).
	e := fetch.Entry{Name: it.Name, Size: -1, Item: typeStrings[it.Type]}
	switch it.Type {
	case 'i':
		e.Kind = fetch.EntryText
		return e
	case '3':
		e.Kind = fetch.EntryError
		return e
	}
	e.Native = []any{it}
	e.URL = it.URL(defHost, defPort)
	e.Type = mimeType(it.Type, it.Selector, "")
	switch {
	case it.Plus == "?" && it.Type != '7':
		e.Kind = fetch.EntryForm
	case it.Type == '1':
		e.Kind = fetch.EntryDir
	case it.Type == '7':
		e.Kind = fetch.EntrySearch
	case it.Type == '8' || it.Type == 'T':
		e.Kind = fetch.EntrySession
		e.Type = ""
	case it.Type == 'h' && strings.HasPrefix(it.Selector, "URL:") && !strings.HasPrefix(e.URL, "gopher:"):
		e.Kind = fetch.EntryLink
		e.Type = ""
	case it.Type == '2':
		e.Kind = fetch.EntryOther
	default:
		e.Kind = fetch.EntryFile
	}
	if e.URL == "" {
		e.Kind = fetch.EntryRaw
	}
	return e
}

// parseMenu reads a whole menu (RFC 1436 §3.8) into a listing held in
// memory: for ParseMenu and the fuzzer; the driver streams (menuStream).
func parseMenu(r io.Reader, host string, port int, limit int64, t fetch.Tracer) (*fetch.Listing, error) {
	m := newMenuStream(r, nil, host, port, limit, t)
	if err := m.prime(); err != nil {
		return nil, err
	}
	l := fetch.NewStreamListing(m.title, m)
	if err := l.ReadAll(); err != nil {
		return nil, err
	}
	return l, nil
}

// menuLookahead is how many text and error items the driver reads ahead
// at the start of a menu to tell an error reply from a menu (menuError).
const menuLookahead = 256

// menuStream reads a menu's items one at a time until its "." line or
// the close, at most limit bytes and maxMenuEntries items, tracing each
// line. Items whose host or port is missing are taken to be on
// host:port. Memory stays bounded by one line, whatever the menu's size.
type menuStream struct {
	lr      *io.LimitedReader
	wr      *wire.Reader
	conn    io.Closer // nil when there is nothing to release
	host    string
	port    int
	limit   int64
	prev    byte
	n       int // items read so far
	title   string
	pending []fetch.Entry // read ahead by prime
	end     bool
	annot   func(error) error
}

func newMenuStream(r io.Reader, conn io.Closer, host string, port int, limit int64, t fetch.Tracer) *menuStream {
	lr := &io.LimitedReader{R: r, N: limit + 1}
	return &menuStream{lr: lr, wr: wire.NewReader(lr, 0, t), conn: conn, host: host, port: port, limit: limit, prev: '1'}
}

// prime reads the title line and the leading text and error items, up to
// the first link (or menuLookahead items), so that the title is known and
// an error reply is told apart before the listing is returned.
func (m *menuStream) prime() error {
	for !m.end && len(m.pending) < menuLookahead {
		e, ok, err := m.read()
		if err != nil {
			return err
		}
		if !ok {
			continue
		}
		m.pending = append(m.pending, e)
		if e.Kind != fetch.EntryText && e.Kind != fetch.EntryError {
			break
		}
	}
	return nil
}

// Next returns the next item of the menu, io.EOF after the last.
func (m *menuStream) Next() (fetch.Entry, error) {
	if len(m.pending) > 0 {
		e := m.pending[0]
		m.pending = m.pending[1:]
		return e, nil
	}
	for !m.end {
		e, ok, err := m.read()
		if err != nil {
			if m.annot != nil {
				err = m.annot(err)
			}
			return fetch.Entry{}, err
		}
		if ok {
			return e, nil
		}
	}
	return fetch.Entry{}, io.EOF
}

// Close releases the connection.
func (m *menuStream) Close() error {
	m.end, m.pending = true, nil
	if m.conn == nil {
		return nil
	}
	c := m.conn
	m.conn = nil
	return c.Close()
}

// read reads one line; ok is false for a line that is no entry (blank,
// the title, the end).
func (m *menuStream) read() (e fetch.Entry, ok bool, err error) {
	line, err := m.wr.ReadLine()
	if err != nil && err != io.ErrUnexpectedEOF {
		if err == io.EOF {
			m.end = true
			return e, false, nil
		}
		if errors.Is(err, fetch.ErrLineTooLong) {
			err = fmt.Errorf("menu line: %w", err)
		}
		return e, false, err
	}
	// The menu's bytes are those its lines took, not what the reader
	// fetched ahead: bytes a server sends after the "." line are none.
	if read := m.limit + 1 - m.lr.N - int64(m.wr.B.Buffered()); read > m.limit {
		return e, false, fmt.Errorf("%w (a menu is limited to %d bytes)", fetch.ErrTooLarge, m.limit)
	}
	if line == "." {
		m.end = true
		return e, false, nil
	}
	if err != nil {
		m.end = true // the last line had no line end
	}
	e, ok = m.entry(line)
	if ok {
		if m.n++; m.n > maxMenuEntries {
			return e, false, fmt.Errorf("%w (a menu is limited to %d items)", fetch.ErrTooLarge, maxMenuEntries)
		}
	}
	return e, ok, nil
}

// entry parses one menu line; ok is false for blank and title lines.
func (m *menuStream) entry(line string) (fetch.Entry, bool) {
	if strings.TrimSpace(line) == "" {
		return fetch.Entry{}, false
	}
	it, ok := parseItem(line)
	if !ok {
		return fetch.Entry{Name: line, Kind: fetch.EntryRaw, Size: -1, Raw: line}, true
	}
	if it.Type == '+' {
		// RFC 1436: a redundant server for the item before.
		it.Type = m.prev
	}
	if it.Type != 'i' && it.Type != '3' {
		m.prev = it.Type
	}
	if it.Type == 'i' && it.Selector == "TITLE" && m.title == "" && m.n == 0 {
		m.title = it.Name // gophernicus' title line
		return fetch.Entry{}, false
	}
	e := it.entry(m.host, m.port)
	if e.Kind == fetch.EntryRaw {
		e.Raw = line
	}
	return e, true
}

// ParseMenu parses the bytes of a gopher menu into a listing, the way the
// driver does; host and port stand in for items that leave them out.
func ParseMenu(r io.Reader, host string, port int) (*fetch.Listing, error) {
	return parseMenu(r, host, port, defaultMaxMenu, nil)
}

// isMenuType reports the types whose reply is a menu.
func isMenuType(t byte) bool { return t == '1' || t == '7' }

// typeMIME maps gopher item types to MIME types (RFC 1436 §3.8, the
// Gopher+ additions and the types in common use since).
var typeMIME = map[byte]string{
	'0': "text/plain",
	'1': MenuMIMEType,
	'2': "text/plain", // CSO phone book
	'4': "application/mac-binhex40",
	'5': "application/octet-stream",
	'6': "text/x-uuencode",
	'7': MenuMIMEType,
	'9': "application/octet-stream",
	'g': "image/gif",
	'h': "text/html",
	'M': "message/rfc822",
	'P': "application/pdf",
	'p': "image/png",
	'c': "text/calendar",
	'x': "application/xml",
	'r': "application/rtf",
	'X': "application/xml",
}

// MenuMIMEType is the Gopher+ name of the menu view.
const MenuMIMEType = "application/gopher-menu"

// mimeType is the MIME type of an item: the Gopher+ view when plus names
// one (RFC 1738 §3.4.8), else the type's, refined by the selector's
// extension for the image, sound, movie and document types.
func mimeType(t byte, selector, plus string) string {
	if len(plus) > 1 && plus[0] == '+' {
		v, _, _ := strings.Cut(plus[1:], " ")
		v, _, _ = strings.Cut(v, "\t")
		if strings.Contains(v, "/") {
			return strings.ToLower(v)
		}
	}
	if m, ok := typeMIME[t]; ok {
		return m
	}
	byExt := func(prefix, def string) string {
		if ext := path.Ext(selector); ext != "" {
			if m := fetch.TypeByExtension(ext); m != "" && (prefix == "" || strings.HasPrefix(m, prefix)) {
				m, _, _ = strings.Cut(m, ";")
				return m
			}
		}
		return def
	}
	switch t {
	case 'I', ':':
		return byExt("image/", "application/octet-stream")
	case 's', '<':
		return byExt("audio/", "audio/basic")
	case ';':
		return byExt("video/", "application/octet-stream")
	case 'd':
		return byExt("", "application/octet-stream")
	}
	return "application/octet-stream"
}

var errNoForm = errors.New("the item has no +ASK form")

// isPort reports a menu item's port field: decimal digits, 0 to 65535.
func isPort(s string) bool {
	if s == "" || len(s) > 5 {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	n, _ := strconv.Atoi(s)
	return n <= 65535
}
