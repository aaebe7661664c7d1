package nntp

import (
	"strings"

	"github.com/fetchproject/fetch/fetch"
)

// Schemes are the records of nntp (RFC 1738 §3.7) and news (§3.6, with
// RFC 5538's news://server/group): both on port 119, where they speak one
// protocol, a host required in the "//" form, the views ParseURL and
// ParseNewsURL, and one driver configured by cfg for both.
func Schemes(cfg Config) []fetch.Scheme {
	d := New(cfg)
	return []fetch.Scheme{
		{Name: "nntp", DefaultPort: DefaultPort, Grammar: fetch.Grammar{HostRequired: true},
			View: fetch.ViewOf(ParseURL), Driver: d},
		{Name: "news", DefaultPort: DefaultPort, Grammar: fetch.Grammar{HostRequired: true},
			View: fetch.ViewOf(ParseNewsURL), Driver: d},
	}
}

// URL is an nntp URL's path (RFC 1738 §3.7): <group>[/<article>].
type URL struct {
	Group      string `json:"group"`
	Article    int64  `json:"article,omitempty"`
	HasArticle bool   `json:"has_article"`
}

// ParseURL splits u's path into a newsgroup name and an article number.
func ParseURL(u *fetch.URL) (*URL, error) {
	if err := u.NeedHost(false); err != nil {
		return nil, err
	}
	path, base := u.Path, u.PathOffset()
	group, art := path, ""
	hasArt := false
	if i := strings.IndexByte(path, '/'); i >= 0 {
		group, art, hasArt = path[:i], path[i+1:], true
	}
	g, err := u.DecodeAt(group, "group", base)
	if err != nil {
		return nil, err
	}
	if i, msg := urlCheckGroup(g, false); msg != "" {
		return nil, u.ViewError("group", base+fetch.EscapedIndex(group, i), msg)
	}
	n := &URL{Group: g}
	if hasArt && art != "" {
		artOff := base + len(group) + 1
		var v int64
		for i := 0; i < len(art); i++ {
			c := art[i]
			if !urlIsDigit(c) {
				return nil, u.ViewError("article", artOff+i, "article number must be decimal digits")
			}
			if v > (1<<63-1-int64(c-'0'))/10 {
				return nil, u.ViewError("article", artOff, "article number too large")
			}
			v = v*10 + int64(c-'0')
		}
		n.Article, n.HasArticle = v, true
	}
	return n, nil
}

// urlCheckGroup checks RFC 1738's group = alpha *[alpha|digit|-|.|+|_];
// with wild, "*" and "?" (RFC 5538 wildmat) are allowed anywhere.
func urlCheckGroup(g string, wild bool) (int, string) {
	if g == "" {
		return 0, "newsgroup name is empty"
	}
	for i := 0; i < len(g); i++ {
		c := g[i]
		switch {
		case wild && (c == '*' || c == '?'):
		case urlIsAlpha(c):
		case i > 0 && (urlIsDigit(c) || c == '-' || c == '.' || c == '+' || c == '_'):
		case i == 0:
			return 0, "newsgroup name must start with a letter"
		default:
			return i, "newsgroup name may hold only letters, digits and \"-.+_\""
		}
	}
	return 0, ""
}

// NewsURL is a news URL (RFC 1738 §3.6): a group, a message-id or "*".
type NewsURL struct {
	Group     string `json:"group,omitempty"`
	MessageID string `json:"message_id,omitempty"` // without <>, e.g. "123@host.com"
	All       bool   `json:"all,omitempty"`        // news:*
	Wildmat   bool   `json:"wildmat,omitempty"`    // group holds * or ? (RFC 5538)
}

// ParseNewsURL tells a message-id (it holds "@") from a newsgroup name. The
// RFC 5538 form news://server/group is read too (its path is the group).
func ParseNewsURL(u *fetch.URL) (*NewsURL, error) {
	part, base := u.Opaque, u.PathOffset()
	if u.Slashes {
		if u.HasUser {
			return nil, u.ViewError("user", len(u.Scheme)+3, "a news URL may not hold a user name or password")
		}
		part = u.Path
	}
	v, err := u.DecodeAt(part, "group", base)
	if err != nil {
		return nil, err
	}
	n := &NewsURL{}
	switch {
	case v == "*":
		n.All = true
	case strings.IndexByte(v, '@') >= 0:
		id := v
		if strings.HasPrefix(id, "<") && strings.HasSuffix(id, ">") && len(id) >= 2 {
			id = id[1 : len(id)-1]
		}
		at := strings.LastIndexByte(id, '@')
		if at <= 0 || at == len(id)-1 {
			return nil, u.ViewError("message-id", base, "message-id must be <unique>@<domain>")
		}
		if i := urlBadIDByte(id); i >= 0 {
			return nil, u.ViewError("message-id", base+fetch.EscapedIndex(part, i), "message-id may not hold spaces, controls, \"<\" or \">\"")
		}
		n.MessageID = id
	default:
		wild := strings.ContainsAny(v, "*?")
		if i, msg := urlCheckGroup(v, true); msg != "" {
			return nil, u.ViewError("group", base+fetch.EscapedIndex(part, i), msg)
		}
		n.Group, n.Wildmat = v, wild
	}
	return n, nil
}

// urlBadIDByte is the index of the first byte a news URL's message-id
// may not hold (a space, a control, "<" or ">"), or -1.
func urlBadIDByte(id string) int {
	for i := 0; i < len(id); i++ {
		if c := id[i]; c <= ' ' || c == 0x7f || c == '<' || c == '>' {
			return i
		}
	}
	return -1
}

// urlMessageID reports whether id (without "<>") makes a news URL that
// ParseNewsURL reads back as that message-id: <unique>@<domain>, neither
// part empty, no byte urlBadIDByte refuses.
func urlMessageID(id string) bool {
	at := strings.LastIndexByte(id, '@')
	return at > 0 && at < len(id)-1 && urlBadIDByte(id) < 0
}

func urlIsAlpha(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }
func urlIsDigit(c byte) bool { return '0' <= c && c <= '9' }
