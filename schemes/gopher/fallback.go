package gopher

import (
	"bufio"
	"context"
	"errors"
	"net"
	"strings"

	"github.com/fetchproject/fetch/fetch"
)

// attributes reads the reply to a "!" or "$" request (RFC 1738 §3.4.6,
// Gopher+ §2.5) and returns its attribute blocks, or only those the
// request named ("!+ABSTRACT +ADMIN") and +INFO. Servers that do not
// understand the names answer with the document itself (pygopherd) or
// with every block (gophernicus); for a reply that is not an attribute
// block the request is sent again as a plain "!" or "$" and the named
// blocks are kept here. conn and rep are the first exchange's; conn is
// closed on return.
func (d *Driver) attributes(ctx context.Context, req *fetch.Request, rq *request, conn net.Conn, rep *reply) (string, error) {
	data, ok, err := readAttributes(conn, rep)
	if err != nil {
		return "", annotate(req, err)
	}
	kind, names := rq.plus[:1], blockNames(rq.plus)
	if !ok && len(names) > 0 {
		req.Trace(fetch.DirInfo, "the reply is not an attribute block: asking for all attributes ("+kind+") and keeping "+strings.Join(names, " "))
		again := *rq
		again.plus = kind
		conn, rep, err := d.exchange(ctx, req, &again)
		if err != nil {
			return "", err
		}
		if data, ok, err = readAttributes(conn, rep); err != nil {
			return "", annotate(req, err)
		}
	}
	if !ok {
		return "", &fetch.Error{Kind: fetch.KindServer, Op: "gopher+ " + kind, Offset: -1,
			Err: errors.New("the server answered with something other than Gopher+ attribute blocks: it does not serve this item's attributes")}
	}
	if len(names) == 0 {
		return data, nil
	}
	attrs, err := parseAttributes(data)
	if err != nil {
		return "", annotate(req, err)
	}
	return selectBlocks(attrs, names), nil
}

// readAttributes reads an attribute reply whole (bounded) and closes conn;
// ok is false when the reply is not one: no Gopher+ length line, or data
// that does not start with a "+" block line.
func readAttributes(conn net.Conn, rep *reply) (data string, ok bool, err error) {
	defer conn.Close()
	if rep.empty || !rep.plus {
		return "", false, nil
	}
	br := bufio.NewReader(rep.body)
	first, err := br.Peek(1)
	if err != nil || first[0] != '+' {
		return "", false, nil
	}
	data, err = readAll(br, maxAttributes)
	if err != nil {
		return "", false, err
	}
	return data, true, nil
}

// blockNames are the attribute names a "!" or "$" Gopher+ string asks for
// ("!+ABSTRACT +ADMIN": "+ABSTRACT", "+ADMIN").
func blockNames(plus string) []string {
	var out []string
	for _, f := range strings.Fields(plus[1:]) {
		if !strings.HasPrefix(f, "+") {
			f = "+" + f
		}
		out = append(out, strings.ToUpper(f))
	}
	return out
}

// selectBlocks writes back the blocks of attrs that are named, with each
// item's +INFO, in the form a server sends them.
func selectBlocks(attrs []Attributes, names []string) string {
	want := map[string]bool{"+INFO": true}
	for _, n := range names {
		want[n] = true
	}
	var b strings.Builder
	for _, a := range attrs {
		for _, blk := range a.Blocks {
			if !want[strings.ToUpper(blk.Name)] {
				continue
			}
			b.WriteString(blk.Name + ":")
			if blk.Head != "" {
				b.WriteString(" " + blk.Head)
			}
			b.WriteString("\r\n")
			for _, l := range blk.Lines {
				b.WriteString(" " + l + "\r\n")
			}
		}
	}
	return b.String()
}
