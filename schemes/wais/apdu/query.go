package apdu

import (
	"strconv"
	"strings"
)

// Attribute lists of the type-1 retrieval query (six codes: use,
// relation, position, structure, truncation, completeness; "ig" is
// "ignore"). "un" is the system control number (the document id), "wt"
// the WAIS type, "wb" a byte position; "re" is equal, "ro" greater than
// or equal, "rl" less than.
const (
	attrDocID     = "un re ig ig ig ig"
	attrType      = "wt re ig ig ig ig"
	attrByteFrom  = "wb ro ig ig ig ig"
	attrByteUntil = "wb rl ig ig ig ig"
	opAnd         = "a"
)

// NewKeywordSearch is the SearchAPDU of a keyword search for words in
// database, asking for at most maxDocs headers, with the fixed fields the
// historical clients send (waisprot "Search APDU"; Lynx and waissearch
// use 30, 5000, 30 and an empty result set name).
func NewKeywordSearch(database, words string, maxDocs int) *Search {
	return &Search{
		SmallSetUpperBound: 30, LargeSetLowerBound: 5000, MediumSetPresentNumber: 30,
		Replace:       true,
		DatabaseNames: []string{database},
		QueryType:     QueryRelevance,
		Seeds:         &WAISSearch{SeedWords: words, DateFactor: 1, MaxDocuments: int64(maxDocs)},
	}
}

// NewRetrieval is the SearchAPDU that asks database for bytes [start,
// end) of the document docid of WAIS type wtype: a type-1 query "docid
// AND type AND byte >= start AND byte < end" written in postfix, with
// the fixed fields, result set name, element set and reference id the
// historical clients send.
func NewRetrieval(database string, docid []byte, wtype string, start, end int64) *Search {
	return &Search{
		SmallSetUpperBound: 10, LargeSetLowerBound: 16, MediumSetPresentNumber: 15,
		Replace:         true,
		ResultSetName:   "FOO",
		DatabaseNames:   []string{database},
		QueryType:       QueryType1,
		ElementSetNames: ElementsDocumentText,
		ReferenceID:     []byte("3"),
		Terms:           RetrievalTerms(docid, wtype, start, end),
	}
}

// RetrievalTerms is the type-1 query of NewRetrieval. Byte positions are
// decimal ASCII, as the protocol writes them.
func RetrievalTerms(docid []byte, wtype string, start, end int64) []Term {
	ts := []Term{{Attributes: attrDocID, Value: docid}}
	if wtype != "" {
		ts = append(ts, Term{Attributes: attrType, Value: []byte(wtype)}, Term{Operator: opAnd})
	}
	return append(ts,
		Term{Attributes: attrByteFrom, Value: []byte(strconv.FormatInt(start, 10))},
		Term{Operator: opAnd},
		Term{Attributes: attrByteUntil, Value: []byte(strconv.FormatInt(end, 10))},
		Term{Operator: opAnd})
}

// Retrieval is what a type-1 query asks for.
type Retrieval struct {
	DocID      []byte
	Type       string
	Start, End int64 // bytes [Start, End); End is -1 for a whole document
}

// ParseRetrieval reads a query of the form RetrievalTerms writes (the
// type and the byte range optional).
func ParseRetrieval(ts []Term) (*Retrieval, error) {
	r := &Retrieval{End: -1}
	seen := false
	for _, t := range ts {
		if t.Operator != "" || t.ResultSet != nil {
			continue
		}
		use, _, _ := strings.Cut(t.Attributes, " ")
		fields := strings.Fields(t.Attributes)
		rel := ""
		if len(fields) > 1 {
			rel = fields[1]
		}
		switch use {
		case "un":
			r.DocID, seen = t.Value, true
		case "wt":
			r.Type = string(t.Value)
		case "wb":
			n, err := strconv.ParseInt(string(t.Value), 10, 64)
			if err != nil || n < 0 {
				return nil, malformed("byte position %q", t.Value)
			}
			switch rel {
			case "ro", "rg":
				r.Start = n
			case "rl", "rp":
				r.End = n
			}
		default:
			return nil, malformed("retrieval attribute %q", t.Attributes)
		}
	}
	if !seen {
		return nil, malformed("retrieval query names no document")
	}
	return r, nil
}
