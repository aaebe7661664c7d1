package main

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"hash"
	"hash/maphash"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"golang.org/x/text/unicode/norm"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/frontier"
)

// batchOptions are the flags of batch fetching (-i, -j and the rest).
type batchOptions struct {
	input     inputFiles    // -i FILE, repeatable; "-" is standard input
	jobs      int           // -j: transfers at once
	perHost   int           // --per-host: transfers at once to one host:port (0: no cap)
	delay     time.Duration // --delay: between the starts of two requests to one host
	outputDir string        // --output-dir
	retry     int           // --retry: further attempts after a temporary failure
	log       string        // --log FILE
	pipeline  int           // --pipeline: HTTP GETs outstanding on one connection
}

func (b *batchOptions) register(fs *flag.FlagSet) {
	fs.Var(&b.input, "i", "")
	fs.Var(&b.input, "input-file", "")
	fs.IntVar(&b.jobs, "j", 1, "")
	fs.IntVar(&b.jobs, "jobs", 1, "")
	fs.IntVar(&b.perHost, "per-host", 2, "")
	fs.IntVar(&b.pipeline, "pipeline", 1, "")
	fs.Var((*seconds)(&b.delay), "delay", "")
	fs.StringVar(&b.outputDir, "output-dir", "", "")
	fs.IntVar(&b.retry, "retry", 0, "")
	fs.StringVar(&b.log, "log", "", "")
}

// maxPipeline bounds --pipeline: past a few requests a connection gains
// nothing, and a server reads them all into its buffers.
const maxPipeline = 64

// maxJobs bounds -j: each transfer is a worker, with its buffers, made
// at the start (a mistyped -j 100000000 took 23 GB), and a thousand
// at once is more than any one machine's servers want from one client.
const maxJobs = 1000

// inputFiles are the -i lists, in the order given: their URLs are one
// list, read list after list. Standard input ("-") can be read once.
type inputFiles []string

func (l *inputFiles) String() string { return strings.Join(*l, ",") }
func (l *inputFiles) Set(s string) error {
	switch {
	case s == "":
		return nil // names no list, as before -i repeated
	case s == "-" && slices.Contains(*l, "-"):
		return errors.New(`standard input is read once: give "-i -" at most once`)
	}
	*l = append(*l, s)
	return nil
}

// batchFlags are the flags that make a run a batch even with the URLs on
// the command line.
var batchFlags = []string{"i", "j", "per-host", "delay", "output-dir", "retry", "log", "recursive", "r", "queue"}

func (o *options) batchMode() bool { return o.batchFlag() != "" }

// batchFlag is the first of batchFlags given, as written on a command
// line ("-i", "--retry"), or "" when none is.
func (o *options) batchFlag() string {
	for _, f := range batchFlags {
		if o.set[f] {
			if len(f) == 1 {
				return "-" + f
			}
			return "--" + f
		}
	}
	return ""
}

// Retries wait retryBase, twice that, four times... (at most retryMax),
// each wait drawn at random from its upper half so that workers that
// failed together do not return together. A server's Retry-After is
// honoured up to retryAfterMax.
var (
	retryBase     = time.Second
	retryMax      = time.Minute
	retryAfterMax = 5 * time.Minute
)

// severity orders exit statuses for a batch's status: the most severe
// failure's status is the batch's. First what breaks the whole run (local
// I/O, then unclassified failures), then what a rerun may cure (network),
// then what the list itself holds (policy refusals, server refusals,
// usage, malformed URLs).
var severity = []int{7, 1, 5, 4, 6, 2, 3}

func moreSevere(a, b int) bool {
	rank := func(c int) int {
		for i, s := range severity {
			if s == c {
				return i
			}
		}
		return len(severity)
	}
	return rank(a) < rank(b)
}

// batch is one run of batch fetching: a reader of URLs, workers sharing
// one client (so sessions are reused per host through its pools), a cap
// per host, and the log.
type batch struct {
	o     *options
	s     stdio
	c     *fetch.Client
	root  string // the output directory
	tmpl  string // -o template; "" for -O
	hosts *hostLimiter
	log   *batchLog
	// done holds the digests of the URLs already ok (the log, this
	// run), as they are logged: not their text, which a crawl of a
	// server making up long links would hold by the hundred megabytes.
	done   map[nameDigest]bool
	shown  map[string]string   // a listed URL → its redactArg, from the list's reader to its worker
	queued map[nameDigest]bool // URLs of the list queued this run (a copy listed again is not fetched again)
	doneMu sync.Mutex
	// loggedKeys holds the digests of the keys (Registry.Key) of the URLs
	// the log held as ok, made by keepTail when it first needs them.
	loggedKeys map[nameDigest]bool
	errMu      sync.Mutex // stderr: failure lines and the progress line

	// the frontier the workers read (dispatch.go)
	fr         frontier.Frontier
	adder      frontier.Adder
	list       *frontier.Memory // a plain list, fed as it is read; nil for a crawl or a queue
	shared     bool             // a queue shared with other workers (--queue)
	backlog    int              // tasks fed or set aside ahead of the workers
	backlogLen int64            // and their URLs' bytes, at most (0: no bound)
	held       heldQueue        // the crawl's queue when this process holds it (a Memory or Journal), else nil
	warnedFull atomic.Bool      // the queue's bound was reached and said so (queueFull)
	// queuedBefore is how many URLs the crawl's journal held when it was
	// opened (a resumed crawl's earlier runs): --max-urls counts them.
	queuedBefore int64
	addMu        sync.Mutex // held while URLs are added and counted (--max-urls)
	scope        *scope     // --recursive: what to follow; nil otherwise
	cancel       context.CancelFunc

	commitMu  sync.Mutex // a task's WARC records and log line, together; any other record of the batch
	commitErr error      // the first failure to write them: nothing more is written (commit)

	stopMu  sync.Mutex
	stopErr error // the failure that stopped the batch (stop); nil while it runs

	namesMu  sync.Mutex
	names    map[nameDigest]nameDigest // file → the URL written to it, this run's and the log's
	warcStem string                    // a rotating WARC's files are warcStem + digits + warcExt
	warcExt  string                    // ".warc.gz", or ".warc" for an uncompressed WARC

	cleanMu sync.Mutex
	// cleaned holds the digests of the directories made and cleared of
	// stale temporary files this run: a path for each would cost a crawl
	// that writes into a million directories a hundred MiB or more, and
	// none can be forgotten (cleaned again, a directory would lose this
	// run's temporary files in flight).
	cleaned map[nameDigest]bool

	total                          atomic.Int64 // URLs to fetch; -1 until known
	read, active                   atomic.Int64
	ok, failed, skipped, bytesDone atomic.Int64
	again                          atomic.Int64 // a list's copies of URLs this run has (queued, in flight, failed)
	worst                          atomic.Int64 // the most severe exit status so far
	kinds                          sync.Map     // exit status → *atomic.Int64, of the URLs that failed
	others                         sync.Map     // the same, of failures no URL's (a log, a WARC, a queue, a list)
	widened                        sync.Once    // see widen
}

// widen gives the batch every processor (those the scheduler had at
// start: none when the command was not started by main), once more than
// two transfers run at once. Two at once (a list from one host with the
// --per-host default) wait on their server most of the time, and a
// second processor only hands their goroutines between threads: measured
// (2026-11-27, two cores, alternating runs), 2,000 Gopher documents from
// gophernicus with -j 16 took 15 % less CPU on one, in the same time or
// less, and 2,000 HTTP documents from nginx the same time for 6 % less
// CPU. More at once gain from the second: with 16 the HTTP documents
// took about 15 % less time on two, and 200 FTP files with 4 at once
// 0.89-0.96 of curl -Z's time against 1.05-1.07 on one.
func (b *batch) widen() {
	if procs > 1 {
		b.widened.Do(func() { runtime.GOMAXPROCS(procs) })
	}
}

// runBatch fetches every URL of -i and the command line into files.
func runBatch(ctx context.Context, s stdio, o *options, args []string) int {
	usage := func(format string, args ...any) int {
		fmt.Fprintf(s.err, "fetch: "+format+"\n", args...)
		return fetch.KindUsage.ExitCode()
	}
	bo := o.batch
	switch {
	case len(o.outputs) > 0 && o.remoteName:
		return usage("-o and -O cannot be used together")
	case len(o.outputs) > 1:
		return usage("a batch takes one -o, a template such as -o '{host}/{path}'")
	case o.crawl.recursive && o.remoteName:
		return usage("--recursive names files with -o TEMPLATE (default '%s'), not -O, whose names would collide", crawlTemplate)
	case len(o.outputs) == 0 && !o.remoteName && !o.crawl.recursive && o.queueOpts.queue == "":
		// Named, since --retry or --output-dir alone makes one: a
		// document retried on standard output would be written twice.
		return usage("%s makes this a batch, and a batch writes files: give -O, or -o with a template such as '{host}/{path}'", o.batchFlag())
	case bo.jobs < 1 || bo.jobs > maxJobs:
		return usage("-j %d: from 1 to %d", bo.jobs, maxJobs)
	case bo.perHost < 0:
		return usage("--per-host %d: at least 0 (0 is no cap)", bo.perHost)
	case bo.retry < 0:
		return usage("--retry %d: at least 0 (0 asks once)", bo.retry)
	case o.set["C"]:
		// Only the flag: the configuration file's C is a default for a
		// document saved to a file, which a batch's log resumes instead.
		return usage("-C is for one URL, not a batch (a rerun with the same --log resumes a batch)")
	case o.info || o.parse || o.base != "":
		return usage("--info, --parse and --base do not go with a batch")
	case len(bo.input) == 0 && len(o.urls) == 0 && o.queueOpts.queue == "":
		return usage("no URL given: -i FILE (or -i - for standard input), or URLs on the command line")
	}
	if !o.crawl.recursive {
		for _, f := range crawlFlags {
			if o.set[f] {
				return usage("--%s goes with --recursive", f)
			}
		}
	}
	b := &batch{o: o, s: s, root: bo.outputDir}
	if b.root == "" {
		b.root = "."
	}
	if len(o.outputs) == 0 && !o.remoteName {
		b.tmpl = crawlTemplate
	}
	if len(o.outputs) == 1 {
		b.tmpl = o.outputs[0]
		if err := checkTemplate(b.tmpl); err != nil {
			return usage("%v", err)
		}
	}
	b.total.Store(-1)
	lists, closeLists, err := openLists(s, o)
	if err != nil {
		return report(s, o, err)
	}
	defer closeLists()
	if err := sameFiles(s, batchFiles(o)); err != nil {
		return report(s, o, err)
	}
	// Made once the lists are open and the files apart (the log and the
	// WARC may be in it); a run refused before it fetches anything
	// removes what it made.
	made, err := b.makeDir(b.root)
	if err != nil {
		removeDirs(made)
		return report(s, o, outputErr("create", b.root, err))
	}
	var jsonOut io.Writer
	if o.jsonOut {
		jsonOut = s.out
	}
	// A log this run did not create. /dev/null keeps no line, so a run
	// with it resumes nothing: were it taken for a rerun, the records
	// of the last run given /dev/null would be cut from the WARC's end,
	// none of them logged as done.
	fi, statErr := os.Stat(bo.log)
	resumed := bo.log != "" && statErr == nil && fi.Mode().IsRegular()
	if b.log, b.done, b.names, err = openLog(bo.log, jsonOut, b.spelling()); err != nil {
		removeDirs(made)
		return report(s, o, err)
	}
	// refuse ends a run that has fetched nothing. A log it created goes
	// (the WARC keeps the warcinfo record it may have begun with):
	// left empty, it would make the next run with it a resumed one, which
	// cuts from the WARC's end the transfers its log does not record, an
	// earlier run's.
	refuse := func(err error) int {
		if !resumed && bo.log != "" {
			b.log.removeEmpty()
		}
		b.log.close()
		closeWARC(o)
		removeDirs(made)
		return report(s, o, err)
	}
	// The batch's own files are never a document's: a URL that would
	// name one (-O --log out/run.log with .../run.log in the list) gets
	// the suffix of a name already taken.
	for _, p := range append([]string{bo.log, bo.log + ".frontier", o.warc.path}, bo.input...) {
		if p != "" && p != ".frontier" && p != "-" {
			b.reserve(p)
		}
	}
	if o.warc.maxSize > 0 { // the WARC rotates: NAME-00000.warc.gz, NAME-00001.warc.gz... (or .warc)
		stem, ext := warcSeries(o.warc.path)
		b.warcStem, _ = b.inRoot(stem)
		b.warcExt = ext
	}
	if b.c, err = newClient(o, s); err != nil {
		return refuse(err)
	}
	defer b.c.Close()
	// One WARC writer for every transfer of the batch; each record is
	// written whole, so concurrent transfers never interleave in it.
	if resumed {
		// A resumed run: the records its log does not hold at the WARC's
		// end are a killed transfer's, fetched again now. A new log
		// trims nothing (the file may hold another run's records).
		o.warc.keepTail = b.keepTail
	}
	if err := openWARC(o, args); err != nil {
		return refuse(err)
	}
	b.log.logged, b.loggedKeys = nil, nil // keepTail's, whose work is done
	// Cleaned once the log and the WARC are this run's: a run refused
	// because another is writing them leaves that one's files alone
	// (whose temporary files may carry this run's process id, in
	// containers that start each run as PID 1).
	b.cleanStale(b.root)
	b.hosts = newHostLimiter(bo.perHost, bo.delay)
	if !o.crawl.recursive && o.queueOpts.queue == "" {
		// Lists in files are counted first (streaming), for the ETA; a
		// pipe (-i <(...), a FIFO, /dev/stdin) is read once, as it comes,
		// and the total is known at the end of the last list.
		if n, ok, err := countLists(lists); err != nil {
			return refuse(err)
		} else if ok {
			b.total.Store(int64(len(o.urls)) + n)
		}
	}

	if err := b.openFrontier(ctx, s); err != nil {
		return refuse(err)
	}
	start := time.Now()
	stopProgress := b.startProgress(start)
	signalled := ctx // Ctrl-C, SIGTERM; b.cancel stops the batch on a failure of its own
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	b.cancel = cancel
	readErr := make(chan error, 1)
	release := b.hold()
	go func() { readErr <- b.feed(ctx, lists, release) }()
	b.dispatch(ctx)
	stopProgress()
	if err := b.fr.Close(); err != nil && !b.saidAlready(err) {
		b.noteFailure(fetch.KindLocal.ExitCode())
		report(s, o, err)
	}
	select {
	case err := <-readErr:
		if err != nil {
			b.noteFailure(fetch.KindLocal.ExitCode())
			var fe *fetch.Error
			if !errors.As(err, &fe) { // not the list's: the frontier's (a journal, a queue)
				err = &fetch.Error{Kind: fetch.KindLocal, Op: "queue the list's URLs", Offset: -1, Err: err}
			}
			report(s, o, err)
		}
	case <-ctx.Done():
		// Interrupted: the list's reader may be waiting on a terminal or
		// a pipe, which no cancellation reaches; it is left to the exit.
	}
	if err := b.log.close(); err != nil && !b.saidAlready(err) {
		b.noteFailure(fetch.KindLocal.ExitCode())
		report(s, o, err)
	}
	if err := closeWARC(o); err != nil && !b.saidAlready(err) {
		b.noteFailure(fetch.KindLocal.ExitCode())
		report(s, o, err)
	}
	code := int(b.worst.Load())
	interrupted := signalled.Err() != nil
	if code != 0 || interrupted || !o.quiet && b.progressWanted() {
		fmt.Fprintln(s.err, b.summary(time.Since(start), interrupted))
	}
	if interrupted {
		return exitInterrupted
	}
	return code
}

// eachLine calls f with each URL of the list: a line with its spaces
// trimmed, blank lines and "#" comments skipped. It reads as it goes, in
// bounded memory: a line longer than maxLine is no URL of this command's
// (a "#" comment of any length is still skipped), and goes to tooLong
// with its number and first bytes; the list goes on after it. Either
// function returns false to stop.
func eachLine(r io.Reader, f func(string) bool, tooLong func(n int, start string) bool) error {
	br := bufio.NewReaderSize(r, maxLine+2) // a line of maxLine bytes and its CR LF
	for n := 1; ; n++ {
		line, err := br.ReadSlice('\n')
		if n == 1 {
			line = bytes.TrimPrefix(line, utf8BOM) // a list saved by Notepad, or by PowerShell 5
		}
		// The buffer holds maxLine bytes and a CR LF, so a line ending in
		// LF alone can fit with a byte over maxLine.
		if full := errors.Is(err, bufio.ErrBufferFull); full || len(bytes.TrimSuffix(bytes.TrimSuffix(line, []byte("\n")), []byte("\r"))) > maxLine {
			start := linePreview(string(line))
			for errors.Is(err, bufio.ErrBufferFull) {
				_, err = br.ReadSlice('\n')
			}
			// A comment of any length is skipped, and so is a line of
			// blanks only.
			if start != "" && !strings.HasPrefix(start, "#") && !tooLong(n, start) {
				return nil
			}
			line = nil
		}
		if t := strings.TrimSpace(string(line)); t != "" && !strings.HasPrefix(t, "#") {
			if !f(t) {
				return nil
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

var utf8BOM = []byte("\ufeff")

// linePreview is the start of a list's line too long to take, for the
// log and messages: its password masked as far as the line shows one, and
// only its scheme (and the slashes after it) when what follows could still
// hold one whose "@" is further on. That is judged after the scheme's ":"
// and any slashes, not after "//": "ftp:/u:pw@h" and "http:u:pw@h", a slash
// or two short, carry a password too (fetch.RedactedText masks them).
func linePreview(line string) string {
	line = strings.TrimSpace(line)
	masked := maskSchemeless(fetch.RedactedText(line))
	if _, rest, ok := strings.Cut(line, ":"); ok && masked == line {
		rest = strings.TrimLeft(rest, "/")
		auth := rest
		if j := strings.IndexAny(auth, "/?#"); j >= 0 {
			auth = auth[:j]
		}
		if strings.Contains(auth, ":") && !strings.Contains(auth, "@") {
			masked = line[:len(line)-len(rest)]
		}
	}
	if len(masked) > 200 {
		masked = strings.ToValidUTF8(masked[:200], "")
	}
	return masked
}

// maxLine is the longest line of a URL list: longer than any URL a
// server takes (HTTP servers refuse a request line of 8 KiB).
const maxLine = 64 << 10

// longLineErr is the error of a list's line longer than maxLine; list
// names the list when the run reads several (see urlList.label).
func longLineErr(list string, n int) error {
	op := "-i"
	if list != "" {
		op += " " + list
	}
	return &fetch.Error{Kind: fetch.KindMalformed, Op: op, Offset: -1,
		Err: fmt.Errorf("line %d is longer than %d bytes: no URL, skipped", n, maxLine)}
}

// urlList is one -i list, open.
type urlList struct {
	name  string    // as given; "-" is standard input
	label string    // its name in messages: "" when it is the only list
	r     io.Reader // the file, or standard input
}

// openLists opens every -i list before any is read, so that a list that
// cannot be opened stops the run before anything is fetched. A FIFO is
// opened when its turn comes (fifoList): opening one waits for its
// writer, who may be writing an earlier list first.
func openLists(s stdio, o *options) ([]urlList, func(), error) {
	var lists []urlList
	closeAll := func() {
		for _, l := range lists {
			if c, ok := l.r.(io.Closer); ok && l.name != "-" {
				c.Close()
			}
		}
	}
	// opened is every list's file, to find one input named twice.
	type input struct {
		name string
		fi   os.FileInfo
		once bool // standard input, a pipe, a FIFO or a terminal: read once
	}
	var opened []input
	for _, name := range o.batch.input {
		l := urlList{name: name, r: s.in}
		if len(o.batch.input) > 1 {
			l.label = name
		}
		var fi os.FileInfo
		if name != "-" {
			var err error
			if fi, err = os.Stat(name); err == nil && fi.Mode()&fs.ModeNamedPipe != 0 {
				l.r = &fifoList{name: name}
			} else {
				f, err := os.Open(name)
				if err != nil {
					closeAll()
					return nil, nil, &fetch.Error{Kind: fetch.KindLocal, Op: "-i", Offset: -1, Err: listOpenError(name, err)}
				}
				l.r = f
				fi, _ = f.Stat()
			}
		} else if f, ok := s.in.(*os.File); ok {
			fi, _ = f.Stat()
		}
		lists = append(lists, l)
		// Standard input or a stream named twice ("-i - -i /dev/stdin",
		// or "-i - -i list" with list on standard input) is read once, by
		// the first name: a stream's second name would add nothing,
		// silently, and a regular file's would add its URLs again. A
		// regular file named twice by path is read twice, as asked (its
		// URLs, queued once, are fetched once: listed).
		if fi == nil {
			continue
		}
		in := input{name, fi, name == "-" || !fi.Mode().IsRegular()}
		for _, p := range opened {
			if (p.once || in.once) && os.SameFile(p.fi, fi) {
				closeAll()
				return nil, nil, &fetch.Error{Kind: fetch.KindUsage, Op: "-i", Offset: -1,
					Err: fmt.Errorf("%s and %s are the same input, which is read once: give it once", p.name, name)}
			}
		}
		opened = append(opened, in)
	}
	return lists, closeAll, nil
}

// ownFile is a file the command writes or reads besides the documents,
// with the flag that names it.
type ownFile struct{ flag, name string }

// batchFiles are a batch's own files: its lists, log, WARC and metadata
// file.
func batchFiles(o *options) []ownFile {
	var fs []ownFile
	for _, name := range o.batch.input {
		fs = append(fs, ownFile{"-i", name})
	}
	return append(fs, ownFile{"--log", o.batch.log}, ownFile{"--warc", o.warc.path}, ownFile{"--json-meta", o.jsonMeta})
}

// singleFiles are the own files of a fetch of URLs without a batch: the
// -o files, the WARC and the metadata file.
func singleFiles(o *options) []ownFile {
	fs := []ownFile{{"--warc", o.warc.path}, {"--json-meta", o.jsonMeta}}
	for _, name := range o.outputs {
		fs = append(fs, ownFile{"-o", name})
	}
	return fs
}

// sameFiles refuses two of the command's own files that are one file
// (named alike or not, through a link or not): one would overwrite the
// other. A log that is its list is read back as URLs without end, a WARC
// that is the list replaces the URLs with gzip before they are read, and
// a log and WARC in one file, or a document in its WARC, leave neither
// readable. Standard input and output ("-"), terminals and /dev/null are
// written by each freely.
func sameFiles(s stdio, files []ownFile) error {
	type known struct {
		ownFile
		fi  os.FileInfo // nil: it does not exist (yet)
		abs string
	}
	var seen []known
	for _, f := range files {
		if f.name == "" || f.name == os.DevNull || f.name == "-" && f.flag != "-i" {
			continue
		}
		k := known{ownFile: f}
		if f.name == "-" {
			if in, ok := s.in.(*os.File); ok {
				k.fi, _ = in.Stat()
			}
		} else {
			k.fi, _ = os.Stat(f.name)
			k.abs, _ = resolvedPath(f.name)
		}
		if k.fi != nil && k.fi.Mode()&os.ModeCharDevice != 0 {
			continue
		}
		for _, p := range seen {
			same := k.fi != nil && p.fi != nil && os.SameFile(k.fi, p.fi) ||
				k.fi == nil && p.fi == nil && k.abs != "" && k.abs == p.abs
			// (a list given twice is read twice, and two URLs given
			// one -o name are refused as they come: the first is saved)
			if same && f.flag != p.flag {
				return &fetch.Error{Kind: fetch.KindUsage, Op: f.flag, Offset: -1,
					Err: fmt.Errorf("%s is %s %s too: each needs a file of its own", fetch.RedactedText(f.name), p.flag, fetch.RedactedText(p.name))}
			}
		}
		seen = append(seen, k)
	}
	return nil
}

// fifoList is a FIFO named by -i, opened at its first read.
type fifoList struct {
	name string
	f    *os.File
}

func (l *fifoList) Read(p []byte) (int, error) {
	if l.f == nil {
		f, err := os.Open(l.name)
		if err != nil {
			return 0, listOpenError(l.name, err)
		}
		l.f = f
	}
	return l.f.Read(p)
}

func (l *fifoList) Close() error {
	if l.f == nil {
		return nil
	}
	return l.f.Close()
}

// listOpenError is err, the failure to open the list name, as a message
// can show it: a URL given to -i by mistake keeps no password, and the
// message says where a URL goes.
func listOpenError(name string, err error) error {
	shown := fetch.RedactedText(name)
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = &os.PathError{Op: pe.Op, Path: shown, Err: pe.Err}
	}
	if strings.Contains(name, "://") && errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%w (-i reads a file of URLs, one a line; a URL itself goes on the command line)", err)
	}
	return err
}

// eachListLine is eachLine over the lists, one after the other, as one
// list: f returning false stops it (no further list is read). An error
// reading a list is a local one, naming the list when there are several.
func eachListLine(lists []urlList, f func(string) bool, tooLong func(list string, n int, start string) bool) error {
	stopped := false
	each := func(raw string) bool {
		stopped = !f(raw)
		return !stopped
	}
	for _, l := range lists {
		long := func(n int, start string) bool {
			stopped = !tooLong(l.label, n, start)
			return !stopped
		}
		if err := eachLine(l.r, each, long); err != nil {
			op := "-i"
			if l.label != "" {
				op += " " + l.label
			}
			return &fetch.Error{Kind: fetch.KindLocal, Op: op, Offset: -1, Err: err}
		}
		if stopped {
			return nil
		}
	}
	return nil
}

// countLists counts the URLs of the lists without keeping them (a line
// too long counts: it is logged as failed), when every list is a regular
// file, which can be read twice; ok is false otherwise.
func countLists(lists []urlList) (n int64, ok bool, err error) {
	for _, l := range lists {
		if f, isFile := l.r.(*os.File); !isFile || l.name == "-" || !isRegular(f) {
			return 0, false, nil
		}
	}
	ok = true
	for _, l := range lists {
		f := l.r.(*os.File)
		count := func(string) bool { n++; return true }
		if err := eachLine(f, count, func(int, string) bool { n++; return true }); err != nil {
			ok = false // read again as the run goes, which reports the error
		}
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			op := "-i"
			if l.label != "" {
				op += " " + l.label
			}
			return 0, false, &fetch.Error{Kind: fetch.KindLocal, Op: op, Offset: -1, Err: err}
		}
	}
	return n, ok, nil
}

// isRegular reports whether f is a regular file, which can be read twice.
func isRegular(f *os.File) bool {
	fi, err := f.Stat()
	return err == nil && fi.Mode().IsRegular()
}

func (b *batch) isDone(key string) bool {
	b.doneMu.Lock()
	defer b.doneMu.Unlock()
	return b.done[digestName(key)]
}

// listed reports whether a URL read from the list is done already (by
// the log, or earlier in this run) or, again, listed before in this run
// and not done (queued, in flight or failed): either is not fetched. If
// neither, the worker that fetches it takes its text as the log shows it
// through redacted, not made again: that parses and prints the URL, a
// tenth of the batch's own work for a small document.
func (b *batch) listed(raw string) (done, again bool) {
	key := redactArg(raw)
	b.doneMu.Lock()
	defer b.doneMu.Unlock()
	d := digestName(key)
	if b.done[d] {
		return true, false
	}
	// A URL listed again while its first copy is queued or in flight
	// (the reader runs ahead of the workers) is not fetched twice.
	if b.queued[d] {
		return false, true
	}
	if b.queued == nil {
		b.queued = map[nameDigest]bool{}
	}
	b.queued[d] = true
	if b.shown == nil {
		b.shown = map[string]string{}
	}
	b.shown[raw] = key
	return false, false
}

// redacted is redactArg(raw), as listed kept it when the list's reader
// made it.
func (b *batch) redacted(raw string) string {
	b.doneMu.Lock()
	key, ok := b.shown[raw]
	delete(b.shown, raw)
	b.doneMu.Unlock()
	if !ok {
		key = redactArg(raw)
	}
	return key
}

// fetchURL fetches one URL with its retries; interrupted reports a fetch
// cut short by Ctrl-C, which is not logged (a rerun fetches it). key and
// u are the task's --per-host key and its URL parsed, as the dispatcher
// made them, or "" and nil.
func (b *batch) fetchURL(ctx context.Context, t frontier.Task, key string, u *fetch.URL, free func()) (line logLine, found []frontier.Task, interrupted bool) {
	raw := t.URL
	start := time.Now()
	line = logLine{URL: b.redacted(raw)}
	var lk *links
	finish := func(err error) (logLine, []frontier.Task, bool) {
		line.DurationMS = time.Since(start).Milliseconds()
		if err == nil {
			line.Outcome = "ok"
			if lk != nil {
				found = lk.found
			}
			return line, found, false
		}
		if ctx.Err() != nil {
			b.record(line.rec, err) // recorded as cut short; never logged
			return line, nil, true
		}
		line.fetchErr = err
		err = withURL(raw, err)
		msg := err.Error()
		if h := hint(err); h != "" {
			msg += " (" + h + ")"
		}
		line.Outcome, line.Error, line.Exit = "failed", msg, fetch.KindOf(err).ExitCode()
		line.Bytes, line.SHA256, line.File = 0, "", ""
		return line, nil, false
	}
	if u == nil { // not parsed yet, or it failed: its error is wanted
		var err error
		if u, err = b.c.Parse(raw); err != nil { // by the grammar of the URL's scheme
			line.Attempts = 1
			return finish(err)
		}
	}
	rel, err := b.name(u)
	if err != nil {
		line.Attempts = 1
		return finish(err)
	}
	dest := filepath.Join(b.root, rel)
	if key == "" {
		key = hostKey(b.o.nntpServer, u)
	}
	for attempt := 1; ; attempt++ {
		line.Attempts = attempt
		release, err := b.hosts.acquire(ctx, key)
		if err != nil {
			return finish(err)
		}
		if b.scope != nil {
			lk = &links{s: b.scope, parent: u, depth: t.Depth, flush: func(ts []frontier.Task) error {
				err := b.addFound(ctx, ts)
				if err != nil {
					// as after a listing (work): the batch stops, and
					// the listing, never logged, is read again on a rerun
					if b.stop(err) {
						b.fail(logLine{URL: line.URL}, err)
					}
				}
				return err
			}}
		}
		if b.hosts.held.Load() > 2 {
			b.widen()
		}
		b.active.Add(1) // a transfer, not a wait for the host
		place := &hostPlace{h: b.hosts, key: key, release: release}
		transferred := func() { place.free(); free() }
		redirected := func(ctx context.Context, to *fetch.URL) error {
			// A wait for a place at the new host is no transfer: the
			// status line counts it queued, as the first wait.
			b.active.Add(-1)
			defer b.active.Add(1)
			return place.move(ctx, hostKey(b.o.nntpServer, to))
		}
		n, sum, file, rec, err := b.fetchOnce(ctx, u, line.URL, dest, lk, transferred, redirected)
		b.active.Add(-1)
		place.free()
		// The last attempt's records go into the WARC with the log line
		// (commit); an attempt that is tried again is recorded now.
		line.rec = rec
		if err == nil {
			line.Bytes, line.SHA256, line.File = n, sum, file
			b.doneMu.Lock()
			b.done[digestName(line.URL)] = true
			b.doneMu.Unlock()
			return finish(nil)
		}
		if ctx.Err() != nil || attempt > b.o.batch.retry || !fetch.Temporary(err) {
			return finish(err)
		}
		b.record(rec, err)
		line.rec = nil
		wait := backoff(attempt)
		if d, ok := fetch.RetryAfter(err); ok {
			wait = min(d, retryAfterMax)
		}
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return finish(ctx.Err())
		}
	}
}

// backoff is the wait before attempt+1: exponential, with jitter.
func backoff(attempt int) time.Duration {
	d := retryMax
	if attempt < 30 {
		d = min(retryBase<<(attempt-1), retryMax)
	}
	return d/2 + rand.N(d/2+1)
}

// hostKey is what --per-host counts by: host:port, the news server for
// news: URLs, the scheme alone for file: URLs on this machine.
func hostKey(nntpServer string, u *fetch.URL) string {
	switch {
	case u.Scheme == "news":
		if nntpServer == "" {
			nntpServer = os.Getenv("NNTPSERVER")
		}
		return "news:" + nntpServer
	case u.Host == "":
		return u.Scheme + ":"
	}
	return u.HostPort(defaultPort(u.Scheme))
}

// name is the URL's file, relative to the output directory.
func (b *batch) name(u *fetch.URL) (string, error) {
	if b.tmpl != "" {
		return templateFile(b.tmpl, u)
	}
	return remoteFile(b.c, u)
}

// fetchOnce makes one attempt: the document (or listing) goes to a
// temporary file beside dest, renamed over it once whole and synced. Once
// the whole of it is read, the response is closed (its connection free for
// the next request) and transferred is called, before the file is
// published: the host's place goes to the next transfer without waiting
// for the disk.
func (b *batch) fetchOnce(ctx context.Context, u *fetch.URL, id, dest string, lk *links, transferred func(), redirected func(context.Context, *fetch.URL) error) (n int64, sum, file string, rec *warcRecord, err error) {
	req := &fetch.Request{URL: u, Redirected: redirected} // u is this URL's own parse: no copy
	req.Query, req.Raw = b.o.query, b.o.raw
	req.NoModTime = true // a batch writes files and a log, no dates
	if req.Form, err = formAnswers(b.o); err != nil {
		return 0, "", "", rec, err
	}
	if b.o.data != "" {
		req.Body = stringsReader(b.o.data)
	}
	rec = beginWARC(b.o, b.c, req) // every attempt is recorded, a failed one as failed; the caller ends it
	res, err := b.c.Do(ctx, req)
	if err != nil {
		return 0, "", "", rec, err
	}
	closed := false
	defer func() {
		if !closed {
			res.Close()
		}
	}()
	read := func() {
		closed = true
		res.Close()
		transferred()
	}
	rec.result(res)
	var fill func(io.Writer) (int64, error)
	switch res.Kind {
	case fetch.KindDocument:
		// A document that fits in a copy buffer is read whole before its
		// file is made: the connection is closed and the host's place
		// given to the next transfer before any disk work, which then
		// takes one write. The bench's 2,000 Gopher items, two at a time,
		// took 1-5 % less time (README, "Read ahead").
		bp := copyBuffers.Get().(*[]byte)
		held := true
		defer func() {
			if held {
				copyBuffers.Put(bp)
			}
		}()
		// The progress line counts the bytes as they come, those read
		// ahead too: a slow document that fits in the buffer would show
		// none until it ended. They leave this count once writeFile has
		// counted them as written, or when the attempt fails before.
		var src io.Reader = res.Document.Body
		var ahead *countReader
		if b.progressWanted() {
			ahead = &countReader{r: src, n: &b.bytesDone}
			src = ahead
			defer ahead.uncount()
		}
		head, whole, err := readAhead(src, *bp)
		if err != nil {
			return 0, "", "", rec, err
		}
		if whole {
			read()
			// The transfer given the place runs now, as far as its
			// wait for the server, before this one's disk work.
			runtime.Gosched()
		}
		fill = func(w io.Writer) (int64, error) {
			n, err := writeHead(w, head)
			ahead.uncount() // counted by w now, if written
			if err == nil && !whole {
				held = false
				copyBuffers.Put(bp) // what follows is copied through another
				var m int64
				m, err = copyDocument(w, res.Document.Body)
				n += m
			}
			var lw localWriteError
			if errors.As(err, &lw) {
				return n, outputErr("write", dest, lw.err)
			}
			if err == nil && !whole {
				read()
			}
			return n, err
		}
	case fetch.KindListing:
		if lk != nil {
			// A crawl keeps a listing as DIR/index, so that the
			// documents under it can be files of DIR.
			dest = listingDest(dest)
		}
		var visit func(fetch.Entry)
		if lk != nil {
			visit = lk.visit
		}
		fill = func(w io.Writer) (int64, error) {
			cw := &countedWriter{w: w}
			if err := printListingVisit(cw, b.o, res, visit); err != nil {
				return cw.n, err
			}
			read()
			return cw.n, lk.flushErr()
		}
	default:
		return 0, "", "", rec, &fetch.Error{Kind: fetch.KindUsage, Op: "batch", Offset: -1,
			Err: fmt.Errorf("a %s cannot be saved to a file: fetch it on its own", res.Kind)}
	}
	dest = b.claim(dest, id)
	n, sum, dest, err = b.writeFile(dest, id, fill)
	return n, sum, dest, rec, err
}

// claim reserves the file dest for the URL id. A name that another URL of
// the run (or of the log's earlier runs) has already is given the suffix
// "~" and eight hex digits of the SHA-256 of id, so no URL's file replaces
// another's: "gopher://h/" and "gopher://h/1/" are different URLs that
// both name h/index. A mirror also has names that are a file for one URL
// and a directory for another ("/a" and "/a/b"): a file whose name is a
// directory already gets the same suffix, and a directory whose name is a
// file already gets "~" and eight hex digits of the SHA-256 of its path in
// the output directory ("a"), the same for every file in it. A suffixed
// name that is taken too (a URL may be named "x~1a2b3c4d") is suffixed
// again.
func (b *batch) claim(dest, id string) string {
	of := digestName(id)
	b.namesMu.Lock()
	defer b.namesMu.Unlock()
	// The directories below the output directory, from the top: none
	// with -O, whose names are the output directory's files.
	if filepath.Dir(dest) != filepath.Clean(b.root) {
		if rel, err := filepath.Rel(b.root, dest); err == nil && strings.ContainsRune(rel, filepath.Separator) {
			parts := strings.Split(rel, string(filepath.Separator))
			dir := b.root
			for i, p := range parts[:len(parts)-1] {
				dir = filepath.Join(dir, p)
				// again while the suffixed name is a file too (another
				// URL's, or one a rotating WARC will write)
				for b.fileNamed(dir) {
					parts[i] += suffixOf(folded(strings.Join(parts[:i+1], "/"))) // of its path in the output directory
					dir = filepath.Join(filepath.Dir(dir), parts[i])
				}
				b.names[dirDigest(dir)] = nameDigest{}
			}
			dest = filepath.Join(b.root, filepath.Join(parts...))
		}
	}
	name := fileKey(dest)
	for {
		// The suffixed name is checked as the name was: another URL's
		// own name may be it ("/x~1a2b3c4d"), which is suffixed again.
		other, taken := b.names[name]
		_, isDir := b.names[dirDigest(dest)]
		if !(taken && other != of && other != foundOnDisk) && !isDir && !b.isWARCPart(dest) {
			break
		}
		dest += suffixOf(id)
		name = fileKey(dest)
	}
	b.names[name] = of
	return dest
}

// reclaim claims a name again for the URL id when what is on disk but
// not in names (an earlier run's output without its log, the user's own
// files) is in the way of dest: a directory at dest itself (in ""), or
// in, anything but a directory, where one of dest's directories should
// be. That is recorded as if a URL of the run had made it, and claim then
// names the document apart as a run fetching both URLs would; nothing on
// disk is replaced.
func (b *batch) reclaim(dest, id, in string) string {
	b.namesMu.Lock()
	if k := fileKey(dest); b.names[k] == digestName(id) {
		delete(b.names, k) // not this URL's file: a directory, or beyond a file
	}
	if in == "" {
		b.names[dirDigest(dest)] = nameDigest{}
	} else {
		delete(b.names, dirDigest(in)) // claimed as one, it is none
		if _, ok := b.names[fileKey(in)]; !ok {
			b.names[fileKey(in)] = foundOnDisk
		}
	}
	b.namesMu.Unlock()
	return b.claim(dest, id)
}

// foundOnDisk is what names holds for a file that reclaim found where a
// directory should be: no directory goes there, but the URL it is named
// for may replace it, as a batch replaces any earlier file of a
// document's name. (The zero digest marks directories; either is a
// URL's digest about once in 2^128.)
var foundOnDisk = nameDigest{0, 1}

// fileInTheWay is the path below the output directory, not a directory,
// that made err, a failure to make a directory of the output, when
// there is one.
func (b *batch) fileInTheWay(err error) (string, bool) {
	var pe *fs.PathError
	if !errors.As(err, &pe) || !errors.Is(pe.Err, syscall.ENOTDIR) && !errors.Is(pe.Err, fs.ErrExist) {
		return "", false
	}
	rel, rerr := filepath.Rel(b.root, pe.Path)
	if rerr != nil || rel == "." || !filepath.IsLocal(rel) {
		return "", false
	}
	if st, err := os.Stat(pe.Path); err == nil && st.IsDir() {
		return "", false // a directory now: not in the way
	}
	if _, err := os.Lstat(pe.Path); err != nil {
		return "", false
	}
	return pe.Path, true
}

// maxReclaims bounds the names a document tries when what is on disk is
// in the way of each (reclaim): one more name is nearly always enough.
const maxReclaims = 8

// fileNamed reports whether p is a file's name: a URL's, one reserve
// kept, or a part of a rotating WARC.
func (b *batch) fileNamed(p string) bool {
	_, isFile := b.names[fileKey(p)]
	return isFile || b.isWARCPart(p)
}

// reserve keeps the file p from every URL, as claim spells names
// (the output directory joined with the name in it).
func (b *batch) reserve(p string) {
	if name, ok := b.inRoot(p); ok {
		b.names[fileKey(name)] = digestName("") // no URL's
	}
}

// inRoot is p as claim spells a name in the output directory (the
// output directory joined with its path there), when p is inside it.
func (b *batch) inRoot(p string) (string, bool) {
	root, err1 := resolvedPath(b.root)
	abs, err2 := resolvedPath(p)
	if err1 != nil || err2 != nil {
		return "", false
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || !filepath.IsLocal(rel) {
		return "", false
	}
	return filepath.Join(b.root, rel), true
}

// spelling maps a file named in an earlier run's log to the name claim
// gives it: a log written with the output directory spelled otherwise
// (absolute or relative, through a symbolic link) names the same files,
// which must not go to other URLs. The file's directories are looked at
// from the nearest up, until one is the output directory (as spelled, or
// once resolved); what lies below it is kept as written, a directory in
// it that is a symbolic link included. A relative name is read from the
// current directory. Each directory is resolved once.
func (b *batch) spelling() func(string) string {
	root, err := resolvedPath(b.root)
	if err != nil {
		return nil
	}
	absRoot, err := filepath.Abs(b.root)
	if err != nil {
		return nil
	}
	isRoot := map[string]bool{absRoot: true}
	return func(file string) string {
		abs, err := filepath.Abs(file)
		if err != nil {
			return file
		}
		for d := filepath.Dir(abs); ; d = filepath.Dir(d) {
			is, ok := isRoot[d]
			if !ok {
				real, err := resolvedPath(d)
				is = err == nil && real == root
				isRoot[d] = is
			}
			if is {
				rel, err := filepath.Rel(d, abs)
				if err != nil || !filepath.IsLocal(rel) {
					return file
				}
				return filepath.Join(b.root, rel)
			}
			if filepath.Dir(d) == d {
				return file // not in the output directory
			}
		}
	}
}

// isWARCPart reports whether dest is one of the files of a rotating WARC
// in the output directory (its stem, five or more digits, .warc.gz or
// .warc), which reserve cannot list in advance.
func (b *batch) isWARCPart(dest string) bool {
	return b.warcStem != "" && isSeriesPart(dest, b.warcStem, b.warcExt)
}

// resolvedPath is p absolute, through symbolic links (of its directory
// when p does not exist yet), so that a file named through a link to the
// output directory is seen in it.
func resolvedPath(p string) (string, error) {
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real, nil
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs)), nil
	}
	return abs, nil
}

// dirDigest is the key under which names records that the path dir is a
// directory of the output; a file's name never ends in a separator, so
// the two never meet.
func dirDigest(dir string) nameDigest { return fileKey(dir + string(filepath.Separator)) }

// fileKey is the digest names keeps of a file's path (see folded).
func fileKey(path string) nameDigest { return digestName(folded(path)) }

// folded is a file's path as names compares it: as it is, or in lower
// case where file systems usually ignore case (Windows, macOS), so that
// "README" and "readme" never share a file there; and composed (NFC)
// where they also ignore how a character is encoded (macOS: APFS and HFS+
// take "é" and "e" with U+0301 for one name), so that /caf%C3%A9 and
// /cafe%CC%81 never share one either.
func folded(path string) string {
	if normNames {
		path = norm.NFC.String(path)
	}
	if foldNames {
		return strings.ToLower(strings.ToUpper(path)) // "ς" and "σ" alike
	}
	return path
}

// foldNames is set where names differ only in case name one file, and
// normNames where names differ only in their Unicode normal form do
// (variables so that tests run them everywhere). NTFS tells the forms
// apart.
var (
	foldNames = runtime.GOOS == "windows" || runtime.GOOS == "darwin"
	normNames = runtime.GOOS == "darwin" || runtime.GOOS == "ios"
)

// nameDigest is what the batch keeps of a file name or a URL: 128 bits,
// so that a list of a million URLs costs tens of MiB, not hundreds. It
// is two 64-bit hashes (hash/maphash) under seeds drawn for the run,
// which no list can aim at; SHA-256 served before and took a tenth of
// the batch's instructions for small documents (three digests a URL).
// Two names meet by chance about once in 2^64 pairs.
type nameDigest [2]uint64

var nameSeeds = [2]maphash.Seed{maphash.MakeSeed(), maphash.MakeSeed()}

func digestName(s string) nameDigest {
	return nameDigest{maphash.String(nameSeeds[0], s), maphash.String(nameSeeds[1], s)}
}

// suffixOf is what sets a name apart from another's: "~" and the first
// eight hex digits of the SHA-256 of s (a URL, or a directory's path in
// the output directory), the same in every run.
func suffixOf(s string) string {
	h := sha256.Sum256([]byte(s))
	return "~" + hex.EncodeToString(h[:4])
}

// listingDest is where a crawl writes a listing whose name is dest: the
// file "index" in the directory dest, unless dest is such a file already
// (an empty path or one ending in "/").
func listingDest(dest string) string {
	if filepath.Base(dest) == "index" {
		return dest
	}
	return filepath.Join(dest, "index")
}

// writeFile writes dest, the file claimed for the URL id, as a docFile,
// so that a name in the output directory is always a whole document;
// with a --log, the file and then the directory are synced first. fill
// writes the content and says how many bytes it wrote. file is the name
// it has: another than dest when a directory on disk has dest's name, or
// a file on disk that of one of its directories (reclaim).
func (b *batch) writeFile(dest, id string, fill func(io.Writer) (int64, error)) (n int64, sum, file string, err error) {
	dir := filepath.Dir(dest)
	err = b.prepareDir(dir)
	for i := 0; err != nil && i < maxReclaims; i++ {
		in, ok := b.fileInTheWay(err)
		if !ok {
			break
		}
		dest = b.reclaim(dest, id, in)
		dir = filepath.Dir(dest)
		err = b.prepareDir(dir)
	}
	if err != nil {
		return 0, "", "", outputErr("create", dir, err)
	}
	f, err := newDoc(dir, filepath.Base(dest))
	if errors.Is(err, fs.ErrNotExist) {
		// the directory went away during the run
		b.forgetDir(dir)
		if err = b.prepareDir(dir); err == nil {
			f, err = newDoc(dir, filepath.Base(dest))
		}
	}
	if err != nil {
		return 0, "", "", outputErr("create", dest, err)
	}
	defer func() {
		if err != nil {
			f.discard()
		}
	}()
	// The content goes straight into the file, where a driver can move it
	// itself (splice, raw writes: copyDocument), unless its digest is
	// wanted (the log's sha256, with --log or --json) or the progress line
	// counts the bytes as they come; a 200-file FTP batch took 8 % longer
	// through the copy that those need.
	var (
		w  io.Writer = f.File
		ws []io.Writer
		h  hash.Hash
		cw *countWriter
	)
	if b.log.wanted() {
		h = sha256.New()
		ws = append(ws, h)
	}
	if b.progressWanted() {
		cw = &countWriter{n: &b.bytesDone}
		ws = append(ws, cw)
	}
	if len(ws) > 0 {
		w = io.MultiWriter(append([]io.Writer{f}, ws...)...)
	}
	n, err = fill(w)
	switch {
	case err != nil && cw != nil:
		// A failed attempt's bytes leave the count (its retry counts
		// the document's again).
		b.bytesDone.Add(-cw.own)
	case err == nil && cw == nil:
		b.bytesDone.Add(n) // what the progress line would have counted
	}
	if err != nil {
		return 0, "", "", err
	}
	// With a --log, the file is on disk before the log line that says
	// so: its data, then its name. Without one nothing claims it
	// survives a crash, and no fsync is paid (as curl and wget pay none);
	// a name is still always a whole document.
	durable := b.o.batch.log != ""
	if durable {
		if err := f.Sync(); err != nil {
			return 0, "", "", outputErr("write", dest, err)
		}
	}
	err = f.publish(dest)
	for i := 0; errors.Is(err, errNameIsDir) && i < maxReclaims; i++ {
		// a directory on disk has its name: the document gets
		// another, in the same directory
		dest = b.reclaim(dest, id, "")
		err = f.publish(dest)
	}
	if err != nil {
		return 0, "", "", outputErr("write", dest, err)
	}
	if durable {
		// the name is on disk before the log says ok
		if err := syncDir(dir); err != nil {
			return 0, "", "", outputErr("sync the directory of", dest, err)
		}
	}
	if h != nil {
		sum = hex.EncodeToString(h.Sum(nil))
	}
	return n, sum, dest, nil
}

// outOfRoom reports a document's failure for want of room that every
// document after it would meet: the quota used up, or a full file system
// with less than minRoom left once the document's own bytes are gone
// (they are, by now). A document larger than the room left fails alone:
// stopping on it, the batch and each rerun would stop at the same
// document, never past it.
func (b *batch) outOfRoom(err error) bool {
	if !outOfSpace(err) {
		return false
	}
	if overQuota(err) {
		return true
	}
	dir := b.root
	if f := failedFile(err); f != "" {
		dir = filepath.Dir(f) // the WARC's spool, say, may be on another disk
	}
	free, ferr := freeSpace(dir)
	return ferr != nil || free < minRoom
}

// minRoom is the free space below which a file system counts as full.
const minRoom = 1 << 20

// freeSpace is diskFree, or the tests' stand-in.
var freeSpace = diskFree

// newDoc starts a document's file: createDoc, but in tests, which give
// one whose writes fail.
var newDoc = createDoc

// prepareDir makes dir, once a run, and removes the temporary files a
// killed batch left there.
func (b *batch) prepareDir(dir string) error {
	k := digestName(dir)
	b.cleanMu.Lock()
	defer b.cleanMu.Unlock()
	if b.cleaned[k] {
		return nil
	}
	if _, err := b.makeDir(dir); err != nil {
		return err
	}
	if b.cleaned == nil {
		b.cleaned = map[nameDigest]bool{}
	}
	b.cleaned[k] = true
	b.cleanStale(dir)
	return nil
}

// makeDir makes dir and its missing parents and returns those it made,
// dir first. With a --log, the directories made are on disk before a log
// line names a file in one: each one's entry in its parent is synced (the
// file's own entry is synced by writeFile).
func (b *batch) makeDir(dir string) ([]string, error) {
	var made []string
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); err == nil || filepath.Dir(d) == d {
			break
		}
		made = append(made, d)
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	if b.o.batch.log != "" {
		for _, d := range made {
			if err := syncDir(filepath.Dir(d)); err != nil {
				return made, err
			}
		}
	}
	return made, nil
}

// removeDirs removes the directories makeDir made, if they are still
// empty.
func removeDirs(made []string) {
	for _, d := range made {
		os.Remove(d)
	}
}

// syncDir syncs the directory dir's entries to disk, where the system
// can: Windows cannot sync a directory, and keeps its entries its own way,
// and some file systems refuse to (EINVAL), which is no failure of theirs.
// Another error (EIO) is: a log line must not claim a name it says may
// be lost.
func syncDir(dir string) error {
	if runtime.GOOS == "windows" {
		return nil
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	if err := syncFile(d); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, errors.ErrUnsupported) {
		return err
	}
	return nil
}

// syncFile is (*os.File).Sync, or the tests' stand-in.
var syncFile = (*os.File).Sync

func (b *batch) forgetDir(dir string) {
	k := digestName(dir)
	b.cleanMu.Lock()
	delete(b.cleaned, k)
	b.cleanMu.Unlock()
}

// countWriter counts bytes for the progress line.
type countWriter struct {
	n   *atomic.Int64
	own int64 // what this writer added to n
}

func (c *countWriter) Write(p []byte) (int, error) {
	c.n.Add(int64(len(p)))
	c.own += int64(len(p))
	return len(p), nil
}

// countReader counts what is read from r for the progress line.
type countReader struct {
	r   io.Reader
	n   *atomic.Int64
	own int64 // what this reader added to n
}

func (c *countReader) Read(p []byte) (int, error) {
	k, err := c.r.Read(p)
	c.n.Add(int64(k))
	c.own += int64(k)
	return k, err
}

// uncount takes what c counted back out of n; a nil c counted nothing.
func (c *countReader) uncount() {
	if c != nil {
		c.n.Add(-c.own)
		c.own = 0
	}
}

// countedWriter is w, counting what it took.
type countedWriter struct {
	w io.Writer
	n int64
}

func (c *countedWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// cleanStale removes the temporary files a killed batch left in dir: ours
// by their prefix, theirs by a process id that is no longer running. This
// run's own id counts as such: a directory is cleaned before this run
// writes there, so a file under its id is a killed run's that had the
// same id (PID 1 in a container, run after run).
func (b *batch) cleanStale(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), tempPrefix)
		if !ok || !e.Type().IsRegular() {
			continue
		}
		pidText, _, _ := strings.Cut(rest, ".")
		pid, err := strconv.Atoi(pidText)
		if err != nil || (pid != os.Getpid() && processAlive(pid)) {
			continue
		}
		os.Remove(filepath.Join(dir, e.Name()))
	}
}

// finish counts a logged outcome and reports a failure.
func (b *batch) finish(line logLine) {
	if line.Outcome == "ok" {
		b.ok.Add(1)
		return
	}
	b.failed.Add(1)
	b.count(&b.kinds, line.Exit)
	if !b.o.jsonOut {
		b.printErr("fetch: " + line.Error)
	}
}

// stop ends the batch on a failure of its own rather than a URL's: its
// log, WARC or journal cannot be written, or the disk is full. It cancels
// the transfers in flight, left unlogged for the rerun as after Ctrl-C,
// and reports whether err is the first such failure: only that one is
// reported. The others follow from it (each worker meets the same failed
// file, or the same full disk) and would say the same again, once a
// worker.
func (b *batch) stop(err error) (first bool) {
	b.stopMu.Lock()
	first = b.stopErr == nil
	if first {
		b.stopErr = err
	}
	b.stopMu.Unlock()
	b.cancel()
	return first
}

// stopped reports whether stop has ended the batch.
func (b *batch) stopped() bool {
	b.stopMu.Lock()
	defer b.stopMu.Unlock()
	return b.stopErr != nil
}

// saidAlready reports whether err, met while the batch ends (closing its
// journal, log or WARC), is the failure that stopped it once more: a file
// whose write failed fails again with the same error when closed. The
// same error of another file is news (the log's disk failing too), and
// is reported.
func (b *batch) saidAlready(err error) bool {
	b.stopMu.Lock()
	first := b.stopErr
	b.stopMu.Unlock()
	if first == nil {
		return false
	}
	if f, e := failedFile(first), failedFile(err); f != "" && e != "" && f != e {
		return false
	}
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(err) {
		err = u // to its cause: the same one is wrapped otherwise each time
	}
	return errors.Is(first, err)
}

// fail reports the failure of the batch's own that stopped it after a
// URL's fetch (its log line, its WARC records or its links could not be
// written, or the disk is full). It is no failure of the URL's, which is
// not logged and is fetched again by a rerun: the summary counts it among
// those not fetched, and the failure apart from the URLs'.
func (b *batch) fail(line logLine, err error) {
	b.noteFailure(fetch.KindOf(err).ExitCode())
	b.printErr(fmt.Sprintf("fetch: %s: %v", line.URL, err))
}

// noteFailure counts a failure that is no URL's: the batch's log, its
// WARC, its queue or a list.
func (b *batch) noteFailure(code int) {
	b.count(&b.others, code)
}

// count adds a failure of exit status code to m and to the worst.
func (b *batch) count(m *sync.Map, code int) {
	v, _ := m.LoadOrStore(code, new(atomic.Int64))
	v.(*atomic.Int64).Add(1)
	for {
		w := b.worst.Load()
		if w != 0 && !moreSevere(code, int(w)) || b.worst.CompareAndSwap(w, int64(code)) {
			return
		}
	}
}

// printErr writes a line on stderr, clearing the progress line first.
func (b *batch) printErr(msg string) {
	b.errMu.Lock()
	defer b.errMu.Unlock()
	if b.progressWanted() {
		fmt.Fprint(b.s.err, "\r\x1b[K")
	}
	// The message quotes the list's text and servers' replies: as
	// report does, no terminal escape reaches stderr.
	fmt.Fprintln(b.s.err, strings.Map(printableLines, msg))
}

// summary is the line that ends a batch on stderr.
func (b *batch) summary(d time.Duration, interrupted bool) string {
	kinds := func(m *sync.Map) (n int64, text string) {
		var parts []string
		for _, code := range severity {
			if v, ok := m.Load(code); ok {
				c := v.(*atomic.Int64).Load()
				n += c
				parts = append(parts, fmt.Sprintf("%d exit %d (%s)", c, code, kindName(code)))
			}
		}
		return n, strings.Join(parts, ", ")
	}
	// URLs a crawl's journal or a shared queue gave this run were not
	// read by it, but were handled
	n := max(b.read.Load(), b.ok.Load()+b.failed.Load()+b.skipped.Load()+b.again.Load())
	msg := fmt.Sprintf("fetch: %d %s: %d ok, %d failed", n, plural(n, "URL"), b.ok.Load(), b.failed.Load())
	if _, text := kinds(&b.kinds); text != "" {
		msg += " [" + text + "]"
	}
	if n, text := kinds(&b.others); n > 0 {
		// reported as they happened; counted apart, so that a
		// batch whose every URL was fetched does not read "0
		// failed [1 exit 7]"
		msg += fmt.Sprintf(", %d other %s [%s]", n, plural(n, "failure"), text)
	}
	if n := b.skipped.Load(); n > 0 {
		msg += fmt.Sprintf(", %d already done", n)
	}
	if n := b.again.Load(); n > 0 {
		msg += fmt.Sprintf(", %d listed again", n)
	}
	if interrupted || b.stopped() {
		// read, and left for a rerun (cut short, or never started)
		if left := n - b.ok.Load() - b.failed.Load() - b.skipped.Load() - b.again.Load(); left > 0 {
			msg += fmt.Sprintf(", %d not fetched", left)
		}
	}
	msg += b.crawlSummary()
	msg += fmt.Sprintf("; %s in %s", sizeText(b.bytesDone.Load()), d.Round(time.Millisecond))
	kept := b.log != nil && b.log.keep // not /dev/null, which resumes nothing
	switch {
	case interrupted && kept:
		msg += "; interrupted: rerun with the same --log to resume"
	case interrupted:
		msg += "; interrupted (with --log FILE, a rerun resumes where a batch stopped)"
	case b.stopped() && kept:
		msg += "; stopped: rerun with the same --log to resume"
	case b.stopped():
		msg += "; stopped"
	}
	return msg
}

// plural is word for n of it: "1 URL", "2 URLs".
func plural(n int64, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func kindName(code int) string {
	for k := fetch.KindUnknown; k <= fetch.KindLocal; k++ {
		if k.ExitCode() == code {
			return k.String()
		}
	}
	return "error"
}

// sizeText is n bytes in IEC units.
func sizeText(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// progressWanted: a status line on a terminal's stderr (or with
// --progress), never with -q or --no-progress.
func (b *batch) progressWanted() bool {
	if b.o.quiet || b.o.noProgress {
		return false
	}
	return b.o.progress || isTerminalWriter(b.s.err)
}

// startProgress redraws the status line until the returned function is
// called.
func (b *batch) startProgress(start time.Time) func() {
	if !b.progressWanted() {
		return func() {}
	}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		// A line wider than the terminal wraps, and each redraw, which
		// clears only the line the cursor is on, leaves a piece behind.
		width := watchWidth(b.s.err)
		defer width.end()
		t := time.NewTicker(250 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-stop:
				b.errMu.Lock()
				fmt.Fprint(b.s.err, "\r\x1b[K"+fitLine(b.statusLine(time.Since(start)), width.get())+"\n")
				b.errMu.Unlock()
				return
			case <-t.C:
				b.errMu.Lock()
				fmt.Fprint(b.s.err, "\r\x1b[K"+fitLine(b.statusLine(time.Since(start)), width.get()))
				b.errMu.Unlock()
			}
		}
	}()
	return func() { close(stop); wg.Wait() }
}

// statusLine: queued, active, done, failed, bytes, rate, ETA, separated
// by two spaces (fitLine drops fields from the end at those).
func (b *batch) statusLine(elapsed time.Duration) string {
	finished := b.ok.Load() + b.failed.Load()
	queued := "?"
	eta := "?"
	if b.held != nil {
		queued = strconv.Itoa(b.held.Len())
	} else if total := b.total.Load(); total >= 0 {
		// Queued: not yet transferring (waiting for a worker, for a
		// place at its host, or between retries).
		left := total - b.skipped.Load() - b.again.Load() - finished - b.active.Load()
		queued = strconv.FormatInt(max(left, 0), 10)
		if finished > 0 {
			remaining := total - b.skipped.Load() - b.again.Load() - finished
			eta = (time.Duration(float64(elapsed) / float64(finished) * float64(remaining))).Round(time.Second).String()
		}
	}
	rate := float64(b.bytesDone.Load()) / max(elapsed.Seconds(), 0.001)
	return fmt.Sprintf("queued %s  active %d  done %d  failed %d  %s  %s/s  ETA %s",
		queued, b.active.Load(), b.ok.Load(), b.failed.Load(), sizeText(b.bytesDone.Load()), sizeText(int64(rate)), eta)
}

// hostLimiter caps the transfers at once to each host and spaces their
// starts by the delay.
type hostLimiter struct {
	perHost int
	delay   time.Duration
	mu      sync.Mutex
	hosts   map[string]*hostSlot
	sweepAt int          // the number of hosts at which a new one sweeps (see sweepLocked)
	swept   time.Time    // the last sweep
	held    atomic.Int64 // places held past the delay, over all hosts: the transfers at once
}

type hostSlot struct {
	sem   chan struct{}
	users int
	next  time.Time // no request starts before this (--delay)
}

func newHostLimiter(perHost int, delay time.Duration) *hostLimiter {
	return &hostLimiter{perHost: perHost, delay: delay, hosts: map[string]*hostSlot{}}
}

// acquire waits for a place among key's transfers (and for the delay
// since the previous start); release gives it back, once however often it
// is called.
func (h *hostLimiter) acquire(ctx context.Context, key string) (release func(), err error) {
	h.mu.Lock()
	s := h.hosts[key]
	if s == nil {
		h.sweepLocked()
		s = &hostSlot{}
		if h.perHost > 0 {
			s.sem = make(chan struct{}, h.perHost)
		}
		h.hosts[key] = s
	}
	s.users++
	h.mu.Unlock()
	drop := func() {
		h.mu.Lock()
		s.users--
		if s.users == 0 && !time.Now().Before(s.next) {
			delete(h.hosts, key) // the map holds only hosts in use
		}
		h.mu.Unlock()
	}
	if s.sem != nil {
		select {
		case s.sem <- struct{}{}:
		case <-ctx.Done():
			drop()
			return nil, ctx.Err()
		}
	}
	var released, counted atomic.Bool
	release = func() {
		if released.Swap(true) {
			return
		}
		if counted.Load() {
			h.held.Add(-1)
		}
		if s.sem != nil {
			<-s.sem
		}
		drop()
	}
	if h.delay > 0 {
		h.mu.Lock()
		now := time.Now()
		at := s.next
		if at.Before(now) {
			at = now
		}
		s.next = at.Add(h.delay)
		h.mu.Unlock()
		if wait := time.Until(at); wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-ctx.Done():
				t.Stop()
				release()
				return nil, ctx.Err()
			}
		}
	}
	// counted once the transfer may start: a place waiting out the
	// delay is no transfer
	h.held.Add(1)
	counted.Store(true)
	return release, nil
}

// hostPlace is a transfer's place among its host's transfers. A redirect
// to another host moves it there, so that --per-host and --delay count
// the host the transfer talks to, not only the one its URL named. The
// wait for the new place is within the request's context, so within its
// --max-time: the transfer's whole time, as its redirects' are.
type hostPlace struct {
	h       *hostLimiter
	mu      sync.Mutex
	key     string
	release func() // nil once given back
}

// move gives the place back and waits for one among key's transfers,
// unless key is the place's host already. The old place goes first: a
// transfer that held it while waiting for the new host's could wait
// forever for one redirected the other way.
func (p *hostPlace) move(ctx context.Context, key string) error {
	p.mu.Lock()
	if key == p.key {
		p.mu.Unlock()
		return nil
	}
	old := p.release
	p.release = nil
	p.mu.Unlock()
	if old != nil {
		old()
	}
	release, err := p.h.acquire(ctx, key)
	if err != nil {
		return err
	}
	p.mu.Lock()
	p.key, p.release = key, release
	p.mu.Unlock()
	return nil
}

// free gives the place back, once however often it is called.
func (p *hostPlace) free() {
	p.mu.Lock()
	release := p.release
	p.release = nil
	p.mu.Unlock()
	if release != nil {
		release()
	}
}

// sweepLocked forgets the hosts neither in use nor within their --delay,
// when the map has doubled since the last sweep or a delay has passed
// since it. A host is dropped when its last transfer ends, unless its
// delay has not passed: then it stays until it is used again or swept, so
// that a list of many hosts, each with transfers shorter than the delay,
// does not keep them all.
func (h *hostLimiter) sweepLocked() {
	if h.delay <= 0 {
		return // a host is dropped when its last transfer ends
	}
	now := time.Now()
	if len(h.hosts) < 64 || len(h.hosts) < h.sweepAt && now.Sub(h.swept) < h.delay {
		return
	}
	for k, s := range h.hosts {
		if s.users == 0 && !now.Before(s.next) {
			delete(h.hosts, k)
		}
	}
	h.sweepAt, h.swept = 2*len(h.hosts), now
}

// keepTail tells a resumed batch's WARC which records a killed run left at
// its end stay: a transfer's document (response or resource) only if the
// log records its task (the URL asked for, which a redirect's records
// carry too) as done, since a transfer the log does not record is
// fetched, and recorded, again; a failure's metadata always.
func (b *batch) keepTail(types []string, task string) bool {
	document := false
	for _, t := range types {
		document = document || t == "response" || t == "resource"
	}
	if !document {
		return true
	}
	key := func(raw string) string {
		u, err := b.c.Parse(raw)
		if err != nil {
			return raw
		}
		return b.c.Registry().Key(u)
	}
	b.doneMu.Lock()
	defer b.doneMu.Unlock()
	if b.done[digestName(task)] {
		return true // logged as recorded, the usual case
	}
	if b.loggedKeys == nil {
		b.loggedKeys = make(map[nameDigest]bool, len(b.log.logged))
		for _, u := range b.log.logged {
			b.loggedKeys[digestName(key(u))] = true
		}
	}
	return b.loggedKeys[digestName(key(task))]
}
