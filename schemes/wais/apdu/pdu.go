package apdu

import (
	"strings"
)

// PDU types (Z39.50-1988 as used by WAIS; protspec "APDUs").
const (
	TypeInit           = 20
	TypeInitResponse   = 21
	TypeSearch         = 22
	TypeSearchResponse = 23
)

// Data tags of the Z39.50 fields (zutil.h's DT_ numbers, as on the wire).
const (
	tagReferenceID          = 2
	tagProtocolVersion      = 3
	tagOptions              = 4
	tagPreferredMessageSize = 5
	tagMaximumRecordSize    = 6
	tagIDAuthentication     = 7
	tagImplementationID     = 8
	tagImplementationName   = 9
	tagImplementationVer    = 10
	tagUserInformationField = 11
	tagResultSetName        = 17
	tagDatabaseNames        = 18
	tagElementSetNames      = 19
	tagQueryType            = 20
	tagQuery                = 21
	tagResultSetStatus      = 26
	tagPresentStatus        = 27
	tagDiagnostic           = 28
	tagResultSetID          = 31
	tagAttributeList        = 44
	tagTerm                 = 45
	tagOperator             = 46
)

// Data tags of the WAIS extensions (waisprot "Data Tags").
const (
	tagUserInfoLength = 99
	tagSeedWords      = 106
	tagDateFactor     = 111
	tagBeginDateRange = 112
	tagEndDateRange   = 113
	tagMaxDocuments   = 114
	tagSeedWordsUsed  = 115
	tagDocumentID     = 116
	tagVersionNumber  = 117
	tagScore          = 118
	tagBestMatch      = 119
	tagDocumentLength = 120
	tagSource         = 121
	tagDate           = 122
	tagHeadline       = 123
	tagOriginCity     = 124
	tagDocumentText   = 127
	tagLines          = 131
	tagTypeBlock      = 132
	tagType           = 133
	tagHeaderGroup    = 150
	tagTextGroup      = 153
)

// Query types of a SearchAPDU.
const (
	QueryType1         = "1"    // a type-1 (boolean) query: WAIS document retrieval
	QueryRelevance     = "3"    // a WAIS keyword (relevance feedback) search
	databaseDelimiter  = "\x1f" // DatabaseDelimiter
	endOfDiagnostic    = 0x1d
	maxFixedHeaderSize = 0xffff
)

// DatabaseDelimiter separates the database names of a SearchAPDU: no
// name can hold it.
const DatabaseDelimiter = 0x1f

// ElementsDocumentText is the element set a retrieval asks for: no
// database (" "), the delimiter, "Document Text".
const ElementsDocumentText = " \x1fDocument Text"

// PDU is an APDU this package can write.
type PDU interface {
	Marshal() ([]byte, error)
}

// Search is a SearchAPDU: a keyword search (QueryType "3", Seeds set) or
// a document retrieval (QueryType "1", Terms set).
type Search struct {
	SmallSetUpperBound     int // 3 bytes each
	LargeSetLowerBound     int
	MediumSetPresentNumber int
	Replace                bool
	ResultSetName          string // always written (the C clients send "" or "FOO")
	DatabaseNames          []string
	QueryType              string
	ElementSetNames        string // written when not empty
	ReferenceID            []byte // written when not nil
	Seeds                  *WAISSearch
	Terms                  []Term
}

// WAISSearch is the user-information part of a keyword search.
type WAISSearch struct {
	SeedWords      string
	DateFactor     int64 // Unused when absent
	BeginDateRange string
	EndDateRange   string
	MaxDocuments   int64 // Unused when absent
}

// Term is one item of a type-1 query: an attribute term (Attributes and
// Value), an operator, or a result set.
type Term struct {
	Attributes string // six two-letter codes separated by spaces
	Value      []byte
	Operator   string // "a", "o", "n"
	ResultSet  []byte
}

// SearchResponse is a SearchResponseAPDU and its WAIS records.
type SearchResponse struct {
	Status          int // 1 byte
	ResultCount     int // 3 bytes
	RecordsReturned int
	NextPosition    int
	ResultSetStatus int64 // Unused when absent
	PresentStatus   int64 // Unused when absent
	ReferenceID     []byte
	Info            *ResponseInfo // the records; nil writes none
}

// ResponseInfo holds the records of a search or retrieval response.
type ResponseInfo struct {
	SeedWordsUsed string
	Headers       []DocHeader
	Texts         []DocText
	Diagnostics   []Diagnostic
}

// DocHeader is a WAIS document header: one search hit.
type DocHeader struct {
	DocID      []byte
	Version    int64 // Unused when absent
	Score      int64
	BestMatch  int64
	Length     int64
	Lines      int64
	Types      []string
	Source     string
	Date       string
	Headline   string
	OriginCity string
}

// DocText is a slice of a document's text.
type DocText struct {
	DocID   []byte
	Version int64
	Text    []byte
}

// Diagnostic is a diagnostic record (protspec Appendix D): a two-letter
// code such as "S1" or "SF" and its text.
type Diagnostic struct {
	Code      string
	Info      string
	Surrogate bool
}

// Init is an InitAPDU; InitResponse an InitResponseAPDU.
type Init struct {
	PreferredMessageSize int64
	MaximumRecordSize    int64
	IDAuthentication     string
	ImplementationID     string
	ImplementationName   string
	ImplementationVer    string
	ReferenceID          []byte
}

// InitResponse answers an Init.
type InitResponse struct {
	Result bool
	Init
}

// withHeaderLength prefixes the counted part with its two-byte length
// and appends the uncounted user-information part.
func withHeaderLength(head, user []byte) ([]byte, error) {
	if len(head) > maxFixedHeaderSize {
		return nil, malformed("APDU header part of %d bytes exceeds 65535", len(head))
	}
	b := make([]byte, 0, 2+len(head)+len(user))
	b = append(b, byte(len(head)>>8), byte(len(head)))
	b = append(b, head...)
	return append(b, user...), nil
}

// Marshal encodes s.
func (s *Search) Marshal() ([]byte, error) {
	h := []byte{TypeSearch}
	h = appendBinary(h, int64(s.SmallSetUpperBound), 3)
	h = appendBinary(h, int64(s.LargeSetLowerBound), 3)
	h = appendBinary(h, int64(s.MediumSetPresentNumber), 3)
	h = append(h, boolByte(s.Replace))
	h = appendString(h, tagResultSetName, s.ResultSetName)
	if s.DatabaseNames != nil {
		for _, n := range s.DatabaseNames {
			if strings.IndexByte(n, DatabaseDelimiter) >= 0 {
				return nil, malformed("database name %q holds the delimiter of database names (0x1F)", n)
			}
		}
		h = appendString(h, tagDatabaseNames, strings.Join(s.DatabaseNames, databaseDelimiter))
	}
	h = appendString(h, tagQueryType, s.QueryType)
	if s.ElementSetNames != "" {
		h = appendString(h, tagElementSetNames, s.ElementSetNames)
	}
	if s.ReferenceID != nil {
		h = appendTLV(h, tagReferenceID, s.ReferenceID)
	}
	var user []byte
	switch {
	case s.Terms != nil:
		user = appendTLV(nil, tagQuery, marshalTerms(s.Terms))
	case s.Seeds != nil:
		var u []byte
		u = appendString(u, tagSeedWords, s.Seeds.SeedWords)
		u = appendNum(u, tagDateFactor, s.Seeds.DateFactor)
		if s.Seeds.BeginDateRange != "" {
			u = appendString(u, tagBeginDateRange, s.Seeds.BeginDateRange)
		}
		if s.Seeds.EndDateRange != "" {
			u = appendString(u, tagEndDateRange, s.Seeds.EndDateRange)
		}
		u = appendNum(u, tagMaxDocuments, s.Seeds.MaxDocuments)
		user = appendTLV(nil, tagUserInfoLength, u)
	}
	return withHeaderLength(h, user)
}

func marshalTerms(ts []Term) []byte {
	var b []byte
	for _, t := range ts {
		switch {
		case t.Operator != "":
			b = appendString(b, tagOperator, t.Operator)
		case t.ResultSet != nil:
			b = appendTLV(b, tagResultSetID, t.ResultSet)
		default:
			b = appendString(b, tagAttributeList, t.Attributes)
			b = appendTLV(b, tagTerm, t.Value)
		}
	}
	return b
}

func boolByte(v bool) byte {
	if v {
		return 1
	}
	return 0
}

// Marshal encodes r.
func (r *SearchResponse) Marshal() ([]byte, error) {
	h := []byte{TypeSearchResponse, byte(r.Status)}
	h = appendBinary(h, int64(r.ResultCount), 3)
	h = appendBinary(h, int64(r.RecordsReturned), 3)
	h = appendBinary(h, int64(r.NextPosition), 3)
	h = appendNum(h, tagResultSetStatus, r.ResultSetStatus)
	h = appendNum(h, tagPresentStatus, r.PresentStatus)
	if r.ReferenceID != nil {
		h = appendTLV(h, tagReferenceID, r.ReferenceID)
	}
	var user []byte
	if r.Info != nil {
		var u []byte
		if r.Info.SeedWordsUsed != "" {
			u = appendString(u, tagSeedWordsUsed, r.Info.SeedWordsUsed)
		}
		for i := range r.Info.Headers {
			u = appendTLV(u, tagHeaderGroup, r.Info.Headers[i].marshal())
		}
		for _, t := range r.Info.Texts {
			var g []byte
			g = appendTLV(g, tagDocumentID, t.DocID)
			g = appendNum(g, tagVersionNumber, t.Version)
			g = appendTLV(g, tagDocumentText, t.Text)
			u = appendTLV(u, tagTextGroup, g)
		}
		for _, d := range r.Info.Diagnostics {
			u = d.appendTo(u)
		}
		user = appendTLV(nil, tagUserInfoLength, u)
	}
	return withHeaderLength(h, user)
}

func (d *DocHeader) marshal() []byte {
	var g []byte
	g = appendTLV(g, tagDocumentID, d.DocID)
	g = appendNum(g, tagVersionNumber, d.Version)
	g = appendNum(g, tagScore, d.Score)
	g = appendNum(g, tagBestMatch, d.BestMatch)
	g = appendNum(g, tagDocumentLength, d.Length)
	g = appendNum(g, tagLines, d.Lines)
	if d.Types != nil {
		var tb []byte
		for _, t := range d.Types {
			tb = appendString(tb, tagType, t)
		}
		g = appendTLV(g, tagTypeBlock, tb)
	}
	// The source goes right after the types: freeWAIS's reader takes the
	// field after a type block as the source whatever its tag.
	if d.Source != "" {
		g = appendString(g, tagSource, d.Source)
	}
	if d.Date != "" {
		g = appendString(g, tagDate, d.Date)
	}
	if d.Headline != "" {
		g = appendString(g, tagHeadline, d.Headline)
	}
	if d.OriginCity != "" {
		g = appendString(g, tagOriginCity, d.OriginCity)
	}
	return g
}

// appendTo writes a diagnostic record; its text is cut to fit the
// two-byte length.
func (d *Diagnostic) appendTo(b []byte) []byte {
	info := d.Info
	if len(info) > 0xffff-4 {
		info = info[:0xffff-4]
	}
	code := (d.Code + "  ")[:2]
	n := 3 + len(info)
	b = appendCompressed(b, tagDiagnostic)
	b = append(b, byte(n>>8), byte(n))
	b = append(b, code...)
	b = append(b, info...)
	return append(b, boolByte(d.Surrogate), endOfDiagnostic)
}

func (in *Init) appendFields(h []byte) []byte {
	h = appendTLV(h, tagProtocolVersion, []byte{0x80}) // version 1
	h = appendTLV(h, tagOptions, []byte{0x80})         // will search
	h = appendNum(h, tagPreferredMessageSize, in.PreferredMessageSize)
	h = appendNum(h, tagMaximumRecordSize, in.MaximumRecordSize)
	for _, f := range []struct {
		tag int
		s   string
	}{{tagIDAuthentication, in.IDAuthentication}, {tagImplementationID, in.ImplementationID},
		{tagImplementationName, in.ImplementationName}, {tagImplementationVer, in.ImplementationVer}} {
		if f.s != "" {
			h = appendString(h, f.tag, f.s)
		}
	}
	if in.ReferenceID != nil {
		h = appendTLV(h, tagReferenceID, in.ReferenceID)
	}
	return h
}

// Marshal encodes in.
func (in *Init) Marshal() ([]byte, error) {
	return withHeaderLength(in.appendFields([]byte{TypeInit}), nil)
}

// Marshal encodes r.
func (r *InitResponse) Marshal() ([]byte, error) {
	return withHeaderLength(r.appendFields([]byte{TypeInitResponse, boolByte(r.Result)}), nil)
}
