package fetch

import (
	"fmt"
	"sort"
	"strings"
)

// Grammar is what a scheme changes in the generic syntax of RFC 1738
// §3.1. The zero Grammar is the generic syntax itself, which is what a
// scheme nobody registered gets.
type Grammar struct {
	// HostRequired refuses a "//" form without a host (ftp:///x); the
	// generic syntax lets the host be empty (file:///etc/motd).
	HostRequired bool
	// QueryEndsHost lets "?" end host:port without a "/" before it
	// (http://host?q), as every browser reads HTTP URLs. In the generic
	// syntax only "/" ends it and a "?" there is a fault in the host.
	QueryEndsHost bool
	// PlusInQuery says "+" in the search part (after the first "?")
	// stands for a space, so "%2B" there is not the same URL as "+"
	// (RFC 1630's equivalence, URL.Equal).
	PlusInQuery bool
	// EmptyPath is the path an empty one stands for, so that Equal and
	// Key take the two for one URL: gopher's "1", a menu with an empty
	// selector (RFC 1738 §3.4). "" when an empty path is only itself.
	EmptyPath string
}

// Scheme is a scheme's registration record: everything the core needs to
// know about one scheme, kept in the scheme's own package so that adding
// a scheme touches that package plus one registration line.
//
// A record without a Driver is view-only: --parse shows its URLs and the
// port policy protects its port, but a fetch fails as for an unknown
// scheme.
type Scheme struct {
	// Name is the scheme in lower case ("ftp", "x-finger").
	Name string
	// DefaultPort is dialled when a URL names no port, and no other
	// scheme may reach it (RFC 1738 §6). 0 for a scheme that has none
	// (file, mailto). Schemes sharing a default port speak one protocol
	// (news and nntp) and may use each other's.
	DefaultPort int
	// LowPorts lets the scheme reach ports below 1024 that belong to no
	// other scheme (HTTP servers are found there); every other scheme is
	// kept above 1024 unless a port is allowed.
	LowPorts bool
	// Grammar is where the scheme's URLs differ from the generic syntax.
	Grammar Grammar
	// View splits a parsed URL of this scheme by the scheme's own grammar
	// (RFC 1738 §3.2-3.11) into a typed value that marshals to JSON (the
	// "fetch --parse" output). A failure is an *Error of kind
	// KindMalformed naming the URL part. nil: the scheme has no view.
	View func(u *URL) (any, error)
	// Driver fetches the scheme's URLs; nil for a view-only record.
	Driver Driver
	// Direct: the scheme's URLs never go to a gateway (Options.Proxy).
	// They name this machine's files, a message to send or a session to
	// hold, which a retrieval gateway would get wrong (its own files, a
	// GET) and learn (a local path, a password) from the URL.
	Direct bool
}

// Registry is a set of scheme records. Each Client has its own (as
// net/http's Transport has its own protocols), so a program or a test
// builds one with exactly the schemes it wants and nothing global needs
// resetting. The zero Registry, and a nil *Registry, know no scheme:
// they parse by the generic syntax alone.
//
// A Registry is not safe for concurrent Add; fill it before use.
type Registry struct {
	m     map[string]*Scheme
	ports map[int][]string // default port → the schemes that have it, sorted
}

// NewRegistry returns a registry holding recs.
func NewRegistry(recs ...Scheme) *Registry {
	r := &Registry{}
	r.Add(recs...)
	return r
}

// Add registers each record. A record registered twice, or a name that is
// not a scheme, is a programming error and panics (like database/sql's
// Register).
func (r *Registry) Add(recs ...Scheme) {
	for _, rec := range recs {
		name := strings.ToLower(rec.Name)
		if !isSchemeName(name) {
			panic(fmt.Sprintf("fetch: registry: invalid scheme name %q", rec.Name))
		}
		if _, dup := r.m[name]; dup {
			panic("fetch: registry: scheme " + name + " registered twice")
		}
		if r.m == nil {
			r.m = map[string]*Scheme{}
		}
		rec.Name = name
		r.m[name] = &rec
		if r.ports == nil {
			r.ports = map[int][]string{}
		}
		on := append(r.ports[rec.DefaultPort], name)
		sort.Strings(on)
		r.ports[rec.DefaultPort] = on
	}
}

// Lookup returns the record of scheme (any case).
func (r *Registry) Lookup(scheme string) (Scheme, bool) {
	if r == nil {
		return Scheme{}, false
	}
	s, ok := r.m[strings.ToLower(scheme)]
	if !ok {
		return Scheme{}, false
	}
	return *s, true
}

// Names lists the registered schemes, sorted.
func (r *Registry) Names() []string {
	if r == nil {
		return nil
	}
	out := make([]string, 0, len(r.m))
	for s := range r.m {
		out = append(out, s)
	}
	sort.Strings(out)
	return out
}

// firstOnPort is the first scheme by name, other than except, whose
// default port is port; "" when there is none. (Names would sort a new
// slice for every request to a port not its scheme's own.)
func (r *Registry) firstOnPort(port int, except string) string {
	if r == nil {
		return ""
	}
	for _, name := range r.ports[port] { // asked for every URL: not a walk of m
		if name != except {
			return name
		}
	}
	return ""
}

// grammar is scheme's grammar, the generic one when it is unknown.
func (r *Registry) grammar(scheme string) Grammar {
	s, _ := r.Lookup(scheme)
	return s.Grammar
}

// DefaultPort is scheme's default port, 0 when unknown or when it has none.
func (r *Registry) DefaultPort(scheme string) int {
	s, _ := r.Lookup(scheme)
	return s.DefaultPort
}

// Parse parses raw as Parse does, and then by the grammar its scheme has
// in r (host required, "?" ending the host).
func (r *Registry) Parse(raw string) (*URL, error) {
	return parseWith(r, raw)
}

// View is the typed view of u by its scheme's record: nil, nil when the
// scheme is unknown or has no view.
func (r *Registry) View(u *URL) (any, error) {
	s, ok := r.Lookup(u.Scheme)
	if !ok || s.View == nil {
		return nil, nil
	}
	return s.View(u)
}

// Equal is the package function Equal with the schemes of r: their
// default ports are the same as none and their grammar applies.
func (r *Registry) Equal(a, b string) (bool, error) {
	return equalWith(r, a, b)
}

// Key is u's canonical text for de-duplication: two URLs have the same
// Key exactly when r.Equal says they are equal. A crawl's seen set and a
// shared frontier keep Keys, never the URLs as written.
func (r *Registry) Key(u *URL) string {
	return urlEquivKey(r, u)
}

// Resolve is the package function Resolve parsing the result with r.
func (r *Registry) Resolve(base *URL, ref string) (*URL, error) {
	return resolveWith(r, base, ref)
}

// RegisterScheme adds scheme records to c: their grammar, view and port
// to c's registry and, for each record with one, the driver as by
// Register. A record without a driver may complete a driver registered
// alone with Register. A record registered twice, or a second driver for
// a scheme, panics as Register does.
func (c *Client) RegisterScheme(recs ...Scheme) {
	for _, rec := range recs {
		if _, dup := c.drivers[strings.ToLower(rec.Name)]; dup && rec.Driver != nil {
			panic("fetch: Register called twice for scheme " + strings.ToLower(rec.Name))
		}
		c.registry.Add(rec)
		if rec.Driver != nil {
			c.Register(rec.Name, rec.Driver)
		}
	}
}

// Registry is c's registry of scheme records. It is c's own: records
// added to it (Registry().Add) reach c's parser and port policy.
func (c *Client) Registry() *Registry { return &c.registry }

// Parse parses raw with the grammar of the schemes registered with c.
func (c *Client) Parse(raw string) (*URL, error) { return c.registry.Parse(raw) }

// View is the typed view of u by the record of its scheme in c; nil, nil
// for a scheme without one.
func (c *Client) View(u *URL) (any, error) { return c.registry.View(u) }

// ViewOf makes a Scheme's View from a scheme package's typed parser
// (ftp.ParseURL, ...): a failure is a nil any, never a typed nil pointer,
// which "fetch --parse" would print as null.
func ViewOf[T any](parse func(*URL) (*T, error)) func(*URL) (any, error) {
	return func(u *URL) (any, error) {
		v, err := parse(u)
		if err != nil {
			return nil, err
		}
		return v, nil
	}
}
