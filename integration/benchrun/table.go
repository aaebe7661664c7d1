//go:build unix

package main

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// parserRow is a parser benchmark from go test -bench, per entry parsed
// (URL, menu item, listing line, overview line); the peer is optional.
type parserRow struct {
	fetchBench, peerBench string
	f, p                  *perEntry
}

type perEntry struct{ ns, allocs, bytes float64 }

// parserRows reads go test -bench -benchmem output (several -count runs
// give medians) for the benchmarks of the bench_test.go files.
func parserRows(file string) []*row {
	defs := []struct{ label, f, p string }{
		{"URL parse, 64 HTTP URLs: fetch.Parse vs net/url.Parse", "BenchmarkParseHTTP", "BenchmarkNetURLParseHTTP"},
		{"Gopher menu, 1,000 items (per item)", "BenchmarkMenu", ""},
		{"FTP LIST, 1,000 lines (per line)", "BenchmarkParseList", ""},
		{"FTP MLSD, 1,000 lines (per line)", "BenchmarkParseMLSD", ""},
		{"NNTP overview, 1,000 lines (per line)", "BenchmarkOverview", ""},
	}
	results := map[string][]map[string]float64{}
	var readErr error
	if file == "" {
		readErr = fmt.Errorf("no go test output given")
	} else if f, err := os.Open(file); err != nil {
		readErr = err
	} else {
		line := regexp.MustCompile(`^(Benchmark\w+?)(?:-\d+)?\s+\d+\s+(.*)$`)
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			m := line.FindStringSubmatch(sc.Text())
			if m == nil {
				continue
			}
			fields := strings.Fields(m[2])
			vals := map[string]float64{}
			for i := 0; i+1 < len(fields); i += 2 {
				if v, err := strconv.ParseFloat(fields[i], 64); err == nil {
					vals[fields[i+1]] = v
				}
			}
			results[m[1]] = append(results[m[1]], vals)
		}
		f.Close()
	}
	get := func(name string) (*perEntry, error) {
		runs := results[name]
		if len(runs) == 0 {
			if readErr != nil {
				return nil, readErr
			}
			return nil, fmt.Errorf("%s did not run", name)
		}
		var ns, allocs, bytes []float64
		for _, v := range runs {
			n := v["entries/op"]
			if n <= 0 {
				return nil, fmt.Errorf("%s reports no entries/op", name)
			}
			ns = append(ns, v["ns/op"]/n)
			allocs = append(allocs, v["allocs/op"]/n)
			bytes = append(bytes, v["B/op"]/n)
		}
		return &perEntry{median(ns), median(allocs), median(bytes)}, nil
	}
	var rows []*row
	for _, d := range defs {
		r := &row{label: d.label, parser: &parserRow{fetchBench: d.f, peerBench: d.p}}
		var err error
		r.parser.f, err = get(d.f)
		if err == nil && d.p != "" {
			r.parser.p, err = get(d.p)
		}
		r.err = err
		rows = append(rows, r)
	}
	return rows
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// table is the Markdown table: per row the medians of fetch and of the
// peer, and the median of the per-pair ratios fetch/peer.
func table(rows, prows []*row) string {
	var b strings.Builder
	b.WriteString("| benchmark | pairs | time fetch | time peer | ×time | CPU fetch | CPU peer | ×CPU | RSS fetch | RSS peer | ×RSS |\n")
	b.WriteString("|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n")
	for _, r := range rows {
		switch {
		case r.na != "":
			fmt.Fprintf(&b, "| %s | – | %s | | | | | | | | |\n", r.label, r.na)
		case len(r.pairs) == 0:
			fmt.Fprintf(&b, "| %s | 0 | FAILED | | | | | | | | |\n", r.label)
		default:
			var fw, pw, fc, pc, fr, pr, rw, rc, rr []float64
			for _, p := range r.pairs {
				fw = append(fw, float64(p.f.wall))
				pw = append(pw, float64(p.p.wall))
				fc = append(fc, float64(p.f.cpu))
				pc = append(pc, float64(p.p.cpu))
				fr = append(fr, float64(p.f.rss))
				pr = append(pr, float64(p.p.rss))
				rw = append(rw, ratio(float64(p.f.wall), float64(p.p.wall)))
				rc = append(rc, ratio(float64(p.f.cpu), float64(p.p.cpu)))
				rr = append(rr, ratio(float64(p.f.rss), float64(p.p.rss)))
			}
			div := float64(max(r.perCall, 1))
			mark := ""
			if r.err != nil {
				mark = " (FAILED later)"
			}
			fmt.Fprintf(&b, "| %s%s | %d | %s | %s | %.2f | %s | %s | %.2f | %s | %s | %.2f |\n",
				r.label, mark, len(r.pairs),
				dur(median(fw)/div), dur(median(pw)/div), median(rw),
				dur(median(fc)/div), dur(median(pc)/div), median(rc),
				mib(median(fr)), mib(median(pr)), median(rr))
		}
	}
	for _, r := range prows {
		p := r.parser
		if r.err != nil || p.f == nil {
			fmt.Fprintf(&b, "| %s | go test | FAILED | | | | | | | | |\n", r.label)
			continue
		}
		if p.p == nil {
			fmt.Fprintf(&b, "| %s | go test | %s | – | | %.1f allocs | – | | %.0f B | – | |\n",
				r.label, dur(p.f.ns), p.f.allocs, p.f.bytes)
			continue
		}
		fmt.Fprintf(&b, "| %s | go test | %s | %s | %.2f | %.1f allocs | %.1f allocs | %.2f | %.0f B | %.0f B | %.2f |\n",
			r.label, dur(p.f.ns), dur(p.p.ns), ratio(p.f.ns, p.p.ns),
			p.f.allocs, p.p.allocs, ratio(p.f.allocs, p.p.allocs),
			p.f.bytes, p.p.bytes, ratio(p.f.bytes, p.p.bytes))
	}
	b.WriteString("\nTime is wall-clock time, CPU the user+system time of the process and its children (wait4's rusage), RSS the peak resident set (GNU time's %M);\n" +
		"latency rows give them per invocation. Each value is the median over the pairs (fetch and the peer, each first in every other pair);\n" +
		"× is the median of the per-pair ratios fetch/peer (below 1: fetch is faster or smaller). The peer is curl unless the row names\n" +
		"another. A row whose ratio is beyond 5 either way after a first pair of 10 s or more, or beyond 2 after two that agree, gets no more pairs.\n" +
		"Parser rows (go test -bench) give time, allocations and bytes allocated per entry.\n")
	return b.String()
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// dur formats nanoseconds with a unit that keeps three figures.
func dur(ns float64) string {
	d := time.Duration(ns)
	switch {
	case d >= time.Second:
		return fmt.Sprintf("%.2f s", d.Seconds())
	case d >= 10*time.Millisecond:
		return fmt.Sprintf("%.0f ms", ns/1e6)
	case d >= time.Millisecond:
		return fmt.Sprintf("%.1f ms", ns/1e6)
	case d >= 10*time.Microsecond:
		return fmt.Sprintf("%.0f µs", ns/1e3)
	case d >= time.Microsecond:
		return fmt.Sprintf("%.2f µs", ns/1e3)
	}
	return fmt.Sprintf("%.0f ns", ns)
}

func mib(b float64) string { return fmt.Sprintf("%.1f MiB", b/(1<<20)) }

func sizeLabel(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
}

// machine describes where and when the table was measured.
func machine(curl, label, files string, start time.Time, load0, load1 float64) string {
	var b strings.Builder
	model := "unknown CPU"
	if data, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(data), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				model = strings.TrimSpace(v)
				break
			}
		}
	}
	kernel, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	curlV, _ := exec.Command(curl, "--version").Output()
	curlLine, _, _ := strings.Cut(string(curlV), "\n")
	if f := strings.Fields(curlLine); len(f) >= 2 {
		curlLine = f[0] + " " + f[1]
	}
	fmt.Fprintf(&b, "fetch against curl, %s UTC\n\n", start.UTC().Format("2006-01-02 15:04"))
	fmt.Fprintf(&b, "- machine: %s, %d cores, Linux %s\n", model, runtime.NumCPU(), strings.TrimSpace(string(kernel)))
	busy := ""
	if max(load0, load1) > 0.5*float64(runtime.NumCPU()) {
		busy = " (a busy machine: other work shared the cores)"
	}
	fmt.Fprintf(&b, "- load average (1 min): %.1f at the start, %.1f at the end%s\n", load0, load1, busy)
	fmt.Fprintf(&b, "- %s, %s, fetch %s\n", runtime.Version(), curlLine, label)
	if files == "" {
		files = os.TempDir()
	}
	fmt.Fprintf(&b, "- the rows that write a file per document write them under %s%s\n\n", files, fsName(files))
	return b.String()
}
