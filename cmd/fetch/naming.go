package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf8"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/gopher"
	"github.com/fetchproject/fetch/schemes/handoff"
)

// destFor is where the i-th URL's document goes: the i-th -o (curl pairs
// them in order), "" for standard output. forced is an explicit "-o -",
// which writes even binary data to a terminal, as curl's "--output -".
func (o *options) destFor(i int) (dest string, forced bool) {
	if len(o.outputs) == 1 && isTemplate(o.outputs[0]) {
		return o.outputs[0], false
	}
	if i >= len(o.outputs) {
		return "", false
	}
	if o.outputs[i] == "-" {
		return "", true
	}
	return o.outputs[i], false
}

// remoteName is -O's file name: the last segment of the URL's path (of
// the selector for gopher, without the Gopher+ string; a news: URL's
// message-id or group, "/" made "_"), decoded, with
// control characters and backslashes replaced by "_". It never names a
// directory other than the current one: no "/", no "." or "..".
func remoteName(u *fetch.URL) (string, error) {
	var name string
	if u.Scheme == "gopher" {
		g, err := gopher.ParseURL(u)
		if err != nil {
			return "", err
		}
		name = g.Selector[strings.LastIndexByte(g.Selector, '/')+1:]
	} else if u.Scheme == "news" {
		// a message-id or a group: one name, as -o's {file} makes it
		var err error
		if name, err = fetch.Unescape(u.Opaque); err != nil {
			return "", err
		}
		name = strings.ReplaceAll(name, "/", "_")
	} else {
		p := u.Path
		if i := strings.IndexAny(p, ";?"); i >= 0 {
			p = p[:i]
		}
		var err error
		if name, err = fetch.Unescape(path.Base("/" + p)); err != nil {
			return "", err
		}
		name = name[strings.LastIndexByte(name, '/')+1:]
	}
	name = safeName(name)
	if name == "" || name == "." || name == ".." || strings.Trim(name, "_") == "" {
		return "", &fetch.Error{Kind: fetch.KindUsage, Op: "-O", URL: u.Redacted(), Part: "path", Offset: -1,
			Err: errors.New("the URL has no file name to save under: use -o FILE")}
	}
	return name, nil
}

// remoteNameOf is remoteName, except that when -O can make no name of a
// URL its scheme's grammar in c refuses (ftp:/u@h/x, a slash short), the
// URL is malformed (exit 3) as anywhere else, not a name -O cannot make
// (a usage error, exit 2). A URL a proxy takes is the proxy's to judge, as
// the request itself is. The grammar is asked only after a failure: a
// name costs nothing more.
func remoteNameOf(c *fetch.Client, u *fetch.URL) (string, error) {
	name, err := remoteName(u)
	if err == nil {
		return name, nil
	}
	if c.Options.Proxy != nil {
		if p, perr := c.Options.Proxy(u); perr == nil && p != nil {
			return "", err
		}
	}
	if _, verr := c.View(u); verr != nil {
		return "", verr
	}
	if d, ok := c.Driver(u.Scheme); ok && handsOff(d) {
		// An rlogin or tn3270 URL never names a file, and -o FILE is
		// refused for it too: say why -O is, not "use -o FILE".
		fe := handOffFileRefusal("-O").(*fetch.Error)
		fe.URL = u.Redacted()
		return "", fe
	} else if !ok {
		// A scheme no driver has is that (exit 3, the nearest named), as
		// without -O: the client says so at dispatch, before any
		// connection.
		res, derr := c.Do(context.Background(), fetch.NewRequestURL(u))
		if derr != nil {
			return "", derr
		}
		res.Close()
	}
	return "", err
}

// remoteFile is a batch's -O file for u: remoteNameOf, made as a batch
// makes every name (safeRelative: cut at 200 bytes, so that it fits in a
// directory entry with room for a "~" suffix). A single -O keeps a name
// that fits whole, as curl and wget do, and cuts only a longer one, to
// the batch's name.
func remoteFile(c *fetch.Client, u *fetch.URL) (string, error) {
	name, err := remoteNameOf(c, u)
	if err != nil {
		return "", err
	}
	rel, err := safeRelative(name)
	if err != nil {
		return "", &fetch.Error{Kind: fetch.KindUsage, Op: "-O", URL: u.Redacted(), Part: "path", Offset: -1, Err: err}
	}
	return rel, nil
}

// outputErr is a failure to write the output file dest: it names dest, the
// file asked for, never the temporary file written beside it.
func outputErr(op, dest string, err error) error {
	var pe *fs.PathError
	var le *os.LinkError // a rename's: it names the temporary file
	if errors.As(err, &pe) {
		err = pe.Err
	} else if errors.As(err, &le) {
		err = le.Err
	} else {
		var fe *fetch.Error
		if errors.As(err, &fe) && fe.Err != nil {
			err = fe.Err
			if errors.As(err, &pe) {
				err = pe.Err
			}
		}
	}
	return &fetch.Error{Kind: fetch.KindLocal, Op: op + " " + dest, Offset: -1, Err: &fileErr{dest, err}}
}

// fileErr is a failure of the file path: its text is err's (outputErr's
// Op names the file), and failedFile finds the file in it.
type fileErr struct {
	path string
	err  error
}

func (e *fileErr) Error() string { return e.err.Error() }
func (e *fileErr) Unwrap() error { return e.err }

// failedFile is the file err is a failure of, or "" when it names none.
func failedFile(err error) string {
	var fe *fileErr
	if errors.As(err, &fe) {
		return filepath.Clean(fe.path)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return filepath.Clean(pe.Path)
	}
	return ""
}

// outputIsTerminal tells whether w is a terminal; tests replace it.
var outputIsTerminal = isTerminalWriter

// binarySniff is how much of a document is looked at before it goes to a
// terminal; a NUL byte in it marks binary data, as curl decides.
const binarySniff = 4096

// refuseBinary looks at the start of res's document and refuses it when
// it is binary: raw bytes sent to a terminal can garble it or drive it
// with escape sequences. The bytes looked at stay in the body.
func refuseBinary(res *fetch.Result) error {
	doc := res.Document
	br := bufio.NewReaderSize(doc.Body, binarySniff)
	head, err := br.Peek(binarySniff)
	doc.Body = bufferedBody{br, doc.Body}
	if err != nil && err != io.EOF && err != bufio.ErrBufferFull && len(head) == 0 {
		return nil // the copy reports the failure
	}
	if bytes.IndexByte(head, 0) < 0 {
		return nil
	}
	return &fetch.Error{Kind: fetch.KindUsage, Op: "output", URL: res.URL.Redacted(), Offset: -1,
		Err: errors.New("binary data not written to the terminal: save it with -o FILE or -O, or give -o - to write it anyway")}
}

// bufferedBody reads through a bufio.Reader and closes the original body.
type bufferedBody struct {
	io.Reader
	c io.Closer
}

func (b bufferedBody) Close() error { return b.c.Close() }

// writeMeta writes a document's metadata line for --json to standard error,
// or appends it to the --json-meta file (created afresh by the run's
// first line).
func writeMeta(o *options, s stdio, j docJSON) error {
	if o.jsonMeta == "" {
		return printJSON(s.err, j)
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_APPEND
	if !o.metaStarted {
		flags |= os.O_TRUNC
		o.metaStarted = true
	}
	f, err := os.OpenFile(o.jsonMeta, flags, 0o666)
	if err != nil {
		return outputErr("--json-meta: create", o.jsonMeta, err)
	}
	if err := printJSON(f, j); err != nil {
		f.Close()
		return outputErr("--json-meta: write", o.jsonMeta, err)
	}
	if err := f.Close(); err != nil {
		return outputErr("--json-meta: write", o.jsonMeta, err)
	}
	return nil
}

// handsOff reports a driver whose sessions run the user's own program
// (rlogin, tn3270), which needs the terminal untouched.
func handsOff(d fetch.Driver) bool {
	_, ok := d.(*handoff.Driver)
	return ok
}

// isTemplate reports an -o value that names each URL's file by its parts
// (templateFields).
func isTemplate(s string) bool {
	for _, f := range templateFields {
		if strings.Contains(s, f) {
			return true
		}
	}
	return false
}

// expandTemplate is the file an -o template of several URLs on the
// command line names for u. The fields are a batch's (templateName), made
// safe the same way; the template's directory, up to the segment holding
// its first field, is taken as written, and the file never leaves it. The
// directories the file needs are created.
func expandTemplate(tmpl string, u *fetch.URL) (string, error) {
	first := len(tmpl)
	for _, f := range templateFields {
		if i := strings.Index(tmpl, f); i >= 0 && i < first {
			first = i
		}
	}
	dir := tmpl[:strings.LastIndexAny(tmpl[:first], "/"+string(filepath.Separator))+1]
	rel, err := templateFile(filepath.ToSlash(tmpl[len(dir):]), u)
	if err != nil {
		return "", err
	}
	out := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(out), 0o777); err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) && errors.Is(pe.Err, syscall.ENOTDIR) {
			// a file where a directory is needed, which MkdirAll names:
			// below the template's directory, an earlier URL's (/a
			// before /a/b, say), which a batch would name apart
			err = fmt.Errorf("%s is a file, not a directory", pe.Path)
			if rel, rerr := filepath.Rel(filepath.Join(dir, "."), pe.Path); rerr == nil && rel != "." && filepath.IsLocal(rel) {
				err = fmt.Errorf("%w: run a batch (--output-dir, -j), which names the directory apart", err)
			}
		}
		return "", outputErr("create the directory of", out, err)
	}
	return out, nil
}

// safeName makes one segment of a file name safe: control and format
// characters, backslashes and invalid UTF-8 become "_". On Windows (see
// windowsNames) so do the characters it forbids in names (< > : " | ? *),
// a final dot or space, which it would drop, and a device's name (CON,
// NUL, COM1...), which it would open instead of a file, gets "_" before
// it. "." and ".." are left to the caller.
func safeName(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == '\\' || r == utf8.RuneError {
			return '_'
		}
		if windowsNames && strings.ContainsRune(`<>:"|?*`, r) {
			return '_'
		}
		return r
	}, s)
	if !windowsNames || s == "." || s == ".." || s == "" {
		return s
	}
	if last := s[len(s)-1]; last == '.' || last == ' ' {
		s = s[:len(s)-1] + "_"
	}
	base, _, _ := strings.Cut(s, ".")
	switch strings.ToUpper(strings.TrimRight(base, " ")) {
	case "CON", "PRN", "AUX", "NUL",
		"COM1", "COM2", "COM3", "COM4", "COM5", "COM6", "COM7", "COM8", "COM9",
		"LPT1", "LPT2", "LPT3", "LPT4", "LPT5", "LPT6", "LPT7", "LPT8", "LPT9":
		s = "_" + s
	}
	return s
}

// windowsNames applies Windows' rules for names in safeName (a variable
// so that the rules are tested everywhere).
var windowsNames = runtime.GOOS == "windows"
