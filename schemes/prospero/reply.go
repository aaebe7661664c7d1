package prospero

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Attribute is one ATTRIBUTE line of a reply (protocol v5, "Link
// Attributes"):
//
//	ATTRIBUTE <applies-to> FIELD <name> <value>...
//	ATTRIBUTE <applies-to> INTRINSIC|APPLICATION <name> <value-type> <value>...
//
// dirsrv leaves the value type out of FIELD attributes it knows
// (ACCESS-METHOD among them) and writes it for the others; a FIELD line
// whose first value is SEQUENCE, LINK or FILTER is read as carrying it.
type Attribute struct {
	AppliesTo string   `json:"applies_to"` // OBJECT, CACHED, LINK, REPLACEMENT, ADDITIONAL
	Nature    string   `json:"nature"`     // FIELD, INTRINSIC, APPLICATION
	Name      string   `json:"name"`
	Type      string   `json:"type,omitempty"` // SEQUENCE, LINK, FILTER; "" when left out
	Value     []string `json:"value"`
}

// Link is one LINK line of a directory listing:
//
//	LINK <L|U> <target> <name> <host-type> <host> <hsoname-type> <hsoname> <version> ...
//
// with the ATTRIBUTE lines that follow it.
type Link struct {
	Type     string // L (normal) or U (union)
	Target   string // FILE, DIRECTORY, DIRECTORY+FILE, OBJECT, EXTERNAL, SYMBOLIC, NULL
	Name     string
	HostType string
	Host     string // may carry "(port)"
	NameType string
	HSOName  string
	Version  string
	Attrs    []Attribute
}

// Reply is a parsed reply to one request.
type Reply struct {
	Attrs      []Attribute // not attached to a link (GET-OBJECT-INFO)
	NoneFound  bool
	Forwarded  *Link // FORWARDED: where the object moved (Name empty)
	Unresolved string
	Warnings   []string
	// linkText is the reply's text from its first LINK line, read again
	// for its links (readLinks) rather than held as Links: a listing
	// makes them into entries one at a time, and 100,000 links held
	// took 15 MB beside the reply's 4 MiB.
	linkText string
}

// ReplyError is a FAILURE, ERROR or VERSION-NOT-SUPPORTED reply.
type ReplyError struct {
	Word string // FAILURE, ERROR, VERSION-NOT-SUPPORTED
	Code string // NOT-FOUND, NOT-AUTHORIZED, ... for FAILURE
	Text string // the rest of the line, as the server wrote it
}

func (e *ReplyError) Error() string {
	s := e.Word
	if e.Code != "" {
		s += " " + e.Code
	}
	if e.Text != "" {
		s += " " + e.Text
	}
	return s
}

// parseReply reads a reply's text. The first FAILURE or ERROR line ends
// it with a *ReplyError, and the links before it are the reply's; lines
// of kinds it does not know (VERSION, AUTHENTICATED, SUCCESS, ID,
// LINK-INFO) are passed over. Links are checked here and read when asked
// for (readLinks). The text is read as checkReply reads it: a reply it
// refuses is refused here too, unless a FAILURE or a malformed line
// comes first.
func parseReply(text string) (*Reply, error) {
	r := &Reply{}
	lr := lineReader{text: text}
	linksAt := -1 // where the first LINK line starts
	var failure error
lines:
	for lr.next() {
		l := lr.line
		word := l[0]
		switch {
		case strings.HasPrefix(word, "ATTRIBUTE"):
			a, ok, err := attributeLine(l)
			if err != nil {
				return nil, err
			}
			if ok && linksAt < 0 { // after a LINK, it is the link's: read with it
				a.Value = slices.Clone(a.Value)
				r.Attrs = append(r.Attrs, a)
			}
		case word == "LINK":
			if _, err := parseLink(l[1:]); err != nil {
				return nil, fmt.Errorf("%w: %v in %q", errSyntax, err, clip(l.String()))
			}
			if linksAt < 0 {
				linksAt = lr.start
			}
		case word == "NONE-FOUND":
			r.NoneFound = true
		case word == "FORWARDED":
			if len(l) < 5 {
				return nil, fmt.Errorf("%w: FORWARDED needs host-type, host, hsoname-type and hsoname: %q", errSyntax, clip(l.String()))
			}
			f := &Link{HostType: l[1], Host: l[2], NameType: l[3], HSOName: l[4], Version: "0"}
			if len(l) > 5 {
				f.Version = l[5]
			}
			r.Forwarded = f
		case word == "UNRESOLVED":
			r.Unresolved = strings.Join(l[1:], " ")
		case word == "WARNING":
			r.Warnings = append(r.Warnings, strings.Join(l[1:], " "))
		case word == "FAILURE":
			e := &ReplyError{Word: word}
			if len(l) > 1 {
				e.Code = l[1]
				e.Text = strings.Join(l[2:], " ")
			}
			failure = e
			break lines
		case word == "ERROR", word == "VERSION-NOT-SUPPORTED":
			failure = &ReplyError{Word: word, Text: strings.Join(l[1:], " ")}
			break lines
		}
	}
	if lr.err != nil {
		return nil, lr.err
	}
	if linksAt >= 0 {
		end := len(text)
		if failure != nil {
			end = lr.start // the links end before the FAILURE or ERROR
		}
		r.linkText = text[linksAt:end]
	}
	return r, failure
}

// attributeLine reads an ATTRIBUTE line (one whose first word begins
// with ATTRIBUTE). It is not ok, and passed over, when its word only
// begins so or it is a sub-attribute of a link-valued attribute
// ("ATTRIBUTE>" or "ATTRIBUTE >"). The attribute's Value is a part of l.
func attributeLine(l Line) (a Attribute, ok bool, err error) {
	word := l[0]
	if strings.Trim(word[len("ATTRIBUTE"):], ">") != "" {
		return a, false, nil // another word beginning with ATTRIBUTE
	}
	nested := len(word) > len("ATTRIBUTE")
	rest := l[1:]
	if !nested && len(rest) > 0 && strings.Trim(rest[0], ">") == "" {
		nested, rest = true, rest[1:]
	}
	a, err = parseAttribute(rest)
	if err != nil {
		return a, false, fmt.Errorf("%w: %v in %q", errSyntax, err, clip(l.String()))
	}
	return a, !nested, nil
}

// readLinks reads the reply's links from its text, one at a time.
func (r *Reply) readLinks() *linkReader {
	return &linkReader{lines: lineReader{text: r.linkText}}
}

// linkReader reads the links of a reply in order, each with the
// ATTRIBUTE lines that follow it.
type linkReader struct {
	lines lineReader
	next  Link // the link of the LINK line read last, its attributes to come
	held  bool // whether next holds one
}

// read returns the next link, or false after the last. parseReply has
// read the same text without error, so its lines are not checked again.
func (r *linkReader) read() (Link, bool) {
	for r.lines.next() {
		l := r.lines.line
		switch {
		case l[0] == "LINK":
			k, _ := parseLink(l[1:])
			prev, had := r.next, r.held
			r.next, r.held = k, true
			if had {
				return prev, true
			}
		case strings.HasPrefix(l[0], "ATTRIBUTE"):
			if a, ok, _ := attributeLine(l); ok {
				a.Value = slices.Clone(a.Value)
				r.next.Attrs = append(r.next.Attrs, a)
			}
		}
	}
	k, had := r.next, r.held
	r.next, r.held = Link{}, false
	return k, had
}

func parseAttribute(t []string) (Attribute, error) {
	if len(t) < 3 {
		return Attribute{}, errors.New("ATTRIBUTE needs applies-to, nature and name")
	}
	a := Attribute{AppliesTo: t[0], Nature: t[1], Name: t[2]}
	v := t[3:]
	switch a.Nature {
	case "FIELD":
		if len(v) > 0 && isValueType(v[0]) {
			a.Type, v = v[0], v[1:]
		}
	case "INTRINSIC", "APPLICATION":
		if len(v) == 0 {
			return a, fmt.Errorf("%s attribute %q has no value type", a.Nature, clip(a.Name))
		}
		a.Type, v = v[0], v[1:]
	default:
		return a, fmt.Errorf("unknown attribute nature %q", clip(a.Nature))
	}
	a.Value = v
	return a, nil
}

func isValueType(s string) bool { return s == "SEQUENCE" || s == "LINK" || s == "FILTER" }

func parseLink(t []string) (Link, error) {
	if len(t) < 8 {
		return Link{}, fmt.Errorf("LINK has %d fields, want at least 8", len(t))
	}
	return Link{Type: t[0], Target: t[1], Name: t[2], HostType: t[3], Host: t[4],
		NameType: t[5], HSOName: t[6], Version: t[7]}, nil
}

// accessMethods are the values of the ACCESS-METHOD attributes in attrs,
// in the order the server gave them (which is its order of preference).
func accessMethods(attrs []Attribute) [][]string {
	var out [][]string
	for _, a := range attrs {
		if a.Name == "ACCESS-METHOD" && len(a.Value) > 0 {
			out = append(out, a.Value)
		}
	}
	return out
}
