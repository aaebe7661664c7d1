package gopher

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/fetchproject/fetch/fetch"
)

// observed returns the server replies recorded from pygopherd and
// gophernicus by the harness, to seed the fuzzers with real bytes.
func observed(f *testing.F) [][]byte {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join("..", "..", "testdata", "harness", "gopher-observed", "*", "*.response"))
	var out [][]byte
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			out = append(out, b)
		}
	}
	return out
}

func FuzzMenu(f *testing.F) {
	for _, b := range observed(f) {
		f.Add(b)
	}
	f.Add([]byte("0About\t/about.txt\tgopher.example\t70\r\n8Login\tguest\tbbs\t23\r\nhWeb\tURL:http://x/\th\t70\r\n+m\t/a\tm\t70\r\n.\r\n"))
	f.Add([]byte("1x\t\t\t\r\n7s\t/s\th\t70\t+\r\n0f\t/f\th\t70\t?\r\n3err\t\terror.host\t1\r\niTitle\tTITLE\tnull\t1\r\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := parseMenu(bytes.NewReader(data), "127.0.0.1", 7070, 1<<20, nil)
		if err != nil {
			if !errors.Is(err, fetch.ErrLineTooLong) && !errors.Is(err, fetch.ErrTooLarge) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		for _, e := range l.Entries {
			if e.URL == "" {
				continue
			}
			// Every link is absolute and parses; gopher links give their
			// selector back.
			u, err := fetch.Parse(e.URL)
			if err != nil {
				t.Fatalf("entry %+v: URL does not parse: %v", e, err)
			}
			if u.Scheme != "gopher" {
				continue
			}
			if _, err := ParseURL(u); err != nil {
				t.Fatalf("entry %+v: %v", e, err)
			}
		}
	})
}

// modelText is the reference reading of dot-terminated text.
func modelText(data []byte, strict bool) ([]byte, bool) {
	var out []byte
	for len(data) > 0 {
		i := bytes.IndexByte(data, '\n')
		line := data
		if i >= 0 {
			line = data[:i+1]
		}
		data = data[len(line):]
		switch string(line) {
		case ".", ".\n", ".\r\n":
			return out, true
		}
		if bytes.HasPrefix(line, []byte("..")) {
			line = line[1:]
		}
		out = append(out, line...)
	}
	return out, !strict
}

func FuzzText(f *testing.F) {
	for _, b := range observed(f) {
		f.Add(b, false)
	}
	f.Add([]byte("a\r\n..b\r\n.\r\nc"), true)
	f.Add([]byte(".\r"), false)
	f.Add([]byte("x\n.."), true)
	f.Fuzz(func(t *testing.T, data []byte, strict bool) {
		want, ok := modelText(data, strict)
		for _, r := range []io.Reader{bytes.NewReader(data), iotest.OneByteReader(bytes.NewReader(data)), iotest.HalfReader(bytes.NewReader(data))} {
			got, err := io.ReadAll(newTextReader(bufio.NewReaderSize(r, 16), strict))
			if ok != (err == nil) {
				t.Fatalf("err %v, model ok %v", err, ok)
			}
			if err != nil && !errors.Is(err, fetch.ErrTruncated) {
				t.Fatalf("err %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("got %q, want %q", got, want)
			}
		}
	})
}

func FuzzReply(f *testing.F) {
	for _, b := range observed(f) {
		f.Add(b, true)
		f.Add(b, false)
	}
	f.Add([]byte("+5\r\nhello"), true)
	f.Add([]byte("+10\r\nshort"), true)
	f.Add([]byte("+-1\r\na\r\n.\r\n"), true)
	f.Add([]byte("--1\r\n1 admin\r\nmsg\r\n.\r\n"), true)
	f.Add([]byte("-3\r\n1 x"), true)
	f.Add([]byte("3err\t\terror.host\t1\r\n.\r\n"), false)
	f.Fuzz(func(t *testing.T, data []byte, plus bool) {
		b := bufio.NewReaderSize(bytes.NewReader(data), 4096)
		rep, err := readReply(b, plus, false, nil)
		if err != nil {
			var fe *fetch.Error
			if !errors.As(err, &fe) || fe.Kind != fetch.KindServer {
				t.Fatalf("error %v is not a server error", err)
			}
			return
		}
		got, err := io.ReadAll(rep.body)
		if rep.plus && rep.length >= 0 {
			if int64(len(got)) > rep.length {
				t.Fatalf("read %d bytes of a %d-byte reply", len(got), rep.length)
			}
			if (err == nil) != (int64(len(got)) == rep.length) {
				t.Fatalf("read %d of %d bytes, err %v", len(got), rep.length, err)
			}
		}
		if err != nil && !errors.Is(err, fetch.ErrTruncated) {
			t.Fatalf("err %v", err)
		}
		if !rep.plus && !bytes.Equal(got, data) {
			t.Fatalf("a plain reply changed: %q", got)
		}
		// Raw mode hands back every byte.
		b = bufio.NewReaderSize(bytes.NewReader(data), 4096)
		if rep, err := readReply(b, plus, true, nil); err == nil {
			got, _ := io.ReadAll(rep.body)
			if !bytes.Equal(got, data) {
				t.Fatalf("raw reply changed: %q", got)
			}
		}
	})
}

func FuzzAttributes(f *testing.F) {
	for _, b := range observed(f) {
		f.Add(b)
	}
	f.Add([]byte("+INFO: 0x\t/x\th\t70\t+\r\n+ADMIN:\r\n Admin: a <b@c>\r\n Mod-Date: x <19930728170201>\r\n+VIEWS:\r\n Text/plain De_DE: <15k>\r\n+ASK:\r\n Ask: q\td\r\n"))
	f.Add([]byte("stray\n+X\n y\n+INFO\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		attrs, err := ParseAttributes(data)
		if err != nil {
			if !errors.Is(err, fetch.ErrTooLarge) {
				t.Fatal(err)
			}
			return
		}
		js, err := json.Marshal(attrs)
		if err != nil {
			t.Fatal(err)
		}
		var back []Attributes
		if err := json.Unmarshal(js, &back); err != nil {
			t.Fatal(err)
		}
		if err := RenderAttributes(io.Discard, attrs); err != nil {
			t.Fatal(err)
		}
		for _, a := range attrs {
			for _, v := range a.Views {
				if v.URL != "" {
					if _, err := fetch.Parse(v.URL); err != nil {
						t.Fatalf("view URL %q: %v", v.URL, err)
					}
				}
			}
		}
	})
}

func FuzzFormPlus(f *testing.F) {
	f.Add("+\t1\r\n+-1\r\nask_item1_value\r\nask_item2_value\r\n.\r\n")
	f.Add("+\t1\r\n+-1\r\n.\r\n")
	f.Add("+text/plain\t1\r\n+-1\r\na\rb\r\n.\r\n")
	f.Add("+\r\nQUIT")
	f.Fuzz(func(t *testing.T, plus string) {
		fb, err := parseFormPlus(plus)
		if err != nil {
			if !errors.Is(err, fetch.ErrUnsafeLine) {
				t.Fatalf("err %v", err)
			}
			return
		}
		if fb.encode() != plus {
			t.Fatalf("encode %q != %q", fb.encode(), plus)
		}
		if strings.ContainsAny(fb.head, "\r\n\x00") {
			t.Fatalf("head %q", fb.head)
		}
		for _, a := range fb.answers {
			if strings.ContainsAny(a, "\r\n\x00") || a == "." {
				t.Fatalf("answer %q", a)
			}
		}
	})
}

func FuzzPlusError(f *testing.F) {
	f.Add([]byte("1 fetch tests <fetch@fetch.test>\r\n'/x' does not exist\r\n"))
	f.Add([]byte("3 <a@b>\r\n0moved\t/new\tnew.example\t70\r\n"))
	f.Add([]byte(""))
	f.Fuzz(func(t *testing.T, data []byte) {
		pe := parsePlusError(string(data))
		_ = pe.Error()
		if pe.MovedTo != "" {
			if _, err := fetch.Parse(pe.MovedTo); err != nil {
				t.Fatalf("moved-to %q: %v", pe.MovedTo, err)
			}
		}
	})
}
