package nntp

import (
	"errors"
	"fmt"
	"mime"
	"net/mail"
	"strconv"
	"strings"
	"time"
)

// parseStatus splits a status line (RFC 3977 §3.2): three digits, the
// first 1 to 5, then nothing or a space and text.
func parseStatus(line string) (code int, text string, err error) {
	if len(line) < 3 {
		return 0, "", errors.New("malformed reply: no three-digit status code")
	}
	for i := 0; i < 3; i++ {
		if line[i] < '0' || line[i] > '9' {
			return 0, "", errors.New("malformed reply: no three-digit status code")
		}
	}
	if line[0] < '1' || line[0] > '5' {
		return 0, "", fmt.Errorf("malformed reply: status code %s out of range", line[:3])
	}
	if len(line) > 3 && line[3] != ' ' && line[3] != '\t' {
		return 0, "", errors.New("malformed reply: status code not followed by a space")
	}
	code = int(line[0]-'0')*100 + int(line[1]-'0')*10 + int(line[2]-'0')
	if len(line) > 3 {
		text = strings.TrimSpace(line[4:])
	}
	return code, text, nil
}

// groupInfo is a 211 reply to GROUP: "count low high group" (RFC 3977
// §6.1.1.2).
type groupInfo struct {
	Count, Low, High int64
	Name             string
}

func parseGroupReply(text string) (groupInfo, error) {
	f := strings.Fields(text)
	if len(f) < 3 {
		return groupInfo{}, errors.New("malformed GROUP reply: want count, low and high numbers")
	}
	var n [3]int64
	for i := range n {
		v, err := strconv.ParseInt(f[i], 10, 64)
		if err != nil || v < 0 {
			return groupInfo{}, fmt.Errorf("malformed GROUP reply: %q is not an article count or number", f[i])
		}
		n[i] = v
	}
	g := groupInfo{Count: n[0], Low: n[1], High: n[2]}
	if len(f) > 3 {
		g.Name = f[3]
	}
	return g, nil
}

// parseArticleReply reads "n <message-id>" from a 220 reply (RFC 3977
// §6.2.1.2); the id is returned without its angle brackets.
func parseArticleReply(text string) (int64, string, bool) {
	f := strings.Fields(text)
	if len(f) < 2 {
		return 0, "", false
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || n < 0 || !strings.HasPrefix(f[1], "<") || !strings.HasSuffix(f[1], ">") {
		return 0, "", false
	}
	return n, trimAngles(f[1]), true
}

// overview is one line of OVER/XOVER output (RFC 3977 §8.3.2): the
// article number, then Subject, From, Date, Message-ID, References,
// :bytes and :lines, tab-separated; further fields are ignored. A line
// that could not be read has only raw set.
type overview struct {
	Number     int64
	Subject    string
	From       string
	Date       string
	MessageID  string // without "<>"
	References string
	Bytes      int64 // -1 when absent
	Lines      int64 // -1 when absent
	raw        string
	line       string
}

func parseOverview(line string) (overview, error) {
	f := strings.Split(line, "\t")
	if len(f) < 5 {
		return overview{}, fmt.Errorf("malformed overview line: %d fields, want at least 5", len(f))
	}
	n, err := strconv.ParseInt(f[0], 10, 64)
	if err != nil || n < 0 {
		return overview{}, fmt.Errorf("malformed overview line: article number %q", f[0])
	}
	ov := overview{Number: n, Subject: f[1], From: f[2], Date: f[3], MessageID: trimAngles(strings.TrimSpace(f[4])), Bytes: -1, Lines: -1}
	if len(f) > 5 {
		ov.References = f[5]
	}
	if len(f) > 6 {
		ov.Bytes = overviewCount(f[6], "Bytes:")
	}
	if len(f) > 7 {
		ov.Lines = overviewCount(f[7], "Lines:")
	}
	return ov, nil
}

// overviewCount reads a :bytes or :lines field, which some servers write
// with the header name before it; -1 when absent or unreadable.
func overviewCount(s, name string) int64 {
	s = strings.TrimSpace(s)
	if len(s) >= len(name) && strings.EqualFold(s[:len(name)], name) {
		s = strings.TrimSpace(s[len(name):])
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 0 {
		return -1
	}
	return v
}

// trimAngles removes the "<" and ">" around a message-id.
func trimAngles(id string) string {
	if len(id) >= 2 && id[0] == '<' && id[len(id)-1] == '>' {
		return id[1 : len(id)-1]
	}
	return id
}

// activeGroup is one line of LIST ACTIVE (RFC 3977 §7.6.3): "group high
// low status".
type activeGroup struct {
	Name      string
	High, Low int64
	Status    string
}

func parseActive(line string) (activeGroup, error) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return activeGroup{}, errors.New("malformed active line: want group, high and low")
	}
	if !validGroupName(f[0]) {
		return activeGroup{}, fmt.Errorf("malformed active line: group name %q", f[0])
	}
	hi, err1 := strconv.ParseInt(f[1], 10, 64)
	lo, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil || hi < 0 || lo < 0 {
		return activeGroup{}, errors.New("malformed active line: high and low must be article numbers")
	}
	g := activeGroup{Name: f[0], High: hi, Low: lo}
	if len(f) > 3 {
		g.Status = f[3]
	}
	return g, nil
}

// validGroupName accepts RFC 3977 §4.1's newsgroup names: printable
// characters other than the wildmat specials "*,?[\]" and "!".
func validGroupName(g string) bool {
	if g == "" {
		return false
	}
	for i := 0; i < len(g); i++ {
		c := g[i]
		if c <= ' ' || c == 0x7f || strings.IndexByte("!*,?[\\]", c) >= 0 {
			return false
		}
	}
	return true
}

// parseNewsgroups reads one line of LIST NEWSGROUPS (RFC 3977 §7.6.6):
// the group, white space, its description.
func parseNewsgroups(line string) (name, desc string, ok bool) {
	i := strings.IndexAny(line, " \t")
	if i <= 0 {
		return strings.TrimSpace(line), "", line != "" && validGroupName(line)
	}
	name = line[:i]
	if !validGroupName(name) {
		return "", "", false
	}
	return name, strings.TrimSpace(line[i:]), true
}

// parseDate reads an article's Date (RFC 5322 §3.3, with the obsolete
// forms net/mail accepts); the zero time when it cannot.
func parseDate(s string) time.Time {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}
	}
	if t, err := mail.ParseDate(s); err == nil {
		return t
	}
	// A trailing "(UTC)"-style comment that net/mail refuses.
	if i := strings.LastIndexByte(s, '('); i > 0 {
		if t, err := mail.ParseDate(strings.TrimSpace(s[:i])); err == nil {
			return t
		}
	}
	return time.Time{}
}

// decodeWords decodes RFC 2047 encoded-words in a Subject or From for
// display; text it cannot decode is shown as it is.
func decodeWords(s string) string {
	if !strings.Contains(s, "=?") {
		return s
	}
	if d, err := new(mime.WordDecoder).DecodeHeader(s); err == nil {
		return d
	}
	return s
}
