package nntp

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/textproto"
	"strings"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

// maxHeaderBytes bounds the header block read ahead of streaming to fill
// Document.Meta; a longer header streams on unparsed.
const maxHeaderBytes = 256 << 10

// metaHeaders are the article headers copied into Document.Meta, by key.
var metaHeaders = map[string]string{
	fetch.MetaSubject: "Subject", fetch.MetaFrom: "From", fetch.MetaDate: "Date",
	fetch.MetaMessageID: "Message-ID", fetch.MetaNewsgroups: "Newsgroups",
}

// article sends an ARTICLE command and returns the article (RFC 3977
// §6.2.1, reply 220) as a message/rfc822 document streamed from the
// connection: dot-unstuffed with LF line ends, or exactly as sent with
// Request.Raw. The
// header is read first to fill Meta and ModTime; part names the URL part
// a "no such article" reply is about.
func (s *session) article(ctx context.Context, op, part string, cmd []wire.Part) (*fetch.Result, error) {
	code, text, err := s.do(ctx, op, cmd...)
	if err != nil {
		return nil, err
	}
	if code != 220 {
		return nil, s.replyErr(op, part, code, text)
	}
	raw := s.req.Raw
	var head bytes.Buffer
	var lines []string
	ended := false
	// The header is read whole before the fetch returns: like a status
	// line, it may take the idle timeout from its first byte to its last.
	s.timer.Begin(s.req.Options.Idle())
	defer s.timer.End()
	for head.Len() < maxHeaderBytes {
		line, err := s.data.ReadLine()
		if err != nil {
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				err = fmt.Errorf("%w: the closing \".\" line never came", fetch.ErrTruncated)
			}
			return nil, s.readErr(op, "article header line", err)
		}
		if line == "." {
			ended = true
			if raw {
				head.WriteString(".\r\n")
			}
			break
		}
		if !raw && strings.HasPrefix(line, "..") {
			line = line[1:]
		}
		head.WriteString(line)
		head.WriteString("\r\n")
		if line == "" {
			break
		}
		lines = append(lines, line)
	}

	hdr := parseHeader(lines)
	// The whole header, as received, is reachable with Document.As
	// (*textproto.MIMEHeader).
	doc := &fetch.Document{MIMEType: "message/rfc822", Size: -1, Meta: map[string]string{}, Native: []any{hdr}}
	for k, h := range metaHeaders {
		if v := hdr.Get(h); v != "" {
			doc.Meta[k] = decodeWords(v)
		}
	}
	if n, id, ok := parseArticleReply(text); ok {
		if n > 0 {
			doc.Meta[fetch.MetaArticleNumber] = fmt.Sprint(n)
		}
		if id != "" && doc.Meta[fetch.MetaMessageID] == "" {
			doc.Meta[fetch.MetaMessageID] = "<" + id + ">"
		}
	}
	doc.ModTime = parseDate(hdr.Get("Date"))

	var rest io.Reader = eofReader{}
	if !ended {
		rest = s.data.DotReader(raw)
	}
	// An archive gets the article before line-end conversion.
	var r io.Reader = s.req.CapturePayload(io.MultiReader(&head, rest), s.conn.RemoteAddr())
	if !raw {
		r = fetch.LocalLines(r) // an article in local line ends (LF), as a news reader saves it
	}
	doc.Body = &articleBody{s: s, op: op, r: r}
	return &fetch.Result{Kind: fetch.KindDocument, Document: doc}, nil
}

// parseHeader reads RFC 5322 header lines, unfolding continuations; a
// line that is not a field is ignored. A field's pieces are joined once
// it ends, so a field folded over many lines costs its size, not its
// size times its lines.
func parseHeader(lines []string) textproto.MIMEHeader {
	h := textproto.MIMEHeader{}
	var key string
	var pieces []string // the current field's value and continuations
	end := func() {
		if key != "" && len(pieces) > 1 {
			vs := h[key]
			vs[len(vs)-1] = strings.Join(pieces, " ")
		}
		key, pieces = "", pieces[:0]
	}
	for _, l := range lines {
		if l != "" && (l[0] == ' ' || l[0] == '\t') {
			if key != "" {
				pieces = append(pieces, strings.TrimSpace(l))
			}
			continue
		}
		end()
		k, v, ok := strings.Cut(l, ":")
		if !ok || k == "" || strings.ContainsAny(k, " \t") {
			continue
		}
		key = textproto.CanonicalMIMEHeaderKey(k)
		v = strings.TrimSpace(v)
		h[key] = append(h[key], v)
		pieces = append(pieces, v)
	}
	end()
	return h
}

type eofReader struct{}

func (eofReader) Read([]byte) (int, error) { return 0, io.EOF }

// articleBody streams an article and owns the connection: Close gives the
// session back to the pool when the article was read to its end, and
// closes it otherwise.
type articleBody struct {
	s      *session
	op     string
	r      io.Reader
	done   bool
	closed bool
	err    error
}

func (b *articleBody) Read(p []byte) (int, error) {
	if b.err != nil {
		return 0, b.err
	}
	n, err := b.r.Read(p)
	switch {
	case err == io.EOF:
		b.done = true
	case err != nil:
		b.err = b.s.readErr(b.op, "article line", err)
		err = b.err
	}
	return n, err
}

// Close acts once: a second Close would give back (or close) a session
// another request may have taken from the pool since.
func (b *articleBody) Close() error {
	if b.closed {
		return nil
	}
	b.closed = true
	if b.done {
		b.s.release()
		return nil
	}
	return b.s.conn.Close()
}
