// Package fetch is the core of the fetch client: the RFC 1738 URL model,
// the dispatcher that maps each URL scheme to a driver, and the safeguards
// every driver shares (the port policy and the line-protocol check).
//
// A program builds a Client, registers drivers (package schemes wires all
// of them), and calls Client.Do with a Request made by NewRequest, or
// Client.Fetch with a URL string. What belongs to one fetch (a resume
// offset, search words, form answers, a message body, raw mode, a size or
// time limit in place of the client's, a tracer) travels on the Request;
// the Client holds what is shared (timeouts, port policy, prompter,
// dialer, gateways, the session pool limits) and is safe for concurrent
// use. Drivers keep their sessions in pools (HTTP keep-alive, FTP control
// connections, NNTP sessions) that Client.CloseIdle and Client.Close
// empty.
//
// Drivers implement the one-method Driver interface and receive a copy of
// the Request with the parsed URL, the options in force and the helpers
// that keep every connection inside the policy; optional interfaces
// (IdleCloser, DefaultPorter) add what only some drivers do.
//
// The core knows no scheme by name. It parses the generic syntax of
// RFC 1738 §3.1 (Parse) and keeps escaping, resolution, equivalence and
// the safeguards; everything particular to a scheme is in that scheme's
// registration record (Scheme: name, default port, the Grammar rules that
// differ, the typed URL view, the driver), which its own package exports
// and a Client's Registry holds. Client.Parse and Client.View read a URL by
// its scheme's record; the port policy learns whose port is whose from the
// same records. Adding a scheme is its package plus one RegisterScheme
// line.
//
// Results carry protocol facts in Document.Meta under the Meta* key
// constants, the protocol's own item type in Entry.Item, and driver values
// reached by type with Result.As, Document.As and Entry.As.
package fetch
