package warc

import (
	"crypto/sha1"
	"encoding/base32"
	"hash"
	"os"
	"strings"
	"sync"
)

// Block is a record's content being received: it is spooled to an
// unlinked temporary file in the WARC's directory while its digests are
// computed, because the header, written first, carries the digests and
// the length. Memory stays bounded whatever the size of the document.
// Writes after the block was written or released are dropped.
type Block struct {
	mu      sync.Mutex
	f       *os.File
	size    int64
	block   hash.Hash
	payload hash.Hash
	// For an HTTP message the payload starts after the blank line ending
	// the header of the final response: past any interim (1xx) ones.
	http, inPayload bool
	head            headScan
	err             error
	done            bool
}

// headScan finds the end of an HTTP header as net/http reads it: at an
// empty line, whether lines end in CR LF or in LF alone.
type headScan struct {
	state  int    // headMid, headLineStart, headLineStartCR
	status []byte // the start of the message's first line (its status)
	first  bool   // past the first line
}

const (
	headMid         = iota // inside a line
	headLineStart          // just after a line's LF
	headLineStartCR        // a CR at the start of a line
)

// scan reads p and returns the index just past the header's end, or -1
// when p does not end it.
func (h *headScan) scan(p []byte) int {
	for i, c := range p {
		if !h.first {
			if c == '\n' {
				h.first = true
			} else if len(h.status) < len("HTTP/1.1 100") {
				h.status = append(h.status, c)
			}
		}
		switch {
		case c == '\n' && h.state != headMid:
			return i + 1
		case c == '\n':
			h.state = headLineStart
		case c == '\r' && h.state == headLineStart:
			h.state = headLineStartCR
		default:
			h.state = headMid
		}
	}
	return -1
}

// interim tells whether the header scanned is an interim response's (1xx
// but 101, after which the connection speaks another protocol): another
// response follows, and the payload is that one's.
func (h *headScan) interim() bool {
	s := string(h.status)
	return len(s) == len("HTTP/1.1 100") && strings.HasPrefix(s, "HTTP/1.") && s[8] == ' ' && s[9] == '1' && s[9:] != "101"
}

// NewBlock starts a block; httpMessage says its payload (for the payload
// digest) is what follows the HTTP header, else the whole block.
func (w *Writer) NewBlock(httpMessage bool) (*Block, error) {
	f, err := os.CreateTemp(w.dir, ".warc-spool-*")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name()) // the open file is all we need; nothing is left behind
	return &Block{f: f, block: sha1.New(), payload: sha1.New(), http: httpMessage, inPayload: !httpMessage}, nil
}

// Write spools p; a spool failure is reported when the record is written.
func (b *Block) Write(p []byte) (int, error) {
	n := len(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return n, nil
	}
	if b.err != nil {
		return n, nil
	}
	if _, err := b.f.Write(p); err != nil {
		b.err = err
		return n, nil
	}
	b.size += int64(len(p))
	b.block.Write(p)
	for !b.inPayload {
		i := b.head.scan(p)
		if i < 0 {
			return n, nil
		}
		p = p[i:]
		if b.head.interim() {
			b.head = headScan{status: b.head.status[:0]}
			continue
		}
		b.inPayload = true
	}
	b.payload.Write(p)
	return n, nil
}

// Size is the number of bytes spooled.
func (b *Block) Size() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.size
}

// BlockDigest and PayloadDigest are "sha1:" and the base-32 digest, the
// form the web-archive tools read.
func (b *Block) BlockDigest() string { return digest(b.block) }

// PayloadDigest is the digest of the payload (for HTTP, the body as on
// the wire, after the header).
func (b *Block) PayloadDigest() string { return digest(b.payload) }

func digest(h hash.Hash) string {
	return "sha1:" + base32.StdEncoding.EncodeToString(h.Sum(nil))
}

// finish stops further writes; the spool stays for writing.
func (b *Block) finish() {
	b.mu.Lock()
	b.done = true
	b.mu.Unlock()
}

// Close releases the spool.
func (b *Block) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done = true
	if b.f == nil {
		return nil
	}
	err := b.f.Close()
	b.f = nil
	return err
}
