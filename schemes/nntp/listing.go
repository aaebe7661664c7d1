package nntp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

// listGroup selects group and lists its newest page articles from the
// overview database (RFC 3977 §8.3 OVER, RFC 2980 XOVER), or from their
// headers (HEAD) where the server keeps no overview. url makes an entry's
// URL; an entry it gives none becomes a raw line. The overview streams
// from the session, which the listing holds until it ends or is closed.
func (s *session) listGroup(ctx context.Context, group string, page int64, url func(*overview) string) (*fetch.Result, error) {
	var g groupInfo
	if err := s.selectGroup(ctx, group, &g); err != nil {
		return nil, err
	}
	l := &fetch.Listing{Title: group, Entries: []fetch.Entry{}}
	res := &fetch.Result{Kind: fetch.KindListing, Listing: l}
	if g.Count == 0 || g.High < g.Low {
		return res, nil
	}
	first := g.High - page + 1
	if first < g.Low {
		first = g.Low
	}
	ovs, stream, err := s.overviews(ctx, first, g.High, page)
	if err != nil {
		return nil, err
	}
	if stream != nil {
		stream.url, stream.group = url, group
		s.held = true
		res.Listing = fetch.NewStreamListing(group, stream)
		return res, nil
	}
	for i := range ovs {
		l.Entries = append(l.Entries, overviewEntry(&ovs[i], url))
	}
	s.req.Trace(fetch.DirInfo, fmt.Sprintf("%d articles listed from %s (%d-%d)", len(l.Entries), group, first, g.High))
	return res, nil
}

// overviewStream reads an OVER or XOVER reply an entry at a time. The
// reply may hold at most the articles of the range asked for, each
// numbered within it: a server that runs past either is stopped there
// rather than read to the block's global bounds.
type overviewStream struct {
	s           *session
	b           *blockReader
	first, last int64
	url         func(*overview) string
	group       string
	n           int64
	done        bool
	released    bool
}

func (o *overviewStream) Next() (fetch.Entry, error) {
	line, err := o.b.next()
	if err == io.EOF {
		o.done = true
		o.s.req.Trace(fetch.DirInfo, fmt.Sprintf("%d articles listed from %s (%d-%d)", o.n, o.group, o.first, o.last))
		return fetch.Entry{}, io.EOF
	}
	if err != nil {
		return fetch.Entry{}, err
	}
	if o.n++; o.n > o.last-o.first+1 {
		return fetch.Entry{}, &fetch.Error{Kind: fetch.KindPolicy, Op: o.b.op, Offset: -1,
			Err: fmt.Errorf("%w: the overview of %d-%d ran past the %d articles the range can hold", fetch.ErrTooLarge, o.first, o.last, o.last-o.first+1)}
	}
	ov, perr := parseOverview(line)
	if perr != nil {
		ov = overview{raw: line}
	} else if ov.Number < o.first || ov.Number > o.last {
		return fetch.Entry{}, &fetch.Error{Kind: fetch.KindServer, Op: o.b.op, Offset: -1,
			Reply: clip(line), Err: fmt.Errorf("the overview ran past the requested range %d-%d (article %d)", o.first, o.last, ov.Number)}
	}
	ov.line = line
	return overviewEntry(&ov, o.url), nil
}

// Close ends the listing: after the whole block the session goes back
// to the pool.
func (o *overviewStream) Close() error {
	if o.released {
		return nil
	}
	o.released = true
	return o.s.endListing(o.done)
}

// overviewEntry makes a listing entry of one article.
func overviewEntry(ov *overview, url func(*overview) string) fetch.Entry {
	if ov.raw != "" {
		return fetch.Entry{Name: ov.raw, Kind: fetch.EntryRaw, Size: -1, Raw: ov.raw}
	}
	e := fetch.Entry{
		Name:        decodeWords(ov.Subject),
		Description: decodeWords(ov.From),
		Kind:        fetch.EntryFile,
		Type:        "message/rfc822",
		Size:        ov.Bytes,
		Date:        parseDate(ov.Date),
		URL:         url(ov),
	}
	if e.URL == "" {
		e.Kind, e.Type, e.Raw = fetch.EntryRaw, "", ov.line
	}
	return e
}

// overviews asks for the overview of articles first..last: OVER when the
// server advertises it (or says nothing), else XOVER, falling back to HEAD
// for each article when neither is known (500) or the overview is
// unavailable (503); the HEAD fallback asks for at most page articles and
// returns them whole, an overview is returned as a stream to read.
func (s *session) overviews(ctx context.Context, first, last, page int64) ([]overview, *overviewStream, error) {
	cmds := []string{"OVER", "XOVER"}
	if s.caps != nil && !s.hasCap("OVER") {
		cmds = cmds[1:]
	}
	rng := strconv.FormatInt(first, 10) + "-" + strconv.FormatInt(last, 10)
	for _, c := range cmds {
		code, text, err := s.do(ctx, c, wire.Lit(c+" "+rng))
		if err != nil {
			return nil, nil, err
		}
		switch code {
		case 224:
			return nil, &overviewStream{s: s, b: s.captured(s.block(c)), first: first, last: last}, nil
		case 420, 423:
			return nil, nil, nil // no articles in the range
		case 500, 501: // not known here: try the next name
			continue
		case 503: // known, but no overview kept
		default:
			return nil, nil, s.replyErr(c, "group", code, text)
		}
		break // to HEAD
	}
	ovs, err := s.heads(ctx, first, last, page)
	return ovs, nil, err
}

// headsTime is how many idle timeouts the HEAD fallback of a group
// listing may take as a whole, from the first HEAD sent to the last
// header's end: each header is timed on its own as well, but a page of
// them each just within that would hold the fetch for many minutes with
// nothing shown.
const headsTime = 4

// heads builds overviews from each article's HEAD (RFC 3977 §6.2.2), for
// at most page of the newest articles first..last, within headsTime idle
// timeouts. The loop counts articles rather than stepping a number up to
// last, which would wrap around and never end when a server says its high
// mark is MaxInt64.
func (s *session) heads(ctx context.Context, first, last, page int64) ([]overview, error) {
	if first < 0 {
		first = 0
	}
	if last < first || page <= 0 {
		return nil, nil
	}
	if last-first >= page { // no overflow: 0 <= first <= last
		first = last - page + 1
	}
	count := last - first + 1 // at most page
	idle := s.req.Options.Idle()
	limit := headsTime * idle
	deadline := time.Now().Add(limit)
	late := func(asked int64) error {
		return &fetch.Error{Kind: fetch.KindNetwork, Op: "HEAD", Offset: -1,
			Err: fmt.Errorf("%w: the headers of the group's newest articles, read one at a time where the server keeps no overview, took more than %v in all (%d of %d read)", fetch.ErrTimeout, limit, asked, count)}
	}
	var out []overview
	for i := int64(0); i < count; i++ {
		if time.Now().After(deadline) {
			return nil, late(i)
		}
		n := first + i
		code, text, err := s.do(ctx, "HEAD", wire.Lit("HEAD "+strconv.FormatInt(n, 10)))
		if err != nil {
			return nil, err
		}
		switch code {
		case 221:
		case 423:
			continue // expired or cancelled
		default:
			return nil, s.replyErr("HEAD", "group", code, text)
		}
		// Only the fields the entry shows are kept, each bounded: the
		// page's headers are held until the listing returns, and a
		// hundred of them at maxHeaderBytes would be 25 MiB.
		var h headFields
		// Read whole before the listing returns: timed as a whole, as
		// an article's header is, and within the fallback's time left.
		left := time.Until(deadline)
		if left <= 0 {
			return nil, late(i)
		}
		s.timer.Begin(min(idle, left))
		err = s.readBlock(ctx, "HEAD", func(line string) error {
			if time.Now().After(deadline) {
				return late(i)
			}
			h.line(line)
			return nil
		})
		s.timer.End()
		if err != nil {
			if left < idle && s.timer.Err() != nil {
				err = late(i) // the time left ran out, not the header's own
			}
			return nil, err
		}
		out = append(out, h.overview(n))
	}
	return out, nil
}

// maxGroupNames and maxGroupDescriptions bound what a group list holds
// in memory while it is sorted: the names (and unreadable lines) of LIST
// ACTIVE, and the LIST NEWSGROUPS descriptions. A full Usenet active file
// needs a few MiB of each. Past the first the list is refused; past the
// second the remaining descriptions are left out.
const (
	maxGroupNames        = 8 << 20
	maxGroupDescriptions = 8 << 20
	// groupListTime is how many idle timeouts each of the two lists
	// may take from its first byte to its last: some 5 MB for a full
	// server's, a minute at 100 KB/s.
	groupListTime = 4
)

// listGroups lists the groups matching wildmat ("" for all) from LIST
// ACTIVE (RFC 3977 §7.6.3), with LIST NEWSGROUPS descriptions (§7.6.6)
// where the server has them; url makes each group's URL. The list is
// sorted by name, so it is held until the end of the reply, compactly:
// names packed in a few large blocks, never an object per group; the
// entries are made as the caller reads them.
func (s *session) listGroups(ctx context.Context, wildmat string, url func(group string) string) (*fetch.Result, error) {
	arg := []wire.Part{wire.Lit("LIST ACTIVE")}
	if wildmat != "" {
		arg = append(arg, wire.Lit(" "), wire.Arg("group", wildmat))
	}
	code, text, err := s.do(ctx, "LIST ACTIVE", arg...)
	if err != nil {
		return nil, err
	}
	// local is a wildmat this side matches, for a server that takes none:
	// LIST ACTIVE without a pattern (RFC 2980 §2.1.2: 501), or no LIST
	// ACTIVE at all (RFC 977: 500).
	local := ""
	if code != 215 && wildmat != "" && (code == 500 || code == 501) {
		local, arg = wildmat, arg[:1]
		if code, text, err = s.do(ctx, "LIST ACTIVE", arg...); err != nil {
			return nil, err
		}
	}
	if code != 215 && (wildmat == "" || local != "") && (code == 500 || code == 501) {
		// RFC 977 §3.6: plain LIST is the active file.
		if code, text, err = s.do(ctx, "LIST", wire.Lit("LIST")); err != nil {
			return nil, err
		}
	}
	if code != 215 {
		return nil, s.replyErr("LIST ACTIVE", "group", code, text)
	}
	var names, bad packed
	// Both lists are read whole before the listing returns, so each is
	// timed as a whole: a line every so often within the idle timeout
	// would otherwise hold the fetch for a million of them. They are
	// data of up to 8 MiB, not replies, and get groupListTime idle
	// timeouts.
	s.timer.Begin(groupListTime * s.req.Options.Idle())
	err = s.readFrom(s.captured(s.block("LIST ACTIVE")), func(line string) error {
		g, err := parseActive(line)
		switch {
		case err != nil:
			bad.add(line)
		case local != "" && !wildmatMatch(local, g.Name):
		default:
			names.add(g.Name)
		}
		if names.size+bad.size > maxGroupNames {
			return &fetch.Error{Kind: fetch.KindPolicy, Op: "LIST ACTIVE", Offset: -1,
				Err: fmt.Errorf("%w: a group list is limited to %d bytes of names", fetch.ErrTooLarge, maxGroupNames)}
		}
		return nil
	})
	s.timer.End()
	if err != nil {
		return nil, err
	}

	var desc packed // "name\tdescription" records
	arg[0] = wire.Lit("LIST NEWSGROUPS")
	code, _, err = s.do(ctx, "LIST NEWSGROUPS", arg...)
	if err != nil {
		return nil, err
	}
	if code == 215 {
		dropped := 0
		s.timer.Begin(groupListTime * s.req.Options.Idle())
		err = s.readBlock(ctx, "LIST NEWSGROUPS", func(line string) error {
			if name, d, ok := parseNewsgroups(line); ok && (local == "" || wildmatMatch(local, name)) {
				if desc.size+len(name)+len(d)+2 > maxGroupDescriptions {
					dropped++
					return nil
				}
				desc.add(name + "\t" + d)
			}
			return nil
		})
		s.timer.End()
		if err != nil {
			return nil, err
		}
		if dropped > 0 {
			s.req.Trace(fetch.DirInfo, fmt.Sprintf("%d group descriptions left out (past %d bytes)", dropped, maxGroupDescriptions))
		}
	}

	names.sort(func(a, b []byte) int { return bytes.Compare(a, b) })
	// Stable, so that of two descriptions of one group the last is kept
	// (at the merge below), as a server's later line would override.
	desc.sort(func(a, b []byte) int { return bytes.Compare(descName(a), descName(b)) })
	title := "newsgroups"
	if wildmat != "" {
		title = "newsgroups matching " + wildmat
	}
	s.req.Trace(fetch.DirInfo, fmt.Sprintf("%d groups listed", len(names.refs)))
	gs := &groupStream{names: &names, bad: &bad, desc: &desc, url: url}
	return &fetch.Result{Kind: fetch.KindListing, Listing: fetch.NewStreamListing(title, gs)}, nil
}

// wildmatMatch matches name against a wildmat of the kind a news URL
// holds (RFC 5538: literal characters, "*" and "?"), "?" standing for one
// character (RFC 3977 §4.1), for a server that matches none itself.
func wildmatMatch(pat, name string) bool {
	p, n := []rune(pat), []rune(name)
	pi, ni := 0, 0
	star, mark := -1, 0 // the last "*" seen, and where its match ends so far
	for ni < len(n) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == n[ni]):
			pi++
			ni++
		case pi < len(p) && p[pi] == '*':
			star, mark = pi, ni
			pi++
		case star >= 0:
			mark++
			pi, ni = star+1, mark
		default:
			return false
		}
	}
	for pi < len(p) && p[pi] == '*' {
		pi++
	}
	return pi == len(p)
}

// descName is the group name of a "name\tdescription" record.
func descName(rec []byte) []byte {
	if i := bytes.IndexByte(rec, '\t'); i >= 0 {
		return rec[:i]
	}
	return rec
}

// packed holds many short strings in a few large blocks, each string
// found by its offset: a million group names cost their bytes and four
// more each, not a string header and an allocation each.
type packed struct {
	blocks [][]byte
	refs   []uint32 // block<<packShift | offset; each record ends with '\n'
	size   int
}

const packShift = 20 // 1 MiB blocks

func (p *packed) add(s string) {
	n := len(s) + 1
	if n > 1<<packShift {
		s, n = s[:1<<packShift-1], 1<<packShift
	}
	if len(p.blocks) == 0 || len(p.blocks[len(p.blocks)-1])+n > 1<<packShift {
		p.blocks = append(p.blocks, make([]byte, 0, 1<<packShift))
	}
	i := len(p.blocks) - 1
	p.refs = append(p.refs, uint32(i)<<packShift|uint32(len(p.blocks[i])))
	p.blocks[i] = append(append(p.blocks[i], s...), '\n')
	p.size += n
}

// at is the record of ref r, without its '\n'.
func (p *packed) at(r uint32) []byte {
	b := p.blocks[r>>packShift][r&(1<<packShift-1):]
	return b[:bytes.IndexByte(b, '\n')]
}

func (p *packed) sort(cmp func(a, b []byte) int) {
	slices.SortStableFunc(p.refs, func(x, y uint32) int { return cmp(p.at(x), p.at(y)) })
}

// groupStream makes the entries of a sorted group list as they are read:
// the groups in name order with their descriptions, then the lines that
// could not be read.
type groupStream struct {
	names, bad, desc *packed
	url              func(string) string
	i, j, k          int // next name, description and bad line
}

func (g *groupStream) Next() (fetch.Entry, error) {
	if g.i < len(g.names.refs) {
		name := g.names.at(g.names.refs[g.i])
		g.i++
		// Merge with the descriptions, both sorted by name; the last of
		// equal names wins.
		var d []byte
		for g.j < len(g.desc.refs) {
			rec := g.desc.at(g.desc.refs[g.j])
			c := bytes.Compare(descName(rec), name)
			if c > 0 {
				break
			}
			if c == 0 {
				d = rec[len(name)+1:]
				if g.j+1 < len(g.desc.refs) && bytes.Equal(descName(g.desc.at(g.desc.refs[g.j+1])), name) {
					g.j++
					continue
				}
				break // kept for a repeated name
			}
			g.j++
		}
		desc := string(d)
		if desc == "?" { // INN's placeholder for "no description"
			desc = ""
		}
		n := string(name)
		if _, msg := urlCheckGroup(n, false); msg != "" {
			// A name RFC 3977 allows and a news or nntp URL does not
			// (RFC 1738 §3.6: a letter first, then letters, digits and
			// "-.+_"): a URL made of it would not fetch.
			return fetch.Entry{Name: n, Kind: fetch.EntryRaw, Size: -1, Description: desc, Raw: n}, nil
		}
		return fetch.Entry{Name: n, URL: g.url(n), Kind: fetch.EntryDir, Size: -1, Description: desc}, nil
	}
	if g.k < len(g.bad.refs) {
		b := string(g.bad.at(g.bad.refs[g.k]))
		g.k++
		return fetch.Entry{Name: b, Kind: fetch.EntryRaw, Size: -1, Raw: b}, nil
	}
	return fetch.Entry{}, io.EOF
}

// Close drops the list; the session ended when the list was read.
func (g *groupStream) Close() error {
	g.names, g.bad, g.desc = &packed{}, &packed{}, &packed{}
	g.i, g.j, g.k = 0, 0, 0
	return nil
}

// maxHeadField bounds each field a group listing keeps of an article's
// header where the server keeps no overview: a Subject or From longer
// than this is shown cut, and a longer Message-ID is dropped.
const maxHeadField = 4 << 10

// The header fields an entry is made of where the server keeps no
// overview, by index into headFieldNames and headFields.f.
const (
	hSubject = iota
	hFrom
	hDate
	hMessageID
	hBytes
	hLines
	numHeadFields
)

// headFieldNames are those fields' keys, in canonical form.
var headFieldNames = [numHeadFields]string{"Subject", "From", "Date", "Message-Id", "Bytes", "Lines"}

// headFields collects, from an article's header read a line at a time,
// the first of each field an entry is made of, unfolded as parseHeader
// does and cut at maxHeadField bytes; the rest of the header is dropped as
// it is read. As for an article, only the header's first maxHeaderBytes
// are read for its fields.
type headFields struct {
	f    [numHeadFields]headField
	cur  *headField // the field a continuation line belongs to; nil for one not kept
	size int        // bytes of the header so far
}

// headField is one header field's value, as much of it as is kept.
type headField struct {
	b    []byte
	seen bool // a later field of the same name is not kept
	cut  bool // the value ran past maxHeadField
}

func (h *headFields) line(l string) {
	if h.size += len(l) + 2; h.size > maxHeaderBytes {
		return
	}
	if l != "" && (l[0] == ' ' || l[0] == '\t') {
		if h.cur != nil {
			h.cur.add(" ")
			h.cur.add(strings.TrimSpace(l))
		}
		return
	}
	h.cur = nil
	k, v, ok := strings.Cut(l, ":")
	if !ok || k == "" || strings.ContainsAny(k, " \t") {
		return
	}
	if i := slices.Index(headFieldNames[:], textproto.CanonicalMIMEHeaderKey(k)); i >= 0 && !h.f[i].seen {
		h.cur = &h.f[i]
		h.cur.seen = true
		h.cur.add(strings.TrimSpace(v))
	}
}

// add appends s to the value, up to maxHeadField bytes in all, cut at the
// start of a UTF-8 sequence.
func (f *headField) add(s string) {
	if f.cut {
		return
	}
	if room := maxHeadField - len(f.b); len(s) > room {
		for room > 0 && !utf8.RuneStart(s[room]) {
			room--
		}
		s, f.cut = s[:room], true
	}
	f.b = append(f.b, s...)
}

// overview is the overview of article n made of the fields.
func (h *headFields) overview(n int64) overview {
	get := func(i int) string { return string(h.f[i].b) }
	ov := overview{Number: n, Subject: get(hSubject), From: get(hFrom), Date: get(hDate), Bytes: -1, Lines: -1}
	// A message-id cut short would name some other article.
	if !h.f[hMessageID].cut {
		ov.MessageID = trimAngles(get(hMessageID))
	}
	if b, err := strconv.ParseInt(strings.TrimSpace(get(hBytes)), 10, 64); err == nil && b >= 0 {
		ov.Bytes = b
	}
	if b, err := strconv.ParseInt(strings.TrimSpace(get(hLines)), 10, 64); err == nil && b >= 0 {
		ov.Lines = b
	}
	return ov
}
