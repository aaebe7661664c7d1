package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
	"github.com/fetchproject/fetch/schemes/gopher"
)

// moduleSchemes are the records of this module's schemes, for their
// default ports (a URL naming none is keyed and named by its port).
var moduleSchemes = sync.OnceValue(schemes.Registry)

// defaultPort is scheme's port when a URL names none, 0 when it has none.
func defaultPort(scheme string) int { return moduleSchemes().DefaultPort(scheme) }

// A batch's -o is a template naming each URL's file inside the output
// directory. Its placeholders:
//
//	{scheme} the URL's scheme
//	{host}   the host (IPv6 literal without brackets, ":" as "_"); for
//	         news: URLs, "news"; "localhost" for a URL without one
//	{port}   the port, the scheme's default when the URL names none
//	{path}   the decoded path, "/" kept between segments; the selector for
//	         gopher (never its search or Gopher+ string); "index" when
//	         empty or ending in "/"
//	{file}   the last segment of {path}, as -O names it ({name} too, as
//	         the -o template of several URLs on the command line calls it)
//
// Every segment of the result is made safe: control and format
// characters, "\" and invalid UTF-8 become "_", "." and ".." become "_",
// empty segments are dropped, each is cut to 200 bytes, so a name never
// leaves the output directory whatever the URL says.
var templateFields = []string{"{scheme}", "{host}", "{port}", "{path}", "{file}", "{name}"}

// unknownField is the first "{word}" of an -o value that is no
// placeholder, with the one it was likely meant to be: in a template
// (which holds a placeholder) any such word, elsewhere a placeholder's
// name in other letter case ("{FILE}") or one slip from it ("{fiel}"). It
// would otherwise stand in every name as written.
func unknownField(t string) (field, near string, found bool) {
	names := make([]string, len(templateFields))
	for i, f := range templateFields {
		names[i] = strings.Trim(f, "{}")
	}
	template := isTemplate(t)
	for rest := t; ; {
		i := strings.IndexByte(rest, '{')
		if i < 0 {
			return "", "", false
		}
		j := strings.IndexByte(rest[i:], '}')
		if j < 0 {
			return "", "", false
		}
		word := rest[i+1 : i+j]
		rest = rest[i+j+1:]
		if word == "" || strings.IndexFunc(word, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 || slices.Contains(names, word) {
			continue
		}
		lower := strings.ToLower(word)
		if slices.Contains(names, lower) {
			return "{" + word + "}", "{" + lower + "}", true
		}
		n := fetch.Nearest(lower, names)
		if template {
			if n != "" {
				return "{" + word + "}", "{" + n + "}", true
			}
			return "{" + word + "}", "", true
		}
		if n != "" && len(lower) <= 5 {
			// One slip from a placeholder (Nearest allows one edit
			// in a word this short): "{fiel}" was meant as "{file}",
			// and would name the one file as written.
			return "{" + word + "}", "{" + n + "}", true
		}
	}
}

// fieldError is the usage error for an -o value with an unknown field.
func fieldError(t string) error {
	field, near, found := unknownField(t)
	if !found {
		return nil
	}
	msg := fmt.Sprintf("-o %q: %s is no placeholder (they are %s)", t, field, strings.Join(templateFields[:5], " "))
	if near != "" {
		msg += "; did you mean " + near + "?"
	}
	return errors.New(msg)
}

// checkTemplate refuses a template that would write every URL to one file
// or name a place outside the output directory.
func checkTemplate(t string) error {
	if err := fieldError(t); err != nil {
		return err
	}
	has := false
	for _, f := range templateFields {
		has = has || strings.Contains(t, f)
	}
	if !has {
		return fmt.Errorf("-o %q in a batch is a template and names no field: use %s", t, strings.Join(templateFields[:5], " "))
	}
	if filepath.IsAbs(t) || strings.HasPrefix(t, "/") {
		return fmt.Errorf("-o %q: a batch template is relative to --output-dir", t)
	}
	return nil
}

// templateName is the file name (relative to the output directory) the
// template t gives u.
func templateName(t string, u *fetch.URL) (string, error) {
	segs, err := urlSegments(u)
	if err != nil {
		return "", err
	}
	p := strings.Join(segs, "/")
	file := segs[len(segs)-1]
	host := strings.ReplaceAll(u.Host, ":", "_")
	switch {
	case u.Scheme == "news":
		host = "news"
	case host == "":
		host = "localhost" // file:///x (RFC 1738 §3.10), never "" beside a host's tree
	}
	r := strings.NewReplacer(
		"{scheme}", u.Scheme,
		"{host}", host,
		"{port}", strconv.Itoa(u.PortOr(defaultPort(u.Scheme))),
		"{path}", p,
		"{file}", file,
		"{name}", file,
	)
	return safeRelative(r.Replace(t))
}

// templateFile is templateName with its failure classified: a URL its
// scheme's grammar refuses is the URL's own fault (its error as it is,
// exit 3, as under -O); any other is a usage error of the template.
func templateFile(t string, u *fetch.URL) (string, error) {
	rel, err := templateName(t, u)
	var fe *fetch.Error
	if err != nil && !errors.As(err, &fe) {
		err = &fetch.Error{Kind: fetch.KindUsage, Op: "-o", URL: u.Redacted(), Part: "path", Offset: -1, Err: err}
	}
	return rel, err
}

// urlSegments is the URL's path decoded into segments, never empty: a
// path that is empty or ends in "/" ends in "index".
func urlSegments(u *fetch.URL) ([]string, error) {
	var p string
	switch u.Scheme {
	case "gopher":
		g, err := gopher.ParseURL(u)
		if err != nil {
			return nil, err
		}
		p = g.Selector
		if i := strings.IndexByte(p, '\t'); i >= 0 {
			p = p[:i] // never a search or Gopher+ string in a name
		}
	case "news":
		var err error
		if p, err = fetch.Unescape(u.Opaque); err != nil {
			return nil, err
		}
		p = strings.ReplaceAll(p, "/", "_") // a message-id is one name
	default:
		raw := u.Path
		if i := strings.IndexAny(raw, ";?"); i >= 0 {
			raw = raw[:i]
		}
		var err error
		if p, err = fetch.Unescape(raw); err != nil {
			return nil, err
		}
	}
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s != "" {
			segs = append(segs, s)
		}
	}
	if len(segs) == 0 || strings.HasSuffix(p, "/") {
		segs = append(segs, "index")
	}
	return segs, nil
}

// maxRelative bounds a name in the output directory: a system's limit on
// a whole path (4,096 bytes on Linux) leaves room for the directory's own.
const maxRelative = 3000

// foldDeep keeps a name of segments within maxRelative: past it, the
// segments that do not fit become one, "~", 16 hex digits of the SHA-256
// of their path, "-" and the last segment, so that each deep URL keeps a
// name of its own and the same one in every run.
func foldDeep(segs []string) []string {
	n := len(segs) - 1 // the separators
	for _, s := range segs {
		n += len(s)
	}
	if n <= maxRelative {
		return segs
	}
	last := segs[len(segs)-1]
	kept, size := 0, 0
	for kept < len(segs)-1 && size+len(segs[kept])+1+17+1+len(last) <= maxRelative {
		size += len(segs[kept]) + 1
		kept++
	}
	sum := sha256.Sum256([]byte(strings.Join(segs[kept:], "/")))
	return append(segs[:kept:kept], "~"+hex.EncodeToString(sum[:8])+"-"+last)
}

// safeRelative makes every segment of name safe and checks the result
// stays inside the directory it is relative to.
func safeRelative(name string) (string, error) {
	var out []string
	for _, s := range strings.Split(name, "/") {
		if len(s) > 200 {
			s = strings.ToValidUTF8(s[:200], "_")
		}
		s = safeName(s)
		switch s {
		case "":
			continue
		case ".", "..":
			s = "_"
		}
		if strings.HasPrefix(s, tempPrefix) {
			s = "_" + s[1:] // else a rerun would take it for a killed run's temporary file
		}
		out = append(out, s)
	}
	out = foldDeep(out)
	rel := filepath.Join(out...)
	if rel == "" || !filepath.IsLocal(rel) {
		return "", errors.New("this URL gives no file name inside the output directory")
	}
	return rel, nil
}
