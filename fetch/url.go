package fetch

// URL is a URL parsed by the RFC 1738 rules. The parts of the common
// Internet scheme syntax (RFC 1738 §3.1) are split out; the url-path stays
// in its escaped form, so each driver decodes a component only where its
// scheme says (an FTP segment's %2F is a slash inside one CWD argument).
type URL struct {
	Scheme string // lower case

	// Slashes reports that the URL used the "//" form of RFC 1738 §3.1.
	Slashes bool

	// Opaque is the scheme-specific part, escaped, when the URL does not
	// use the "//" form (mailto:, news:, or any scheme written without it).
	Opaque string

	User        string // decoded; meaningful when HasUser
	Password    string // decoded; meaningful when HasPassword
	HasUser     bool   // "user@" present, even if empty ("ftp://@host/")
	HasPassword bool   // ":password" present, even if empty ("ftp://foo:@host/")

	// Host is a lower-case domain name (IDNs in A-label form), a dotted
	// quad, or an IPv6 literal without its brackets.
	Host string
	Port int // 0 when the URL names none

	// Path is the url-path after the "/" that ends host:port, escaped.
	// Anything a scheme puts after the path ("?search", ";type=") stays in
	// it; the scheme views split it.
	Path    string
	HasPath bool // the "/" after host:port was present

	Fragment    string // escaped, without "#"; never sent to a server
	HasFragment bool
}
