package fetch

import "strings"

// Resolve expands ref, a URL in RFC 1630's partial form, in the context of
// base. The rules ("Partial (relative) form"):
//
//   - A ref with its own scheme ("g:h": a colon before any slash) is
//     absolute and stands alone.
//   - A ref that starts with n consecutive slashes keeps everything of the
//     base up to the first run of exactly n slashes: in the context of
//     magic://a/b/c//d/e/f, "/g" is magic://a/g and "//g" is magic://g.
//   - Otherwise the last segment of the base's path (after its rightmost
//     slash) is replaced by ref; then "xxx/../" and "/." are removed,
//     where xxx, ".." and "." are complete segments.
//
// An empty ref is the base itself, "?search" the base's whole path with
// that search part (RFC 1808 §5.1), and "#frag" the base with that
// fragment; the base's own fragment never carries over. A "?search" in
// the base is not searched for slashes, and dot segments are removed
// only before the "?". The result is parsed by Parse and fails as it does
// (Registry.Resolve parses it with the registered schemes' grammar).
func Resolve(base *URL, ref string) (*URL, error) {
	return resolveWith(nil, base, ref)
}

func resolveWith(reg *Registry, base *URL, ref string) (*URL, error) {
	r, _ := urlUnwrap(ref)
	if base == nil || urlSchemeLen(r) > 0 {
		return parseWith(reg, r)
	}
	b := base.Clone()
	b.Fragment, b.HasFragment = "", false
	ctx := b.String()
	if r == "" || r[0] == '#' {
		return parseWith(reg, ctx+r)
	}

	// Where the path (or opaque part) starts in ctx, and where its
	// search part begins.
	pathStart := len(b.Scheme) + 1
	body := urlEscapeUnsafe(b.Opaque)
	if b.Slashes {
		pathStart = len(b.prefix(false))
		body = urlEscapeUnsafe(b.Path)
	}
	limit := len(body)
	if q := strings.IndexByte(body, '?'); q >= 0 {
		limit = q
	}

	var joined string
	if n := urlLeadingSlashes(r); n > 0 {
		if i := urlFindSlashRun(ctx[:pathStart+limit], len(b.Scheme)+1, n); i >= 0 {
			joined = ctx[:i] + r
		} else if n == 1 && b.Slashes {
			pre := ctx[:pathStart]
			if pre != b.Scheme+"://" { // an empty authority keeps its "//"
				pre = strings.TrimSuffix(pre, "/")
			}
			joined = pre + r
		} else {
			joined = b.Scheme + ":" + r
		}
	} else {
		dir := body[:strings.LastIndexByte(body[:limit], '/')+1]
		if r[0] == '?' {
			// RFC 1808 §5.1, RFC 3986 §5.4.1: "?y" keeps the whole
			// path and replaces only the search part.
			dir = body[:limit]
		}
		if b.Slashes && !b.HasPath {
			joined = ctx[:pathStart] + "/" + dir + r
		} else {
			joined = ctx[:pathStart] + dir + r
		}
	}
	u, err := parseWith(reg, joined)
	if err != nil {
		return nil, err
	}
	if u.Slashes {
		u.Path = urlRemoveDots(u.Path)
	} else if strings.HasPrefix(u.Opaque, "/") {
		u.Opaque = "/" + urlRemoveDots(u.Opaque[1:])
		if strings.HasPrefix(u.Opaque, "//") {
			// Written "scheme://x", it would read as a host: "/./"
			// keeps it a path of the same segments.
			u.Opaque = "/." + u.Opaque
		}
	}
	return u, nil
}

func urlLeadingSlashes(s string) int {
	n := 0
	for n < len(s) && s[n] == '/' {
		n++
	}
	return n
}

// urlFindSlashRun is the index in s, from start on, of the first run of
// exactly n consecutive slashes, or -1.
func urlFindSlashRun(s string, start, n int) int {
	for i := start; i < len(s); {
		if s[i] != '/' {
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '/' {
			j++
		}
		if j-i == n {
			return i
		}
		i = j
	}
	return -1
}

// urlRemoveDots removes "xxx/../" and "/." from the part of an escaped
// path before its "?" (RFC 1630). A ".." with nothing left to remove
// stays; a final "." or ".." leaves the path ending in "/".
func urlRemoveDots(p string) string {
	tail := ""
	if q := strings.IndexByte(p, '?'); q >= 0 {
		p, tail = p[:q], p[q:]
	}
	if !strings.Contains(p, ".") {
		return p + tail
	}
	segs := strings.Split(p, "/")
	out := make([]string, 0, len(segs))
	for i, s := range segs {
		last := i == len(segs)-1
		switch {
		case s == ".":
			if last {
				out = append(out, "")
			}
		case s == ".." && len(out) > 0 && out[len(out)-1] != "..":
			out = out[:len(out)-1]
			if last {
				out = append(out, "")
			}
		default:
			out = append(out, s)
		}
	}
	return strings.Join(out, "/") + tail
}
