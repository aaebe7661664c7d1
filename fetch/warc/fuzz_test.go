package warc_test

import (
	"bytes"
	"testing"
)

// FuzzHTTPPayload: the payload digest of an HTTP block is the digest of
// what follows the first blank line, however the bytes arrive in writes.
func FuzzHTTPPayload(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"), uint(17))
	f.Add([]byte("HTTP/1.0 200 OK\r\r\n\r\n\r\nbody"), uint(3))
	f.Add([]byte("no header end\r\n\r"), uint(0))
	w := newWriter(f, "fuzz.warc.gz", 0)
	f.Fuzz(func(t *testing.T, data []byte, split uint) {
		b, err := w.NewBlock(true)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		k := int(split % uint(len(data)+1))
		b.Write(data[:k])
		b.Write(data[k:])
		_, body, ok := bytes.Cut(data, []byte("\r\n\r\n"))
		if !ok {
			body = nil
		}
		if got, want := b.PayloadDigest(), digest(body); got != want {
			t.Errorf("payload digest %s, want %s (of %q)", got, want, body)
		}
		if got, want := b.BlockDigest(), digest(data); got != want {
			t.Errorf("block digest %s, want %s", got, want)
		}
	})
}
