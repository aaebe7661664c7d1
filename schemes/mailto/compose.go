package mailto

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/emersion/go-message"
	"github.com/emersion/go-message/mail"

	"github.com/fetchproject/fetch/fetch"
)

// maxBody bounds a message body read from --data, standard input or the
// editor; the whole body is held to choose its transfer encoding.
const maxBody = 32 << 20

// draft is a message being composed: the header fields RFC 6068 lets a
// URL set, the sender, and the body.
type draft struct {
	From                         address
	To, Cc, Bcc                  []address
	Subject, InReplyTo, Keywords string
	Body                         []byte
}

// dedupe keeps the first mention of each address: To, then Cc, then Bcc
// (mailto:a@x?to=a@x names a once).
func (m *draft) dedupe() {
	seen := map[string]bool{}
	for _, l := range []*[]address{&m.To, &m.Cc, &m.Bcc} {
		kept := (*l)[:0]
		for _, a := range *l {
			if k := a.Spec(); !seen[k] {
				seen[k] = true
				kept = append(kept, a)
			}
		}
		*l = kept
	}
}

// recipients are the envelope recipients: To, Cc and Bcc.
func (m *draft) recipients() []address {
	return append(append(append([]address(nil), m.To...), m.Cc...), m.Bcc...)
}

// needsUTF8 reports what needs SMTPUTF8: an address whose local part is
// beyond ASCII, or an In-Reply-To that is, which goes into the header as
// it is (a message id has no encoded form; every other field is kept
// ASCII with encoded-words).
func (m *draft) needsUTF8() bool {
	for _, a := range append([]address{m.From}, m.recipients()...) {
		if a.utf8Local() {
			return true
		}
	}
	for _, c := range []byte(m.InReplyTo) {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

// checkUnsafe refuses a decoded CR, LF or NUL in the addresses or in any
// header field of a mailto URL's opaque part (RFC 6068 §7; RFC 1738 §6),
// naming the field: such a value could add header fields or SMTP
// commands. Only body may hold line breaks (RFC 6068 §2: "%0D%0A").
// Malformed escapes are left for the URL view to report.
func checkUnsafe(opaque string) error {
	addrs, query, _ := strings.Cut(opaque, "?")
	if v, err := fetch.Unescape(addrs); err == nil {
		if err := fetch.CheckLine("to", v); err != nil {
			return err
		}
	}
	for field := range strings.SplitSeq(query, "&") {
		rawName, rawValue, _ := strings.Cut(field, "=")
		name, err := fetch.Unescape(rawName)
		if err != nil {
			continue
		}
		if err := fetch.CheckLine("header name", name); err != nil {
			return err
		}
		part := strings.ToLower(name)
		if part == "body" {
			continue
		}
		if v, err := fetch.Unescape(rawValue); err == nil {
			if err := fetch.CheckLine(part, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// fromURL fills the header fields of m from a mailto URL's view; Other
// fields, and Bcc unless allowed, are dropped with a note to warn.
func (m *draft) fromURL(v *URL, allowBcc bool, warn func(string)) error {
	lists := []struct {
		part string
		in   []string
		out  *[]address
	}{{"to", v.To, &m.To}, {"cc", v.Cc, &m.Cc}, {"bcc", v.Bcc, &m.Bcc}}
	for _, l := range lists {
		if l.part == "bcc" && !allowBcc {
			if len(l.in) > 0 {
				warn(fmt.Sprintf("dropping bcc=%s from the URL: a URL may not add hidden recipients unless blind copies are allowed (--allow-bcc)", strings.Join(l.in, ",")))
			}
			continue
		}
		for _, s := range l.in {
			if err := fetch.CheckLine(l.part, s); err != nil {
				return err
			}
			a, err := parseAddrSpec(s)
			if err != nil {
				return &fetch.Error{Kind: fetch.KindMalformed, Op: "mailto", Part: l.part, Offset: -1, Err: err}
			}
			*l.out = append(*l.out, a)
		}
	}
	for _, f := range []struct{ part, v string }{{"subject", v.Subject}, {"in-reply-to", v.InReplyTo}, {"keywords", v.Keywords}} {
		if err := fetch.CheckLine(f.part, f.v); err != nil {
			return err
		}
	}
	m.Subject, m.InReplyTo, m.Keywords = v.Subject, v.InReplyTo, v.Keywords
	for _, f := range v.Other {
		if err := fetch.CheckLine(strings.ToLower(f.Name), f.Value); err != nil {
			return err
		}
		warn(fmt.Sprintf("dropping header field %q from the URL: RFC 6068 §3 lets a URL set only to, cc, subject, body, in-reply-to and keywords", f.Name))
	}
	if len(m.To)+len(m.Cc)+len(m.Bcc) == 0 {
		return &fetch.Error{Kind: fetch.KindMalformed, Op: "mailto", Part: "to", Offset: -1, Err: errors.New("the URL names no recipient")}
	}
	m.dedupe()
	return nil
}

// readBody reads a body of at most maxBody bytes.
func readBody(r io.Reader) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, maxBody+1))
	if err != nil {
		return nil, &fetch.Error{Kind: fetch.KindLocal, Op: "read body", Offset: -1, Err: err}
	}
	if len(b) > maxBody {
		return nil, &fetch.Error{Kind: fetch.KindPolicy, Op: "read body", Offset: -1,
			Err: fmt.Errorf("%w: the message body exceeds %d bytes", fetch.ErrTooLarge, maxBody)}
	}
	return b, nil
}

// normalizeBody turns CR LF and bare CR into LF (the encoders write CR LF) and
// ends a non-empty body with a line break.
func normalizeBody(b []byte) []byte {
	b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
	// A bare CR is no line end a message may hold (RFC 5322 §2.3); as a
	// line break it is what the writer meant, and the quoted-printable
	// encoder would otherwise swallow the line end after it.
	b = bytes.ReplaceAll(b, []byte("\r"), []byte("\n"))
	if len(b) > 0 && b[len(b)-1] != '\n' {
		b = append(b, '\n')
	}
	return b
}

// transferEncoding picks 7bit for a body of short ASCII lines and
// quoted-printable for anything else (RFC 2045 §6.7; RFC 5322 §2.1.1's
// 998-octet line limit).
func transferEncoding(body []byte) string {
	line := 0
	for _, c := range body {
		switch {
		case c == '\n':
			line = 0
			continue
		case c >= 0x80, c < ' ' && c != '\t', c == 0x7f:
			return "quoted-printable"
		}
		if line++; line > 998 {
			return "quoted-printable"
		}
	}
	return "7bit"
}

// compose writes m as an RFC 5322 message: From, To, Cc, Subject (RFC 2047
// encoded-words when not ASCII), Date, Message-ID, In-Reply-To, Keywords
// and a text/plain UTF-8 body in 7bit or quoted-printable. Bcc recipients
// never appear in it. id is the Message-ID without angle brackets.
func compose(w io.Writer, m *draft, date time.Time, id string) error {
	type field struct{ k, v string }
	var fields []field
	add := func(k, v string) {
		if v != "" {
			fields = append(fields, field{k, v})
		}
	}
	join := func(l []address) string {
		s := make([]string, len(l))
		for i, a := range l {
			s[i] = a.String()
		}
		return strings.Join(s, ", ")
	}

	var h mail.Header
	add("From", m.From.String())
	add("To", join(m.To))
	add("Cc", join(m.Cc))
	add("Subject", encodeText(m.Subject))
	h.SetDate(date)
	add("Date", h.Get("Date"))
	h.SetMessageID(id)
	add("Message-ID", h.Get("Message-Id"))
	if m.InReplyTo != "" {
		ids, err := msgIDs(m.InReplyTo)
		if err != nil {
			return err
		}
		h.SetMsgIDList("In-Reply-To", ids)
		add("In-Reply-To", h.Get("In-Reply-To"))
	}
	if m.Keywords != "" {
		var kw []string
		for k := range strings.SplitSeq(m.Keywords, ",") {
			if k = strings.TrimSpace(k); k != "" {
				kw = append(kw, formatPhrase(k))
			}
		}
		add("Keywords", strings.Join(kw, ", "))
	}
	enc := transferEncoding(m.Body)
	add("MIME-Version", "1.0")
	add("Content-Type", "text/plain; charset=utf-8")
	add("Content-Transfer-Encoding", enc)

	// go-message writes header fields newest first: add them in reverse,
	// folded here so that every line stays within 78 octets where a
	// space allows (RFC 5322 §2.1.1, §2.2.3).
	var out message.Header
	for i := len(fields) - 1; i >= 0; i-- {
		out.AddRaw(fold(fields[i].k, fields[i].v))
	}
	bw, err := message.CreateWriter(w, out)
	if err != nil {
		return err
	}
	if _, err := bw.Write(m.Body); err != nil {
		return err
	}
	return bw.Close()
}

// fold formats one header field, breaking its value at spaces so that
// lines stay within 78 octets; a word longer than that keeps its own line.
func fold(k, v string) []byte {
	b := []byte(k + ":")
	n := len(b)
	for i, word := range strings.Split(v, " ") {
		if i > 0 && word != "" && n+1+len(word) > 78 {
			b = append(b, "\r\n"...)
			n = 0
		}
		b = append(b, ' ')
		b = append(b, word...)
		n += 1 + len(word)
	}
	return append(b, "\r\n"...)
}

// maxWord is the longest run without a space let through unencoded, so
// that no header line passes RFC 5322's 998 octets.
const maxWord = 900

// encodeText encodes unstructured text (Subject) as RFC 2047 Q
// encoded-words when it is not printable ASCII; plain text stays as it
// is. Text whose spacing folding would lose or stretch past a line (runs
// of spaces, tabs, spaces at either end, a word too long for a line) is
// encoded whole, so that it reads back exactly.
func encodeText(s string) string {
	odd := strings.Contains(s, "  ") || strings.ContainsRune(s, '\t') ||
		strings.HasPrefix(s, " ") || strings.HasSuffix(s, " ")
	for w := range strings.FieldsSeq(s) {
		odd = odd || len(w) > maxWord
	}
	if odd {
		return forceQ(s)
	}
	return mime.QEncoding.Encode("utf-8", s)
}

// forceQ encodes all of s as Q encoded-words of at most 75 octets, never
// splitting a UTF-8 sequence (RFC 2047 §2). Only letters and digits stay
// as they are, so the words are valid in a phrase too (§5 rule 3).
func forceQ(s string) string {
	const prefix, suffix = "=?utf-8?q?", "?="
	var words []string
	var cur strings.Builder
	for _, r := range s {
		var enc strings.Builder
		for _, c := range []byte(string(r)) {
			switch {
			case c == ' ':
				enc.WriteByte('_')
			case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
				enc.WriteByte(c)
			default:
				fmt.Fprintf(&enc, "=%02X", c)
			}
		}
		if cur.Len() > 0 && len(prefix)+cur.Len()+enc.Len()+len(suffix) > 75 {
			words = append(words, prefix+cur.String()+suffix)
			cur.Reset()
		}
		cur.WriteString(enc.String())
	}
	if cur.Len() > 0 {
		words = append(words, prefix+cur.String()+suffix)
	}
	return strings.Join(words, " ")
}

// msgIDs reads the In-Reply-To value of a URL: one or more <msg-id>s
// (RFC 5322 §3.6.4).
func msgIDs(v string) ([]string, error) {
	var h mail.Header
	h.Set("In-Reply-To", v)
	ids, err := h.MsgIDList("In-Reply-To")
	if err == nil && len(ids) == 0 {
		err = errors.New("no message identifier")
	}
	for _, id := range ids {
		if len(id) > maxWord {
			err = errors.New("message identifier too long")
		}
	}
	if err != nil {
		return nil, &fetch.Error{Kind: fetch.KindMalformed, Op: "mailto", Part: "in-reply-to", Offset: -1,
			Err: fmt.Errorf("in-reply-to must be <id@domain>: %v", err)}
	}
	return ids, nil
}

// editorFields are the header fields the editor shows and reads back.
var editorFields = []string{"From", "To", "Cc", "Bcc", "Subject", "In-Reply-To", "Keywords"}

// editorDraft is the text handed to the editor: the header fields, a
// blank line, then the body, with LF line ends and UTF-8 shown as is.
func editorDraft(m *draft, allowBcc bool) []byte {
	var b bytes.Buffer
	list := func(l []address) string {
		s := make([]string, len(l))
		for i, a := range l {
			s[i] = a.String()
		}
		return strings.Join(s, ", ")
	}
	fmt.Fprintf(&b, "From: %s\n", m.From)
	fmt.Fprintf(&b, "To: %s\n", list(m.To))
	fmt.Fprintf(&b, "Cc: %s\n", list(m.Cc))
	if allowBcc {
		fmt.Fprintf(&b, "Bcc: %s\n", list(m.Bcc))
	}
	fmt.Fprintf(&b, "Subject: %s\n", m.Subject)
	if m.InReplyTo != "" {
		fmt.Fprintf(&b, "In-Reply-To: %s\n", m.InReplyTo)
	}
	if m.Keywords != "" {
		fmt.Fprintf(&b, "Keywords: %s\n", m.Keywords)
	}
	b.WriteString("\n")
	b.Write(m.Body)
	return b.Bytes()
}

// errEmptyDraft reports an editor session that left nothing to send.
var errEmptyDraft = errors.New("the edited message is empty; nothing was sent")

// fromEditor reads back an edited draft into m: header fields up to the
// first blank line (continuation lines start with white space), then the
// body. Fields other than editorFields, and Bcc unless allowed, are
// dropped with a note to warn.
func (m *draft) fromEditor(text []byte, allowBcc bool, warn func(string)) error {
	if len(bytes.TrimSpace(text)) == 0 {
		return &fetch.Error{Kind: fetch.KindUsage, Op: "edit", Offset: -1, Err: errEmptyDraft}
	}
	if !utf8.Valid(text) {
		return &fetch.Error{Kind: fetch.KindUsage, Op: "edit", Offset: -1, Err: errors.New("the edited message is not valid UTF-8")}
	}
	text = bytes.ReplaceAll(text, []byte("\r\n"), []byte("\n"))
	head, body, _ := bytes.Cut(text, []byte("\n\n"))
	if bytes.HasPrefix(text, []byte("\n")) {
		head, body = nil, text[1:]
	}
	var names, values []string
	for n, line := range strings.Split(string(head), "\n") {
		if line == "" {
			continue
		}
		if line[0] == ' ' || line[0] == '\t' {
			if len(values) == 0 {
				return editErr(n, "a continuation line before any header field")
			}
			values[len(values)-1] += " " + strings.TrimSpace(line)
			continue
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			return editErr(n, "not a header field (\"Name: value\"); leave a blank line before the body")
		}
		names, values = append(names, k), append(values, strings.TrimSpace(v))
	}
	*m = draft{From: m.From}
	for i, k := range names {
		v := values[i]
		part := strings.ToLower(k)
		if err := fetch.CheckLine(part, v); err != nil {
			return err
		}
		var dst *[]address
		switch part {
		case "from":
			l, err := parseMailboxList(v)
			if err == nil && len(l) != 1 {
				err = fmt.Errorf("%w: From needs exactly one address", errAddress)
			}
			if err != nil {
				return &fetch.Error{Kind: fetch.KindUsage, Op: "edit", Part: part, Offset: -1, Err: err}
			}
			m.From = l[0]
			continue
		case "to":
			dst = &m.To
		case "cc":
			dst = &m.Cc
		case "bcc":
			if !allowBcc {
				if v != "" {
					warn("dropping the Bcc field: blind copies are not allowed (--allow-bcc)")
				}
				continue
			}
			dst = &m.Bcc
		case "subject":
			m.Subject = v
			continue
		case "in-reply-to":
			m.InReplyTo = v
			continue
		case "keywords":
			m.Keywords = v
			continue
		default:
			warn(fmt.Sprintf("dropping header field %q from the edited message: only %s are read", k, strings.Join(editorFields, ", ")))
			continue
		}
		l, err := parseMailboxList(v)
		if err != nil {
			return &fetch.Error{Kind: fetch.KindUsage, Op: "edit", Part: part, Offset: -1, Err: err}
		}
		*dst = append(*dst, l...)
	}
	if len(m.To)+len(m.Cc)+len(m.Bcc) == 0 {
		return &fetch.Error{Kind: fetch.KindUsage, Op: "edit", Part: "to", Offset: -1, Err: errors.New("the edited message names no recipient; nothing was sent")}
	}
	m.Body = body
	m.dedupe()
	return nil
}

func editErr(line int, why string) error {
	return &fetch.Error{Kind: fetch.KindUsage, Op: "edit", Offset: -1, Err: fmt.Errorf("line %d of the edited message: %s", line+1, why)}
}
