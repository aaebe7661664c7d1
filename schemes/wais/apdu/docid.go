package apdu

import (
	"strconv"
	"strings"
)

// Fields of a freeWAIS document id: a sequence of tagged strings (and the
// copyright disposition, a number), after wais-doc-ids.txt's name and
// address parts.
const (
	DocIDOriginalServer      = 1
	DocIDOriginalDatabase    = 2
	DocIDOriginalLocalID     = 3
	DocIDDistributorServer   = 4
	DocIDDistributorDatabase = 5
	DocIDDistributorLocalID  = 6
	DocIDCopyright           = 7
)

// DocID is a document id in freeWAIS's layout. Document ids are opaque
// to clients: this form is only read to describe one, never to rebuild it
// (a Lynx-style URL names an id field by field: AppendDocIDField).
type DocID struct {
	Fields map[int]string
}

// ParseDocID reads b as a freeWAIS document id; ok is false when b is
// not one.
func ParseDocID(b []byte) (id DocID, ok bool) {
	id.Fields = map[int]string{}
	err := eachTLV(b, func(tag int, v []byte) error {
		if tag < DocIDOriginalServer || tag > DocIDCopyright {
			return malformed("document id field %d", tag)
		}
		id.Fields[tag] = string(v)
		return nil
	})
	return id, err == nil && len(id.Fields) > 0
}

// AppendDocID writes a document id in freeWAIS's layout: the fields of
// fields that are set, in tag order, and a copyright disposition of 0
// ("copy without restriction").
func AppendDocID(b []byte, fields map[int]string) []byte {
	for tag := DocIDOriginalServer; tag < DocIDCopyright; tag++ {
		if v, ok := fields[tag]; ok {
			b = appendString(b, tag, v)
		}
	}
	return appendNum(b, DocIDCopyright, 0)
}

// AppendDocIDField writes one field of a document id: its tag and the
// length of v as compressed integers, then v. A document id written as
// its fields (Lynx's URLs: "2=db;3=0 0 /path;") comes back byte for byte
// when each is written in turn.
func AppendDocIDField(b []byte, tag int, v []byte) []byte {
	return appendTLV(b, tag, v)
}

// LocalID is the local id a freeWAIS server puts in its document ids,
// "start end path": the document is bytes [start, end) of the file at
// path (end 0 for the whole file).
type LocalID struct {
	Start, End int64
	Path       string
}

// ParseLocalID reads a local id of freeWAIS's form.
func ParseLocalID(s string) (LocalID, bool) {
	f := strings.SplitN(s, " ", 3)
	if len(f) != 3 {
		return LocalID{}, false
	}
	start, err1 := strconv.ParseInt(f[0], 10, 64)
	end, err2 := strconv.ParseInt(f[1], 10, 64)
	if err1 != nil || err2 != nil || start < 0 || end < 0 || f[2] == "" {
		return LocalID{}, false
	}
	return LocalID{start, end, f[2]}, true
}

// String is the local id's wire form.
func (l LocalID) String() string {
	return strconv.FormatInt(l.Start, 10) + " " + strconv.FormatInt(l.End, 10) + " " + l.Path
}
