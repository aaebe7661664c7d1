// Package fetchtest is the conformance and hostile-server suite every
// fetch driver runs, in the manner of gocloud.dev's drivertest: a driver's
// tests describe the driver in a small Harness (how to build a client, the
// URLs of a document and a listing, how its protocol opens) and call Run,
// so a new scheme cannot forget a safeguard.
//
// The checks (issue 8; RFC 1738 §6 for the first two):
//
//   - PortPolicy: the WHATWG bad ports and the other schemes' well-known
//     ports are refused before any connection (a counting dialer and, where
//     the port can be bound, a listener prove nothing was dialled); the
//     scheme's own default port is dialled; --allow-port is honoured.
//   - LineSafety: a decoded CR, LF or NUL in each URL part that reaches the
//     wire is refused with KindPolicy (exit 4) and ErrUnsafeLine before a
//     byte reaches the server; parts the protocol sends %-escaped (HTTP
//     paths) must reach the server escaped.
//   - Timeout: a server that accepts and says nothing, one that stalls in
//     the middle of a transfer, and ones that dribble a byte every 100 ms
//     (with Options.MaxTime) end in a KindNetwork timeout within the bound.
//   - Cancel: cancelling the context, during Fetch or while reading the
//     body, returns promptly and closes the connection.
//   - Truncation: a transfer cut short of what the protocol announced
//     (length or end marker) fails with an error wrapping ErrTruncated.
//   - MaxSize: Options.MaxSize stops an endless document with ErrTooLarge;
//     an endless listing is refused before 80 MiB.
//   - LongLine: a 1 MiB protocol line is an error (not a timeout), an
//     endless one is abandoned before 64 MiB; either is ErrLineTooLong,
//     refused by policy (exit 4), its message naming the bound in bytes.
//   - Listing: entries of awkward names and a 100,000-entry listing arrive
//     whole, every entry URL absolute and parsed by fetch.Parse; closing a
//     listing after a few entries leaves nothing behind.
//   - Garbage: arbitrary server bytes never panic, hang or produce an
//     unclassified error (see also FuzzServerBytes).
//
// Every check that talks to a fake server also verifies that no goroutine
// and no file descriptor outlives it. Fakes listen on 127.0.0.1:0 only.
package fetchtest

import (
	"io"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// Harness describes one driver to the suite. Fields left nil switch off
// the checks that need them: a driver without Open (file) runs only the
// port policy and listing checks it can; a Sender (mailto) runs the checks
// that apply to a conversation with no document.
type Harness struct {
	// Scheme is the URL scheme under test ("ftp", "news").
	Scheme string
	// DefaultPort is the scheme's own port, dialled when a URL names none;
	// 0 for a scheme whose port the URL does not choose (mailto), which
	// skips the port policy checks, or one that has no port (file), which
	// keeps only the refusals.
	DefaultPort int

	// NewClient returns a client with the driver registered and opts.
	// server is the fake server's "host:port" for drivers that take their
	// server from configuration (news:, mailto's SMTP server); others
	// ignore it.
	NewClient func(opts fetch.Options, server string) *fetch.Client

	// DocumentURL is the URL of a document on the server at addr
	// ("127.0.0.1:port", or "127.0.0.1" for a URL without a port). For a
	// Sender it is the URL whose fetch sends a message.
	DocumentURL func(addr string) string
	// ListingURL is the URL of a listing on addr; nil when the scheme has
	// none.
	ListingURL func(addr string) string

	// Open speaks the server's side of the protocol on p up to the point
	// where the document's or the listing's bytes begin (for a Sender: up
	// to the server's final reply) and says where they go.
	Open func(p *Peer, o Opening) (*Content, error)
	// ListingLine is the wire form of one listing entry called name, as
	// written inside a listing opened with Opening.Listing.
	ListingLine func(name string) string
	// Names are awkward entry names the listing check serves; nil means
	// DefaultNames.
	Names []string
	// MakeListing, for a driver that lists something local (file), creates
	// a listing of names and returns its URL; it replaces ListingURL and
	// Open for the listing checks.
	MakeListing func(t testing.TB, names []string) string

	// EndMarker says the protocol ends a transfer with a marker beyond the
	// announced length (FTP's 226, NNTP's "."), so a stream that delivers
	// every byte and then closes is still truncated.
	EndMarker bool

	// LinePrefix speaks the opening up to a point where a protocol line is
	// due and returns what the line starts with ("220 " for a greeting);
	// the long-line checks write a 1 MiB or endless line after it. The
	// URL fetched is ListingURL when set, else DocumentURL.
	LinePrefix func(p *Peer) (string, error)

	// ClientFirst marks a protocol whose client speaks first (HTTP,
	// Gopher): a fake's opening bytes are sent only after the request has
	// begun, since a reply before any request is a different fault (net/http
	// reports it as an unsolicited response, not as a slow one).
	ClientFirst bool

	// Wire lists the URL parts that reach the protocol stream.
	Wire []WirePart

	// Sender marks a driver whose fetch delivers a message (mailto): no
	// document, listing, truncation or size checks apply.
	Sender bool

	// Seeds are whole server replies that reach deep into the driver,
	// used by the Garbage check and FuzzServerBytes.
	Seeds [][]byte
}

// Opening says what the client asked for, so Open can answer in kind.
type Opening struct {
	// Listing is set when the client fetched ListingURL.
	Listing bool
	// Length is the size the server announces (SIZE, Content-Length,
	// Gopher+ "+N"), or -1 to announce none and end by closing.
	Length int64
}

// Content is where the body of a transfer goes once Open has spoken the
// protocol's opening.
type Content struct {
	// W takes the bytes of the document or the listing lines.
	W io.Writer
	// End finishes the transfer the way a good one ends (close, ".",
	// "226") and serves the rest of the conversation until the client
	// quits.
	End func() error
	// Abort cuts every connection without the end.
	Abort func()
}

// WirePart is a URL part whose decoded value reaches the protocol stream.
type WirePart struct {
	// Name is the part's name, as fetch.Error.Part should give it.
	Name string
	// Example is a harmless value; the URL built with it must fetch.
	Example string
	// URL builds a URL on addr whose part holds value (decoded: the
	// builder %-encodes it).
	URL func(addr, value string) string
	// Listing makes the fake serve a listing for this URL.
	Listing bool
	// Escaped marks a part the protocol sends %-escaped (an HTTP path):
	// the fetch may go ahead, but no raw CR, LF or NUL may reach the
	// server.
	Escaped bool
	// Bytes are the bad bytes to try; nil means CR, LF, NUL and CR LF.
	Bytes []string
}

// DefaultNames are listing entry names that test a driver's escaping:
// spaces, "%", "#", "?", ";", non-ASCII, a leading dash and dot.
var DefaultNames = []string{
	"plain.txt", "with space", "per%cent", "hash#mark", "ques?tion",
	"semi;type=a", "ünïcödé", "-dash", ".dot", "a&b=c", "tilde~", "plus+sign",
}

// Run runs every check that applies to h as subtests of t.
func Run(t *testing.T, h *Harness) {
	for _, c := range Checks(h) {
		t.Run(c.Name, func(t *testing.T) { c.Fn(t, h) })
	}
}

// Check is one named check of the suite.
type Check struct {
	Name string
	Fn   func(t testing.TB, h *Harness)
}

// Checks lists the checks that apply to h, in the order Run runs them.
func Checks(h *Harness) []Check {
	var cs []Check
	add := func(name string, fn func(testing.TB, *Harness)) { cs = append(cs, Check{name, fn}) }
	if h.DocumentURL != nil && !h.Sender {
		add("PortPolicy/Refused", checkPortsRefused)
		if h.DefaultPort != 0 {
			add("PortPolicy/DefaultAllowed", checkDefaultPort)
			add("PortPolicy/AllowPort", checkAllowPort)
		}
	}
	for _, wp := range h.Wire {
		bad := wp.Bytes
		if bad == nil {
			bad = []string{"\r", "\n", "\x00", "\r\n"}
		}
		add("LineSafety/"+wp.Name+"/clean", func(t testing.TB, h *Harness) { checkLineClean(t, h, wp) })
		for _, b := range bad {
			add("LineSafety/"+wp.Name+"/"+byteName(b), func(t testing.TB, h *Harness) { checkLineUnsafe(t, h, wp, b) })
		}
	}
	if h.Open != nil {
		add("Timeout/Silent", checkSilent)
		add("Timeout/Stall", checkStall)
		add("Timeout/DribbleOpening", checkDribbleOpening)
		add("Timeout/DribbleTransfer", checkDribbleTransfer)
		add("Cancel/DuringFetch", checkCancelFetch)
		if !h.Sender {
			add("Cancel/DuringBody", checkCancelBody)
			add("Truncation/Short", checkTruncShort)
			if h.EndMarker {
				add("Truncation/NoEnd", checkTruncNoEnd)
			}
			add("MaxSize/EndlessDocument", checkMaxSize)
		}
	}
	if h.LinePrefix != nil {
		add("LongLine/1MiB", checkLongLine)
		add("LongLine/Endless", checkEndlessLine)
	}
	if h.MakeListing != nil || h.ListingURL != nil && h.Open != nil && h.ListingLine != nil {
		add("Listing/Names", checkListingNames)
		add("Listing/100000", checkListingLarge)
		if h.MakeListing == nil {
			add("MaxSize/EndlessListing", checkEndlessListing)
			add("Listing/CloseEarly", checkListingCloseEarly)
		}
	}
	if h.Open != nil || h.Seeds != nil {
		add("Garbage", checkGarbage)
	}
	return cs
}

func byteName(b string) string {
	switch b {
	case "\r":
		return "CR"
	case "\n":
		return "LF"
	case "\x00":
		return "NUL"
	case "\r\n":
		return "CRLF"
	}
	return "bytes"
}
