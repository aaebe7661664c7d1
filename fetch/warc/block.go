package warc

import (
	"crypto/sha1"
	"encoding/base32"
	"hash"
	"os"
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
	// the header; seen counts the CR LF CR LF bytes matched so far.
	http, inPayload bool
	seen            int
	err             error
	done            bool
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
	if !b.inPayload {
		const end = "\r\n\r\n"
		for i, c := range p {
			switch {
			case c == end[b.seen]:
				b.seen++
			case c == '\r':
				b.seen = 1
			default:
				b.seen = 0
			}
			if b.seen == len(end) {
				b.inPayload = true
				p = p[i+1:]
				break
			}
		}
		if !b.inPayload {
			return n, nil
		}
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
