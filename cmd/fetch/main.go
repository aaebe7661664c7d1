// Command fetch dereferences URLs of every RFC 1738 scheme, each through
// its own protocol. Run "fetch --help" for the flags and exit statuses.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/fetchproject/fetch/fetch"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "0.1.0-dev"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal cancels the fetch (temporary files are removed);
	// a second one kills the command at once.
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := run(ctx, os.Args[1:], stdio{in: os.Stdin, out: os.Stdout, err: os.Stderr})
	stop()
	os.Exit(code)
}

// stdio is the command's standard streams, so tests can run it in-process.
type stdio struct {
	in  io.Reader
	out io.Writer
	err io.Writer
}

// run is the whole command; it returns the exit status.
func run(ctx context.Context, args []string, s stdio) int {
	o, err := parseArgs(args)
	if errors.Is(err, errHelp) {
		fmt.Fprint(s.out, usageText)
		return 0
	}
	if err != nil {
		fmt.Fprintf(s.err, "fetch: %v\nRun 'fetch --help' for usage.\n", err)
		return fetch.KindUsage.ExitCode()
	}
	if o.version {
		fmt.Fprintln(s.out, "fetch", version)
		return 0
	}
	if len(o.urls) == 0 {
		fmt.Fprint(s.err, "fetch: no URL given\nUsage: fetch [flags] URL...   (fetch --help for more)\n")
		return fetch.KindUsage.ExitCode()
	}
	if err := applyConfig(o); err != nil {
		return report(s, o, err)
	}
	if err := o.check(); err != nil {
		fmt.Fprintf(s.err, "fetch: %v\n", err)
		return fetch.KindUsage.ExitCode()
	}

	switch {
	case o.parse:
		return each(s, o, func(raw string) error { return printParse(s.out, raw) })
	case o.base != "":
		return each(s, o, func(raw string) error { return printResolved(s.out, o.base, raw) })
	}

	client, err := newClient(o, s)
	if err != nil {
		return report(s, o, err)
	}
	defer client.Close()
	return each(s, o, func(raw string) error { return fetchOne(ctx, client, o, s, raw) })
}

// each runs f for every URL; the status is the first failure's.
func each(s stdio, o *options, f func(string) error) int {
	code := 0
	for _, raw := range o.urls {
		if err := f(raw); err != nil {
			if c := report(s, o, err); code == 0 {
				code = c
			}
		}
	}
	return code
}

// report prints err and returns its exit status.
func report(s stdio, o *options, err error) int {
	k := fetch.KindOf(err)
	if o != nil && o.jsonOut {
		line, _ := json.Marshal(map[string]any{"error": err.Error(), "kind": k.String(), "exit": k.ExitCode()})
		fmt.Fprintln(s.err, string(line))
	} else {
		fmt.Fprintf(s.err, "fetch: %v\n", err)
	}
	return k.ExitCode()
}

func (o *options) check() error {
	if o.output != "" && o.remoteName {
		return errors.New("-o and -O cannot be used together")
	}
	if (o.output != "" || o.remoteName) && len(o.urls) > 1 {
		return errors.New("-o and -O take one URL")
	}
	if o.resume == "-" && o.output == "" && !o.remoteName {
		return errors.New("-C - continues an output file: give -o FILE or -O")
	}
	if o.parse && o.base != "" {
		return errors.New("--parse and --base cannot be used together")
	}
	return nil
}
