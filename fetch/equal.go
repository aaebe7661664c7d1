package fetch

import "strings"

// Equal reports whether URLs a and b are the same by RFC 1630's rules:
// both are brought to one encoding level for UNRESERVED characters only
// ("%2D" is "-"), never for reserved ones ("%2F" is not "/", Example 2);
// hexadecimal digits are compared in one case, scheme and host without
// case, a registered scheme's default port is the same as none
// (http://h:80/ is http://h/), and "http://h" is "http://h/". In the
// search part (after "?") of a scheme whose Grammar has PlusInQuery (http,
// https, wais) "%2B" stays apart from "+", which there stands for a space. An illegal URL ("%*", "%as": RFC 1630 Example 3) is
// an error.
//
// Equal knows no scheme (see Parse): default ports and the "+" rule are
// the registered schemes' own, applied by Registry.Equal.
func Equal(a, b string) (bool, error) {
	return equalWith(nil, a, b)
}

func equalWith(reg *Registry, a, b string) (bool, error) {
	ua, err := parseWith(reg, a)
	if err != nil {
		return false, err
	}
	ub, err := parseWith(reg, b)
	if err != nil {
		return false, err
	}
	return urlEquivKey(reg, ua) == urlEquivKey(reg, ub), nil
}

// urlEquivKey is u's canonical text with equivalent spellings unified.
func urlEquivKey(reg *Registry, u *URL) string {
	c := u.Clone()
	rec, _ := reg.Lookup(c.Scheme)
	if c.Port != 0 && c.Port == rec.DefaultPort {
		c.Port = 0
	}
	plusQuery := rec.Grammar.PlusInQuery
	if c.Slashes {
		if c.Path == "" || (c.Path[0] == '?' && !c.HasPath) {
			c.HasPath = true
		}
		c.Path = urlNormEscapes(c.Path, plusQuery)
		if g := rec.Grammar.EmptyPath; g != "" && c.Path == g {
			c.Path = ""
		}
	}
	c.Opaque = urlNormEscapes(c.Opaque, false)
	c.Fragment = urlNormEscapes(c.Fragment, false)
	return c.String()
}

// urlNormEscapes decodes the escapes of unreserved characters in escaped
// s and upper-cases the others. With plusQuery, "%2B" after the first "?"
// stays encoded.
func urlNormEscapes(s string, plusQuery bool) string {
	if strings.IndexByte(s, '%') < 0 {
		return s
	}
	var b strings.Builder
	inQuery := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '?' {
			inQuery = true
		}
		if c != '%' || !urlValidEscape(s, i) {
			b.WriteByte(c)
			continue
		}
		d := byte(urlUnhex(s[i+1])<<4 | urlUnhex(s[i+2]))
		i += 2
		if urlIsUnreserved(d) && !(d == '+' && plusQuery && inQuery) {
			b.WriteByte(d)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(urlUpperHex[d>>4])
		b.WriteByte(urlUpperHex[d&15])
	}
	return b.String()
}
