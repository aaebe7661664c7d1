package gopher

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/fetchproject/fetch/fetch"
)

// formBlock is a Gopher+ string of the RFC 1738 §3.4.9 production:
//
//	+[view]<tab>1 CR LF  +-1 CR LF  <answer> CR LF ...  . CR LF
//
// head is the part before the first CR LF ("+\t1"); answers are the lines
// of the data block.
type formBlock struct {
	head    string
	answers []string
}

// encode is the Gopher+ string as it stands in a URL (decoded).
func (f *formBlock) encode() string {
	var b strings.Builder
	b.WriteString(f.head)
	b.WriteString("\r\n+-1\r\n")
	for _, a := range f.answers {
		b.WriteString(a)
		b.WriteString("\r\n")
	}
	b.WriteString(".\r\n")
	return b.String()
}

// parseFormPlus accepts a Gopher+ string holding CR, LF or NUL only when
// it is exactly the §3.4.9 production, with no CR, LF or NUL inside an
// answer and no answer that is a lone "." (it would end the block early).
// Anything else is refused as fetch.ErrUnsafeLine.
func parseFormPlus(plus string) (*formBlock, error) {
	refuse := func(why string) error {
		return &fetch.Error{Kind: fetch.KindPolicy, Op: "line safety", Part: "gopher+ string", Offset: -1,
			Err: fmt.Errorf("%w: CR LF is allowed in a Gopher+ string only as the RFC 1738 §3.4.9 form answer (%s)", fetch.ErrUnsafeLine, why)}
	}
	head, body, ok := strings.Cut(plus, "\r\n")
	if !ok {
		return nil, refuse("no CR LF after the request part")
	}
	if !strings.HasPrefix(head, "+") || !strings.HasSuffix(head, "\t1") || strings.ContainsAny(head, "\r\n\x00") {
		return nil, refuse(`the request part must be "+[view]<tab>1"`)
	}
	body, ok = strings.CutPrefix(body, "+-1\r\n")
	if !ok {
		return nil, refuse(`the data block must start with "+-1" CR LF`)
	}
	body, ok = strings.CutSuffix(body, ".\r\n")
	if !ok || (body != "" && !strings.HasSuffix(body, "\r\n")) {
		return nil, refuse(`the data block must end with "." CR LF`)
	}
	f := &formBlock{head: head}
	if body != "" {
		for _, a := range strings.Split(strings.TrimSuffix(body, "\r\n"), "\r\n") {
			if a == "." {
				return nil, refuse(`an answer is a lone "."`)
			}
			if err := fetch.CheckLine("form answer", a); err != nil {
				return nil, err
			}
			f.answers = append(f.answers, a)
		}
	}
	return f, nil
}

// fetchForm fetches a "?" item (RFC 1738 §3.4.5): it reads the item's
// +ASK block, has each question answered (Request.Form, else the
// prompter, else the question's default), and sends the answers as the
// §3.4.9 data block with the default view.
func (d *Driver) fetchForm(ctx context.Context, req *fetch.Request, g *URL) (*fetch.Result, error) {
	ask, err := d.askBlock(ctx, req, g)
	if err != nil {
		return nil, err
	}
	answers, secret, err := answerForm(ctx, req, ask)
	if err != nil {
		return nil, err
	}
	f := &formBlock{head: "+\t1", answers: answers}
	rq := &request{selector: g.Selector, search: g.Search, hasSearch: sendsSearch(g.Type, g.Search, true, true), plus: f.encode(), hasPlus: true, form: f}
	if len(secret) > 0 {
		rq.secret = secret
	}
	// The URL of the answered form (§3.4.9), unless it would carry a
	// password the user typed.
	resURL := req.URL
	if len(secret) == 0 {
		fg := *g
		fg.Plus = f.encode()
		if u, err := d.urlFor(req.URL, &fg); err == nil {
			resURL = u
		}
	}
	return d.fetch(ctx, req, g.Type, rq, resURL)
}

// askBlock fetches the item's attributes and returns its +ASK lines. It
// asks for "!+ASK" first (Gopher+ §2.7) and for "!" when the server does
// not honour a chosen block.
func (d *Driver) askBlock(ctx context.Context, req *fetch.Request, g *URL) ([]AskField, error) {
	for _, plus := range []string{"!+ASK", "!"} {
		rq := &request{selector: g.Selector, search: g.Search, hasSearch: sendsSearch(g.Type, g.Search, true, true), plus: plus, hasPlus: true, internal: true}
		conn, rep, err := d.exchange(ctx, req, rq)
		if err != nil {
			return nil, err
		}
		if !rep.plus {
			conn.Close() // a plain Gopher answer: the server ignored the request
			continue
		}
		data, err := readAll(rep.body, maxAttributes)
		conn.Close()
		if err != nil {
			return nil, annotate(req, err)
		}
		attrs, err := parseAttributes(data)
		if err != nil {
			return nil, annotate(req, err)
		}
		for _, a := range attrs {
			if len(a.Ask) > 0 {
				return a.Ask, nil
			}
		}
	}
	return nil, &fetch.Error{Kind: fetch.KindServer, Op: "gopher+ +ASK", Offset: -1, Err: errNoForm}
}

// answerForm collects one answer line (or, for AskL, a count and lines)
// per question, in order. Answers come from Request.Form by label or by
// 1-based question number, else from the prompter, else the question's
// default. It reports which answer lines are secret (AskP).
func answerForm(ctx context.Context, req *fetch.Request, ask []AskField) ([]string, map[int]bool, error) {
	var lines []string
	secret := map[int]bool{}
	n := 0
	for _, f := range ask {
		if f.Kind == "Note" {
			continue
		}
		n++
		q := fetch.Question{Field: strconv.Itoa(n), Label: f.Label}
		hasDefault := false
		switch f.Kind {
		case "Ask", "AskF":
			if len(f.Fields) > 0 {
				q.Default, hasDefault = f.Fields[0], true
			}
		case "AskP":
			q.Secret = true
		case "AskL":
			q.Multi = true
			if len(f.Fields) > 0 {
				q.Default, hasDefault = strings.Join(f.Fields, "\n"), true
			}
		case "Choose":
			q.Choices = f.Fields
		case "Select":
			q.Choices, q.Default, hasDefault = selectChoices(&q, f)
		case "ChooseF":
			return nil, nil, req.Errorf(fetch.KindUsage, "gopher+ +ASK", "question %d (%q) asks for a local file to upload (ChooseF), which fetch does not send", n, f.Label)
		}
		v, ok := req.Form[f.Label]
		if !ok {
			v, ok = req.Form[q.Field]
		}
		if !ok {
			var err error
			v, err = req.Prompt(ctx, q)
			if err != nil {
				if !errors.Is(err, fetch.ErrNoAnswer) || !hasDefault {
					return nil, nil, err
				}
				v = q.Default
			}
		}
		ans, err := formAnswer(f, q, v)
		if err != nil {
			return nil, nil, req.Errorf(fetch.KindUsage, "gopher+ +ASK", "question %d (%q): %v", n, f.Label, err)
		}
		for _, a := range ans {
			if err := fetch.CheckLine("form answer", a); err != nil {
				return nil, nil, err
			}
			if a == "." {
				return nil, nil, req.Errorf(fetch.KindUsage, "gopher+ +ASK", "question %d (%q): an answer may not be a lone \".\"", n, f.Label)
			}
			if q.Secret {
				secret[len(lines)] = true
			}
			lines = append(lines, a)
		}
	}
	return lines, secret, nil
}

// selectChoices reads a Select line: "label:default" (a check box, 0 or 1,
// as UMN's servers write it) or "label<tab>choice<tab>...".
func selectChoices(q *fetch.Question, f AskField) ([]string, string, bool) {
	if len(f.Fields) > 0 {
		return f.Fields, "", false
	}
	if i := strings.LastIndexByte(f.Label, ':'); i >= 0 {
		def := strings.TrimSpace(f.Label[i+1:])
		if def == "0" || def == "1" {
			q.Label = strings.TrimSpace(f.Label[:i])
			return []string{"1", "0"}, def, true
		}
	}
	return []string{"1", "0"}, "0", true
}

// formAnswer turns the user's answer into the lines sent (Gopher+ §2.8):
// one line, or for AskL the number of lines then the lines; a choice must
// be one of the choices (or its 1-based number).
func formAnswer(f AskField, q fetch.Question, v string) ([]string, error) {
	if f.Kind == "AskL" {
		v = strings.ReplaceAll(v, "\r\n", "\n")
		v = strings.TrimSuffix(v, "\n")
		var ls []string
		if v != "" {
			ls = strings.Split(v, "\n")
		}
		return append([]string{strconv.Itoa(len(ls))}, ls...), nil
	}
	if len(q.Choices) > 0 {
		if f.Kind == "Select" && len(f.Fields) == 0 {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "1", "y", "yes", "true", "on":
				return []string{"1"}, nil
			case "0", "n", "no", "false", "off", "":
				return []string{"0"}, nil
			}
			return nil, fmt.Errorf("answer %q is not yes or no", v)
		}
		for _, c := range q.Choices {
			if v == c {
				return []string{c}, nil
			}
		}
		if i, err := strconv.Atoi(v); err == nil && i >= 1 && i <= len(q.Choices) {
			return []string{q.Choices[i-1]}, nil
		}
		return nil, fmt.Errorf("answer %q is not one of the choices %q", v, q.Choices)
	}
	return []string{v}, nil
}

// hasDataFlag reports a Gopher+ request part whose field after the view
// is the data flag "1" (Gopher+ §2.4: "+[view]<tab>1"), whatever fields
// follow it: a server reading the request field by field takes it as the
// flag all the same.
func hasDataFlag(plus string) bool {
	_, flag, ok := strings.Cut(plus, "\t")
	flag, _, _ = strings.Cut(flag, "\t")
	return ok && strings.TrimSpace(flag) == "1"
}
