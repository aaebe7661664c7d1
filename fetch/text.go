package fetch

import "strings"

// ExtractURLs finds the URLs written in free text (mail, news, print) as
// RFC 1738's Appendix "Recommendations for URLs in Context" describes,
// and returns their texts, without wrappers, in order:
//
//   - <URL:...>, the recommended wrapper, and <...> whose content starts
//     with "scheme:". Whitespace inside the brackets (spaces, line breaks,
//     tabs) was added to break a long URL across lines and is removed.
//     A line broken right after a hyphen is treated the same way: the
//     whitespace around the break goes and the hyphen stays, since no
//     whitespace may be introduced after a hyphen and the hyphen is more
//     likely part of the URL than a typesetter's addition.
//   - A bare "URL:" prefix followed by "scheme:": the URL runs to the
//     next whitespace, except that a line ending in "-" continues on the
//     next line (the same hyphen rule); trailing sentence punctuation
//     (".,;:!?" and quotes, and a ")" with no "(") is not part of it.
//
// The texts are not parsed; pass each to Parse.
func ExtractURLs(text string) []string {
	var out []string
	closeAhead := strings.IndexByte(text, '>') >= 0
	for i := 0; i < len(text); {
		c := text[i]
		if c == '<' && closeAhead {
			end := strings.IndexByte(text[i+1:], '>')
			if end < 0 {
				closeAhead = false
				i++
				continue
			}
			inner := text[i+1 : i+1+end]
			if k := strings.LastIndexByte(inner, '<'); k >= 0 {
				i += 1 + k // a later "<" opens the wrapper
				continue
			}
			// The scheme must lead the content ("<see URL:x:y>" is prose).
			s := strings.TrimLeft(inner, " \t\r\n\f\v")
			if len(s) > 4 && strings.EqualFold(s[:4], "URL:") {
				s = strings.TrimLeft(s[4:], " \t\r\n\f\v")
			}
			if urlSchemeLen(s) > 0 {
				out = append(out, urlDropSpace(s))
				i += end + 2
				continue
			}
			i++
			continue
		}
		if (c == 'U' || c == 'u') && len(text)-i > 4 && strings.EqualFold(text[i:i+4], "URL:") &&
			(i == 0 || !(urlIsAlpha(text[i-1]) || urlIsDigit(text[i-1]))) {
			j := i + 4
			for j < len(text) && (text[j] == ' ' || text[j] == '\t') {
				j++
			}
			if j < len(text) && text[j] == '<' {
				i = j // "URL: <...>": the wrapper branch takes it
				continue
			}
			// The scheme first: reading to the next whitespace for
			// each "URL:" that has none made the text's cost its
			// square.
			if urlBareScheme(text, j) {
				s, next := urlScanBare(text, j)
				if urlSchemeLen(s) > 0 {
					out = append(out, s)
					i = next
					continue
				}
			}
		}
		i++
	}
	return out
}

// urlDropSpace removes every whitespace octet from s, leaving the other
// octets (valid UTF-8 or not) as they are.
func urlDropSpace(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if !urlIsSpace(s[i]) {
			b = append(b, s[i])
		}
	}
	return string(b)
}

// urlBareScheme reports whether the URL urlScanBare reads at text[i]
// starts with a scheme, reading no further than the scheme's ":" (and so
// never past the next "URL:"): the scheme's characters, across the same
// line breaks after a hyphen that urlScanBare joins.
func urlBareScheme(text string, i int) bool {
	for start := i; i < len(text); {
		c := text[i]
		switch {
		case i == start && !urlIsAlpha(c):
			return false
		case c == ':':
			return true
		case urlIsSchemeChar(c):
			i++
		case urlIsSpace(c) && text[i-1] == '-':
			k, newline := i, false
			for k < len(text) && urlIsSpace(text[k]) {
				newline = newline || text[k] == '\n' || text[k] == '\r'
				k++
			}
			if !newline || k == len(text) {
				return false
			}
			i = k
		default:
			return false
		}
	}
	return false
}

// urlScanBare reads an unwrapped URL starting at text[i]: up to the next
// whitespace, joining the next line when a line ends right after "-".
// It returns the URL and the index after it.
func urlScanBare(text string, i int) (string, int) {
	var b strings.Builder
	for {
		j := i
		for j < len(text) && !urlIsSpace(text[j]) && text[j] != '<' && text[j] != '>' {
			j++
		}
		b.WriteString(text[i:j])
		i = j
		if j == 0 || j == len(text) || text[j-1] != '-' || !urlIsSpace(text[j]) {
			break
		}
		k, newline := j, false
		for k < len(text) && urlIsSpace(text[k]) {
			if text[k] == '\n' || text[k] == '\r' {
				newline = true
			}
			k++
		}
		if !newline || k == len(text) {
			break
		}
		i = k
	}
	s := b.String()
	// A ")" goes when it closes no "(" of the URL ("(see URL:x:/a/(b))").
	open := strings.Count(s, "(") - strings.Count(s, ")")
	for s != "" {
		last := s[len(s)-1]
		if strings.IndexByte(".,;:!?'\"", last) >= 0 || (last == ')' && open < 0) {
			if last == ')' {
				open++
			}
			s = s[:len(s)-1]
			continue
		}
		break
	}
	return s, i
}
