package main

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/fetchproject/fetch/fetch"
)

// envFor names the environment variable that overrides a configuration
// file setting; the drivers read these themselves when the setting is
// empty, so the file only fills a setting whose variable is unset.
var envFor = map[string]string{
	"nntp-server": "NNTPSERVER",
	"from":        "EMAIL",
}

// envSets reports whether the environment already gives the setting.
func envSets(name string) bool {
	if name == "proxy" {
		// A variable fetch.ProxyFromEnvironment reads is the
		// environment's gateway choice: <scheme>_proxy, or its upper
		// case but HTTP_PROXY (which a CGI program's caller can set).
		// all_proxy and no_proxy choose no gateway, and another case
		// is not read: neither may leave the file's gateway unused.
		for _, kv := range os.Environ() {
			k, v, _ := strings.Cut(kv, "=")
			scheme, ok := strings.CutSuffix(strings.ToLower(k), "_proxy")
			if !ok || v == "" || scheme == "" || scheme == "no" || scheme == "all" {
				continue
			}
			if k == strings.ToLower(k) || k == strings.ToUpper(k) && scheme != "http" {
				return true
			}
		}
		return false
	}
	env := envFor[name]
	return env != "" && os.Getenv(env) != ""
}

// yesNo reads a yes-or-no setting: yes/no, on/off, and what
// strconv.ParseBool takes (true/false, 1/0, t/f).
func yesNo(v string) (on, ok bool) {
	switch strings.ToLower(v) {
	case "yes", "on":
		return true, true
	case "no", "off":
		return false, true
	}
	on, err := strconv.ParseBool(v)
	return on, err == nil
}

// secretKeys may appear only in the configuration file.
var secretKeys = map[string]bool{
	"nntp-password": true,
	"smtp-user":     true,
	"smtp-password": true,
	"smtp-starttls": true,
}

// commandLineOnly are the flags that choose what a run is, read before
// the file is: from it, they would be ignored (or a crawl obeyed only
// when the command line made the run a batch).
var commandLineOnly = map[string]bool{
	"config": true, "version": true,
	"i": true, "input-file": true,
	"r": true, "recursive": true,
	// a queue's run: from the file, "fetch URL" would enqueue or print
	// the queue's counts rather than fetch, and every batch be a worker
	"enqueue": true, "queue": true, "queue-status": true,
	// the runs that fetch nothing, and the one that shows a URL's
	// metadata instead of its document (which no batch can do)
	"parse": true, "base": true, "info": true,
}

// exclusiveFlags pairs each flag with those it cannot go with. One of
// them on the command line leaves the file's others unused: the file's
// "remote-name = yes" is a default that an explicit -o replaces, not a
// second choice that makes the run a usage error ("-o and -O cannot be
// used together").
var exclusiveFlags = map[string][]string{
	"o": {"O", "remote-name"}, "output": {"O", "remote-name"},
	"O": {"o", "output"}, "remote-name": {"o", "output"},
	"progress": {"no-progress"}, "no-progress": {"progress"},
}

// excludedBy reports a setting that a flag given on the command line
// excludes (exclusiveFlags).
func excludedBy(o *options, name string) bool {
	for _, other := range exclusiveFlags[name] {
		if o.set[other] {
			return true
		}
	}
	return false
}

// configPath is --config, else $FETCH_CONFIG, else the user's
// configuration directory's fetch/config. explicit says the user named it.
func configPath(o *options) (path string, explicit bool) {
	if o.configFile != "" {
		return o.configFile, true
	}
	if p := os.Getenv("FETCH_CONFIG"); p != "" {
		return p, true
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", false
	}
	return filepath.Join(dir, "fetch", "config"), false
}

// applyConfig reads "name = value" lines (# starts a comment) and sets
// each flag the command line and the environment left unset.
func applyConfig(o *options) error {
	path, explicit := configPath(o)
	if path == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		if !explicit && errors.Is(err, os.ErrNotExist) {
			return nil
		}
		return &fetch.Error{Kind: fetch.KindLocal, Op: "config", Offset: -1, Err: err}
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(line, "=")
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if !ok || name == "" {
			return configError(path, n, "want name = value")
		}
		if name == "smtp-starttls" {
			on, ok := yesNo(value)
			if !ok {
				return configError(path, n, fmt.Sprintf("smtp-starttls is yes or no, not %q", value))
			}
			value = strconv.FormatBool(on)
		}
		if secretKeys[name] {
			o.secrets[name] = value
			continue
		}
		f := o.fs.Lookup(name)
		if f == nil {
			return configError(path, n, fmt.Sprintf("unknown setting %q (settings are flag names, see fetch --help)", name))
		}
		if commandLineOnly[name] {
			return configError(path, n, name+" is for the command line: it says what a run is, not a default")
		}
		if (name == "C" || name == "continue-at") && value != "-" {
			// An offset is one file's: as every fetch's default it would
			// cut each file saved at that byte and append the rest.
			return configError(path, n, fmt.Sprintf("%s is - (resume each file saved) in the configuration file, not %q: an offset is for one URL, on the command line", name, value))
		}
		if isBoolFlag(f) {
			// On or off: yes/no as smtp-starttls, not only what the flag
			// package reads (whose message is "parse error").
			on, ok := yesNo(value)
			if !ok {
				return configError(path, n, fmt.Sprintf("%s is yes or no, not %q", name, value))
			}
			value = strconv.FormatBool(on)
		}
		if o.set[name] || envSets(name) || excludedBy(o, name) {
			continue
		}
		if err := o.fs.Set(name, value); err != nil {
			return configError(path, n, name+": "+err.Error())
		}
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return configError(path, n+1, fmt.Sprintf("a line longer than %d bytes (not a configuration file?)", bufio.MaxScanTokenSize))
	} else if err != nil {
		return &fetch.Error{Kind: fetch.KindLocal, Op: "config", Offset: -1, Err: err}
	}
	return nil
}

func configError(path string, line int, msg string) error {
	return &fetch.Error{Kind: fetch.KindUsage, Op: "config", Offset: -1, Err: fmt.Errorf("%s:%d: %s", path, line, msg)}
}
