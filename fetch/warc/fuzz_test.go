package warc_test

import (
	"testing"

	"github.com/fetchproject/fetch/fetch/warc"
)

// FuzzHTTPPayload: the payload digest of an HTTP block (what follows the
// header of its final answer: TestPayloadDigestHTTPBody has the cases) is the same
// however the bytes arrive in writes, and the block digest is the whole's.
func FuzzHTTPPayload(f *testing.F) {
	f.Add([]byte("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"), uint(17))
	f.Add([]byte("HTTP/1.0 200 OK\r\r\n\r\n\r\nbody"), uint(3))
	f.Add([]byte("no header end\r\n\r"), uint(0))
	f.Add([]byte("HTTP/1.1 100 Continue\n\nHTTP/1.1 200 OK\n\nbody"), uint(20))
	w := newWriter(f, "fuzz.warc.gz", 0)
	f.Fuzz(func(t *testing.T, data []byte, split uint) {
		newBlock := func() *warc.Block {
			b, err := w.NewBlock(true)
			if err != nil {
				t.Fatal(err)
			}
			return b
		}
		split1, whole := newBlock(), newBlock()
		defer split1.Close()
		defer whole.Close()
		k := int(split % uint(len(data)+1))
		split1.Write(data[:k])
		split1.Write(data[k:])
		whole.Write(data)
		if got, want := split1.PayloadDigest(), whole.PayloadDigest(); got != want {
			t.Errorf("payload digest %s written at %d, %s written whole", got, k, want)
		}
		if got, want := split1.BlockDigest(), digest(data); got != want {
			t.Errorf("block digest %s, want %s", got, want)
		}
	})
}
