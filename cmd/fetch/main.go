// Command fetch dereferences URLs of every RFC 1738 scheme, each through
// its own protocol. Run "fetch --help" for the flags and exit statuses.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"os"
	"os/signal"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

// procs is the number of processors the Go scheduler had at start, set
// by main when it runs the command on one (tests running the command
// in-process leave theirs alone): 0 when it did not.
var procs int

func main() {
	if os.Getenv("GOMAXPROCS") == "" {
		// One transfer at a time until the flags ask for more (-j): a
		// second processor only wakes idle threads (futex, nanosleep) at
		// every hand-off between net/http's goroutines and ours; measured,
		// 200 small HTTP documents in one process took 23 ms with two and
		// 18 ms with one. Done first, before anything starts a goroutine
		// that a second processor would give a thread of its own: set
		// after the flags were read, the same call cost a single fetch
		// 0.4-0.8 ms more.
		procs = runtime.GOMAXPROCS(1)
	}
	log.SetFlags(0)
	log.SetPrefix("fetch: ")
	log.SetOutput(libraryLog{os.Stderr})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal cancels the fetch (temporary files are removed);
	// a second one kills the command at once, and so does the end of
	// stopGrace: what no context reaches (opening a FIFO that nobody
	// writes, as --config, -i or --log FILE) would otherwise hold the
	// command past a script's one SIGTERM or SIGINT (timeout(1)).
	ended := make(chan struct{})
	go func() {
		<-ctx.Done()
		stop()
		select {
		case <-ended:
		case <-time.After(stopGrace):
			fmt.Fprintf(os.Stderr, "fetch: interrupted, and still not stopped after %v: exiting\n", stopGrace)
			os.Exit(exitInterrupted)
		}
	}()
	code := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	close(ended)
	stop()
	os.Exit(code)
}

// libraryLog is where the standard logger writes, which the command
// itself never uses: net/http reports there a server's bytes on an idle
// connection, which the driver deals with. Shown with -v (run sets
// showLibraryLog), kept off the standard error otherwise, where -q
// promises nothing and a plain run only fetch's own messages.
type libraryLog struct{ w io.Writer }

var showLibraryLog atomic.Bool

func (l libraryLog) Write(p []byte) (int, error) {
	if !showLibraryLog.Load() {
		return len(p), nil
	}
	return l.w.Write(p)
}

// stopGrace is how long the command has, after a signal, to cancel its
// transfers, remove their temporary files and write its log and summary:
// far more than these take.
const stopGrace = 10 * time.Second

// stdio is the command's standard streams, so tests can run it in-process.
type stdio struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// run is the whole command; it returns the exit status.
func run(ctx context.Context, args []string, s stdio) int {
	o, err := parseArgs(args)
	if errors.Is(err, errHelp) {
		fmt.Fprint(s.out, usageText)
		if t := unknownHelpTopic(args); t != "" {
			// The general help stands in; say why, after it.
			list, near := helpTopics(t)
			if near != "" {
				near = fmt.Sprintf(" (did you mean %s?)", near)
			}
			fmt.Fprintf(s.err, "fetch: no help on %q%s; --help SCHEME knows %s\n", t, near, list)
		}
		return 0
	}
	var hr *helpRequest
	if errors.As(err, &hr) {
		printSchemeHelp(s.out, hr.topic)
		return 0
	}
	if err != nil {
		fmt.Fprintf(s.err, "fetch: %v\nRun 'fetch --help' for usage.\n", err)
		return fetch.KindUsage.ExitCode()
	}
	if o.version {
		fmt.Fprintln(s.out, "fetch", version)
		return 0
	}
	if len(o.urls) == 0 && !o.batchMode() && !o.queueMode() {
		fmt.Fprint(s.err, "fetch: no URL given\nUsage: fetch [flags] URL...   (fetch --help for more)\n")
		return fetch.KindUsage.ExitCode()
	}
	if err := applyConfig(o); err != nil {
		return report(s, o, err)
	}
	showLibraryLog.Store(o.verbose)
	for _, c := range []struct {
		flag string
		n    int64
		why  string
	}{
		{"--max-redirs", int64(o.maxRedirs), "at least 0 (0 follows none)"},
		{"--depth", int64(o.crawl.depth), "at least 0 (0 fetches only the URLs given)"},
		{"--max-urls", o.crawl.maxURLs, "at least 0 (0 is no limit)"},
	} {
		if c.n < 0 {
			return report(s, o, &fetch.Error{Kind: fetch.KindUsage, Op: c.flag, Offset: -1, Err: fmt.Errorf("%d: %s", c.n, c.why)})
		}
	}
	if n := o.batch.pipeline; n < 1 || n > maxPipeline {
		return report(s, o, &fetch.Error{Kind: fetch.KindUsage, Op: "--pipeline", Offset: -1, Err: fmt.Errorf("%d: from 1 (one request at a time) to %d", n, maxPipeline)})
	}
	if o.set["warc-max-size"] && o.warc.path == "" { // (a default in the configuration file is no mistake)
		return report(s, o, &fetch.Error{Kind: fetch.KindUsage, Offset: -1, Err: errors.New("--warc-max-size goes with --warc")})
	}
	if procs > 1 && o.batchMode() && o.batch.jobs > 1 && o.warc.path != "" {
		// -j with --warc: every processor from the start, since
		// compressing records is work of its own beside the transfers.
		// Otherwise a batch goes to every processor once more than two
		// of its transfers run at once (batch.widen says why, and what
		// was measured). A single transfer, or -j 1, stays on one.
		// GOMAXPROCS in the environment overrides this.
		runtime.GOMAXPROCS(procs)
	}
	switch qo := o.queueOpts; {
	case qo.enqueue != "" && qo.queue != "", qo.enqueue != "" && qo.status != "", qo.queue != "" && qo.status != "":
		fmt.Fprintln(s.err, "fetch: --enqueue, --queue and --queue-status go one at a time")
		return fetch.KindUsage.ExitCode()
	case qo.enqueue != "":
		return runEnqueue(ctx, s, o)
	case qo.status != "":
		return runQueueStatus(ctx, s, o)
	}
	if o.batchMode() {
		return runBatch(ctx, s, o, args)
	}
	if err := o.check(); err != nil {
		return report(s, o, &fetch.Error{Kind: fetch.KindUsage, Offset: -1, Err: err}) // (a JSON line with --json)
	}

	switch {
	case o.parse:
		return each(ctx, s, o, func(_ int, raw string) error { return printParse(s.out, raw) })
	case o.base != "":
		return each(ctx, s, o, func(_ int, raw string) error { return printResolved(s.out, o.base, raw) })
	}

	if err := sameFiles(s, singleFiles(o)); err != nil {
		return report(s, o, err)
	}
	client, err := newClient(o, s)
	if err != nil {
		return report(s, o, err)
	}
	defer client.Close()
	if err := openWARC(o, args); err != nil {
		return report(s, o, err)
	}
	code := each(ctx, s, o, func(i int, raw string) error { return fetchOne(ctx, client, o, s, raw, i) })
	if err := closeWARC(o); err != nil && code == 0 {
		return report(s, o, err)
	}
	return code
}

// exitInterrupted is the status after Ctrl-C (128 + SIGINT), as shells
// and curl report it.
const exitInterrupted = 130

// each runs f for every URL (with its index); the status is the first
// failure's. An interrupt ends the run at once with status 130 and a
// message naming the URL it stopped.
func each(ctx context.Context, s stdio, o *options, f func(int, string) error) int {
	code := 0
	for i, raw := range o.urls {
		if err := f(i, raw); err != nil {
			if ctx.Err() != nil {
				if o.jsonOut {
					line, _ := marshalJSON(map[string]any{"url": redactArg(raw), "error": "interrupted", "exit": exitInterrupted})
					fmt.Fprintln(s.err, string(line))
				} else {
					fmt.Fprintf(s.err, "fetch: %s: interrupted\n", redactArg(raw))
				}
				return exitInterrupted
			}
			if c := report(s, o, withURL(raw, err)); code == 0 {
				code = c
			}
		}
	}
	return code
}

// withURL names the URL in an error of the command's own (writing the
// output, naming the file) that has none; the client names it in the rest.
func withURL(raw string, err error) error {
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		return &fetch.Error{Kind: fetch.KindOf(err), URL: redactArg(raw), Offset: -1, Err: err}
	}
	if fe.URL == "" {
		fe.URL = redactArg(raw)
	} else {
		// A URL parsed without a host keeps a password Redacted cannot
		// see; the offset of a fault moves with the text it indexes.
		shown := redactArg(fe.URL)
		fe.Offset = movedOffset(fe.URL, shown, fe.Offset)
		fe.URL = shown
	}
	return err
}

// movedOffset is off, a byte offset in from, as an offset in to, the same
// URL shown another way (its password masked, bytes that are not UTF-8
// escaped, the canonical form). The two texts are compared from each end,
// letters in either case alike (the canonical form lowers the scheme and
// the host): an offset in their common start stays, one in their common
// end moves with it, and one in what changed between goes to where the
// change starts, so that it points at the mask of a password and never
// into what followed it.
func movedOffset(from, to string, off int) int {
	if off < 0 || from == to {
		return off
	}
	same := func(a, b byte) bool { return a == b || 'A' <= a && a <= 'Z' && a+'a'-'A' == b }
	n := min(len(from), len(to))
	head := 0
	for head < n && same(from[head], to[head]) {
		head++
	}
	tail := 0
	for tail < n-head && same(from[len(from)-1-tail], to[len(to)-1-tail]) {
		tail++
	}
	switch {
	case off < head:
		return off
	case off >= len(from)-tail:
		return off - len(from) + len(to)
	}
	return head
}

// redactArg is a command-line URL with its password masked, for messages
// and the batch log: as it prints once parsed, or as given with the
// password masked when it does not parse.
func redactArg(raw string) string {
	if u, err := fetch.Parse(raw); err == nil && (u.Host != "" || u.HasUser) {
		if !u.HasPassword || u.Password == "" {
			// nothing to mask: as given, not as the parser prints it
			// again (a batch's log names each URL as its list does)
			return escapeInvalidUTF8(fetch.RedactedText(raw))
		}
		return u.Redacted()
	}
	// Not parsed, or parsed without an authority by the generic grammar
	// ("ftp:/u:pw@h/x", which FTP's own refuses): the text masked.
	return escapeInvalidUTF8(maskSchemeless(fetch.RedactedText(raw)))
}

// maskSchemeless masks the password of "user:password@host/path", as
// curl takes it, where its scheme ("user") is none the command has
// (fetch.RedactedUnknown); a scheme that exists keeps its text (a news:
// message-id may hold ":" and "@").
func maskSchemeless(raw string) string {
	if _, known := knownSchemes().Lookup(fetch.SchemeOf(raw)); known {
		return raw
	}
	return fetch.RedactedUnknown(raw)
}

// knownSchemes is the registry of the schemes the command has, made once.
var knownSchemes = sync.OnceValue(schemes.Registry)

// escapeInvalidUTF8 percent-encodes the bytes of s that are not UTF-8. The
// batch log is JSON, which would turn each into U+FFFD, and a rerun would
// no longer find the URL it logged as done; in a URL "%E9" is the octet
// itself, so the text stays the same URL.
func escapeInvalidUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			fmt.Fprintf(&b, "%%%02X", s[i])
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// report prints err and returns its exit status.
func report(s stdio, o *options, err error) int {
	k := fetch.KindOf(err)
	msg := err.Error()
	if h := hint(err); h != "" {
		msg += " (" + h + ")"
	}
	if o != nil && o.jsonOut {
		line, _ := marshalJSON(map[string]any{"error": msg, "kind": k.String(), "exit": k.ExitCode()})
		fmt.Fprintln(s.err, string(line))
	} else {
		// The message quotes what servers said (fetch.Error.Reply) and
		// decoded URL parts; JSON escapes them, a terminal must not get
		// them raw.
		fmt.Fprintf(s.err, "fetch: %s\n", strings.Map(printableLines, msg))
	}
	return k.ExitCode()
}

func (o *options) check() error {
	if len(o.outputs) > 0 && o.remoteName {
		return errors.New("-o and -O cannot be used together")
	}
	if slices.Contains(o.outputs, "") {
		return errors.New(`-o "" names no file: give a file name, or "-o -" for standard output`)
	}
	for _, out := range o.outputs {
		if err := fieldError(out); err != nil {
			return err
		}
	}
	template := len(o.outputs) == 1 && isTemplate(o.outputs[0])
	if len(o.outputs) > len(o.urls) {
		nf, nu := int64(len(o.outputs)), int64(len(o.urls))
		return fmt.Errorf("%d -o %s for %d %s: give one -o per URL, in order", nf, plural(nf, "file"), nu, plural(nu, "URL"))
	}
	// (only the flag: the configuration file's C is a default for the
	// documents saved to files, and leaves standard output alone)
	if o.resume == "-" && o.set["C"] && !o.parse && o.base == "" && !o.remoteName && !template && (len(o.outputs) < len(o.urls) || slices.Contains(o.outputs, "-")) {
		return errors.New("-C - continues an output file: give -o FILE (one per URL) or -O")
	}
	if o.parse && o.base != "" {
		return errors.New("--parse and --base cannot be used together")
	}
	if o.parse || o.base != "" {
		mode := "--parse"
		if o.base != "" {
			mode = "--base"
		}
		for _, f := range []struct {
			name string
			set  bool
		}{{"-o", o.set["o"]}, {"-O", o.set["O"]}, {"--info", o.set["info"]}, {"-C", o.set["C"]}} {
			// (only as flags: the configuration file's are defaults for
			// fetching, which --parse and --base do not do)
			if f.set {
				return fmt.Errorf("%s does not apply: %s prints to standard output and fetches nothing", f.name, mode)
			}
		}
	}
	for _, f := range crawlFlags { // (a batch refuses them as well)
		if o.set[f] {
			return fmt.Errorf("--%s goes with --recursive", f)
		}
	}
	return nil
}
