package main

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
	"golang.org/x/net/http/httpguts"
	"golang.org/x/net/proxy"
)

// newClient builds the client the flags describe: the settings shared by
// every URL of the run. What belongs to one URL goes on its request
// (newRequest), so nothing shared changes between URLs and the drivers'
// sessions carry over from one URL to the next.
func newClient(o *options, s stdio) (*fetch.Client, error) {
	opts := fetch.Options{
		DialTimeout: o.connTimeout,
		IdleTimeout: o.timeout,
		MaxTime:     o.maxTime,
		MaxSize:     int64(o.maxSize),
		Prompter:    newPrompter(o, s),
	}
	if envSets("proxy") {
		// Asked for every URL and redirect, so only when the environment
		// names a gateway at all.
		opts.Proxy = fetch.ProxyFromEnvironment
		opts.ProxyFrom = fetch.ProxyVariable
	}
	if o.batchMode() {
		// Every transfer that may run at once to one host keeps its
		// session for the next: with fewer idle sessions allowed than
		// transfers, each batch of -j transfers would close and dial
		// (and for FTP, log in) again.
		perHost := o.batch.jobs
		if o.batch.perHost > 0 {
			perHost = min(perHost, o.batch.perHost)
		}
		opts.MaxIdlePerHost = max(fetch.DefaultMaxIdlePerHost, perHost)
	}
	if len(o.allowPorts) > 0 {
		opts.Policy = &fetch.PortPolicy{}
		opts.Policy.Allow(o.allowPorts...)
	}
	if o.verbose || !o.quiet {
		opts.Tracer = stderrTracer{w: s.err, verbose: o.verbose}
	}
	if _, err := formAnswers(o); err != nil {
		return nil, err
	}
	if err := checkHeaders(o.headers); err != nil {
		return nil, err
	}
	for _, f := range []struct{ name, value string }{{"--ftp-email", o.ftpEmail}, {"--nntp-user", o.nntpUser}} {
		// They go into command lines (PASS, AUTHINFO USER).
		if err := fetch.CheckLine(f.name, f.value); err != nil {
			return nil, &fetch.Error{Kind: fetch.KindUsage, Offset: -1, Err: err}
		}
	}
	if !httpguts.ValidHeaderFieldValue(o.userAgent) {
		return nil, &fetch.Error{Kind: fetch.KindUsage, Op: "--user-agent", Offset: -1, Err: errors.New("the value holds a control character (CR, LF, NUL...)")}
	}
	if o.proxy != "" {
		p, err := fetch.Parse(o.proxy)
		bare := !strings.Contains(o.proxy, "//")
		if err != nil && !(bare && hostPath().MatchString(o.proxy)) {
			// Named as the flag's, as http_proxy's are: alone, it read
			// as if the URL fetched were malformed.
			return nil, &fetch.Error{Kind: fetch.KindOf(err), Op: "--proxy", Offset: -1, Err: err}
		}
		// (an address, "127.0.0.1:3128", parses as no URL at all: it
		// gets the hint that "gw:3128" gets)
		if err != nil || p.Scheme != "http" {
			why := ""
			if err == nil {
				why = fmt.Sprintf("only http:// gateways are supported, not %s", p.Scheme)
			}
			if bare {
				// "gw:3128", as curl takes it: read as the scheme "gw".
				why = fmt.Sprintf("a gateway is an http:// URL: http://%s/", strings.TrimPrefix(fetch.RedactedText("//"+o.proxy), "//"))
			}
			return nil, &fetch.Error{Kind: fetch.KindUsage, Op: "--proxy", Part: "scheme", Offset: 0, Err: errors.New(why)}
		}
		if p.Host == "" {
			// "http://" or "http:/gw" would dial ":80", this machine.
			return nil, &fetch.Error{Kind: fetch.KindUsage, Op: "--proxy", Part: "host", Offset: -1,
				Err: fmt.Errorf("%s names no host: a gateway is http://HOST[:PORT]/", fetch.RedactedText(o.proxy))}
		}
		opts.Proxy = func(*fetch.URL) (*fetch.URL, error) { return p, nil }
		from := "--proxy"
		if !o.set["proxy"] {
			// Not given on the command line, it is the
			// configuration file's proxy setting (applyConfig).
			path, _ := configPath(o)
			from = "proxy in " + path
		}
		opts.ProxyFrom = func(*fetch.URL) string { return from }
	}
	if o.socks5 != "" {
		if err := checkSOCKS5(o.socks5); err != nil {
			return nil, err
		}
		d, err := proxy.SOCKS5("tcp", o.socks5, nil, proxy.Direct)
		if err != nil {
			return nil, &fetch.Error{Kind: fetch.KindUsage, Op: "--socks5", Offset: -1, Err: err}
		}
		cd, ok := d.(fetch.ContextDialer)
		if !ok {
			return nil, &fetch.Error{Kind: fetch.KindUsage, Op: "--socks5", Offset: -1, Err: fmt.Errorf("SOCKS5 dialer without context support")}
		}
		opts.Dialer = cd
	}
	return schemes.NewClient(opts, driverConfig(o, s)), nil
}

// checkSOCKS5 refuses a --socks5 value that is not HOST:PORT before any
// connection: the dialer would take it as an address at the first dial
// and fail there, as a network failure quoting the value, a password in
// it included. A user or password is refused: the proxy is asked for no
// authentication.
func checkSOCKS5(addr string) error {
	bad := func(why string) error {
		shown := addr
		if at := strings.LastIndexByte(addr, '@'); at >= 0 {
			shown = "****" + addr[at:]
		}
		return &fetch.Error{Kind: fetch.KindUsage, Op: "--socks5", Offset: -1,
			Err: fmt.Errorf("%q is not HOST:PORT: %s", shown, why)}
	}
	if strings.Contains(addr, "@") || strings.Contains(addr, "/") {
		return bad("give the proxy's host and port only (no scheme, user or password: the proxy is asked for no authentication)")
	}
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return bad("want host:port, e.g. 127.0.0.1:1080")
	}
	if n, err := strconv.Atoi(port); err == nil {
		if n < 1 || n > 65535 {
			return bad("the port is not 1-65535")
		}
	} else if _, err := net.LookupPort("tcp", port); err != nil {
		return bad("the port is not a number")
	}
	return nil
}

// checkHeaders refuses a -H that is not "Name: value" before any request:
// the http driver would drop one without a ":" unsaid, and net/http
// refuses a bad name or value only when the request is made, as a
// network failure. The value is never quoted: it is often a credential.
func checkHeaders(headers []string) error {
	for _, h := range headers {
		bad := func(shown, why string) error {
			return &fetch.Error{Kind: fetch.KindUsage, Op: "-H", Offset: -1, Err: fmt.Errorf("%s: %s", shown, why)}
		}
		name, value, ok := strings.Cut(h, ":")
		name = strings.TrimSpace(name)
		if !ok {
			word, _, _ := strings.Cut(strings.TrimSpace(h), " ")
			if !httpguts.ValidHeaderFieldName(word) {
				word = ""
			}
			return bad(fmt.Sprintf("%q", word+"…"), `want "Name: value" (no ":" after the name)`)
		}
		if !httpguts.ValidHeaderFieldName(name) {
			if word, _, cut := strings.Cut(name, " "); cut {
				name = word + "…" // what follows may be a credential ("Bearer t:k")
			}
			return bad(fmt.Sprintf("%q", name), "not a header name (letters, digits and !#$%&'*+-.^_`|~, no spaces)")
		}
		if !httpguts.ValidHeaderFieldValue(strings.TrimSpace(value)) {
			return bad(fmt.Sprintf("%q", name), "the value holds a control character (CR, LF, NUL...)")
		}
	}
	return nil
}

// newRequest is the request for one URL of the run, with the inputs the
// flags give (--query, --form, --raw, and for mailto --data or standard
// input as the message body).
func newRequest(o *options, s stdio, u *fetch.URL) (*fetch.Request, error) {
	req := &fetch.Request{URL: u} // u is this URL's own parse: no copy
	req.Query, req.Raw = o.query, o.raw
	// The modification time shows only in metadata (--info, --json,
	// --json-meta); without them a driver may skip asking for it.
	req.NoModTime = !o.info && !o.jsonOut && o.jsonMeta == ""
	var err error
	if req.Form, err = formAnswers(o); err != nil {
		return nil, err
	}
	// Only mailto reads a body; other URLs skip the terminal check, which
	// costs system calls on every URL of a long run.
	if u.Scheme == "mailto" {
		if o.data != "" {
			req.Body = stringsReader(o.data)
		} else if !isTerminalReader(s.in) {
			req.Body = s.in
		}
	}
	return req, nil
}

// formAnswers reads the --form NAME=VALUE answers.
func formAnswers(o *options) (map[string]string, error) {
	if len(o.form) == 0 {
		return nil, nil
	}
	form := map[string]string{}
	for _, kv := range o.form {
		k, v, ok := cutKV(kv)
		if !ok {
			return nil, &fetch.Error{Kind: fetch.KindUsage, Op: "--form", Offset: -1, Err: fmt.Errorf("%q is not NAME=VALUE", kv)}
		}
		form[k] = v
	}
	return form, nil
}
