package fetch

import "reflect"

// The As methods are the escape hatch to what a driver knows beyond the
// common fields (in the manner of gocloud.dev/blob's Reader.As): a caller
// passes a pointer to a driver's type and gets the value, or false when
// the driver kept none of that type. Each driver's doc comment lists the
// types it fills; no string map or JSON stands in between.

// As sets *target to the first value in r.Native, then in its
// Document's Native, whose type is assignable to *target's. target must
// be a non-nil pointer; As reports whether it found a value.
func (r *Result) As(target any) bool {
	if r == nil {
		return false
	}
	if asNative(r.Native, target) {
		return true
	}
	return r.Document.As(target)
}

// As sets *target to the first value in d.Native whose type is assignable
// to *target's, reporting whether there was one.
func (d *Document) As(target any) bool {
	if d == nil {
		return false
	}
	return asNative(d.Native, target)
}

// As sets *target to the first value in e.Native whose type is assignable
// to *target's, reporting whether there was one.
func (e *Entry) As(target any) bool {
	if e == nil {
		return false
	}
	return asNative(e.Native, target)
}

func asNative(native []any, target any) bool {
	p := reflect.ValueOf(target)
	if p.Kind() != reflect.Pointer || p.IsNil() {
		return false
	}
	want := p.Elem().Type()
	for _, v := range native {
		if v != nil && reflect.TypeOf(v).AssignableTo(want) {
			p.Elem().Set(reflect.ValueOf(v))
			return true
		}
	}
	return false
}

// Keys of Document.Meta that several drivers fill. Keys are lower case,
// like the HTTP header names the http driver stores under their own
// names; a driver's own keys are constants in its package
// (gopher.MetaView...).
const (
	MetaStatus        = "status"         // the HTTP status line
	MetaMessageID     = "message-id"     // an article's or a sent message's Message-ID, with <>
	MetaSubject       = "subject"        // an article's Subject
	MetaFrom          = "from"           // an article's From
	MetaDate          = "date"           // an article's Date
	MetaNewsgroups    = "newsgroups"     // an article's Newsgroups
	MetaArticleNumber = "article-number" // the article's number in its group
	MetaRecipients    = "recipients"     // a message's recipients, comma-separated
)
