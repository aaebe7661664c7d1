package warc

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"syscall"
	"testing"
)

// failingReader gives the first n bytes of b, then err.
type failingReader struct {
	b   []byte
	n   int
	err error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.n == 0 {
		return 0, f.err
	}
	k := copy(p[:min(len(p), f.n)], f.b)
	f.b, f.n = f.b[k:], f.n-k
	return k, nil
}

// TestEachMemberReadError: a file that cannot be read past a point (EIO)
// is not taken for a torn one, which repair would cut there: the error
// is returned. A member cut short by the end of the file is torn.
func TestEachMemberReadError(t *testing.T) {
	var file bytes.Buffer
	var ends []int64
	for _, s := range []string{"first member", "second member, longer than the first"} {
		z := gzip.NewWriter(&file)
		io.WriteString(z, s)
		z.Close()
		ends = append(ends, int64(file.Len()))
	}
	each := func(io.Reader) error { return nil }
	walk := func(r io.Reader) (int64, error) {
		return eachMember(r, func(_ int64, m io.Reader) error { return each(m) })
	}
	cut := int(ends[0]) + 10 // inside the second member
	good, err := walk(&failingReader{b: file.Bytes(), n: cut, err: syscall.EIO})
	if !errors.Is(err, syscall.EIO) {
		t.Errorf("a read error inside the second member: good %d, err %v; want EIO", good, err)
	}
	good, err = walk(bytes.NewReader(file.Bytes()[:cut]))
	if err != nil || good != ends[0] {
		t.Errorf("a file cut inside the second member: good %d, err %v; want %d, nil", good, err, ends[0])
	}
	good, err = walk(bytes.NewReader(file.Bytes()))
	if err != nil || good != ends[1] {
		t.Errorf("whole: good %d, err %v; want %d", good, err, ends[1])
	}
}
