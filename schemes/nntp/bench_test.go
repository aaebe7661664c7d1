package nntp

import (
	"fmt"
	"testing"
)

// BenchmarkOverview reads 1,000 OVER lines into listing entries as a group
// listing does (fields, encoded words, dates, article URLs), for
// integration/bench.sh's per-entry figures.
func BenchmarkOverview(b *testing.B) {
	const n = 1000
	lines := make([]string, 0, n)
	for i := 0; len(lines) < n; i++ {
		lines = append(lines,
			fmt.Sprintf("%d\tRe: a question about item %d\t\"Demo User\" <user%d@example.com>\tTue, 02 Jan 2024 03:04:05 +0000\t<msg-%d@example.com>\t<parent-%d@example.net>\t%d\t%d\tXref: news.example.com misc.test:%d", 3000000+i, i, i, i, i, 1000+i, 10+i%50, 3000000+i),
			fmt.Sprintf("%d\t=?UTF-8?Q?Gr=C3=BC=C3=9Fe_Nr._%d?=\t=?UTF-8?Q?J=C3=BCrgen?= <j%d@fetch.test>\t6 Oct 1998 04:38:40 -0500\t<utf8-%d@fetch.test>\t\t%d\t%d", 4000000+i, i, i, i, 500+i, 2))
	}
	// the news:<message-id> links of a news:group listing
	url := func(ov *overview) string { return "news:" + escapeMessageID(ov.MessageID) }
	for _, l := range lines {
		ov, err := parseOverview(l)
		if err != nil || overviewEntry(&ov, url).URL == "" {
			b.Fatalf("%q: %v", l, err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, l := range lines {
			ov, err := parseOverview(l)
			if err == nil {
				overviewEntry(&ov, url)
			}
		}
	}
	b.ReportMetric(n, "entries/op")
}
