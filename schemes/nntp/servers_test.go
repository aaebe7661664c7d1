package nntp

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// TestWildmatWithoutServerWildmat: news:comp.* (RFC 5538) against a
// server that takes no pattern after LIST ACTIVE (RFC 2980 servers answer
// 501) or knows no LIST ACTIVE at all (RFC 977: 500) lists the matching
// groups, matched here, as news:* lists every group on such a server.
func TestWildmatWithoutServerWildmat(t *testing.T) {
	noPattern := func(c *fakeConn, line string) bool {
		up := strings.ToUpper(line)
		if (strings.HasPrefix(up, "LIST ACTIVE ") || strings.HasPrefix(up, "LIST NEWSGROUPS ")) && strings.TrimSpace(line[strings.LastIndexByte(line, ' '):]) != "" {
			c.printf("501 Syntax error")
			return true
		}
		return false
	}
	for _, tc := range []struct {
		name     string
		fake     fake
		wantDesc bool
	}{
		{"RFC 977 LIST only", fake{noActive: true}, false},
		{"LIST ACTIVE without a pattern", fake{caps: readerCaps, handle: noPattern}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.fake.groups = defaultGroups()
			f := newFake(t, &tc.fake)
			c := client(fetch.Options{}, Config{Server: f.addr()})
			res, _, err := get(t, c, "news:fetch.test.*")
			if err != nil {
				t.Fatalf("news:fetch.test.*: %v\nthe client sent:\n%s", err, f.transcript(t))
			}
			want := "[news:fetch.test.alpha news:fetch.test.beta news:fetch.test.empty news:fetch.test.secret]"
			if got := fmt.Sprint(urls(res.Listing)); got != want {
				t.Errorf("URLs %s, want %s", got, want)
			}
			if tc.wantDesc && (len(res.Listing.Entries) == 0 || res.Listing.Entries[0].Description != "Alpha test group") {
				t.Errorf("entries %+v: want the descriptions of LIST NEWSGROUPS", res.Listing.Entries)
			}
			res, _, err = get(t, c, "news:fetch.*.b?t?")
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(urls(res.Listing)); got != "[news:fetch.test.beta]" {
				t.Errorf("news:fetch.*.b?t?: URLs %s", got)
			}
		})
	}
}

func TestWildmatMatch(t *testing.T) {
	for _, tc := range []struct {
		pat, name string
		want      bool
	}{
		{"*", "a.b", true},
		{"comp.*", "comp.lang.go", true},
		{"comp.*", "comp", false},
		{"comp*", "comp", true},
		{"*.go", "comp.lang.go", true},
		{"*.go", "comp.lang.gox", false},
		{"a?c", "abc", true},
		{"a?c", "ac", false},
		{"a?c", "aéc", true}, // "?" is one character (RFC 3977 §4.1)
		{"*a*b*", "xxaxxbxx", true},
		{"*a*b", "xxaxxbxxc", false},
		{"fetch.test.alpha", "fetch.test.alpha", true},
		{"fetch.test.alpha", "fetch.test.alph", false},
	} {
		if got := wildmatMatch(tc.pat, tc.name); got != tc.want {
			t.Errorf("wildmatMatch(%q, %q) = %v", tc.pat, tc.name, got)
		}
	}
}

// TestGroupListURLsFetch: every URL a group list gives fetches.
// RFC 3977 names may start with a digit ("3dfx.products"), which RFC
// 1738's news and nntp grammar refuses: such a group is listed without a
// URL, not with one that fails as malformed (exit 3).
func TestGroupListURLsFetch(t *testing.T) {
	gs := append(defaultGroups(), &fakeGroup{name: "3dfx.misc", desc: "Digits first", arts: []fakeArticle{artBeta}})
	f := newFake(t, &fake{caps: readerCaps, groups: gs})
	c := client(fetch.Options{}, Config{Server: f.addr()})
	for _, list := range []string{"news:*", "nntp://" + f.addr() + "/"} {
		res, _, err := get(t, c, list)
		if err != nil {
			t.Fatal(err)
		}
		seen := false
		for _, e := range res.Listing.Entries {
			if e.Name == "3dfx.misc" {
				seen = true
			}
			if e.URL == "" || e.Name == "fetch.test.secret" {
				continue
			}
			if _, _, err := get(t, c, e.URL); err != nil {
				t.Errorf("%s lists %s, which fails: %v", list, e.URL, err)
			}
		}
		if !seen {
			t.Errorf("%s: 3dfx.misc is not listed: %+v", list, res.Listing.Entries)
		}
	}
}

// TestOverviewURLsFetch: every URL a news: group listing gives
// fetches. A message-id from the overview that ParseNewsURL refuses ("@"
// first or last, a space) is listed without a URL, as one without "@" is.
func TestOverviewURLsFetch(t *testing.T) {
	mk := func(n int64, id string) fakeArticle {
		return fakeArticle{num: n, id: id, text: crlf("From: a@fetch.test", "Subject: s", "Date: Mon, 02 Nov 2026 10:00:00 +0000",
			"Message-ID: <"+id+">", "", "Body.")}
	}
	arts := []fakeArticle{mk(1, "@lead.fetch.test"), mk(2, "trail@"), mk(3, "sp ace@fetch.test"), mk(4, "good.4@fetch.test")}
	f := newFake(t, &fake{caps: readerCaps, groups: []*fakeGroup{{name: "fetch.test.x", arts: arts}}})
	c := client(fetch.Options{}, Config{Server: f.addr()})
	res, _, err := get(t, c, "news:fetch.test.x")
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Listing.Entries) != 4 {
		t.Fatalf("entries %+v", res.Listing.Entries)
	}
	for _, e := range res.Listing.Entries {
		if e.URL == "" {
			continue
		}
		if _, _, err := get(t, c, e.URL); err != nil {
			t.Errorf("the listing gives %s, which fails: %v", e.URL, err)
		}
	}
	if u := res.Listing.Entries[3].URL; u != "news:good.4@fetch.test" {
		t.Errorf("good.4: URL %q", u)
	}
}

// TestListingURLsFetchWithURLLogin: the URLs of a listing fetched
// with nntp://user:password@host/ carry the user and never the password;
// they fetch with the same client, which remembers the password that
// logged that user in to that server (as the ftp driver does), rather
// than failing for want of credentials (or asking again).
func TestListingURLsFetchWithURLLogin(t *testing.T) {
	f := newFake(t, &fake{caps: readerCaps, user: "reader", pass: "s3cret", authAll: true, groups: defaultGroups()})
	for _, pooled := range []bool{false, true} {
		var c *fetch.Client
		if pooled {
			c, _ = pooledClient(t, fetch.Options{}, Config{})
		} else {
			c = client(fetch.Options{}, Config{})
		}
		for _, list := range []string{"nntp://reader:s3cret@" + f.addr() + "/fetch.test.secret", "nntp://reader:s3cret@" + f.addr() + "/"} {
			res, _, err := get(t, c, list)
			if err != nil {
				t.Fatalf("%s: %v", list, err)
			}
			for i, e := range res.Listing.Entries {
				if i >= 3 {
					break
				}
				if strings.Contains(e.URL, "s3cret") {
					t.Errorf("%s lists %s, with the password", list, e.URL)
				}
				if _, _, err := get(t, c, e.URL); err != nil {
					t.Errorf("pooled %v: %s lists %s, which fails: %v", pooled, list, e.URL, err)
				}
			}
		}
		// Another user, or another server, is never given it.
		if _, _, err := get(t, c, "nntp://other@"+f.addr()+"/fetch.test.secret/1"); err == nil {
			t.Errorf("pooled %v: another user was let in with the remembered password", pooled)
		}
		c.Close()
	}
}
