package fetch

import (
	"fmt"
	"net/url"
	"testing"
)

// benchHTTPURLs is the set of HTTP URLs both URL benchmarks parse: the
// shapes an archival crawl meets (ports, escapes, queries, userinfo,
// fragments, IPv6, long paths).
func benchHTTPURLs() []string {
	var us []string
	for i := 0; i < 8; i++ {
		us = append(us,
			fmt.Sprintf("http://www.example.org/index%d.html", i),
			fmt.Sprintf("http://127.0.0.1:18080/bench/doc/d%04d.txt", i),
			fmt.Sprintf("https://archive.example.net/web/2024/%d/path/to/some/deep/document.html?q=a+b&page=%d#top", i, i),
			fmt.Sprintf("http://user:secret@host.example.com:8080/~user/dir%%20with%%20spaces/file%d.txt", i),
			fmt.Sprintf("http://[2001:db8::%x]:8080/v6/%d", i+1, i),
			fmt.Sprintf("http://search.example.org/cgi-bin/query?topic=%%E2%%9C%%93&n=%d", i),
			fmt.Sprintf("http://example.com/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r/s/t/u/v/w/x/y/z/%d", i),
			fmt.Sprintf("HTTP://Example.COM:80/%d/", i),
		)
	}
	return us
}

// BenchmarkParseHTTP and BenchmarkNetURLParseHTTP parse the same URLs, so
// integration/bench.sh can set fetch's RFC 1738 parser against the
// standard library's (which checks less: see NOTES.md).
func BenchmarkParseHTTP(b *testing.B) {
	us := benchHTTPURLs()
	for _, u := range us {
		if _, err := Parse(u); err != nil {
			b.Fatalf("%s: %v", u, err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, u := range us {
			Parse(u)
		}
	}
	b.ReportMetric(float64(len(us)), "entries/op")
}

func BenchmarkNetURLParseHTTP(b *testing.B) {
	us := benchHTTPURLs()
	for _, u := range us {
		if _, err := url.Parse(u); err != nil {
			b.Fatalf("%s: %v", u, err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, u := range us {
			url.Parse(u)
		}
	}
	b.ReportMetric(float64(len(us)), "entries/op")
}
