package nntp

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

// listGroup selects group and lists its newest page articles from the
// overview database (RFC 3977 §8.3 OVER, RFC 2980 XOVER), or from their
// headers (HEAD) where the server keeps no overview. url makes an entry's
// URL; an entry it gives none becomes a raw line.
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
	ovs, err := s.overviews(ctx, first, g.High, page)
	if err != nil {
		return nil, err
	}
	for i := range ovs {
		l.Entries = append(l.Entries, overviewEntry(&ovs[i], url))
	}
	s.req.Trace(fetch.DirInfo, fmt.Sprintf("%d articles listed from %s (%d-%d)", len(l.Entries), group, first, g.High))
	return res, nil
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

// overviews reads the overview of articles first..last: OVER when the
// server advertises it (or says nothing), else XOVER, falling back to HEAD
// for each article when neither is known (500) or the overview is
// unavailable (503); the HEAD fallback asks for at most page articles.
func (s *session) overviews(ctx context.Context, first, last, page int64) ([]overview, error) {
	cmds := []string{"OVER", "XOVER"}
	if s.caps != nil && !s.hasCap("OVER") {
		cmds = cmds[1:]
	}
	rng := strconv.FormatInt(first, 10) + "-" + strconv.FormatInt(last, 10)
	for _, c := range cmds {
		code, text, err := s.do(ctx, c, wire.Lit(c+" "+rng))
		if err != nil {
			return nil, err
		}
		switch code {
		case 224:
			var out []overview
			err := s.readBlock(ctx, c, func(line string) error {
				ov, err := parseOverview(line)
				if err != nil {
					ov = overview{raw: line}
				}
				ov.line = line
				out = append(out, ov)
				return nil
			})
			return out, err
		case 420, 423:
			return nil, nil // no articles in the range
		case 500, 501: // not known here: try the next name
			continue
		case 503: // known, but no overview kept
		default:
			return nil, s.replyErr(c, "group", code, text)
		}
		break // to HEAD
	}
	return s.heads(ctx, first, last, page)
}

// heads builds overviews from each article's HEAD (RFC 3977 §6.2.2), for
// at most page of the newest articles first..last. The loop counts
// articles rather than stepping a number up to last, which would wrap
// around and never end when a server says its high mark is MaxInt64.
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
	var out []overview
	for i := int64(0); i < count; i++ {
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
		var lines []string
		size := 0
		err = s.readBlock(ctx, "HEAD", func(line string) error {
			if size += len(line) + 2; size <= maxHeaderBytes {
				lines = append(lines, line)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		out = append(out, headOverview(n, parseHeader(lines)))
	}
	return out, nil
}

// listGroups lists the groups matching wildmat ("" for all) from LIST
// ACTIVE (RFC 3977 §7.6.3), with LIST NEWSGROUPS descriptions (§7.6.6)
// where the server has them; url makes each group's URL.
func (s *session) listGroups(ctx context.Context, wildmat string, url func(group string) string) (*fetch.Result, error) {
	arg := []wire.Part{wire.Lit("LIST ACTIVE")}
	if wildmat != "" {
		arg = append(arg, wire.Lit(" "), wire.Arg("group", wildmat))
	}
	code, text, err := s.do(ctx, "LIST ACTIVE", arg...)
	if err != nil {
		return nil, err
	}
	if code != 215 && wildmat == "" && (code == 500 || code == 501) {
		// RFC 977 §3.6: plain LIST is the active file.
		if code, text, err = s.do(ctx, "LIST", wire.Lit("LIST")); err != nil {
			return nil, err
		}
	}
	if code != 215 {
		return nil, s.replyErr("LIST ACTIVE", "group", code, text)
	}
	var groups []activeGroup
	var bad []string
	err = s.readBlock(ctx, "LIST ACTIVE", func(line string) error {
		g, err := parseActive(line)
		if err != nil {
			bad = append(bad, line)
			return nil
		}
		groups = append(groups, g)
		return nil
	})
	if err != nil {
		return nil, err
	}

	desc := map[string]string{}
	arg[0] = wire.Lit("LIST NEWSGROUPS")
	code, _, err = s.do(ctx, "LIST NEWSGROUPS", arg...)
	if err != nil {
		return nil, err
	}
	if code == 215 {
		err = s.readBlock(ctx, "LIST NEWSGROUPS", func(line string) error {
			if name, d, ok := parseNewsgroups(line); ok {
				desc[name] = d
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}

	sort.Slice(groups, func(i, j int) bool { return groups[i].Name < groups[j].Name })
	title := "newsgroups"
	if wildmat != "" {
		title = "newsgroups matching " + wildmat
	}
	l := &fetch.Listing{Title: title, Entries: make([]fetch.Entry, 0, len(groups)+len(bad))}
	for _, g := range groups {
		d := desc[g.Name]
		if d == "?" { // INN's placeholder for "no description"
			d = ""
		}
		l.Entries = append(l.Entries, fetch.Entry{
			Name:        g.Name,
			URL:         url(g.Name),
			Kind:        fetch.EntryDir,
			Size:        -1,
			Description: d,
		})
	}
	for _, b := range bad {
		l.Entries = append(l.Entries, fetch.Entry{Name: b, Kind: fetch.EntryRaw, Size: -1, Raw: b})
	}
	s.req.Trace(fetch.DirInfo, fmt.Sprintf("%d groups listed", len(groups)))
	return &fetch.Result{Kind: fetch.KindListing, Listing: l}, nil
}

// headOverview is the overview of article n made from its header.
func headOverview(n int64, h map[string][]string) overview {
	get := func(k string) string {
		if v := h[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	ov := overview{Number: n, Subject: get("Subject"), From: get("From"), Date: get("Date"),
		MessageID: trimAngles(get("Message-Id")), References: get("References"), Bytes: -1, Lines: -1}
	if b, err := strconv.ParseInt(strings.TrimSpace(get("Bytes")), 10, 64); err == nil && b >= 0 {
		ov.Bytes = b
	}
	if b, err := strconv.ParseInt(strings.TrimSpace(get("Lines")), 10, 64); err == nil && b >= 0 {
		ov.Lines = b
	}
	return ov
}
