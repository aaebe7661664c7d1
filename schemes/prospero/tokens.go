package prospero

import (
	"errors"
	"fmt"
	"strings"

	"github.com/fetchproject/fetch/fetch"
)

// Prospero text (protocol v5 §"Spaces, quoting, and line-feeds"): lines
// end at an unquoted LF; tokens are separated by unquoted spaces and tabs;
// a single quote starts or ends quoting anywhere in a token (dirsrv
// starts quoting at the first character that needs it, so "/pub" goes out
// as "'/pub'" and "AFTP/pub" as "AFTP'/pub'"); inside quotes "''" is one
// literal quote; "''" alone is the empty token.

// Limits on a reply's text. A reply is bounded in octets by maxReply; these
// bound what its octets become, since every line is a slice and every
// token a string of its own, each costing far more than the two octets
// ("a\n") it can take on the wire. A reply of short lines at maxReply
// would otherwise become tens of times its size in slices and strings.
const (
	maxLineTokens = 4096
	// maxReplyLines is the most lines a reply may have. dirsrv writes a
	// LINK line and a few ATTRIBUTE lines for each entry of a directory,
	// so this admits directories of tens of thousands of entries, more
	// than Prospero's archives served; and a LINK is a line, so it bounds
	// the links, hence the entries of a listing, too.
	maxReplyLines = 100_000
	// maxReplyTokens is the most tokens a reply may have: ten a line on
	// average at maxReplyLines (dirsrv's LINK and ACCESS-METHOD lines
	// have eight to twelve), some 16 MiB of string headers at most.
	maxReplyTokens = 1_000_000
)

// errSyntax marks reply text the grammar cannot read.
var errSyntax = errors.New("malformed Prospero reply")

// quoteChars are the characters dirsrv's writer quotes: white space, the
// quote, and "/", "+" and "," (which some commands give a meaning).
const quoteChars = " \t\f\v\n\r/'+,"

// quote writes s as one token the way dirsrv's own client does: quoting
// starts at the first character that needs it and runs to the end of the
// token; a quote inside is doubled; the empty string is two quotes.
func quote(s string) string {
	if s == "" {
		return "''"
	}
	i := strings.IndexAny(s, quoteChars)
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.WriteString(s[:i])
	b.WriteByte('\'')
	b.WriteString(strings.ReplaceAll(s[i:], "'", "''"))
	b.WriteByte('\'')
	return b.String()
}

// Line is one line of a reply, split into unquoted tokens.
type Line []string

// String shows the line re-quoted, for traces and errors.
func (l Line) String() string {
	q := make([]string, len(l))
	for i, t := range l {
		q[i] = quote(t)
	}
	return strings.Join(q, " ")
}

// errReplyTooLarge marks a reply of more lines or tokens than this client
// reads.
var errReplyTooLarge = fmt.Errorf("%w: an oversized Prospero reply", fetch.ErrTooLarge)

// splitReply cuts a reply into lines of tokens. An unquoted CR is taken
// for white space, so CR LF ends a line too; empty lines are dropped. A
// quote left open at the end is an error, and so is a line of more than
// maxLineTokens tokens (fetch.ErrLineTooLong, this driver's bound on one
// line) or a reply of more than maxReplyLines lines or maxReplyTokens
// tokens, each found before the line or token past the bound is kept.
func splitReply(b []byte) ([]Line, error) {
	var (
		lines  []Line
		line   Line
		tok    []byte
		inTok  bool // a token has started (possibly empty, as in '')
		quoted bool
		lineNo = 1
		tokens = 0 // tokens kept, in every line
	)
	endTok := func() error {
		if inTok {
			if len(line) >= maxLineTokens {
				return fmt.Errorf("%w: reply line %d has more than %d tokens", fetch.ErrLineTooLong, lineNo, maxLineTokens)
			}
			if tokens >= maxReplyTokens {
				return fmt.Errorf("%w: more than %d tokens (at line %d), the most this client reads", errReplyTooLarge, maxReplyTokens, lineNo)
			}
			line = append(line, string(tok))
			tokens++
		}
		tok, inTok = tok[:0], false
		return nil
	}
	endLine := func() error {
		if len(line) == 0 {
			return nil
		}
		if len(lines) >= maxReplyLines {
			return fmt.Errorf("%w: more than %d lines, the most this client reads", errReplyTooLarge, maxReplyLines)
		}
		lines = append(lines, line)
		return nil
	}
	for i := 0; i < len(b); i++ {
		c := b[i]
		if quoted {
			if c == '\'' {
				if i+1 < len(b) && b[i+1] == '\'' {
					tok = append(tok, '\'')
					i++
					continue
				}
				quoted = false
				continue
			}
			tok = append(tok, c)
			continue
		}
		switch c {
		case '\'':
			quoted, inTok = true, true
		case ' ', '\t', '\r', '\f', '\v':
			if err := endTok(); err != nil {
				return nil, err
			}
		case '\n':
			if err := endTok(); err != nil {
				return nil, err
			}
			if err := endLine(); err != nil {
				return nil, err
			}
			line = nil
			lineNo++
		default:
			tok = append(tok, c)
			inTok = true
		}
	}
	if quoted {
		return nil, fmt.Errorf("%w: a quote opened on line %d is never closed", errSyntax, lineNo)
	}
	if err := endTok(); err != nil {
		return nil, err
	}
	if err := endLine(); err != nil {
		return nil, err
	}
	return lines, nil
}
