//go:build unix

package main

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestGenIsDeterministic(t *testing.T) {
	var sums [2][32]byte
	for i := range sums {
		dir := filepath.Join(t.TempDir(), "bench")
		if err := genMain([]string{"-dir", dir, "-big", "3000000", "-docs", "3"}); err != nil {
			t.Fatal(err)
		}
		size, sum, err := sizeAndHash(filepath.Join(dir, bigName))
		if err != nil || size != 3000000 {
			t.Fatalf("big: %d bytes, %v", size, err)
		}
		sums[i] = sum
		seen := map[string]bool{}
		for d := 0; d < 3; d++ {
			b, err := os.ReadFile(filepath.Join(dir, docName(d)))
			if err != nil || len(b) != 1024 {
				t.Fatalf("doc %d: %d bytes, %v", d, len(b), err)
			}
			for _, l := range strings.SplitAfter(string(b), "\n") {
				if l == "" {
					continue
				}
				if seen[l] {
					t.Fatalf("doc %d repeats the line %q", d, l)
				}
				seen[l] = true
			}
		}
		if len(seen) != 3*16 {
			t.Fatalf("%d distinct lines, want 48", len(seen))
		}
	}
	if sums[0] != sums[1] {
		t.Fatal("two generations differ")
	}
}

func testBench(t *testing.T) *bench {
	dir := t.TempDir()
	return &bench{work: dir, env: childEnv(dir)}
}

func TestRunChecksOutput(t *testing.T) {
	b := testBench(t)
	out := filepath.Join(b.work, "out")
	hello := sha256.Sum256([]byte("hello\nhello\nhello\n"))
	tl := &tool{argv: []string{"sh", "-c", "echo hello"}, out: out, stdout: true, loop: 3, check: checkExact, want: hello}
	s, err := b.run(tl, true)
	if err != nil {
		t.Fatalf("matching output: %v", err)
	}
	if s.wall <= 0 || s.rss <= 0 {
		t.Fatalf("nothing measured: %+v", s)
	}
	if _, err := os.Stat(out); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the output file is left behind: %v", err)
	}
	tl.loop = 2
	if _, err := b.run(tl, true); !errors.Is(err, errMismatch) {
		t.Fatalf("two lines instead of three: %v, want a mismatch", err)
	}
	if _, err := b.run(tl, false); err != nil {
		t.Fatalf("unverified run: %v", err)
	}
}

// TestRunMeasuresTheChildsRSS: a small child's peak RSS is its own, not
// this (larger) test process's, which a vforked child's ru_maxrss reports.
func TestRunMeasuresTheChildsRSS(t *testing.T) {
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		t.Skip("GNU time (Debian package time) is not installed; integration/bench.sh installs it")
	}
	ballast := make([]byte, 64<<20)
	for i := range ballast {
		ballast[i] = 1
	}
	b := testBench(t)
	b.timeBin = "/usr/bin/time"
	s, err := b.run(&tool{argv: []string{"true"}, loop: 2}, true)
	if err != nil {
		t.Fatal(err)
	}
	if s.rss <= 0 || s.rss > 32<<20 {
		t.Fatalf("peak RSS of true: %d bytes", s.rss)
	}
	// and a child that uses memory shows it
	big, err := b.run(&tool{argv: []string{"sh", "-c", "x=$(head -c 40000000 /dev/zero | tr '\\0' a); echo ${#x} >/dev/null"}}, true)
	if err != nil {
		t.Fatal(err)
	}
	if big.rss < 40<<20 {
		t.Fatalf("peak RSS of a shell holding 40 MB: %d bytes", big.rss)
	}
	if ballast[len(ballast)-1] != 1 {
		t.Fatal("ballast")
	}
}

func TestRunChecksSortedLines(t *testing.T) {
	b := testBench(t)
	want := sha256.Sum256(sortedLines([]byte("a\nb\nc\n")))
	tl := &tool{argv: []string{"sh", "-c", "printf 'c\\na\\nb\\n'"}, out: filepath.Join(b.work, "out"), stdout: true, check: checkSorted, want: want}
	if _, err := b.run(tl, true); err != nil {
		t.Fatalf("same lines, other order: %v", err)
	}
	tl.argv = []string{"sh", "-c", "printf 'c\\na\\n'"}
	if _, err := b.run(tl, true); !errors.Is(err, errMismatch) {
		t.Fatalf("a line missing: %v, want a mismatch", err)
	}
}

func TestRunReportsFailure(t *testing.T) {
	b := testBench(t)
	_, err := b.run(&tool{argv: []string{"sh", "-c", "echo refused by the server >&2; exit 6"}}, true)
	if err == nil || !strings.Contains(err.Error(), "refused by the server") {
		t.Fatalf("err = %v, want the command's error output", err)
	}
}

func TestMeasureRoundsAndBudget(t *testing.T) {
	b := testBench(t)
	// rows never settle here (TestSettledRows tests that): two runs of
	// true can differ by any factor on a busy machine
	defer func(f [2]float64) { settleFar = f }(settleFar)
	settleFar = [2]float64{math.Inf(1), math.Inf(1)}
	mk := func() *row {
		return &row{label: "x", fetch: &tool{argv: []string{"true"}}, peer: &tool{argv: []string{"true"}}}
	}
	full, na, bad := mk(), mk(), mk()
	na.na = "n/a"
	bad.fetch.argv = []string{"false"}
	b.measure([]*row{full, na, bad}, 3, time.Now().Add(time.Minute))
	// a cheap row: one pair, then cheapPairs a round
	if want := 1 + 2*cheapPairs; len(full.pairs) != want || len(na.pairs) != 0 || len(bad.pairs) != 0 || bad.err == nil {
		t.Fatalf("pairs %d, %d, %d (err %v); want %d, 0, 0 and an error", len(full.pairs), len(na.pairs), len(bad.pairs), bad.err, want)
	}
	// a row slower than cheapPair: one pair a round
	defer func(d time.Duration) { cheapPair = d }(cheapPair)
	cheapPair = time.Nanosecond
	slow := mk()
	b.measure([]*row{slow}, 3, time.Now().Add(time.Minute))
	if len(slow.pairs) != 3 {
		t.Fatalf("%d pairs of a row over cheapPair in 3 rounds, want 3", len(slow.pairs))
	}
	// a spent budget still runs every row once
	late := mk()
	b.measure([]*row{late}, 3, time.Now().Add(-time.Second))
	if len(late.pairs) != 1 {
		t.Fatalf("%d pairs past the deadline, want 1", len(late.pairs))
	}
	tab := table([]*row{full, na, bad}, nil)
	for _, want := range []string{fmt.Sprintf("| x | %d |", 1+2*cheapPairs), "n/a", "FAILED"} {
		if !strings.Contains(tab, want) {
			t.Errorf("table lacks %q:\n%s", want, tab)
		}
	}
}

// A row far from 1 gets no more pairs: after one slow pair beyond 5
// either way, after two beyond 2; a row near 1, one whose pairs disagree,
// or one with a single quick pair, goes on.
func TestSettledRows(t *testing.T) {
	ms := time.Millisecond
	p := func(f, c time.Duration) pair { return pair{f: sample{wall: f}, p: sample{wall: c}, took: f + c} }
	cases := []struct {
		pairs []pair
		want  bool
	}{
		{nil, false},
		{[]pair{p(300*ms, 60000*ms)}, true},  // 0.005: xargs curl, a minute
		{[]pair{p(20000*ms, 2000*ms)}, true}, // 10, slow
		{[]pair{p(10*ms, 1000*ms)}, false},   // 0.01, but quick: one stall may be all it is
		{[]pair{p(1000*ms, 100*ms)}, false},  // 10, quick
		{[]pair{p(300*ms, 1000*ms)}, false},  // 0.3 after one pair
		{[]pair{p(300*ms, 1000*ms), p(350*ms, 1000*ms)}, true},
		{[]pair{p(300*ms, 1000*ms), p(600*ms, 1000*ms)}, false}, // they disagree
		{[]pair{p(2500*ms, 1000*ms), p(2100*ms, 1000*ms)}, true},
		{[]pair{p(1000*ms, 1000*ms), p(1100*ms, 1000*ms)}, false},
		{[]pair{p(0, 1000*ms), p(0, 1000*ms)}, false}, // no time measured
	}
	for i, c := range cases {
		if got := settled(&row{pairs: c.pairs}); got != c.want {
			t.Errorf("case %d: settled = %v, want %v", i, got, c.want)
		}
	}
	// in measure: the settled row stops after its first pair, the other
	// goes on. The margins are wide for a busy machine: true may take up
	// to 200 ms against sleep 1, and one of two 0.2 s sleeps may take
	// 0.4 s more without settling its row.
	defer func(d time.Duration) { settleSlow = d }(settleSlow)
	settleSlow = 500 * time.Millisecond // true against sleep 1: slow enough here
	b := testBench(t)
	fast := &row{label: "fast", fetch: &tool{argv: []string{"true"}}, peer: &tool{argv: []string{"sleep", "1"}}}
	even := &row{label: "even", fetch: &tool{argv: []string{"sleep", "0.2"}}, peer: &tool{argv: []string{"sleep", "0.2"}}}
	b.measure([]*row{fast, even}, 2, time.Now().Add(time.Minute))
	if len(fast.pairs) != 1 || len(even.pairs) < 2 {
		t.Errorf("pairs: %d for a row at 1/100, %d for one near 1; want 1 and more than 1", len(fast.pairs), len(even.pairs))
	}
}

// Within a row, fetch runs first in odd pairs and the peer in even ones.
func TestPairsAlternateOrder(t *testing.T) {
	b := testBench(t)
	log := filepath.Join(t.TempDir(), "order")
	r := &row{label: "x",
		fetch: &tool{argv: []string{"sh", "-c", "echo f >>" + log}},
		peer:  &tool{argv: []string{"sh", "-c", "echo p >>" + log}}}
	for i := 1; i <= 4; i++ {
		b.pair(r, i)
	}
	got, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if want := "f\np\np\nf\nf\np\np\nf\n"; string(got) != want || len(r.pairs) != 4 {
		t.Fatalf("order %q with %d pairs, want %q with 4", got, len(r.pairs), want)
	}
}

func TestParserRows(t *testing.T) {
	out := filepath.Join(t.TempDir(), "gotest.txt")
	data := `pkg: github.com/fetchproject/fetch/fetch
BenchmarkParseHTTP-2   	 100	 6400 ns/op	 64.00 entries/op	 1280 B/op	 128 allocs/op
BenchmarkParseHTTP-2   	 100	 9600 ns/op	 64.00 entries/op	 1280 B/op	 128 allocs/op
BenchmarkParseHTTP-2   	 100	 12800 ns/op	 64.00 entries/op	 1280 B/op	 128 allocs/op
BenchmarkNetURLParseHTTP-2   	 100	 3200 ns/op	 64.00 entries/op	 640 B/op	 64 allocs/op
BenchmarkMenu-2   	 10	 2000000 ns/op	 23.71 MB/s	 1000 entries/op	 739000 B/op	 6800 allocs/op
`
	if err := os.WriteFile(out, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
	rows := parserRows(out)
	url, menu, list := rows[0], rows[1], rows[2]
	if url.err != nil || url.parser.f.ns != 150 || url.parser.p.ns != 50 || url.parser.f.allocs != 2 {
		t.Fatalf("URL row: %+v %+v %+v %v", url.parser, url.parser.f, url.parser.p, url.err)
	}
	if menu.err != nil || menu.parser.f.ns != 2000 || menu.parser.f.bytes != 739 {
		t.Fatalf("menu row: %+v %v", menu.parser.f, menu.err)
	}
	if list.err == nil {
		t.Fatal("a benchmark missing from the output is not a failure")
	}
	tab := table(nil, rows)
	if !strings.Contains(tab, "| 150 ns | 50 ns | 3.00 |") {
		t.Fatalf("table:\n%s", tab)
	}
}

func TestSortedLines(t *testing.T) {
	if got := sortedLines([]byte("b\na\nc")); !bytes.Equal(got, []byte("a\nb\nc")) {
		t.Fatalf("%q", got)
	}
}
