package ftp

import (
	"bytes"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/wire"
)

// Every parser of server bytes has a fuzz target, seeded from testdata.

func FuzzParseList(f *testing.F) {
	for _, l := range listingSeeds(f) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		e, ok := parseList(line, listNow)
		if !ok {
			if !dotName(e.Name) {
				t.Fatalf("%q skipped but named %q", line, e.Name)
			}
			return
		}
		if e.Raw != line {
			t.Fatalf("%q: Raw %q", line, e.Raw)
		}
		if e.Kind != fetch.EntryRaw && e.Kind != fetch.EntryText && e.Name == "" {
			t.Fatalf("%q: empty name", line)
		}
		if e.Size < -1 {
			t.Fatalf("%q: size %d", line, e.Size)
		}
	})
}

func FuzzParseMLSD(f *testing.F) {
	for _, l := range listingSeeds(f) {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		e, ok := parseMLSD(line)
		named := e.Kind == fetch.EntryRaw || e.Kind == fetch.EntryText || e.Name != ""
		if ok && (e.Raw != line || !named || e.Size < -1) {
			t.Fatalf("%q: %+v", line, e)
		}
	})
}

func FuzzParsePASV(f *testing.F) {
	for _, s := range []string{"Entering Passive Mode (127,0,0,1,78,32).", "(1,2,3)", "=127,0,0,9,255,255", "(-1,0,0,1,4,1)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ip, port, err := parsePASV(text)
		if err == nil && (port < 0 || port > 65535 || strings.Count(ip, ".") != 3) {
			t.Fatalf("%q: %q %d", text, ip, port)
		}
	})
}

func FuzzParseEPSV(f *testing.F) {
	for _, s := range []string{"Entering Extended Passive Mode (|||6446|)", "(!!!1!)", "(||||)", "(|||99999|)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		port, err := parseEPSV(text)
		if err == nil && (port < 0 || port > 99999) {
			t.Fatalf("%q: port %d", text, port)
		}
	})
}

func FuzzReadReply(f *testing.F) {
	for _, s := range []string{"220 hello\r\n", "211-Features:\r\n SIZE\r\n211 End\r\n", "220-a\r\n220-b\r\n230 c\r\n220 d\r\n", "22", "220-x\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		r := wire.NewReader(bytes.NewReader(in), 256, nil)
		for i := 0; i < 10; i++ {
			rep, err := readReply(r, "fuzz")
			if err != nil {
				return
			}
			if rep.Code < 100 || rep.Code > 599 || len(rep.Lines) == 0 || len(rep.Lines) > maxReplyLines+1 {
				t.Fatalf("%q: %+v", in, rep)
			}
		}
	})
}

func FuzzParseMDTM(f *testing.F) {
	for _, s := range []string{"20240102030405", "20240102030405.123", "2024", "99999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if tm, err := parseMDTM(s); err == nil && tm.Location() != time.UTC {
			t.Fatalf("%q: %v", s, tm)
		}
	})
}

func FuzzByteCount(f *testing.F) {
	for _, s := range []string{"Opening BINARY mode data connection for f (1024 bytes).", "x (7 Bytes)", "(", "( bytes)", "(-1 bytes)"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		n, ok := byteCount(reply{Code: 150, Lines: []string{"first line", s}})
		if ok && (n < 0 || !strings.Contains(s, "("+strconv.FormatInt(n, 10)) && !strings.Contains(s, "(0")) {
			t.Fatalf("%q: %d", s, n)
		}
	})
}
