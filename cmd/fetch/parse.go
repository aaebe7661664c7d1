package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/fetchproject/fetch/schemes"
)

// printParse prints the parsed URL and its scheme's view as JSON. The
// grammar and the view come from each scheme's record in the registry,
// view-only schemes included.
func printParse(w io.Writer, raw string) error {
	reg := schemes.Registry()
	u, err := reg.Parse(raw)
	if err != nil {
		return err
	}
	out := map[string]any{"url": u}
	view, err := reg.View(u)
	if err != nil {
		return err
	}
	if view != nil {
		out[u.Scheme] = view
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", escapeC1(b)) // (decoded parts may hold C1 controls)
	return err
}

// printResolved resolves ref against base (RFC 1630 partial forms).
func printResolved(w io.Writer, base, ref string) error {
	reg := schemes.Registry()
	b, err := reg.Parse(base)
	if err != nil {
		return err
	}
	u, err := reg.Resolve(b, ref)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, u.String())
	return err
}
