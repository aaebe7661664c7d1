package main

import (
	"fmt"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
	"golang.org/x/net/proxy"
)

// newClient builds the client the flags describe.
func newClient(o *options, s stdio) (*fetch.Client, error) {
	opts := fetch.Options{
		DialTimeout: o.connTimeout,
		IdleTimeout: o.timeout,
		MaxTime:     o.maxTime,
		MaxSize:     int64(o.maxSize),
		Prompter:    newPrompter(o, s),
		Query:       o.query,
		Raw:         o.raw,
		Proxy:       fetch.ProxyFromEnvironment,
	}
	if len(o.allowPorts) > 0 {
		opts.Policy = &fetch.PortPolicy{}
		opts.Policy.Allow(o.allowPorts...)
	}
	if o.verbose || !o.quiet {
		opts.Tracer = stderrTracer{w: s.err, verbose: o.verbose}
	}
	if len(o.form) > 0 {
		opts.Form = map[string]string{}
		for _, kv := range o.form {
			k, v, ok := cutKV(kv)
			if !ok {
				return nil, &fetch.Error{Kind: fetch.KindUsage, Op: "--form", Offset: -1, Err: fmt.Errorf("%q is not NAME=VALUE", kv)}
			}
			opts.Form[k] = v
		}
	}
	if o.proxy != "" {
		p, err := fetch.Parse(o.proxy)
		if err != nil {
			return nil, err
		}
		if p.Scheme != "http" {
			return nil, &fetch.Error{Kind: fetch.KindUsage, Op: "--proxy", Part: "scheme", Offset: 0,
				Err: fmt.Errorf("only http:// gateways are supported, not %s", p.Scheme)}
		}
		opts.Proxy = func(*fetch.URL) (*fetch.URL, error) { return p, nil }
	}
	if o.socks5 != "" {
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
	if o.data != "" {
		opts.Body = stringsReader(o.data)
	} else if !isTerminalReader(s.in) {
		opts.Body = s.in
	}
	return schemes.NewClient(opts, driverConfig(o, s)), nil
}
