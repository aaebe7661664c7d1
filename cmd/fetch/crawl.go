package main

import (
	"flag"
	"fmt"
	"regexp"
	"strings"
	"sync/atomic"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/frontier"
)

// crawlOptions are the flags of --recursive.
type crawlOptions struct {
	recursive   bool
	spanHosts   bool
	include     regexps
	exclude     regexps
	depth       int
	maxURLs     int64
	followTypes string // gopher item types followed besides the default ones
}

func (c *crawlOptions) register(fs *flag.FlagSet) {
	fs.BoolVar(&c.recursive, "recursive", false, "")
	fs.BoolVar(&c.recursive, "r", false, "")
	fs.BoolVar(&c.spanHosts, "span-hosts", false, "")
	fs.Var(&c.include, "include", "")
	fs.Var(&c.exclude, "exclude", "")
	fs.IntVar(&c.depth, "depth", 5, "")
	fs.Int64Var(&c.maxURLs, "max-urls", 0, "")
	fs.StringVar(&c.followTypes, "follow-types", "", "")
}

// crawlTemplate names a crawl's files when no -o is given: a directory
// per server, so that two servers on one host never share names.
const crawlTemplate = "{host}_{port}/{path}"

// crawlFlags are the flags that only mean something with --recursive.
var crawlFlags = []string{"span-hosts", "include", "exclude", "depth", "max-urls", "follow-types"}

// regexps is a repeatable flag of regular expressions.
type regexps []*regexp.Regexp

func (r *regexps) String() string { return "" }

func (r *regexps) Set(s string) error {
	re, err := regexp.Compile(s)
	if err != nil {
		return fmt.Errorf("not a regular expression: %v", err)
	}
	*r = append(*r, re)
	return nil
}

// defaultGopherTypes are the gopher item types a crawl follows: documents
// of every kind and menus. Never by default: 7 (a search, which needs
// words), 2 (a CSO phone book, a query protocol), 8 and T (telnet and
// tn3270 sessions), i and 3 (not links), + (a mirror of the item before).
const defaultGopherTypes = "0145679gIhsdpPM;:<cex" // 7 is removed below

func gopherFollowed(types string) map[string]bool {
	m := map[string]bool{}
	for _, c := range strings.ReplaceAll(defaultGopherTypes, "7", "") {
		m[string(c)] = true
	}
	for _, f := range strings.Split(types, ",") {
		for _, c := range strings.TrimSpace(f) {
			m[string(c)] = true
		}
	}
	return m
}

// scope decides which links of a listing a crawl follows.
type scope struct {
	o      *crawlOptions
	reg    *fetch.Registry
	gopher map[string]bool
	// links not followed: out of scope (host, scheme, patterns), too
	// deep, past --max-urls, found while the queue was full (queueCap)
	outOfScope, tooDeep, overMax, overQueue atomic.Int64
}

func newScope(o *crawlOptions, reg *fetch.Registry) *scope {
	return &scope{o: o, reg: reg, gopher: gopherFollowed(o.followTypes)}
}

// follows reports whether a crawl follows entry e of a listing fetched
// from parent. Every entry with a URL that names a document or a
// directory is a link; a gopher item also needs its type in the followed
// set; sessions, searches, forms and text lines never are.
func (s *scope) follows(e fetch.Entry) bool {
	if e.URL == "" || e.Kind == fetch.EntryForm {
		return false // a form asks questions: never followed, whatever its type
	}
	if e.Item != "" && strings.HasPrefix(e.URL, "gopher:") {
		return s.gopher[e.Item[:1]]
	}
	if e.Kind == fetch.EntryOther && strings.HasPrefix(e.URL, "file:") {
		// a FIFO, socket or device in a directory: no file to copy (a
		// fetch is refused, or with --file-special waits or never ends)
		return false
	}
	switch e.Kind {
	case fetch.EntryFile, fetch.EntryDir, fetch.EntryLink, fetch.EntryOther:
		return true
	}
	return false
}

// inScope reports whether a link from parent (at depth) is to be queued:
// the same scheme and host:port unless --span-hosts, the --include and
// --exclude patterns, --depth. It counts what it refuses.
func (s *scope) inScope(parent *fetch.URL, link string, depth int) bool {
	if depth > s.o.depth {
		s.tooDeep.Add(1)
		return false
	}
	u, err := s.reg.Parse(link)
	if err != nil {
		s.outOfScope.Add(1)
		return false
	}
	if u.Scheme != parent.Scheme {
		// A Direct scheme's URL names this machine's files, a message
		// to send or a session to hold (file, mailto, telnet...): a
		// remote listing's link to one is never followed, even with
		// --span-hosts.
		if rec, ok := s.reg.Lookup(u.Scheme); !ok || rec.Direct || rec.Driver == nil {
			s.outOfScope.Add(1)
			return false
		}
	}
	if !s.o.spanHosts && !s.sameServer(u, parent) {
		s.outOfScope.Add(1)
		return false
	}
	if len(s.o.include) > 0 {
		ok := false
		for _, re := range s.o.include {
			ok = ok || re.MatchString(link)
		}
		if !ok {
			s.outOfScope.Add(1)
			return false
		}
	}
	for _, re := range s.o.exclude {
		if re.MatchString(link) {
			s.outOfScope.Add(1)
			return false
		}
	}
	return true
}

// links is what a crawl queues from one listing. A listing of a million
// entries is not held whole: the links found are queued through flush
// every linkBatch of them, or sooner once their URLs reach linkBatchBytes,
// and found keeps only the rest.
type links struct {
	s      *scope
	parent *fetch.URL
	depth  int // the listing's depth; its links are one deeper
	found  []frontier.Task
	size   int // the bytes of found's URLs
	flush  func([]frontier.Task) error
	err    error // the first failure of flush
}

// linkBatch and linkBatchBytes bound the links a listing holds before it
// queues them. The bytes bound is for a server that writes links of up to
// a line's 64 KiB: 1,024 of them would hold 64 MiB, for each transfer
// running.
const (
	linkBatch      = 1024
	linkBatchBytes = 1 << 20
)

func (l *links) visit(e fetch.Entry) {
	if l == nil || l.err != nil || !l.s.follows(e) || !l.s.inScope(l.parent, e.URL, l.depth+1) {
		return
	}
	link := l.s.withoutFragment(e.URL)
	t := frontier.Task{URL: l.withPassword(link), Depth: l.depth + 1}
	l.found = append(l.found, t)
	l.size += len(t.URL)
	if (len(l.found) >= linkBatch || l.size >= linkBatchBytes) && l.flush != nil {
		l.err = l.flush(l.found)
		clear(l.found) // the URLs' text goes with the tasks
		l.found, l.size = l.found[:0], 0
	}
}

// flushErr is the first failure to queue links as the listing was read.
func (l *links) flushErr() error {
	if l == nil {
		return nil
	}
	return l.err
}

// withoutFragment is link without its fragment. A fragment names a part
// of the document for its reader and is never sent to the server (RFC
// 1630; Client.Do drops it), so "h/a", "h/a#x" and "h/a#y" are one
// document, queued once under one URL. The fragment is the one the
// scheme's parser finds: a gopher selector's "#" is data, and a menu
// writes it as %23.
func (s *scope) withoutFragment(link string) string {
	if strings.IndexByte(link, '#') < 0 {
		return link // no fragment to find: spare a listing's every link a parse
	}
	u, err := s.reg.Parse(link)
	if err != nil || !u.HasFragment {
		return link
	}
	u.Fragment, u.HasFragment = "", false
	return u.String()
}

// withPassword is link with the parent's password when the parent has one
// and link names the same login (scheme, host, port and user) without a
// password of its own. A listing's entries never carry the password (an
// FTP driver remembers it for its process alone), so without it a task
// queued from a password's listing could not log in when a resumed crawl
// (which skips the listing, done) or another worker of a shared queue
// fetches it. The frontier keeps it as it keeps a seed's; logs, the WARC
// and messages show URLs redacted.
func (l *links) withPassword(link string) string {
	p := l.parent
	if !p.HasPassword || !p.HasUser {
		return link
	}
	u, err := l.s.reg.Parse(link)
	if err != nil || u.HasPassword || !u.HasUser || u.User != p.User || !l.s.sameServer(u, p) {
		return link
	}
	u.Password, u.HasPassword = p.Password, true
	return u.String()
}

// sameServer reports whether a and b name one server of one scheme:
// scheme, host (in any case) and port, a default port as the number it
// stands for.
func (s *scope) sameServer(a, b *fetch.URL) bool {
	return a.Scheme == b.Scheme && strings.EqualFold(a.Host, b.Host) &&
		a.PortOr(s.reg.DefaultPort(a.Scheme)) == b.PortOr(s.reg.DefaultPort(b.Scheme))
}
