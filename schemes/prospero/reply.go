package prospero

import (
	"errors"
	"fmt"
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
	Links      []Link
	NoneFound  bool
	Forwarded  *Link // FORWARDED: where the object moved (Name empty)
	Unresolved string
	Warnings   []string
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

// parseReply reads the lines of a reply. The first FAILURE or ERROR line
// ends it with a *ReplyError; lines of kinds it does not know (VERSION,
// AUTHENTICATED, SUCCESS, ID, LINK-INFO) are passed over.
func parseReply(lines []Line) (*Reply, error) {
	r := &Reply{}
	for _, l := range lines {
		word := l[0]
		switch {
		case strings.HasPrefix(word, "ATTRIBUTE"):
			if strings.Trim(word[len("ATTRIBUTE"):], ">") != "" {
				continue // another word beginning with ATTRIBUTE
			}
			nested := len(word) > len("ATTRIBUTE")
			rest := l[1:]
			if !nested && len(rest) > 0 && strings.Trim(rest[0], ">") == "" {
				nested, rest = true, rest[1:]
			}
			a, err := parseAttribute(rest)
			if err != nil {
				return nil, fmt.Errorf("%w: %v in %q", errSyntax, err, l.String())
			}
			if nested {
				continue // a sub-attribute of a link-valued attribute
			}
			if n := len(r.Links); n > 0 {
				r.Links[n-1].Attrs = append(r.Links[n-1].Attrs, a)
			} else {
				r.Attrs = append(r.Attrs, a)
			}
		case word == "LINK":
			k, err := parseLink(l[1:])
			if err != nil {
				return nil, fmt.Errorf("%w: %v in %q", errSyntax, err, l.String())
			}
			r.Links = append(r.Links, k)
		case word == "NONE-FOUND":
			r.NoneFound = true
		case word == "FORWARDED":
			if len(l) < 5 {
				return nil, fmt.Errorf("%w: FORWARDED needs host-type, host, hsoname-type and hsoname: %q", errSyntax, l.String())
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
			return r, e
		case word == "ERROR", word == "VERSION-NOT-SUPPORTED":
			return r, &ReplyError{Word: word, Text: strings.Join(l[1:], " ")}
		}
	}
	return r, nil
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
			return a, fmt.Errorf("%s attribute %s has no value type", a.Nature, a.Name)
		}
		a.Type, v = v[0], v[1:]
	default:
		return a, fmt.Errorf("unknown attribute nature %q", a.Nature)
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
