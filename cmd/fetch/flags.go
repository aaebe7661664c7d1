package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// options are the command line, after the configuration file and the
// environment have filled what the flags left unset.
type options struct {
	outputs    outputList // -o, once per URL in order; "-" is standard output
	remoteName bool       // -O
	jsonMeta   string     // --json-meta FILE
	failEmpty  bool       // --fail-empty
	// metaStarted: the --json-meta file has been created by this run.
	metaStarted bool
	// written: the files this run has saved (absolute path → the URL,
	// redacted), so that a later URL of the command line named to the
	// same file is refused rather than saved over an earlier one.
	written    map[string]string
	jsonOut    bool
	verbose    bool
	info       bool
	parse      bool
	base       string
	quiet      bool
	progress   bool
	noProgress bool
	version    bool

	allowPorts  portList
	timeout     time.Duration
	connTimeout time.Duration
	maxTime     time.Duration
	maxSize     byteSize
	resume      string // -C: an offset, or "-" to continue the output file

	query string
	form  keyValues
	raw   bool

	proxy  string
	socks5 string

	telnetNoLogin bool
	telnetWait    time.Duration
	telnetLinger  time.Duration
	rloginProgram string
	tn3270Program string

	ftpMethod  string
	ftpEmail   string
	ftpActive  string
	ftpNoEPSV  bool
	fileFTP    bool
	fileSpec   bool // --file-special
	nntpServer string
	nntpUser   string
	smtpServer string
	from       string
	data       string
	dryRun     bool
	allowBcc   bool
	userAgent  string
	headers    keyValues
	maxRedirs  int
	insecure   bool
	configFile string
	batch      batchOptions // -i, -j, --per-host, --delay, --output-dir, --retry, --log

	warc warcFlags // --warc, --warc-max-size

	crawl     crawlOptions // --recursive and its scope
	queueOpts queueOptions // --enqueue, --queue, --queue-status, --worker, --claim-timeout, --idle-exit

	urls []string
	set  map[string]bool // flags given on the command line
	fs   *flag.FlagSet
	// secrets are configuration-file-only settings (passwords), kept off
	// the command line where other users could read them.
	secrets map[string]string
}

// portList collects repeated --allow-port values.
type portList []int

func (p *portList) String() string { return fmt.Sprint(*p) }
func (p *portList) Set(s string) error {
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 65535 {
			return fmt.Errorf("%q is not a port (1-65535)", f)
		}
		*p = append(*p, n)
	}
	return nil
}

// outputList collects repeated -o values, paired with the URLs in order.
type outputList []string

func (l *outputList) String() string     { return strings.Join(*l, ",") }
func (l *outputList) Set(s string) error { *l = append(*l, s); return nil }

// seconds reads a duration as curl does, in bare seconds ("3", "2.5"), or
// in Go's form ("3s", "1m30s").
type seconds time.Duration

func (d *seconds) String() string { return time.Duration(*d).String() }
func (d *seconds) Set(s string) error {
	t := strings.TrimSpace(s)
	if f, err := strconv.ParseFloat(t, 64); err == nil {
		// (NaN fails every comparison: it is refused by name)
		if math.IsNaN(f) || f < 0 || f > float64(1<<62)/float64(time.Second) {
			return fmt.Errorf("%q is not a duration (e.g. 30, 2.5, 1m)", s)
		}
		*d = seconds(time.Duration(f * float64(time.Second)))
		return nil
	}
	v, err := time.ParseDuration(t)
	if err != nil || v < 0 {
		return fmt.Errorf("%q is not a duration (e.g. 30, 2.5, 1m)", s)
	}
	*d = seconds(v)
	return nil
}

// keyValues collects repeated NAME=VALUE (or header) values.
type keyValues []string

func (k *keyValues) String() string     { return strings.Join(*k, ",") }
func (k *keyValues) Set(s string) error { *k = append(*k, s); return nil }

// byteSize reads 100, 10K, 5M, 2G (powers of 1024).
type byteSize int64

func (b *byteSize) String() string { return strconv.FormatInt(int64(*b), 10) }
func (b *byteSize) Set(s string) error {
	mult := int64(1)
	t := strings.ToUpper(strings.TrimSpace(s))
	t = strings.TrimSuffix(t, "B")
	switch {
	case strings.HasSuffix(t, "K"):
		mult, t = 1<<10, t[:len(t)-1]
	case strings.HasSuffix(t, "M"):
		mult, t = 1<<20, t[:len(t)-1]
	case strings.HasSuffix(t, "G"):
		mult, t = 1<<30, t[:len(t)-1]
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 0 {
		return fmt.Errorf("%q is not a size (e.g. 512K, 10M)", s)
	}
	if n > math.MaxInt64/mult {
		return fmt.Errorf("%q is larger than any size this command can count", s)
	}
	*b = byteSize(n * mult)
	return nil
}

func newFlagSet(o *options) *flag.FlagSet {
	fs := flag.NewFlagSet("fetch", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Var(&o.outputs, "o", "")
	fs.Var(&o.outputs, "output", "")
	fs.StringVar(&o.jsonMeta, "json-meta", "", "")
	fs.BoolVar(&o.failEmpty, "fail-empty", false, "")
	fs.BoolVar(&o.remoteName, "O", false, "")
	fs.BoolVar(&o.remoteName, "remote-name", false, "")
	fs.BoolVar(&o.jsonOut, "json", false, "")
	fs.BoolVar(&o.verbose, "v", false, "")
	fs.BoolVar(&o.verbose, "verbose", false, "")
	fs.BoolVar(&o.info, "info", false, "")
	fs.BoolVar(&o.parse, "parse", false, "")
	fs.StringVar(&o.base, "base", "", "")
	fs.BoolVar(&o.quiet, "q", false, "")
	fs.BoolVar(&o.quiet, "quiet", false, "")
	fs.BoolVar(&o.progress, "progress", false, "")
	fs.BoolVar(&o.noProgress, "no-progress", false, "")
	fs.BoolVar(&o.version, "version", false, "")
	fs.Var(&o.allowPorts, "allow-port", "")
	fs.Var((*seconds)(&o.timeout), "timeout", "")
	fs.Var((*seconds)(&o.connTimeout), "connect-timeout", "")
	fs.Var((*seconds)(&o.maxTime), "max-time", "")
	fs.Var(&o.maxSize, "max-size", "")
	fs.StringVar(&o.resume, "C", "", "")
	fs.StringVar(&o.resume, "continue-at", "", "")
	fs.StringVar(&o.query, "query", "", "")
	fs.Var(&o.form, "form", "")
	fs.BoolVar(&o.raw, "raw", false, "")
	fs.StringVar(&o.proxy, "proxy", "", "")
	fs.StringVar(&o.socks5, "socks5", "", "")
	fs.BoolVar(&o.telnetNoLogin, "no-telnet-login", false, "")
	fs.Var((*seconds)(&o.telnetWait), "telnet-login-wait", "")
	fs.Var((*seconds)(&o.telnetLinger), "telnet-linger", "")
	fs.StringVar(&o.rloginProgram, "rlogin-program", "", "")
	fs.StringVar(&o.tn3270Program, "tn3270-program", "", "")
	fs.StringVar(&o.ftpMethod, "ftp-method", "", "")
	fs.StringVar(&o.ftpEmail, "ftp-email", "", "")
	fs.StringVar(&o.ftpActive, "ftp-port", "", "")
	fs.BoolVar(&o.ftpNoEPSV, "disable-epsv", false, "")
	fs.BoolVar(&o.fileFTP, "file-ftp", false, "")
	fs.BoolVar(&o.fileSpec, "file-special", false, "")
	fs.StringVar(&o.nntpServer, "nntp-server", "", "")
	fs.StringVar(&o.nntpUser, "nntp-user", "", "")
	fs.StringVar(&o.smtpServer, "smtp-server", "", "")
	fs.StringVar(&o.from, "from", "", "")
	fs.StringVar(&o.data, "data", "", "")
	fs.BoolVar(&o.dryRun, "dry-run", false, "")
	fs.BoolVar(&o.allowBcc, "allow-bcc", false, "")
	fs.StringVar(&o.userAgent, "user-agent", "", "")
	addWARCFlags(fs, &o.warc)
	fs.Var(&o.headers, "H", "")
	fs.Var(&o.headers, "header", "")
	fs.IntVar(&o.maxRedirs, "max-redirs", 0, "")
	fs.BoolVar(&o.insecure, "insecure", false, "")
	fs.StringVar(&o.configFile, "config", "", "")
	o.batch.register(fs)
	o.queueOpts.register(fs)
	o.crawl.register(fs)
	return fs
}

var errHelp = errors.New("help requested")

// flagAliases pairs each short flag with its long spelling, both ways, so
// that a flag given either way counts as set.
var flagAliases = map[string]string{
	"o": "output", "output": "o",
	"O": "remote-name", "remote-name": "O",
	"v": "verbose", "verbose": "v",
	"q": "quiet", "quiet": "q",
	"C": "continue-at", "continue-at": "C",
	"H": "header", "header": "H",
	"i": "input-file", "input-file": "i",
	"j": "jobs", "jobs": "j",
	"r": "recursive", "recursive": "r",
}

// parseArgs reads flags and URLs in any order ("fetch URL -o out" works
// as "fetch -o out URL"); "--" ends the flags.
func parseArgs(args []string) (*options, error) {
	o := &options{set: map[string]bool{}, secrets: map[string]string{}}
	fs := newFlagSet(o)
	o.fs = fs
	if topic, ok := helpTopic(args); ok {
		return nil, &helpRequest{topic: topic}
	}
	for {
		if err := fs.Parse(args); err != nil {
			if errors.Is(err, flag.ErrHelp) {
				return nil, errHelp
			}
			return nil, flagError(err)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			break
		}
		// fs.Parse stops at the first non-flag; "--" is consumed by it,
		// unless it was a flag's value ("-o --").
		consumed := len(args) - len(rest)
		if endsFlags(fs, args[:consumed]) {
			o.urls = append(o.urls, rest...)
			break
		}
		o.urls = append(o.urls, rest[0])
		args = rest[1:]
	}
	fs.Visit(func(f *flag.Flag) {
		o.set[f.Name] = true
		if alias, ok := flagAliases[f.Name]; ok {
			o.set[alias] = true
		}
	})
	return o, nil
}

// endsFlags tells whether the flags fs parsed, args, ended with the "--"
// that ends the flags rather than with a flag whose value is "--".
func endsFlags(fs *flag.FlagSet, args []string) bool {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return i == len(args)-1
		}
		name := strings.TrimLeft(a, "-")
		if strings.Contains(name, "=") {
			continue
		}
		if f := fs.Lookup(name); f != nil {
			if !isBoolFlag(f) {
				i++ // its value is the next argument
			}
		}
	}
	return false
}

const usageText = `fetch dereferences URLs of every scheme of RFC 1738, each by its own protocol.

Usage: fetch [flags] URL...
       fetch --help SCHEME     that scheme's URL forms, flags and examples

  fetch http://127.0.0.1:8080/index.html        a document to standard output
  fetch -o motd.txt ftp://ftp.example/etc/motd  to a file (written whole or not at all)
  fetch ftp://ftp.example/pub/                  a listing: one entry a line, its URL after a tab
  fetch 'gopher://gopher.example/7/search%09words'   a Gopher search
  fetch news:'<id@example.com>'                  an article (server from --nntp-server or NNTPSERVER)
  echo hi | fetch --smtp-server 127.0.0.1:587 'mailto:a@example.org?subject=Hi'
  fetch telnet://user@host:2323/                 a session; the user is typed at login:
  fetch rlogin://user@host/                      handed to rlogin (tn3270:// to c3270 or x3270)
  fetch --parse 'ftp://user@host/%2Fetc/motd;type=a'   show the parsed URL as JSON

Schemes: file ftp gopher http https mailto news nntp prospero rlogin telnet tn3270 wais.
"fetch --help SCHEME" shows one scheme's URL forms, flags and examples.

Output
  -o, --output FILE     write the document to FILE (via a temporary file renamed on success);
                        repeat it for several URLs: the Nth -o goes with the Nth URL, URLs
                        without one go to standard output; "-o -" is standard output and
                        writes even binary data to a terminal (refused there otherwise)
                        Once with {scheme} {host} {port} {path} {file} it is a template for
                        every URL: -o 'mirror/{host}/{path}' (parts made safe as in a batch,
                        never outside the template's directory, which is created)
  -O, --remote-name     write each URL to a file in the current directory named after the
                        last segment of its path (of the selector for gopher, without the
                        Gopher+ string; over 255 bytes cut to 200); control characters become "_".
                        A name that is a directory is refused (a batch names it apart)
  --json                listings, metadata and results as JSON lines; with a document on
                        standard output its metadata line goes to standard error
  --json-meta FILE      write documents' metadata lines to FILE instead
  --info                print metadata only (type, size, date), do not transfer the body
  --parse               print the parsed URL and its scheme's view as JSON, do not fetch
  --base URL            resolve each argument against URL (RFC 1630) and print the result
  -v, --verbose         show the protocol conversation on stderr ("> " sent, "< " received;
                        passwords masked, and the values of HTTP headers that may hold
                        a credential: Authorization, Cookie, Set-Cookie, X-Api-Key, ...)
  -q, --quiet           no progress bar, no warnings
  --progress            a progress bar on stderr even when it is not a terminal
                        (bytes of a document, entries of a listing)
  --no-progress         never a progress bar
  --version             print the version and exit

Batch (many URLs into files; a rerun with the same --log resumes)
  -i, --input-file F    read URLs from F, one a line ("-" standard input); blank lines and
                        lines starting with "#" are skipped; the list is read as it goes.
                        Repeat it for several lists: all are read, in order, after the
                        URLs of the command line, as one batch (one --log); "-i -" once
  -j, --jobs N          N transfers at once (default 1, at most 1000), sharing sessions per host
  --per-host N          at most N transfers at once to one host:port (default 2; 0 no cap)
  --pipeline N          send up to N HTTP GETs on one connection before their answers
                        (HTTP/1.1 pipelining; default 1: none), so that --per-host 16
                        --pipeline 4 uses 4 connections: for many small documents from
                        one server (a large one delays those behind it). Not for https,
                        --warc or a proxy; a server that closes after each answer is
                        asked one request at a time
  --delay D             at least D between the starts of two requests to one host
  --output-dir DIR      the directory for -O and -o TEMPLATE (default the current one)
                        -O names each file after its URL's last segment; -o TEMPLATE
                        names it with {scheme} {host} {port} {path} {file}, e.g.
                        -o '{host}/{path}'; names never leave DIR (".." and control
                        characters become "_"; a Gopher search or Gopher+ string is
                        left out). A name taken already, by another URL's file or a
                        directory (or a directory's, by a file), gets "~" and 8 hex digits
  --retry N             try a temporarily failing URL up to N more times, waiting 1s, 2s,
                        4s... (at most 60s, jittered) or the server's Retry-After: refused
                        or reset connections, timeouts, FTP 4xx, NNTP 400, HTTP 408, 429,
                        500, 502, 503, 504; never a 404, an FTP 5xx, a policy refusal, an
                        unknown host or an untrusted certificate
  --log FILE            append one JSON line per URL as it ends (url, outcome, error, exit,
                        bytes, sha256, duration_ms, attempts, file), synced to disk; URLs
                        it records as ok are skipped by a rerun, failed ones are tried again
  With a terminal on stderr a status line shows queued, active, done, failed, bytes, rate
  and ETA (-q: none); --json writes the log lines to standard output, and a failed URL's
  error goes there, in its line, rather than to stderr. The exit status is the most
  severe among the failures, in the order 7, 1, 5, 4, 6, 2, 3; a summary line goes to
  stderr after a failure, Ctrl-C or a status line. A URL listed again, in any list, is
  fetched once a run.

Crawling (follow what listings link to; see README, "Crawling")
  -r, --recursive       fetch each URL and, from every listing fetched (gopher menus, FTP,
                        file: and Prospero directories, news groups, WAIS results), the
                        links it holds, once each (by canonical URL, without #fragment);
                        documents are saved, not parsed for links (no HTML). Files are
                        named by -o TEMPLATE, default '{host}_{port}/{path}', a listing as
                        .../index; with --log the crawl's queue and seen set are kept in
                        LOG.frontier, so a rerun with the same --log resumes a killed crawl
                        and fetches nothing twice but the URLs that failed, tried again
  --span-hosts          follow links to other hosts and schemes (default: only the same
                        scheme and host:port as the listing)
  --include REGEXP      follow only links whose URL matches (repeatable: any of them)
  --exclude REGEXP      never follow links whose URL matches (repeatable)
  --depth N             follow links at most N steps from the URLs given (default 5; 0
                        fetches only those)
  --max-urls N          queue at most N URLs in all (default 0: no limit); with --queue,
                        the URLs the queue ever held, every worker's and --enqueue's
                        together; whatever N, a link found while 1,000,000 URLs (or
                        128 MiB of them) wait is not queued: exit 4
  --follow-types T      gopher item types to follow besides the default ones (0 1 4 5 6 9
                        g I h s d p P M ; : < c e x), e.g. 7,8: never by default 7
                        (search: fetched with --query), 2 (CSO), 8 and T (sessions)

Shared queue (many workers, many machines, through Redis; see README, "Distributed crawls")
  --enqueue URL         add the URLs of -i and the command line to the queue at URL,
                        redis://[USER[:PASSWORD]@]HOST[:PORT]/NAME (rediss:// for TLS; the
                        password else from FETCH_REDIS_PASSWORD), each unless the queue has
                        seen it (the same canonical URL), then exit
  --queue URL           be a worker: fetch what the queue holds with the batch flags (-j,
                        --per-host, -O/-o, --log, --warc, --recursive); each URL is
                        acknowledged once its file, WARC record and log line are on disk,
                        and with --recursive the links found are queued for every worker
  --queue-status URL    print the queue's counts: queued, pending per worker, done, failed
  --worker NAME         this worker's name in the queue (default host:pid:random)
  --claim-timeout D     take over a task whose worker gave no sign of life for D (default
                        60s): a worker that died loses its tasks to the others
  --idle-exit D         a worker exits once the queue has been empty, with nothing pending
                        anywhere, for D (default 10s)

Limits and safety
  --allow-port N        permit port N though the port policy refuses it (repeatable, or N,M)
  --timeout D           give up when no byte arrives for D (default 60; seconds, or 30s, 2m)
  --connect-timeout D   give up connecting after D (default 30)
  --max-time D          give up when the whole transfer takes longer than D (e.g. 2.5)
  --max-size N          refuse a document larger than N bytes (suffixes K, M, G)
  -C, --continue-at N   resume from byte N; "-C -" continues the existing output file
  --proxy URL           send every URL whole to this HTTP gateway (else <scheme>_proxy env)
  --socks5 HOST:PORT    connect through a SOCKS5 proxy
  A duration or size of 0 is its flag's default: none for --max-time, --max-size,
  --warc-max-size and --delay; 60 for --timeout, 5s for --telnet-login-wait, and so on.

Archiving
  --warc FILE.warc.gz   record every fetch in a WARC 1.1 file: HTTP as request and response
                        records of the bytes on the wire, other schemes as a resource record
                        of the raw document or listing and a metadata record of the protocol
                        conversation (see README, "WARC"); a failed fetch leaves only a
                        metadata record saying so. The name chooses the form: FILE.warc is
                        written uncompressed, FILE.warc.gz and any other name one gzip
                        member a record
  --warc-max-size N     start a new WARC file after N bytes (suffixes K, M, G); the files
                        are then NAME-00000.warc.gz, NAME-00001.warc.gz, … (from
                        NAME.warc.gz), or NAME-00000.warc, … (from NAME.warc)
  With --log, a rerun adds to the WARC file (or starts the next of the series) rather
  than replacing it, first cutting away a record that a killed run left half-written; a
  .warc file holding gzip records (an older fetch's) is refused: rename it FILE.warc.gz.

Scheme settings
  --query WORDS         search words for gopher type 7 and wais when the URL has none
  --form NAME=VALUE     an answer to a Gopher+ ASK form (repeatable)
  --raw                 write protocol bytes exactly as received (no dot-unstuffing; gopher
                        text, news articles and FTP ;type=a keep the server's line ends,
                        which are otherwise LF)
  --fail-empty          gopher: a server that answers nothing is an error, not a warning
  --ftp-method M        multicwd (one CWD per segment, RFC 1738), singlecwd, nocwd
  --ftp-email ADDR      the anonymous FTP password (default user@host)
  --ftp-port ADDR       active FTP: listen on ADDR (e.g. 127.0.0.1:0) and send PORT/EPRT
  --disable-epsv        passive FTP with PASV only
  --file-ftp            fetch file://otherhost/path over FTP, as classic clients did
  --file-special        let file: open a FIFO, device or socket (refused otherwise); timeouts apply
  --nntp-server H:P     the news server for news: URLs (else NNTPSERVER, else the config)
  --nntp-user USER      AUTHINFO user for news: URLs (password prompted or from the config)
  --smtp-server H:P     the submission server for mailto: (never taken from the URL)
  --from ADDR           the sender for mailto: (else EMAIL, else user@host)
  --data TEXT           the message body for mailto: (else standard input)
  --dry-run             mailto: print the composed message instead of sending it
  --allow-bcc           mailto: honour a bcc= field in the URL
  --no-telnet-login     never type a telnet: URL's user and password (they are advisory)
  --telnet-login-wait D how long typed input waits for the login prompt (default 5s)
  --telnet-linger D     after input ends, wait until the server is quiet for D (default 2s)
  --rlogin-program P    the program rlogin: sessions are handed to (default rlogin)
  --tn3270-program P    the 3270 emulator for tn3270: (default c3270, else x3270)
  -H, --header 'N: V'   an extra HTTP request header (repeatable)
  --user-agent UA       the HTTP User-Agent
  --max-redirs N        HTTP redirects to follow (default 20)
  --insecure            accept any TLS certificate
  --config FILE         the configuration file (default $FETCH_CONFIG, else
                        ~/.config/fetch/config): lines "name = value" with flag names
                        (nntp-server, smtp-server, from, ftp-email, proxy, ...),
                        and the file-only nntp-password, smtp-user, smtp-password,
                        smtp-starttls (yes or no); flags override the environment,
                        which overrides the file

Exit status
  0 success               4 refused by policy (port, scheme, CR/LF, size)
  1 other failure         5 network failure or timeout
  2 usage error           6 the server refused, or has no such resource
  3 malformed URL         7 local I/O error (writing the output, reading input)
  (a port of 0 or above 65535 is 3; binary data refused on a terminal is 2; Ctrl-C is 130;
  on Unix, standard output closed early by its reader ("| head") ends fetch by SIGPIPE)
`

// isBoolFlag tells whether f takes no value (the flag package's boolean
// flags: -v, not -o FILE).
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}
