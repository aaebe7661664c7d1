package gopher

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// AttributesMIMEType is the MIME type the driver gives the reply to a "!"
// or "$" request (RFC 1738 §3.4.6): Gopher+ attribute blocks.
const AttributesMIMEType = "application/gopher+-attributes"

// MetaAttributes is the Document.Meta key holding the parsed attributes of
// a "!" or "$" reply as JSON ([]Attributes), when that JSON is at most
// 64 KiB; past that the key is absent and MetaAttributesOmitted says
// so. DocumentAttributes and Document.As(*[]Attributes) give attributes
// of any size.
const MetaAttributes = "gopher+.attributes"

// MetaAttributesOmitted is present, with the reason, when the JSON of the
// attributes was too long to go in MetaAttributes.
const MetaAttributesOmitted = "gopher+.attributes-omitted"

// maxMetaAttributes bounds the JSON kept in Meta. Meta holds facts to show
// with --info, one string per key; a directory's worth of attributes is
// better read from Native, which holds them parsed whatever their size,
// than copied again as one long string. 64 KiB holds the "$" of a
// directory of about 90 items from pygopherd (700 bytes of JSON each).
const maxMetaAttributes = 64 << 10

// Bounds of ParseAttributes on a reply of at most maxAttributes bytes.
// Parsed, a short line costs far more than its bytes: a 6-byte "+INFO"
// line becomes an Attributes and a Block (about 220 bytes), a 2-byte "+"
// line a Block (56), so 4 MiB of such lines came to hundreds of MiB.
// Real replies are sparser: pygopherd's "$" of a menu spends 184 bytes
// and 6 lines on each item (testdata/harness/gopher-observed). The bounds
// admit 10,000 such items, more than a gopher directory holds in practice,
// and hold the parse of any reply to a few tens of MiB.
// A +ASK line's tab-separated fields are kept one string each, 16 bytes
// for a 1-byte tab, so they have a bound of their own: 4 MiB of tabs in
// one line came to 64 MiB. A form offers a few dozen choices.
const (
	maxAttrItems = 10000
	maxAttrLines = 100000
	maxAskFields = 100000
)

// maxViewURLBytes bounds the URLs made for the +VIEWS lines of one
// reply, together. Each repeats its item's selector, so their size is
// the selector's times the views, not the reply's: a 128 KiB selector
// with 1,000 views took a GiB and 20 s. Past the bound a view is listed
// without a URL, as when its item names no host.
const maxViewURLBytes = 8 << 20

// Document.Meta keys of the gopher driver (Gopher+ §2.3-2.5).
const (
	MetaType     = "gopher.type"      // the item type asked for
	MetaLength   = "gopher+.length"   // the length a Gopher+ reply announced
	MetaView     = "gopher+.view"     // the view asked for (RFC 1738 §3.4.8)
	MetaLanguage = "gopher+.language" // the view's language
	MetaItems    = "gopher+.items"    // how many items an attribute reply holds
	MetaInfo     = "gopher+.info"     // the first item's URL, from its +INFO
	MetaAdmin    = "gopher+.admin."   // prefix: +ADMIN fields by lower-case name
	MetaViews    = "gopher+.views"    // the first item's views, comma-separated
	MetaAbstract = "gopher+.abstract" // the first item's +ABSTRACT
)

// Attributes are the Gopher+ attribute blocks of one item (Gopher+ §2.5,
// Appendix I): the +INFO item, +ADMIN, +VIEWS, +ABSTRACT and +ASK parsed,
// and every block as received in Blocks.
type Attributes struct {
	Info     *Item      `json:"info,omitempty"`
	URL      string     `json:"url,omitempty"` // the +INFO item's URL
	Admin    []Field    `json:"admin,omitempty"`
	ModDate  time.Time  `json:"mod_date,omitzero"` // from Mod-Date's <YYYYMMDDhhmmss>, taken as UTC
	Views    []View     `json:"views,omitempty"`
	Abstract string     `json:"abstract,omitempty"`
	Ask      []AskField `json:"ask,omitempty"`
	Blocks   []Block    `json:"blocks"`
}

// Field is a "Name: value" line of a block such as +ADMIN.
type Field struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// View is a +VIEWS line: a MIME type, an optional language, an optional
// approximate size ("<10k>"), and the URL that fetches that view.
type View struct {
	Type     string `json:"type"` // lower case (MIME types are case-insensitive)
	Language string `json:"language,omitempty"`
	Size     string `json:"size,omitempty"`  // as the server wrote it, without <>
	Bytes    int64  `json:"bytes,omitempty"` // Size in bytes, approximate; 0 when unknown
	URL      string `json:"url,omitempty"`   // sends the type as the server wrote it

	written string // the type as the server wrote it
}

// AskField is one line of a +ASK block (Gopher+ §2.8): Kind is Ask, AskP,
// AskL, AskF, Choose, ChooseF, Select or Note; Fields are the tab-separated
// defaults or choices.
type AskField struct {
	Kind   string   `json:"kind"`
	Label  string   `json:"label"`
	Fields []string `json:"fields,omitempty"`
}

// Block is one attribute block as received: "+NAME: head" and its lines,
// each without the leading space.
type Block struct {
	Name  string   `json:"name"` // with its "+", e.g. "+ABSTRACT"
	Head  string   `json:"head,omitempty"`
	Lines []string `json:"lines,omitempty"`
}

// ParseAttributes parses the data of a "!" or "$" reply: blocks start with
// "+" in column 1, their lines with a space; each +INFO block starts the
// attributes of a new item. Lines it cannot place are kept in the block
// they follow. It fails, with fetch.ErrTooLarge, only for data of more
// than 10,000 items or 100,000 lines, or +ASK lines of more than 100,000
// tab-separated fields together.
func ParseAttributes(data []byte) ([]Attributes, error) {
	return parseAttributes(string(data))
}

// parseAttributes is ParseAttributes of a reply read as a string: every
// line and head it gives is a substring of s, which it does not copy.
func parseAttributes(s string) ([]Attributes, error) {
	var out []Attributes
	var cur *Attributes
	var blk *Block
	if s == "\n" || s == "\r\n" {
		return nil, nil // no lines, as for no data
	}
	// The blocks' lines follow one another in the reply: they are kept
	// in one slice, made once, of which each block has its part.
	all := make([]string, 0, min(strings.Count(s, "\n")+1, maxAttrLines))
	start := 0 // where blk's lines begin in all
	endBlock := func() {
		if blk != nil && len(all) > start {
			blk.Lines = all[start:len(all):len(all)]
		}
		start = len(all)
	}
	lines, fields := 0, 0
	for line := range strings.Lines(s) {
		if lines++; lines > maxAttrLines {
			return nil, errAttrLines
		}
		// CR LF or LF ends a line; a CR elsewhere is data.
		if strings.HasSuffix(line, "\r\n") {
			line = line[:len(line)-2]
		} else {
			line = strings.TrimSuffix(line, "\n")
		}
		if strings.HasPrefix(line, "+") {
			name, head := line, ""
			if i := strings.IndexByte(line, ':'); i >= 0 {
				name, head = line[:i], strings.TrimPrefix(line[i+1:], " ")
			} else if i := strings.IndexByte(line, ' '); i >= 0 {
				name, head = line[:i], line[i+1:]
			}
			endBlock()
			if name == "+INFO" || cur == nil {
				if len(out) == maxAttrItems {
					return nil, errAttrItems
				}
				out = append(out, Attributes{})
				cur = &out[len(out)-1]
			}
			cur.Blocks = append(cur.Blocks, Block{Name: name, Head: head})
			blk = &cur.Blocks[len(cur.Blocks)-1]
			continue
		}
		if blk == nil {
			// The first item, as cur is nil too: no bound to check.
			out = append(out, Attributes{Blocks: []Block{{}}})
			cur = &out[len(out)-1]
			blk = &cur.Blocks[0]
		}
		if blk.Name == "+ASK" {
			if fields += strings.Count(line, "\t"); fields > maxAskFields {
				return nil, errAskFields
			}
		}
		all = append(all, strings.TrimPrefix(line, " "))
	}
	endBlock()
	budget := maxViewURLBytes
	for i := range out {
		out[i].interpret(&budget)
	}
	return out, nil
}

// The errors of ParseAttributes past its bounds.
var (
	errAttrItems = fmt.Errorf("%w (an attribute reply is limited to %d items)", fetch.ErrTooLarge, maxAttrItems)
	errAttrLines = fmt.Errorf("%w (an attribute reply is limited to %d lines)", fetch.ErrTooLarge, maxAttrLines)
	errAskFields = fmt.Errorf("%w (an attribute reply's +ASK lines are limited to %d fields)", fetch.ErrTooLarge, maxAskFields)
)

// interpret fills the parsed fields from the blocks; the views' URLs
// take their bytes from budget, and are left out once it is spent.
func (a *Attributes) interpret(budget *int) {
	var viewBase string // the +INFO item's URL with an empty Gopher+ string; made once
	for _, b := range a.Blocks {
		switch b.Name {
		case "+INFO":
			if it, ok := parseItem(b.Head); ok {
				a.Info = &it
				a.URL = it.URL("", 0)
			}
		case "+ADMIN":
			a.Admin = slices.Grow(a.Admin, len(b.Lines))
			for _, l := range b.Lines {
				name, value, ok := strings.Cut(l, ":")
				if !ok {
					continue
				}
				f := Field{Name: strings.TrimSpace(name), Value: strings.TrimSpace(value)}
				a.Admin = append(a.Admin, f)
				if f.Name == "Mod-Date" {
					a.ModDate = angleDate(f.Value)
				}
			}
		case "+VIEWS":
			// Grown once, as Admin and Ask: a reply may hold 100,000
			// lines of one block.
			a.Views = slices.Grow(a.Views, len(b.Lines))
			for _, l := range b.Lines {
				if v, ok := parseView(l); ok {
					if a.Info != nil && a.Info.Host != "" {
						if viewBase == "" {
							viewBase = URLString(a.Info.Host, a.Info.Port, a.Info.Type, a.Info.Selector, "", true, "", true)
						}
						// The type as the server wrote it ("Text/plain", as
						// in the Gopher+ text): a server that matches a
						// view's name exactly finds it.
						plus := "+" + v.written
						if v.Language != "" {
							plus += " " + v.Language
						}
						// URLString(..., plus, true), measured before it is made
						if ep := fetch.Escape(plus, urlGopherKeep); len(viewBase)+len(ep) <= *budget {
							*budget -= len(viewBase) + len(ep)
							v.URL = checkedURL(viewBase + ep)
						}
					}
					a.Views = append(a.Views, v)
				}
			}
		case "+ABSTRACT":
			a.Abstract = strings.Join(b.Lines, "\n")
		case "+ASK":
			a.Ask = slices.Grow(a.Ask, len(b.Lines))
			for _, l := range b.Lines {
				if f, ok := parseAskLine(l); ok {
					a.Ask = append(a.Ask, f)
				}
			}
		}
	}
}

// angleDate reads the <YYYYMMDDhhmmss> of a Mod-Date (Gopher+ A2.0).
func angleDate(v string) time.Time {
	i, j := strings.LastIndexByte(v, '<'), strings.LastIndexByte(v, '>')
	if i < 0 || j < i {
		return time.Time{}
	}
	t, err := time.Parse("20060102150405", v[i+1:j])
	if err != nil {
		return time.Time{}
	}
	return t
}

// parseView reads a +VIEWS line: "Content-Type[ language]: [<size>]".
func parseView(l string) (View, bool) {
	l = strings.TrimSpace(l)
	left, right, _ := strings.Cut(l, ":")
	// Read field by field rather than split: a line of 4 MiB of
	// one-letter words made 32 MiB of strings to join again.
	var typ string
	var lang strings.Builder
	if strings.ContainsAny(strings.TrimSpace(left), " \t") {
		lang.Grow(len(left)) // the most it can take, once
	}
	for f := range strings.FieldsSeq(left) {
		switch {
		case typ == "":
			typ = f
		case lang.Len() > 0:
			lang.WriteByte(' ')
			fallthrough
		default:
			lang.WriteString(f)
		}
	}
	if !strings.Contains(typ, "/") {
		return View{}, false
	}
	v := View{Type: strings.ToLower(typ), Language: lang.String(), written: typ}
	if i := strings.IndexByte(right, '<'); i >= 0 {
		if j := strings.IndexByte(right[i:], '>'); j > 0 {
			v.Size = right[i+1 : i+j]
			v.Bytes = approxBytes(v.Size)
		}
	}
	return v, true
}

// approxBytes reads sizes such as "10k", "1.5M", "300" ("<0k>" is 0).
func approxBytes(s string) int64 {
	s = strings.TrimSpace(s)
	mult := 1.0
	if s != "" {
		switch s[len(s)-1] {
		case 'k', 'K':
			mult, s = 1024, s[:len(s)-1]
		case 'm', 'M':
			mult, s = 1024*1024, s[:len(s)-1]
		case 'g', 'G':
			mult, s = 1024*1024*1024, s[:len(s)-1]
		case 'b', 'B':
			s = s[:len(s)-1]
		}
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || f < 0 || f > 1e15 {
		return 0
	}
	return int64(f * mult)
}

// parseAskLine reads "Kind: label[<tab>field...]".
func parseAskLine(l string) (AskField, bool) {
	kind, rest, ok := strings.Cut(l, ":")
	kind = strings.TrimSpace(kind)
	if !ok || kind == "" || strings.ContainsAny(kind, " \t") {
		return AskField{}, false
	}
	rest = strings.TrimPrefix(rest, " ")
	parts := strings.Split(rest, "\t")
	return AskField{Kind: kind, Label: parts[0], Fields: parts[1:]}, true
}

// attributesMeta is the Document.Meta of an attribute reply: the JSON of
// every item's attributes (when short enough), and the main facts of the
// first item.
func attributesMeta(attrs []Attributes) map[string]string {
	m := map[string]string{}
	if js, ok := attributesJSON(attrs); ok {
		m[MetaAttributes] = js
	} else {
		m[MetaAttributesOmitted] = fmt.Sprintf("the attributes are longer than %d bytes as JSON; the document holds them all", maxMetaAttributes)
	}
	m[MetaItems] = strconv.Itoa(len(attrs))
	if len(attrs) == 0 {
		return m
	}
	a := attrs[0]
	if a.URL != "" {
		m[MetaInfo] = a.URL
	}
	for _, f := range a.Admin {
		m[MetaAdmin+strings.ToLower(f.Name)] = f.Value
	}
	if len(a.Views) > 0 {
		// Joined in one buffer, sized first: an item may have 100,000
		// views.
		n := 0
		for _, v := range a.Views {
			n += len(v.Type) + len(v.Language) + 3
		}
		var b strings.Builder
		b.Grow(n)
		for i, v := range a.Views {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strings.TrimSpace(v.Type + " " + v.Language))
		}
		m[MetaViews] = b.String()
	}
	if a.Abstract != "" {
		m[MetaAbstract] = a.Abstract
	}
	return m
}

// attributesJSON is the JSON of attrs, or false when it would be longer
// than maxMetaAttributes. Every block's name, head and lines are in the
// JSON, quoted, so attributes whose text alone passes the bound are not
// encoded at all.
func attributesJSON(attrs []Attributes) (string, bool) {
	n := 0
	for _, a := range attrs {
		for _, b := range a.Blocks {
			n += len(b.Name) + len(b.Head)
			for _, l := range b.Lines {
				n += len(l) + 2
			}
		}
	}
	if n > maxMetaAttributes {
		return "", false
	}
	js, err := json.Marshal(attrs)
	if err != nil || len(js) > maxMetaAttributes {
		return "", false
	}
	return string(js), true
}

// DocumentAttributes returns the parsed attributes of a document fetched
// with a "!" or "$" Gopher+ string, or false for any other document: those
// the driver put in Native, else those decoded from MetaAttributes. The
// slice may be the document's own.
func DocumentAttributes(doc *fetch.Document) ([]Attributes, bool) {
	if doc == nil || doc.MIMEType != AttributesMIMEType {
		return nil, false
	}
	var native []Attributes
	if doc.As(&native) {
		return native, true
	}
	js, ok := doc.Meta[MetaAttributes]
	if !ok {
		return nil, false
	}
	var attrs []Attributes
	if err := json.Unmarshal([]byte(js), &attrs); err != nil {
		return nil, false
	}
	return attrs, true
}

// RenderAttributes writes attributes for a person to read: each item's
// link, its administrator and date, its views with the URL of each, its
// abstract, its form, and any other block as received. The text goes to
// w as it is made, a buffer at a time: the rendering of a large reply is
// several times its size, and is never held whole.
func RenderAttributes(w io.Writer, attrs []Attributes) error {
	b := bufio.NewWriter(w) // its first failed write fails the rest, and Flush
	for i, a := range attrs {
		if i > 0 {
			b.WriteString("\n")
		}
		if a.Info != nil {
			fmt.Fprintf(b, "%s\n", a.Info.Name)
			if a.URL != "" {
				fmt.Fprintf(b, "  URL: %s\n", a.URL)
			}
		}
		for _, f := range a.Admin {
			fmt.Fprintf(b, "  %s: %s\n", f.Name, f.Value)
		}
		if len(a.Views) > 0 {
			b.WriteString("  Views:\n")
			for _, v := range a.Views {
				label := strings.TrimSpace(v.Type + " " + v.Language)
				if v.Size != "" {
					label += " <" + v.Size + ">"
				}
				if v.URL != "" {
					fmt.Fprintf(b, "    %s  %s\n", label, v.URL)
				} else {
					fmt.Fprintf(b, "    %s\n", label)
				}
			}
		}
		if a.Abstract != "" {
			b.WriteString("  Abstract:\n")
			for l := range strings.SplitSeq(a.Abstract, "\n") {
				fmt.Fprintf(b, "    %s\n", l)
			}
		}
		if len(a.Ask) > 0 {
			b.WriteString("  Form:\n")
			for _, f := range a.Ask {
				fmt.Fprintf(b, "    %s: %s", f.Kind, f.Label)
				if len(f.Fields) > 0 {
					fmt.Fprintf(b, " [%s]", strings.Join(f.Fields, " | "))
				}
				b.WriteString("\n")
			}
		}
		for _, blk := range a.Blocks {
			switch blk.Name {
			case "+INFO", "+ADMIN", "+VIEWS", "+ABSTRACT", "+ASK":
				continue
			}
			name := blk.Name
			if name == "" {
				name = "(no block)"
			}
			fmt.Fprintf(b, "  %s:", strings.TrimPrefix(name, "+"))
			if blk.Head != "" {
				fmt.Fprintf(b, " %s", blk.Head)
			}
			b.WriteString("\n")
			for _, l := range blk.Lines {
				fmt.Fprintf(b, "    %s\n", l)
			}
		}
	}
	return b.Flush()
}
