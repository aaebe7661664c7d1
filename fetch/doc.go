// Package fetch is the core of the fetch client: the RFC 1738 URL model,
// the dispatcher that maps each URL scheme to a driver, and the safeguards
// every driver shares (the port policy and the line-protocol check).
//
// A program builds a Client, registers drivers (package schemes wires all
// of them), and calls Client.Fetch. Drivers implement the one-method Driver
// interface and receive a Request that carries the parsed URL, the caller's
// options and the helpers that keep every connection inside the policy.
package fetch
