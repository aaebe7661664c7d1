package gopher

import (
	"bytes"
	"fmt"
	"testing"
)

// BenchmarkMenu parses a 1,000-item menu the way the driver does (items,
// URLs, types), for integration/bench.sh's per-entry figures.
func BenchmarkMenu(b *testing.B) {
	var menu bytes.Buffer
	const items = 1000
	for i := 0; i < items/5; i++ {
		fmt.Fprintf(&menu, "iSection %d of the archive\t\terror.host\t1\r\n", i)
		fmt.Fprintf(&menu, "0About item %d\t/docs/about-%d.txt\tgopher.example.org\t70\r\n", i, i)
		fmt.Fprintf(&menu, "1Directory %d\t/dir/%d\tgopher.example.org\t70\t+\r\n", i, i)
		fmt.Fprintf(&menu, "9Binary %d.tar.gz\t/pub/files/%d.tar.gz\tother.example.net\t7070\r\n", i, i)
		fmt.Fprintf(&menu, "hWeb page %d\tURL:http://www.example.org/%d.html\tgopher.example.org\t70\r\n", i, i)
	}
	menu.WriteString(".\r\n")
	data := menu.Bytes()
	l, err := ParseMenu(bytes.NewReader(data), "gopher.example.org", 70)
	if err != nil || len(l.Entries) != items {
		b.Fatalf("menu: %d entries, %v", len(l.Entries), err)
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		ParseMenu(bytes.NewReader(data), "gopher.example.org", 70)
	}
	b.ReportMetric(items, "entries/op")
}
