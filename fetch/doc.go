// Package fetch is the core of the fetch client: the RFC 1738 URL model,
// the dispatcher that maps each URL scheme to a driver, and the safeguards
// every driver shares (the port policy and the line-protocol check).
//
// A program builds a Client, registers drivers (package schemes wires all
// of them), and calls Client.Do with a Request made by NewRequest, or
// Client.Fetch with a URL string. What belongs to one fetch (a resume
// offset, search words, form answers, a message body, raw mode, a tighter
// size or time limit, a tracer) travels on the Request; the Client holds
// what is shared (timeouts, port policy, prompter, dialer, gateways, the
// session pool limits) and is safe for concurrent use. Drivers keep their
// sessions in pools (HTTP keep-alive, FTP control connections, NNTP
// sessions) that Client.CloseIdle and Client.Close empty.
//
// Drivers implement the one-method Driver interface and receive a copy of
// the Request with the parsed URL, the options in force and the helpers
// that keep every connection inside the policy; optional interfaces
// (IdleCloser, DefaultPorter) add what only some drivers do.
package fetch
