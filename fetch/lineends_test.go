package fetch

import (
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

func TestLocalLines(t *testing.T) {
	tests := map[string]string{
		"a\r\nb\r\n":      "a\nb\n",
		"a\nb\n":          "a\nb\n",
		"a\rb\r\n\r\n":    "a\rb\n\n",
		"end\r":           "end\r",
		"\r\r\n":          "\r\n",
		"":                "",
		"mixed\r\nlf\ncr": "mixed\nlf\ncr",
	}
	for in, want := range tests {
		// One byte at a time puts every CR at a read boundary.
		for name, r := range map[string]io.Reader{
			"whole":    strings.NewReader(in),
			"one byte": iotest.OneByteReader(strings.NewReader(in)),
			"half":     iotest.HalfReader(strings.NewReader(in)),
		} {
			got, err := io.ReadAll(LocalLines(r))
			if err != nil || string(got) != want {
				t.Errorf("%s %q: got %q, %v; want %q", name, in, got, err, want)
			}
		}
	}
	// An error other than EOF comes through after the data.
	got, err := io.ReadAll(LocalLines(io.MultiReader(strings.NewReader("x\r"), iotest.ErrReader(io.ErrUnexpectedEOF))))
	if err != io.ErrUnexpectedEOF || string(got) != "x\r" {
		t.Errorf("error after CR: %q, %v", got, err)
	}
	// ... also when the source says it once and then reports a clean end,
	// as a body may: a truncation must not read as a complete text.
	for _, in := range []string{"x\r", "x"} {
		got, err = io.ReadAll(LocalLines(&onceErr{data: in, err: io.ErrUnexpectedEOF}))
		if err != io.ErrUnexpectedEOF || string(got) != in {
			t.Errorf("%q, error said once: %q, %v", in, got, err)
		}
	}
}

// onceErr returns data with err, and io.EOF after that.
type onceErr struct {
	data string
	err  error
	done bool
}

func (r *onceErr) Read(p []byte) (int, error) {
	if r.done {
		return 0, io.EOF
	}
	r.done = true
	return copy(p, r.data), r.err
}
