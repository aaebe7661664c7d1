package fetch

import (
	"fmt"
	"sort"
)

// badPorts is the WHATWG Fetch standard's list of ports a URL must not
// reach: each belongs to a protocol that a crafted request could abuse.
var badPorts = map[int]bool{
	0: true, 1: true, 7: true, 9: true, 11: true, 13: true, 15: true, 17: true, 19: true,
	20: true, 21: true, 22: true, 23: true, 25: true, 37: true, 42: true, 43: true, 53: true,
	69: true, 77: true, 79: true, 87: true, 95: true, 101: true, 102: true, 103: true,
	104: true, 109: true, 110: true, 111: true, 113: true, 115: true, 117: true, 119: true,
	123: true, 135: true, 137: true, 139: true, 143: true, 161: true, 179: true, 389: true,
	427: true, 465: true, 512: true, 513: true, 514: true, 515: true, 526: true, 530: true,
	531: true, 532: true, 540: true, 548: true, 554: true, 556: true, 563: true, 587: true,
	601: true, 636: true, 989: true, 990: true, 993: true, 995: true, 1719: true, 1720: true,
	1723: true, 2049: true, 3659: true, 4045: true, 4190: true, 5060: true, 5061: true,
	6000: true, 6566: true, 6665: true, 6666: true, 6667: true, 6668: true, 6669: true,
	6679: true, 6697: true, 10080: true,
}

// PortPolicy decides which ports a URL may make a protocol talk to
// (RFC 1738 §6: a URL must not make one protocol talk to another's port).
// The zero value is the default policy. Which port is whose comes from the
// scheme records of a Registry (each scheme's DefaultPort), so a scheme
// registered with a client is protected like the built-in ones.
type PortPolicy struct {
	// Allowed ports are accepted for every scheme (--allow-port).
	Allowed map[int]bool
	// Defaults adds default ports for schemes registered at run time.
	Defaults map[string]int
}

// Allow adds ports to the allowed set.
func (p *PortPolicy) Allow(ports ...int) {
	if p.Allowed == nil {
		p.Allowed = map[int]bool{}
	}
	for _, n := range ports {
		p.Allowed[n] = true
	}
}

func (p *PortPolicy) defaultPort(reg *Registry, scheme string) int {
	if p != nil {
		if n, ok := p.Defaults[scheme]; ok {
			return n
		}
	}
	return reg.DefaultPort(scheme)
}

// defaultOwner is the first scheme by name, other than scheme, that
// p.Defaults gives port, or "".
func (p *PortPolicy) defaultOwner(port int, scheme string) string {
	if p == nil {
		return ""
	}
	owner := ""
	for s, n := range p.Defaults {
		if n == port && s != scheme && (owner == "" || s < owner) {
			owner = s
		}
	}
	return owner
}

// Check returns nil when scheme may connect to port, with the schemes of
// reg (a client's registry; Request.CheckPort passes it). The default
// policy: a scheme's own default port is allowed; ports outside 1–65535,
// the WHATWG bad ports, the default ports of the other schemes in reg
// and, for schemes whose record lacks LowPorts (all but http and https),
// every port below 1024 are refused. Schemes that share a default port
// (news and nntp) speak one protocol and are not "other" to each other.
// Ports named by --allow-port are accepted.
func (p *PortPolicy) Check(reg *Registry, scheme string, port int) error {
	own := p.defaultPort(reg, scheme)
	if port == own && port != 0 {
		return nil
	}
	if port < 1 || port > 65535 {
		return p.refuse(scheme, port, "outside 1-65535")
	}
	if p != nil && p.Allowed[port] {
		return nil
	}
	// Another scheme's port is named as that before the WHATWG list is
	// asked: 21, 23, 119 and 513 are on it too, but a URL does reach
	// them, with its own scheme (rlogin to 23 is "the telnet port").
	if port != reg.DefaultPort(scheme) { // news and nntp share 119
		if s := reg.firstOnPort(port, scheme); s != "" {
			return p.refuse(scheme, port, fmt.Sprintf("it is the %s port", s))
		}
	}
	if s := p.defaultOwner(port, scheme); s != "" {
		return p.refuse(scheme, port, fmt.Sprintf("it is the %s port", s))
	}
	if badPorts[port] {
		return p.refuse(scheme, port, "it belongs to a protocol that must not be reached by URL")
	}
	if rec, _ := reg.Lookup(scheme); port < 1024 && !rec.LowPorts {
		return p.refuse(scheme, port, fmt.Sprintf("ports below 1024 other than %s's own are reserved", scheme))
	}
	return nil
}

func (p *PortPolicy) refuse(scheme string, port int, why string) error {
	msg := fmt.Sprintf("port %d refused for %s: %s", port, scheme, why)
	if port < 1 || port > 65535 {
		// Not a port at all: malformed, as the URL parser says of it, so
		// that it has one exit status wherever it comes from.
		return &Error{Kind: KindMalformed, Op: "port policy", Part: "port", Offset: -1, Err: explained{msg, ErrPortRefused}}
	}
	return &Error{Kind: KindPolicy, Op: "port policy", Offset: -1, Setting: "PortPolicy.Allow",
		Err: &PortRefusal{Scheme: scheme, Port: port, msg: msg}}
}

// BadPorts lists the ports refused for every scheme, sorted.
func BadPorts() []int {
	out := make([]int, 0, len(badPorts))
	for n := range badPorts {
		out = append(out, n)
	}
	sort.Ints(out)
	return out
}

// CheckLine refuses a value that would carry a decoded CR, LF or NUL into
// a line protocol (RFC 1738 §6), naming the URL part it came from.
func CheckLine(part, value string) error {
	for i := 0; i < len(value); i++ {
		switch value[i] {
		case '\r', '\n', 0:
			return &Error{Kind: KindPolicy, Op: "line safety", Part: part, Offset: -1,
				Err: explained{fmt.Sprintf("byte %d of the decoded value is %q: %v", i, value[i], ErrUnsafeLine), ErrUnsafeLine}}
		}
	}
	return nil
}

// explained is a sentinel error with a sentence of its own.
type explained struct {
	msg   string
	cause error
}

func (e explained) Error() string { return e.msg }
func (e explained) Unwrap() error { return e.cause }
