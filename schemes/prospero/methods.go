package prospero

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/fetchproject/fetch/fetch"
)

// Method is one ACCESS-METHOD offered for an object (protocol v5,
// "Attributes": <method> <host-type> <host-name> <hsoname-type> <hsoname>
// <method-specific>...), with the URL it maps to.
type Method struct {
	Fields []string `json:"fields"`
	// URL is the method as a URL of its own protocol; empty when the
	// method cannot be followed (Why says why).
	URL string `json:"url,omitempty"`
	Why string `json:"why,omitempty"`
	// Kind is what fetching URL gives: a document, a listing or a session.
	Kind   fetch.ResultKind `json:"kind,omitempty"`
	Chosen bool             `json:"chosen,omitempty"`
}

// Name is the method's name (AFTP, GOPHER, ...).
func (m Method) Name() string { return m.Fields[0] }

// String shows the method as the server sent it, then its URL.
func (m Method) String() string {
	s := Line(m.Fields).String()
	if m.URL != "" {
		s += " -> " + m.URL
	} else {
		s += " (" + m.Why + ")"
	}
	if m.Chosen {
		s += " [chosen]"
	}
	return s
}

// origin is what empty fields (two quotes) of a method default to: the host and
// hsoname of the link the method belongs to (for GET-OBJECT-INFO, the
// server asked and the URL's hsoname).
type origin struct {
	host    string // "host" or "host(port)"; the URL's host alone for GET-OBJECT-INFO
	hsoname string
}

// mapMethod turns one access method into a URL. The rules (protocol v5,
// "Attributes", and dirsrv's practice):
//
//   - AFTP <ht> <host(port)> <nt> <path> BINARY|TEXT|DIRECTORY: anonymous FTP;
//     the path is relative to the anonymous root, so each of its segments
//     is one CWD from the login directory (ftp://host:port/pub/f;type=i).
//   - FTP: the same with a full path from the root (ftp://host/%2Fpath).
//   - GOPHER <ht> <host(port)> <nt> <type><selector> [<type>|TEXT|BINARY]:
//     a one-character sixth field is the item type, the whole fifth field
//     the selector; otherwise the type is the fifth field's first
//     character and the selector the rest. A fifth field that starts
//     with "/" is a selector alone, as dirsrv's Gopher gateway writes
//     an item's raw selector (GOPHER, four empty fields, then TEXT or
//     BINARY, on a link whose name is the selector): its type is 9 for
//     BINARY and 0 otherwise, as Prospero's own client reads them.
//   - WAIS <ht> <host(port)> <nt> <database>[/<type>/<docid>].
//   - TELNET <ht> <host(port)> ...: a session.
//
// LOCAL (a file on the client's own file system), PROSPERO-CONTENTS (the
// bytes through Prospero itself), AFS, NFS and RCP have no URL.
//
// A URL takes the most it can be long (its host and its name %-encoded
// whole) from budget, unless budget is nil; a method whose URL would not
// fit in what is left is not followed.
func mapMethod(f []string, o origin, budget *int) Method {
	m := Method{Fields: f}
	if len(f) < 5 {
		m.Why = fmt.Sprintf("%d fields, at least 5 needed", len(f))
		return m
	}
	switch strings.ToUpper(f[0]) {
	case "LOCAL":
		m.Why = "a file on the server's own host, not followed"
		return m
	case "PROSPERO-CONTENTS":
		m.Why = "the contents through Prospero's CONTENTS attribute, used when no other method is"
		return m
	case "AFS", "NFS", "RCP":
		m.Why = "a file-system method this client does not follow"
		return m
	}
	name := f[4]
	if name == "" {
		name = o.hsoname
	}
	if budget != nil {
		// Before the host and name are looked at: either may be the
		// link's, shared by every method. The host, "[]:" and a port,
		// the scheme, "/", "%2F" or an encoded type, ";type=i": 48 at most.
		hostField := f[2]
		if hostField == "" {
			hostField = o.host
		}
		cost := len(hostField) + 3*len(name) + 48
		if cost > *budget {
			m.Why = fmt.Sprintf("not mapped: the URLs of the reply's methods passed %d bytes", maxMethodURLBytes)
			return m
		}
		*budget -= cost
	}
	host, port, err := splitHost(f[2], o.host)
	if err != nil {
		m.Why = err.Error()
		return m
	}
	if strings.ContainsAny(name, "\r\n\x00\t") {
		m.Why = "the name holds a CR, LF, NUL or tab"
		return m
	}
	hp := host
	if strings.Contains(host, ":") {
		hp = "[" + host + "]"
	}
	if port != 0 {
		hp += ":" + strconv.Itoa(port)
	}
	var u string
	switch strings.ToUpper(f[0]) {
	case "AFTP", "FTP":
		mode := ""
		if len(f) > 5 {
			mode = strings.ToUpper(f[5])
		}
		path := strings.TrimLeft(name, "/")
		var segs []string
		for _, s := range strings.Split(path, "/") {
			segs = append(segs, fetch.Escape(s, ":@&="))
		}
		p := strings.Join(segs, "/")
		if strings.EqualFold(f[0], "FTP") {
			p = "%2F" + p
		}
		m.Kind = fetch.KindDocument
		switch mode {
		case "BINARY":
			p += ";type=i"
		case "TEXT":
			p += ";type=a"
		case "DIRECTORY":
			if !strings.HasSuffix(p, "/") {
				p += "/"
			}
			m.Kind = fetch.KindListing
		}
		u = "ftp://" + hp + "/" + p
	case "GOPHER":
		typ, sel := "", name
		switch {
		case len(f) > 5 && len(f[5]) == 1:
			typ = f[5]
		case strings.HasPrefix(sel, "/"): // no type character: "/" is none
			typ = "0"
			if len(f) > 5 && strings.EqualFold(f[5], "BINARY") {
				typ = "9"
			}
		case sel != "":
			typ, sel = sel[:1], sel[1:]
		default:
			typ = "1"
		}
		m.Kind = fetch.KindDocument
		switch typ {
		case "1", "7":
			m.Kind = fetch.KindListing
		case "8", "T":
			m.Why, m.Kind = "a telnet session behind a Gopher item", ""
			return m
		}
		u = "gopher://" + hp + "/" + fetch.Escape(typ, "") + fetch.Escape(sel, "/:@&=")
	case "WAIS":
		m.Kind = fetch.KindListing
		if strings.Count(name, "/") >= 2 {
			m.Kind = fetch.KindDocument
		}
		u = "wais://" + hp + "/" + fetch.Escape(strings.TrimLeft(name, "/"), "/:@&=")
	case "TELNET":
		m.Kind = fetch.KindSession
		u = "telnet://" + hp + "/"
	default:
		m.Why = "an access method this client does not know"
		return m
	}
	if _, err := fetch.Parse(u); err != nil {
		m.Why = "its URL does not parse: " + err.Error()
		m.Kind = ""
		return m
	}
	m.URL = u
	return m
}

// splitHost reads a host field, "host" or "host(port)", an empty one
// meaning def (written the same way).
func splitHost(h, def string) (string, int, error) {
	port := 0
	if h == "" {
		h = def
	}
	if i := strings.IndexByte(h, '('); i >= 0 {
		if !strings.HasSuffix(h, ")") {
			return "", 0, fmt.Errorf("host %q: a port is written host(port)", clip(h))
		}
		n, err := strconv.Atoi(h[i+1 : len(h)-1])
		if err != nil || n < 1 || n > 65535 {
			return "", 0, fmt.Errorf("host %q: port is not a number from 1 to 65535", clip(h))
		}
		h, port = h[:i], n
	}
	if h == "" {
		return "", 0, fmt.Errorf("no host")
	}
	for i := 0; i < len(h); i++ {
		c := h[i]
		if !(c == '.' || c == '-' || c == ':' || c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return "", 0, fmt.Errorf("host %q holds %q", clip(h), c)
		}
	}
	return strings.ToLower(h), port, nil
}

// maxMethodURLBytes bounds the URLs made from the access methods of one
// reply, together (see mapMethod). A method whose name is empty takes
// its link's hsoname, so without it a long hsoname and many such methods
// cost their product: a reply of 190 KB took a GiB and 20 s. It is the
// reply's own bound: the URLs may take as many bytes as the reply could.
const maxMethodURLBytes = maxReply

// resolveMethods maps every method offered and marks the one to follow:
// the first with a URL, in the server's order, that gives what is wanted
// (any kind when want is empty). The URLs take their bytes from budget
// (nil: no bound), which one reply's calls share.
func resolveMethods(offered [][]string, o origin, budget *int) []Method {
	ms := make([]Method, len(offered))
	chosen := false
	for i, f := range offered {
		ms[i] = mapMethod(f, o, budget)
		if !chosen && ms[i].URL != "" {
			ms[i].Chosen, chosen = true, true
		}
	}
	return ms
}

// chosen returns the index of the chosen method, or -1.
func chosen(ms []Method) int {
	for i, m := range ms {
		if m.Chosen {
			return i
		}
	}
	return -1
}

// offersContents reports whether PROSPERO-CONTENTS is among ms.
func offersContents(ms []Method) bool {
	for _, m := range ms {
		if strings.EqualFold(m.Name(), "PROSPERO-CONTENTS") {
			return true
		}
	}
	return false
}
