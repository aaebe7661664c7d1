package ftp

import (
	"fmt"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// benchListing is n listing lines in the style of one server kind, for
// integration/bench.sh's per-entry figures.
func benchListing(n int, mlsd bool) []string {
	lines := make([]string, 0, n)
	for i := 0; len(lines) < n; i++ {
		if mlsd {
			lines = append(lines,
				fmt.Sprintf("type=file;size=%d;modify=20240102030405;perm=r; file-%d.tar.gz", 1000+i*37, i),
				fmt.Sprintf("type=dir;modify=20231130120000;perm=el; dir-%d", i),
				fmt.Sprintf("type=file;size=%d;modify=20240615000000.123;perm=r; notes %d.txt", i, i),
				fmt.Sprintf("type=OS.unix=slink:/etc/motd;modify=20240102030405; link-%d", i))
			continue
		}
		lines = append(lines,
			fmt.Sprintf("-rw-r--r--    1 0        0        %8d Jan 02  2024 file-%d.tar.gz", 1000+i*37, i),
			fmt.Sprintf("drwxr-xr-x    2 ftp      ftp          4096 Nov 30 12:00 dir-%d", i),
			fmt.Sprintf("-rw-r--r--    1 owner    group    %8d Jun 15 00:00 notes %d.txt", i, i),
			fmt.Sprintf("lrwxrwxrwx    1 0        0              12 Jan 02  2024 link-%d -> ../hello.txt", i))
	}
	return lines[:n]
}

// BenchmarkParseList reads a 1,000-line LIST reply as the driver does
// (each line parsed, a type guessed for files).
func BenchmarkParseList(b *testing.B) {
	benchParse(b, benchListing(1000, false), func(line string) (fetch.Entry, bool) {
		return parseList(line, listNow)
	})
}

// BenchmarkParseMLSD is the same for an MLSD reply (RFC 3659 §7).
func BenchmarkParseMLSD(b *testing.B) {
	benchParse(b, benchListing(1000, true), parseMLSD)
}

func benchParse(b *testing.B, lines []string, parse func(string) (fetch.Entry, bool)) {
	for _, l := range lines {
		if e, ok := parse(l); !ok || e.Name == "" {
			b.Fatalf("%q: %+v", l, e)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			if e, ok := parse(l); ok && e.Kind == fetch.EntryFile {
				e.Type = guessMIME(e.Name)
			}
		}
	}
	b.ReportMetric(float64(len(lines)), "entries/op")
}
