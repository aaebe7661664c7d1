package nntp

import "strings"

// local is the article as the driver delivers it without Raw: in local
// line ends (LF), as a news reader saves it.
func (a fakeArticle) local() string { return strings.ReplaceAll(a.text, "\r\n", "\n") }
