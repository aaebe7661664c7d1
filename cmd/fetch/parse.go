package main

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/fetchproject/fetch/fetch"
)

// printParse prints the parsed URL and its scheme's view as JSON.
func printParse(w io.Writer, raw string) error {
	u, err := fetch.Parse(raw)
	if err != nil {
		return err
	}
	out := map[string]any{"url": u}
	view, err := u.View()
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
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

// printResolved resolves ref against base (RFC 1630 partial forms).
func printResolved(w io.Writer, base, ref string) error {
	b, err := fetch.Parse(base)
	if err != nil {
		return err
	}
	u, err := fetch.Resolve(b, ref)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, u.String())
	return err
}
