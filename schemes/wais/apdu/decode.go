package apdu

import (
	"fmt"
	"strings"
)

// Decode reads one APDU: *Search, *SearchResponse, *Init or
// *InitResponse. Tagged fields it does not know are skipped; bytes after
// the user-information part are ignored.
func Decode(b []byte) (PDU, error) { return DecodeLimit(b, 0) }

// ErrTooManyRecords is wrapped by DecodeLimit's refusal of a
// SearchResponse that holds more records than its bound. It wraps
// ErrMalformed: a server sends no more than it was asked for.
var ErrTooManyRecords = fmt.Errorf("%w: more records than the client accepts", ErrMalformed)

// DecodeLimit is Decode for a client that knows how much it asked for: a
// SearchResponse holding more than maxRecords records (document headers,
// texts and diagnostics together) is refused with ErrTooManyRecords as
// soon as the record past the bound is reached. An empty header group is
// 3 bytes on the wire and a DocHeader of some 150 in memory, so without
// the bound a message's size alone would not bound what it costs.
// maxRecords <= 0 sets no bound.
func DecodeLimit(b []byte, maxRecords int) (PDU, error) {
	if len(b) < 3 {
		return nil, malformed("APDU of %d bytes", len(b))
	}
	n := int(b[0])<<8 | int(b[1])
	if n < 1 || n > len(b)-2 {
		return nil, malformed("APDU header length %d, %d bytes follow", n, len(b)-2)
	}
	head, user := b[2:2+n], b[2+n:]
	switch head[0] {
	case TypeSearch:
		return decodeSearch(head, user)
	case TypeSearchResponse:
		return decodeSearchResponse(head, user, maxRecords)
	case TypeInit:
		in := &Init{}
		return in, in.decodeFields(head[1:])
	case TypeInitResponse:
		if len(head) < 2 {
			return nil, malformed("InitResponse header of %d bytes", len(head))
		}
		r := &InitResponse{Result: head[1] == 1}
		return r, r.decodeFields(head[2:])
	}
	return nil, malformed("unknown PDU type %d", head[0])
}

// binary reads a fixed big-endian field of size bytes.
func binary(b []byte, size int) int {
	n := 0
	for _, c := range b[:size] {
		n = n<<8 | int(c)
	}
	return n
}

// eachTLV calls f for each tagged field of b.
func eachTLV(b []byte, f func(tag int, v []byte) error) error {
	for len(b) > 0 {
		tag, v, rest, err := readTLV(b)
		if err != nil {
			return err
		}
		if err := f(tag, v); err != nil {
			return err
		}
		b = rest
	}
	return nil
}

func decodeSearch(head, user []byte) (*Search, error) {
	if len(head) < 11 {
		return nil, malformed("SearchAPDU header of %d bytes", len(head))
	}
	s := &Search{
		SmallSetUpperBound:     binary(head[1:], 3),
		LargeSetLowerBound:     binary(head[4:], 3),
		MediumSetPresentNumber: binary(head[7:], 3),
		Replace:                head[10] == 1,
	}
	err := eachTLV(head[11:], func(tag int, v []byte) error {
		switch tag {
		case tagResultSetName:
			s.ResultSetName = string(v)
		case tagDatabaseNames:
			s.DatabaseNames = strings.Split(string(v), databaseDelimiter)
		case tagQueryType:
			s.QueryType = string(v)
		case tagElementSetNames:
			s.ElementSetNames = string(v)
		case tagReferenceID:
			s.ReferenceID = append([]byte{}, v...)
		}
		return nil
	})
	if err != nil || len(user) == 0 {
		return s, err
	}
	tag, v, _, err := readTLV(user)
	if err != nil {
		return nil, err
	}
	switch tag {
	case tagQuery:
		s.Terms = []Term{}
		err = decodeTerms(v, &s.Terms)
	case tagUserInfoLength:
		s.Seeds = &WAISSearch{DateFactor: Unused, MaxDocuments: Unused}
		err = s.Seeds.decode(v)
	default:
		err = malformed("SearchAPDU query with tag %d", tag)
	}
	if err != nil {
		return nil, err
	}
	return s, nil
}

func decodeTerms(b []byte, ts *[]Term) error {
	for len(b) > 0 {
		tag, v, rest, err := readTLV(b)
		if err != nil {
			return err
		}
		b = rest
		switch tag {
		case tagAttributeList:
			t := Term{Attributes: string(v)}
			tag, v, rest, err := readTLV(b)
			if err != nil {
				return err
			}
			if tag != tagTerm {
				return malformed("attribute list followed by tag %d, want a term", tag)
			}
			t.Value = append([]byte{}, v...)
			b = rest
			*ts = append(*ts, t)
		case tagOperator:
			if len(v) == 0 {
				return malformed("empty query operator")
			}
			*ts = append(*ts, Term{Operator: string(v)})
		case tagResultSetID:
			*ts = append(*ts, Term{ResultSet: append([]byte{}, v...)})
		default:
			return malformed("type-1 query term with tag %d", tag)
		}
	}
	return nil
}

func (w *WAISSearch) decode(b []byte) error {
	return eachTLV(b, func(tag int, v []byte) error {
		var err error
		switch tag {
		case tagSeedWords:
			w.SeedWords = string(v)
		case tagDateFactor:
			w.DateFactor, err = num(tag, v)
		case tagBeginDateRange:
			w.BeginDateRange = string(v)
		case tagEndDateRange:
			w.EndDateRange = string(v)
		case tagMaxDocuments:
			w.MaxDocuments, err = num(tag, v)
		}
		return err
	})
}

func decodeSearchResponse(head, user []byte, maxRecords int) (*SearchResponse, error) {
	if len(head) < 11 {
		return nil, malformed("SearchResponseAPDU header of %d bytes", len(head))
	}
	r := &SearchResponse{
		Status:          int(head[1]),
		ResultCount:     binary(head[2:], 3),
		RecordsReturned: binary(head[5:], 3),
		NextPosition:    binary(head[8:], 3),
		ResultSetStatus: Unused,
		PresentStatus:   Unused,
	}
	err := eachTLV(head[11:], func(tag int, v []byte) error {
		var err error
		switch tag {
		case tagResultSetStatus:
			r.ResultSetStatus, err = num(tag, v)
		case tagPresentStatus:
			r.PresentStatus, err = num(tag, v)
		case tagReferenceID:
			r.ReferenceID = append([]byte{}, v...)
		}
		return err
	})
	if err != nil || len(user) == 0 {
		return r, err
	}
	tag, v, _, err := readTLV(user)
	if err != nil {
		return nil, err
	}
	if tag != tagUserInfoLength {
		return nil, malformed("SearchResponseAPDU records with tag %d", tag)
	}
	r.Info = &ResponseInfo{}
	if err := r.Info.decode(v, maxRecords); err != nil {
		return nil, err
	}
	return r, nil
}

// decode reads the records of a response, at most maxRecords of them
// when maxRecords > 0.
func (ri *ResponseInfo) decode(b []byte, maxRecords int) error {
	for len(b) > 0 {
		tag, err := peekTag(b)
		if err != nil {
			return err
		}
		isRecord := tag == tagDiagnostic || tag == tagHeaderGroup || tag == tagTextGroup
		if isRecord && maxRecords > 0 && len(ri.Diagnostics)+len(ri.Headers)+len(ri.Texts) >= maxRecords {
			return fmt.Errorf("%w (a SearchResponse of more than %d records)", ErrTooManyRecords, maxRecords)
		}
		if tag == tagDiagnostic {
			var d Diagnostic
			if b, err = d.decode(b); err != nil {
				return err
			}
			ri.Diagnostics = append(ri.Diagnostics, d)
			continue
		}
		tag, v, rest, err := readTLV(b)
		if err != nil {
			return err
		}
		b = rest
		switch tag {
		case tagSeedWordsUsed:
			ri.SeedWordsUsed = string(v)
		case tagHeaderGroup:
			h := DocHeader{Version: Unused, Score: Unused, BestMatch: Unused, Length: Unused, Lines: Unused}
			if err := h.decode(v); err != nil {
				return err
			}
			ri.Headers = append(ri.Headers, h)
		case tagTextGroup:
			t := DocText{Version: Unused}
			if err := t.decode(v); err != nil {
				return err
			}
			ri.Texts = append(ri.Texts, t)
		}
	}
	return nil
}

func (d *Diagnostic) decode(b []byte) ([]byte, error) {
	_, b, err := readCompressed(b)
	if err != nil {
		return nil, err
	}
	if len(b) < 2 {
		return nil, malformed("diagnostic record cut short")
	}
	n := int(b[0])<<8 | int(b[1])
	b = b[2:]
	if n < 3 || n+1 > len(b) {
		return nil, malformed("diagnostic record length %d, %d bytes remain", n, len(b))
	}
	if b[n] != endOfDiagnostic {
		return nil, malformed("diagnostic record not ended by 0x1D")
	}
	d.Code = string(b[:2])
	d.Info = string(b[2 : n-1])
	d.Surrogate = b[n-1] != 0
	return b[n+1:], nil
}

func (h *DocHeader) decode(b []byte) error {
	return eachTLV(b, func(tag int, v []byte) error {
		var err error
		switch tag {
		case tagDocumentID:
			h.DocID = append([]byte{}, v...)
		case tagVersionNumber:
			h.Version, err = num(tag, v)
		case tagScore:
			h.Score, err = num(tag, v)
		case tagBestMatch:
			h.BestMatch, err = num(tag, v)
		case tagDocumentLength:
			h.Length, err = num(tag, v)
		case tagLines:
			h.Lines, err = num(tag, v)
		case tagTypeBlock:
			h.Types = []string{}
			err = eachTLV(v, func(tag int, v []byte) error {
				if tag == tagType {
					h.Types = append(h.Types, string(v))
				}
				return nil
			})
		case tagSource:
			h.Source = string(v)
		case tagDate:
			h.Date = string(v)
		case tagHeadline:
			h.Headline = string(v)
		case tagOriginCity:
			h.OriginCity = string(v)
		}
		return err
	})
}

func (t *DocText) decode(b []byte) error {
	return eachTLV(b, func(tag int, v []byte) error {
		var err error
		switch tag {
		case tagDocumentID:
			t.DocID = append([]byte{}, v...)
		case tagVersionNumber:
			t.Version, err = num(tag, v)
		case tagDocumentText:
			t.Text = append([]byte{}, v...)
		}
		return err
	})
}

func (in *Init) decodeFields(b []byte) error {
	in.PreferredMessageSize, in.MaximumRecordSize = Unused, Unused
	return eachTLV(b, func(tag int, v []byte) error {
		var err error
		switch tag {
		case tagPreferredMessageSize:
			in.PreferredMessageSize, err = num(tag, v)
		case tagMaximumRecordSize:
			in.MaximumRecordSize, err = num(tag, v)
		case tagIDAuthentication:
			in.IDAuthentication = string(v)
		case tagImplementationID:
			in.ImplementationID = string(v)
		case tagImplementationName:
			in.ImplementationName = string(v)
		case tagImplementationVer:
			in.ImplementationVer = string(v)
		case tagReferenceID:
			in.ReferenceID = append([]byte{}, v...)
		}
		return err
	})
}
