package prospero

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/fetchproject/fetch/fetch"
)

// Prospero text (protocol v5 §"Spaces, quoting, and line-feeds"): lines
// end at an unquoted LF; tokens are separated by unquoted spaces and tabs;
// a single quote starts or ends quoting anywhere in a token (dirsrv
// starts quoting at the first character that needs it, so "/pub" goes out
// as "'/pub'" and "AFTP/pub" as "AFTP'/pub'"); inside quotes "''" is one
// literal quote; "''" alone is the empty token.

// Limits on a reply's text. A reply is bounded in octets by maxReply; these
// bound what its octets become. Its lines are read one at a time and its
// tokens share its octets (see lineReader), but what is kept of them (an
// attribute, a link, an entry) costs far more than the two octets ("a\n")
// a line can take on the wire.
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
	// have eight to twelve), 16 MiB of string headers were they all kept.
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

// lineReader reads a reply's text one line at a time. An unquoted CR is
// taken for white space, so CR LF ends a line too; blank lines are passed
// over. A quote left open at the end is an error, and so is a line of
// more than maxLineTokens tokens (fetch.ErrLineTooLong, this driver's
// bound on one line) or a reply of more than maxReplyLines lines or
// maxReplyTokens tokens, each found before the line or token past the
// bound is read.
//
// A token is a substring of the text when the text holds it as it is
// (unquoted, or quoted whole with no quote inside), so a reply's tokens
// share its octets rather than each taking a string of its own. The
// line's slice is reused from one line to the next: a caller keeps the
// strings, or a copy of the slice.
type lineReader struct {
	text   string
	pos    int  // where the next line starts
	start  int  // where the line last read starts
	line   Line // the line last read
	lineNo int  // its number, blank lines counted
	lines  int  // lines read, blank ones not counted
	tokens int  // tokens read, in every line
	err    error
}

// next reads the next line that is not blank, reporting false at the
// end of the text or on an error (see err).
func (r *lineReader) next() bool {
	for r.err == nil && r.pos < len(r.text) {
		r.start, r.line = r.pos, r.line[:0]
		r.lineNo++
		if r.err = r.readLine(); r.err != nil {
			return false
		}
		if len(r.line) == 0 {
			continue // a blank line
		}
		if r.lines >= maxReplyLines {
			r.err = fmt.Errorf("%w: more than %d lines, the most this client reads", errReplyTooLarge, maxReplyLines)
			return false
		}
		r.lines++
		return true
	}
	return false
}

// readLine reads the tokens of one line into r.line, up to and past the
// unquoted LF that ends it or to the end of the text.
func (r *lineReader) readLine() error {
	t := r.text
	for r.pos < len(t) {
		switch t[r.pos] {
		case '\n':
			r.pos++
			return nil
		case ' ', '\t', '\r', '\f', '\v':
			r.pos++
			continue
		}
		// A token, to the first unquoted white space. Inside quotes,
		// "''" closes and opens them again: the token goes on.
		start, quoted := r.pos, false
	token:
		for ; r.pos < len(t); r.pos++ {
			switch t[r.pos] {
			case '\'':
				quoted = !quoted
			case ' ', '\t', '\r', '\f', '\v', '\n':
				if !quoted {
					break token
				}
			}
		}
		if quoted {
			return fmt.Errorf("%w: a quote opened on line %d is never closed", errSyntax, r.lineNo)
		}
		if len(r.line) >= maxLineTokens {
			return fmt.Errorf("%w: reply line %d has more than %d tokens", fetch.ErrLineTooLong, r.lineNo, maxLineTokens)
		}
		if r.tokens >= maxReplyTokens {
			return fmt.Errorf("%w: more than %d tokens (at line %d), the most this client reads", errReplyTooLarge, maxReplyTokens, r.lineNo)
		}
		r.line = append(r.line, unquote(t[start:r.pos]))
		r.tokens++
	}
	return nil
}

// unquote is the value of a token as the text writes it: a quote starts
// or ends quoting, and inside quotes two of them are one literal quote.
func unquote(s string) string {
	i := strings.IndexByte(s, '\'')
	switch {
	case i < 0:
		return s
	case i == 0 && strings.IndexByte(s[1:], '\'') == len(s)-2:
		return s[1 : len(s)-1] // quoted whole, as dirsrv writes "'/pub'"
	}
	var b strings.Builder
	b.Grow(len(s))
	quoted := false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] != '\'':
			b.WriteByte(s[i])
		case quoted && i+1 < len(s) && s[i+1] == '\'':
			b.WriteByte('\'')
			i++
		default:
			quoted = !quoted
		}
	}
	return b.String()
}

// checkReply reads the whole of a reply's text as lineReader does,
// returning the number of its lines or the first error in it, so that a
// reply is refused before any of it is used.
func checkReply(text string) (int, error) {
	r := lineReader{text: text}
	for r.next() {
	}
	return r.lines, r.err
}

// maxQuoted is the most of a server's text an error quotes: a reply may
// be 4 MiB, and one token or line nearly all of it.
const maxQuoted = 256

// clip cuts server text quoted in an error to maxQuoted bytes.
func clip(s string) string { return cutText(s, maxQuoted) }

// cutText cuts s to at most n bytes and "...", between two characters: a
// cut through one would leave a byte that is no UTF-8 in the error.
func cutText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}
