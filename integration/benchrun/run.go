//go:build unix

package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"
)

// check says how a tool's output is compared with the expected bytes.
type check int

const (
	checkNone   check = iota // written to /dev/null: the exit status only
	checkExact               // SHA-256 of the bytes as written
	checkSorted              // SHA-256 of the lines sorted: any document order
)

// tool is one side of a row: a command and where its output goes.
type tool struct {
	name   string
	argv   []string
	stdin  string // a file on standard input; "" is /dev/null
	out    string // the file the output lands in; "" is /dev/null
	stdout bool   // out is the command's standard output (else it is named in argv)
	loop   int    // run argv this many times in a row (latency rows)
	check  check
	want   [32]byte
	strict bool // an output mismatch fails the row (else a warning)
}

// sample is one measured run of a tool.
type sample struct {
	wall, cpu time.Duration
	rss       int64 // bytes
}

type pair struct {
	f, p sample
	took time.Duration // the pair's wall time, both runs and their checks
}

// row is one line of the table: fetch against a peer on the same task.
type row struct {
	label   string
	perCall int // divide times by this (latency: per invocation)
	fetch   *tool
	peer    *tool
	na      string // why the row is not run
	big     bool   // output large enough to verify only in the first round

	pairs []pair
	err   error
	warns []string
	// parser rows carry their figures here instead of pairs
	parser *parserRow
}

type servers struct {
	http, vsftpd, pyftpdlib, gophernicus, pygopherd string
}

func runMain(args []string) error {
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fetchBin := fs.String("fetch", "", "the fetch binary under test")
	curlBin := fs.String("curl", "curl", "the curl binary")
	content := fs.String("content", "", "the directory benchrun gen wrote (served as /bench/)")
	work := fs.String("work", "", "a scratch directory for outputs")
	files := fs.String("files", "", "where the rows that write a file per document make their directories (their TMPDIR); default: the system's")
	var sv servers
	fs.StringVar(&sv.http, "http", "127.0.0.1:18080", "nginx")
	fs.StringVar(&sv.vsftpd, "vsftpd", "127.0.0.1:18021", "vsftpd")
	fs.StringVar(&sv.pyftpdlib, "pyftpdlib", "127.0.0.1:18022", "pyftpdlib")
	fs.StringVar(&sv.gophernicus, "gophernicus", "127.0.0.1:18071", "gophernicus")
	fs.StringVar(&sv.pygopherd, "pygopherd", "127.0.0.1:18070", "pygopherd")
	small := fs.String("small-servers", "nginx,vsftpd,gophernicus", "servers for the latency and batch rows (one per protocol)")
	latency := fs.Int("latency", 200, "sequential invocations in a latency row")
	batch := fs.Int("batch", 200, "documents in a one-process batch")
	parallel := fs.Int("parallel", 2000, "documents in a parallel batch")
	jobs := fs.Int("jobs", 16, "parallelism of the parallel rows")
	runs := fs.Int("runs", 5, "rounds over the rows (a pair a row, three for a cheap row after the first round)")
	budget := fs.Duration("budget", 7*time.Minute, "after the first pair of every row, add pairs only while this lasts")
	gotest := fs.String("gotest", "", "go test -bench output with the parser benchmarks")
	label := fs.String("label", "", "what was measured (commit, mode), printed with the table")
	timeBin := fs.String("time", "/usr/bin/time", "GNU time, for the peak RSS (\"\": wait4's, which counts benchrun's own)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *fetchBin == "" || *content == "" || *work == "" {
		return errors.New("run: -fetch, -content and -work are required")
	}
	if err := os.MkdirAll(*work, 0o755); err != nil {
		return err
	}
	start := time.Now()
	load0 := loadAvg()

	b := &bench{fetch: *fetchBin, curl: *curlBin, content: *content, work: *work, sv: sv, jobs: *jobs, timeBin: *timeBin}
	b.env = childEnv(*work)
	if *files != "" {
		b.env = slices.DeleteFunc(b.env, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") })
		b.env = append(b.env, "TMPDIR="+*files)
	}
	b.hasJ = hasParallelFlag(*fetchBin)
	rows, err := b.rows(strings.Split(*small, ","), *latency, *batch, *parallel)
	if err != nil {
		return err
	}
	b.measure(rows, *runs, start.Add(*budget))
	prows := parserRows(*gotest)

	info := machine(*curlBin, *label, *files, start, load0, loadAvg())
	fmt.Print(info)
	fmt.Print(table(rows, prows))
	failed := 0
	for _, r := range append(rows, prows...) {
		if r.err != nil {
			failed++
			fmt.Printf("\nFAILED %s: %v\n", r.label, r.err)
		}
		for _, w := range r.warns {
			fmt.Printf("\nwarning, %s: %s\n", r.label, w)
		}
	}
	fmt.Fprintf(os.Stderr, "benchrun: measured in %s\n", time.Since(start).Round(time.Second))
	if failed > 0 {
		return fmt.Errorf("%d row(s) failed", failed)
	}
	return nil
}

type bench struct {
	fetch, curl   string
	content, work string
	// timeBin is GNU time, which reports the peak RSS: Go starts commands
	// with vfork, so a child's own ru_maxrss counts this program's memory
	// (the kernel keeps the high-water mark of the address space exec
	// replaces). GNU time forks from its own small one. Its own CPU time,
	// a millisecond or so, is in the CPU column for fetch and curl alike.
	timeBin string
	sv      servers
	jobs    int
	env     []string
	hasJ    bool
}

// childEnv is the environment of every measured command: the caller's,
// less the proxy variables both tools would honour, with HOME in the
// scratch directory so that neither reads a user's configuration.
func childEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		lk := strings.ToLower(k)
		if strings.HasSuffix(lk, "_proxy") || lk == "home" || k == "FETCH_CONFIG" || k == "CURL_HOME" || k == "NNTPSERVER" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "LC_ALL=C")
}

// hasParallelFlag reports whether fetch --help lists a -j flag.
func hasParallelFlag(bin string) bool {
	out, _ := exec.Command(bin, "--help").Output()
	return regexp.MustCompile(`(?m)^\s*-j\b`).Match(out)
}

// target is one server as the rows name it.
type target struct {
	name, proto, base string // base: URL prefix of the /bench/ tree
}

func (b *bench) target(name string) (target, error) {
	switch name {
	case "nginx":
		return target{name, "HTTP", "http://" + b.sv.http + "/bench/"}, nil
	case "vsftpd":
		return target{name, "FTP", "ftp://" + b.sv.vsftpd + "/bench/"}, nil
	case "pyftpdlib":
		return target{name, "FTP", "ftp://" + b.sv.pyftpdlib + "/bench/"}, nil
	case "gophernicus":
		return target{name, "Gopher", "gopher://" + b.sv.gophernicus + "/9/bench/"}, nil
	case "pygopherd":
		return target{name, "Gopher", "gopher://" + b.sv.pygopherd + "/9/bench/"}, nil
	}
	return target{}, fmt.Errorf("unknown server %q", name)
}

// fetchArgv and curlArgv are the command lines for one or more URLs: quiet,
// no configuration file (curl -q), failing on a server's error (curl -f).
func (b *bench) fetchArgv(extra ...string) []string {
	return append([]string{b.fetch, "-q"}, extra...)
}

func (b *bench) curlArgv(extra ...string) []string {
	return append([]string{b.curl, "-q", "-sS", "-f", "-g"}, extra...)
}

func (b *bench) rows(small []string, latency, batch, parallel int) ([]*row, error) {
	bigSize, bigSum, err := sizeAndHash(filepath.Join(b.content, bigName))
	if err != nil {
		return nil, fmt.Errorf("the content is missing (benchrun gen): %w", err)
	}
	docs := func(n int) ([]byte, error) {
		var all []byte
		for i := 0; i < n; i++ {
			d, err := os.ReadFile(filepath.Join(b.content, docName(i)))
			if err != nil {
				return nil, fmt.Errorf("the content has fewer than %d documents: %w", n, err)
			}
			all = append(all, d...)
		}
		return all, nil
	}
	var rows []*row
	size := sizeLabel(bigSize)

	// Single large transfers, to /dev/null (standard output) and to a file
	// (-o: fetch writes a temporary file and renames it, curl writes in place).
	for _, name := range []string{"nginx", "vsftpd", "pyftpdlib", "gophernicus", "pygopherd"} {
		t, err := b.target(name)
		if err != nil {
			return nil, err
		}
		u := t.base + bigName
		rows = append(rows, &row{
			label: fmt.Sprintf("%s %s %s → /dev/null", size, t.proto, t.name),
			fetch: &tool{name: "fetch", argv: b.fetchArgv(u)},
			peer:  &tool{name: "curl", argv: b.curlArgv(u)},
		})
		fo := filepath.Join(b.work, "fetch-"+name+".out")
		co := filepath.Join(b.work, "curl-"+name+".out")
		rows = append(rows, &row{
			label: fmt.Sprintf("%s %s %s → file", size, t.proto, t.name),
			big:   bigSize > 64<<20,
			fetch: &tool{name: "fetch", argv: b.fetchArgv("-o", fo, u), out: fo, check: checkExact, want: bigSum, strict: true},
			peer:  &tool{name: "curl", argv: b.curlArgv("-o", co, u), out: co, check: checkExact, want: bigSum, strict: true},
		})
	}

	// Latency: one process per URL, the same 1 KiB document each time.
	doc0, err := docs(1)
	if err != nil {
		return nil, err
	}
	for _, name := range small {
		t, err := b.target(name)
		if err != nil {
			return nil, err
		}
		u := t.base + docName(0)
		want := sha256.Sum256(bytes.Repeat(doc0, latency))
		rows = append(rows, &row{
			label:   fmt.Sprintf("latency %s %s: %d × 1 KiB, one process each (per call)", t.proto, t.name, latency),
			perCall: latency,
			fetch:   b.stdoutTool("fetch", b.fetchArgv(u), "fetch-latency", latency, checkExact, want, true),
			peer:    b.stdoutTool("curl", b.curlArgv(u), "curl-latency", latency, checkExact, want, true),
		})
	}

	// Batch in one process: the same URLs given to one fetch and one curl.
	all, err := docs(batch)
	if err != nil {
		return nil, err
	}
	for _, name := range small {
		t, err := b.target(name)
		if err != nil {
			return nil, err
		}
		var us []string
		for i := 0; i < batch; i++ {
			us = append(us, t.base+docName(i))
		}
		want := sha256.Sum256(all)
		rows = append(rows, &row{
			label: fmt.Sprintf("batch %s %s: %d × 1 KiB, one process", t.proto, t.name, batch),
			fetch: b.stdoutTool("fetch", b.fetchArgv(us...), "fetch-batch", 1, checkExact, want, true),
			peer:  b.stdoutTool("curl", b.curlArgv(us...), "curl-batch", 1, checkExact, want, true),
		})
	}

	// Parallel batch: fetch -j against curl -Z and against xargs -P curl.
	pall, err := docs(parallel)
	if err != nil {
		return nil, err
	}
	pwant := sha256.Sum256(sortedLines(pall))
	for _, name := range small {
		t, err := b.target(name)
		if err != nil {
			return nil, err
		}
		var us []string
		for i := 0; i < parallel; i++ {
			us = append(us, t.base+docName(i))
		}
		list := filepath.Join(b.work, "urls-"+name+".txt")
		if err := os.WriteFile(list, []byte(strings.Join(us, "\n")+"\n"), 0o644); err != nil {
			return nil, err
		}
		j := fmt.Sprint(b.jobs)
		// -j's transfers all go to one server, so --per-host lets them
		// run at once as curl's do; but gopher servers answer one request
		// at a time and reset connections when flooded, so there fetch
		// keeps its per-host default and the peers run 4 at once (issue
		// #17's comparison).
		fetchFlags, pj := []string{"-j", j, "--per-host", j}, j
		if t.proto == "Gopher" {
			fetchFlags, pj = []string{"-j", j}, "4"
		}
		fetchPar := func() *tool {
			// A batch writes files, not standard output: the documents go
			// to a fresh directory and are printed from there for the
			// check.
			argv := append(append([]string{"sh", "-c", parallelScript, b.fetch}, fetchFlags...), us...)
			return b.stdoutTool("fetch", argv, "fetch-parallel", 1, checkSorted, pwant, true)
		}
		// The peers write files too, as fetch does: creating 2,000 files
		// costs as much as fetching them on some disks, and a row
		// compares the fetching.
		curlZ := b.stdoutTool("curl -Z", append(append([]string{"sh", "-c", filesScript}, b.curlArgv("-Z", "--parallel-max", pj, "--remote-name-all")...), us...), "curlz-parallel", 1, checkSorted, pwant, false)
		xargs := b.stdoutTool("xargs curl", append([]string{"sh", "-c", filesScript, "xargs", "-P", pj, "-n", "1"}, b.curlArgv("--remote-name-all")...), "xargs-parallel", 1, checkSorted, pwant, false)
		xargs.stdin = list
		for _, peer := range []*tool{curlZ, xargs} {
			rows = append(rows, b.jobsRow(fmt.Sprintf("parallel %s %s: %d × 1 KiB, -j %s vs %s", t.proto, t.name, parallel, j, peerLabel(peer.name, pj)), fetchPar(), peer))
		}
		if t.proto == "Gopher" {
			// The same against curl with as many connections as fetch's
			// default opens: a server that answers requests side by side
			// (gophernicus forks a process for each) serves four
			// connections faster than two on a machine it fills, so this
			// row tells the client's part from the connections' count.
			curlZ2 := b.stdoutTool("curl -Z", append(append([]string{"sh", "-c", filesScript}, b.curlArgv("-Z", "--parallel-max", "2", "--remote-name-all")...), us...), "curlz2-parallel", 1, checkSorted, pwant, false)
			rows = append(rows, b.jobsRow(fmt.Sprintf("parallel %s %s: %d × 1 KiB, -j %s vs %s (two connections each)", t.proto, t.name, parallel, j, peerLabel(curlZ2.name, "2")), fetchPar(), curlZ2))
		}
		if t.proto == "HTTP" {
			// The same with HTTP/1.1 pipelining, which curl does not do:
			// the 16 transfers share two connections.
			argv := slices.Concat([]string{"sh", "-c", parallelScript, b.fetch}, fetchFlags, []string{"--pipeline", pipelineDepth}, us)
			rows = append(rows, b.jobsRow(fmt.Sprintf("parallel %s %s: %d × 1 KiB, -j %s --pipeline %s vs %s", t.proto, t.name, parallel, j, pipelineDepth, peerLabel(curlZ.name, pj)),
				b.stdoutTool("fetch", argv, "fetch-pipelined", 1, checkSorted, pwant, true), curlZ))
		}
	}

	// Issue #17's FTP comparison: the one-process batch's documents with
	// 4 transfers at once (4 control connections, each logged in once)
	// against one curl given them all (one login, one after another) and
	// curl -Z with 4 at once.
	for _, name := range small {
		t, err := b.target(name)
		if err != nil {
			return nil, err
		}
		if t.proto != "FTP" {
			continue
		}
		var us []string
		for i := 0; i < batch; i++ {
			us = append(us, t.base+docName(i))
		}
		want := sha256.Sum256(sortedLines(all))
		for _, peer := range []*tool{
			b.stdoutTool("curl", append(append([]string{"sh", "-c", filesScript}, b.curlArgv("--remote-name-all")...), us...), "curl-ftp4", 1, checkSorted, want, false),
			b.stdoutTool("curl -Z", append(append([]string{"sh", "-c", filesScript}, b.curlArgv("-Z", "--parallel-max", "4", "--remote-name-all")...), us...), "curlz-ftp4", 1, checkSorted, want, false),
		} {
			label := "one curl"
			if peer.name == "curl -Z" {
				label = peerLabel(peer.name, "4")
			}
			rows = append(rows, b.jobsRow(fmt.Sprintf("parallel %s %s: %d × 1 KiB, -j 4 vs %s", t.proto, t.name, batch, label),
				b.stdoutTool("fetch", append(append([]string{"sh", "-c", parallelScript, b.fetch}, "-j", "4", "--per-host", "4"), us...), "fetch-ftp4", 1, checkSorted, want, true), peer))
		}
	}
	return rows, nil
}

// jobsRow is a row whose fetch runs transfers at once (-j): not
// applicable to a fetch without -j.
func (b *bench) jobsRow(label string, fetch, peer *tool) *row {
	r := &row{label: label, fetch: fetch, peer: peer}
	if !b.hasJ {
		r.na = "n/a (no -j yet)"
	}
	return r
}

// pipelineDepth is the --pipeline of the pipelined HTTP row.
const pipelineDepth = "8"

// parallelScript runs "fetch -O" into a temporary directory ($0 is fetch,
// "$@" its flags and URLs) and prints the files it wrote.
const parallelScript = `d=$(mktemp -d) || exit 1
"$0" -q -O --output-dir "$d" "$@" || { rm -rf "$d"; exit 1; }
cat "$d"/*
rm -rf "$d"`

// filesScript runs a peer ("$0" "$@", writing files with -O) in a
// temporary directory and prints the files it wrote.
const filesScript = `d=$(mktemp -d) || exit 1
(cd "$d" && "$0" "$@") || { rm -rf "$d"; exit 1; }
cat "$d"/*
rm -rf "$d"`

func peerLabel(name, j string) string {
	switch name {
	case "curl -Z":
		return "curl -Z --parallel-max " + j
	case "xargs curl":
		return "xargs -P " + j + " curl"
	}
	return name
}

// stdoutTool is a tool whose standard output goes to a file in the
// scratch directory, checked against want.
func (b *bench) stdoutTool(name string, argv []string, file string, loop int, c check, want [32]byte, strict bool) *tool {
	return &tool{name: name, argv: argv, out: filepath.Join(b.work, file+".out"), stdout: true, loop: loop, check: c, want: want, strict: strict}
}

// Rows whose pair takes less than cheapPair run cheapPairs pairs a round
// after the first: a 20 ms batch moves by a tenth between two runs here,
// and more pairs cost little.
var cheapPair = 1500 * time.Millisecond // a variable for the tests

const cheapPairs = 3

// measure runs every row's first pair, then further rounds over all rows
// while the budget lasts: alternating fetch and the peer within a pair and
// rows within a round, so that drift in the machine's load reaches both.
func (b *bench) measure(rows []*row, runs int, deadline time.Time) {
	cost := map[*row]time.Duration{}
	for round := 1; round <= runs; round++ {
		for _, r := range rows {
			reps := 1
			if round > 1 && cost[r] < cheapPair {
				reps = cheapPairs
			}
			for range reps {
				if r.na != "" || r.err != nil || settled(r) {
					break
				}
				if round > 1 && time.Now().Add(cost[r]).After(deadline) {
					break
				}
				b.pair(r, round)
				if len(r.pairs) > 0 {
					cost[r] = r.pairs[len(r.pairs)-1].took
				}
			}
		}
	}
}

// settled reports a row whose wall-time ratio is far from 1: beyond
// settleFar[0] either way after one pair that took settleSlow or more,
// or beyond settleFar[1] after two, when every pair agrees. It is a
// heuristic: wall times here have moved by up to a third between runs,
// so further pairs would not bring the median across 1. The rows that
// settle are the slowest (one curl process a URL: over a minute a pair),
// so the budget goes to the rows whose verdict is close; their CPU and
// RSS cells then come from those one or two pairs (the pairs column says
// how many). A quick pair never settles its row alone: one run that
// stalls (a server's hiccup of seconds, seen once for curl on 200 FTP
// files) would otherwise stand as the row's verdict.
func settled(r *row) bool {
	far := settleFar[0]
	switch n := len(r.pairs); {
	case n == 0:
		return false
	case n == 1 && r.pairs[0].took < settleSlow:
		return false
	case n >= 2:
		far = settleFar[1]
	}
	below, above := true, true
	for _, p := range r.pairs {
		x := ratio(float64(p.f.wall), float64(p.p.wall))
		below = below && x > 0 && x < 1/far
		above = above && x > far
	}
	return below || above
}

// settleFar is how far from 1 a row's ratio must be to settle after one
// pair and after two, and settleSlow how long one pair must take to
// settle its row alone (variables for the tests).
var (
	settleFar  = [2]float64{5, 2}
	settleSlow = 10 * time.Second
)

// pair runs fetch and the peer once each for row r: fetch first in a
// row's odd-numbered pairs, the peer first in its even-numbered ones, so
// that what the run before leaves behind (writeback, a server still
// closing connections, a busy host) falls on both tools alike. Run
// always first, fetch took 2.14 times curl's time for 1 GiB over HTTP to
// /dev/null, the first row of every round, in a full run on a busy
// two-core machine where the same transfers by hand measured 0.8.
func (b *bench) pair(r *row, round int) {
	verify := round == 1 || !r.big
	t0 := time.Now()
	fmt.Fprintf(os.Stderr, "benchrun: round %d: %s\n", round, r.label)
	var f, p sample
	var ferr, err error
	if len(r.pairs)%2 == 0 {
		f, ferr = b.run(r.fetch, verify)
		if ferr == nil {
			p, err = b.run(r.peer, verify)
		}
	} else {
		p, err = b.run(r.peer, verify)
		f, ferr = b.run(r.fetch, verify)
	}
	if ferr != nil {
		r.err = fmt.Errorf("fetch: %w", ferr)
		return
	}
	if err != nil && errors.Is(err, errMismatch) && !r.peer.strict {
		r.warns = append(r.warns, fmt.Sprintf("%s: %v", r.peer.name, err))
	} else if err != nil {
		r.err = fmt.Errorf("%s: %w", r.peer.name, err)
		return
	}
	r.pairs = append(r.pairs, pair{f, p, time.Since(t0)})
}

var errMismatch = errors.New("output differs from the expected bytes")

// run runs t once (or t.loop times in a row) and measures it.
func (b *bench) run(t *tool, verify bool) (sample, error) {
	var s sample
	if t.out != "" {
		os.Remove(t.out)
		defer os.Remove(t.out)
	}
	name := os.DevNull
	if t.stdout {
		name = t.out
	}
	stdout, err := os.Create(name)
	if err != nil {
		return s, err
	}
	defer stdout.Close()
	n := max(t.loop, 1)
	// What earlier runs wrote (a GiB, removed or not) goes to the disk
	// now, not while this run is timed: without it the rows that write
	// files swung from 0.4 to 1.5 between runs.
	syscall.Sync()
	// the whole run, a latency loop included, is bounded
	start := time.Now()
	err = withTimeout(10*time.Minute, func(ctx context.Context) error {
		for i := 0; i < n; i++ {
			argv := t.argv
			if b.timeBin != "" {
				argv = append([]string{b.timeBin, "-f", "%M", "-o", b.rssFile(), "--"}, argv...)
			}
			cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
			cmd.Env = b.env
			cmd.Stdout = stdout
			var stderr tailBuffer
			cmd.Stderr = &stderr
			cmd.WaitDelay = 5 * time.Second
			if t.stdin != "" {
				in, err := os.Open(t.stdin)
				if err != nil {
					return err
				}
				cmd.Stdin = in
				defer in.Close()
			}
			err := cmd.Run()
			if cmd.ProcessState != nil {
				if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
					s.cpu += time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
					if b.timeBin == "" {
						s.rss = max(s.rss, int64(ru.Maxrss)*1024) // Linux: KiB (an int32 on 32-bit systems)
					}
				}
			}
			if b.timeBin != "" && err == nil {
				kib, rerr := readRSS(b.rssFile())
				if rerr != nil {
					return rerr
				}
				s.rss = max(s.rss, kib*1024)
			}
			if err != nil {
				return fmt.Errorf("%s: %v: %s", shortCmd(t.argv), err, strings.TrimSpace(stderr.String()))
			}
		}
		return nil
	})
	s.wall = time.Since(start)
	if err != nil {
		return s, err
	}
	if err := stdout.Close(); err != nil {
		return s, err
	}
	if !verify || t.check == checkNone {
		return s, nil
	}
	var got [32]byte
	switch t.check {
	case checkExact:
		got, err = hashFile(t.out)
	case checkSorted:
		var data []byte
		data, err = os.ReadFile(t.out)
		got = sha256.Sum256(sortedLines(data))
	}
	if err != nil {
		return s, err
	}
	if got != t.want {
		return s, fmt.Errorf("%w (SHA-256 %x, want %x)", errMismatch, got[:8], t.want[:8])
	}
	return s, nil
}

func (b *bench) rssFile() string { return filepath.Join(b.work, "rss.txt") }

// readRSS reads the peak RSS in KiB that GNU time's "%M" wrote.
func readRSS(name string) (int64, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return 0, err
	}
	lines := strings.Fields(string(data))
	if len(lines) == 0 {
		return 0, fmt.Errorf("%s: no peak RSS from time", name)
	}
	var kib int64
	if _, err := fmt.Sscan(lines[len(lines)-1], &kib); err != nil {
		return 0, fmt.Errorf("%s: %q is not a peak RSS", name, data)
	}
	return kib, nil
}

// sortedLines is data's lines in byte order, each with its line end.
func sortedLines(data []byte) []byte {
	lines := bytes.SplitAfter(data, []byte("\n"))
	slices.SortFunc(lines, bytes.Compare)
	return bytes.Join(lines, nil)
}

func sizeAndHash(name string) (int64, [32]byte, error) {
	st, err := os.Stat(name)
	if err != nil {
		return 0, [32]byte{}, err
	}
	sum, err := hashFile(name)
	return st.Size(), sum, err
}

// shortCmd names a command without its (possibly thousands of) URLs.
func shortCmd(argv []string) string {
	s := strings.Join(argv, " ")
	if len(s) > 160 {
		s = s[:160] + " …"
	}
	return s
}

// tailBuffer keeps the last 2 KiB written to it: a failing command's
// error, without holding megabytes of it.
type tailBuffer struct{ b []byte }

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.b = append(t.b, p...)
	if len(t.b) > 2048 {
		t.b = t.b[len(t.b)-2048:]
	}
	return len(p), nil
}

func (t *tailBuffer) String() string { return string(t.b) }

// loadAvg is the one-minute load average, or -1.
func loadAvg() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	var v float64 = -1
	if err == nil {
		fmt.Sscan(string(b), &v)
	}
	return v
}
