package nntp

import (
	"errors"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// A transit server that knows the reader commands may answer them "401
// MODE-READER" until the client sends MODE READER (RFC 3977 §3.2.1,
// §5.3). The client switches once on a connection and asks again; a 401
// naming another capability, a second 401, and a MODE READER the server
// refuses are errors.

// commands is a transcript of the command lines given, each ended by CR LF.
func commands(lines ...string) string { return crlf(lines...) }

// switchOnce answers MODE READER "200" without leaving transit mode: a
// server that asks for MODE READER again after it was sent.
func switchOnce(c *fakeConn, line string) bool {
	if strings.EqualFold(line, "MODE READER") {
		c.printf("200 reader mode, or so it says")
		return true
	}
	return false
}

// TestMode401SwitchesToReader: each reader command a URL starts with,
// answered 401 MODE-READER, is sent again after one MODE READER, and the
// fetch succeeds.
func TestMode401SwitchesToReader(t *testing.T) {
	tests := []struct {
		name  string
		fake  fake
		url   string
		want  string
		check func(t *testing.T, res *fetch.Result, body []byte, f *fake)
	}{
		{
			// No CAPABILITIES: nothing told the client to switch.
			name: "article by number",
			fake: fake{modeSwitch: true, transitSays: "401 MODE-READER"},
			url:  "nntp://%s/fetch.test.beta/7",
			want: commands("CAPABILITIES", "GROUP fetch.test.beta", "MODE READER",
				"GROUP fetch.test.beta", "ARTICLE 7", "QUIT"),
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if string(body) != artBeta.local() {
					t.Errorf("body %q", body)
				}
			},
		},
		{
			// Capability labels are case-insensitive.
			name: "article by message-id",
			fake: fake{caps: readerCaps, transitCaps: []string{"IHAVE"}, modeSwitch: true,
				transitSays: "401 Mode-Reader switch first"},
			url: "news:beta.7@fetch.test",
			want: commands("CAPABILITIES", "ARTICLE <beta.7@fetch.test>", "MODE READER", "CAPABILITIES",
				"ARTICLE <beta.7@fetch.test>", "QUIT"),
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if string(body) != artBeta.local() {
					t.Errorf("body %q", body)
				}
			},
		},
		{
			// READER advertised in transit mode: a 500 would not make the
			// client switch, a 401 MODE-READER does.
			name: "group overview",
			fake: fake{caps: readerCaps, transitCaps: readerCaps, modeSwitch: true, transitSays: "401 MODE-READER"},
			url:  "news:fetch.test.alpha",
			want: commands("CAPABILITIES", "GROUP fetch.test.alpha", "MODE READER", "CAPABILITIES",
				"GROUP fetch.test.alpha", "OVER 1-4", "QUIT"),
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if n := len(res.Listing.Entries); n != 3 {
					t.Errorf("%d entries, want 3: %q", n, urls(res.Listing))
				}
			},
		},
		{
			name: "group list",
			fake: fake{caps: readerCaps, transitCaps: []string{"IHAVE"}, modeSwitch: true, transitSays: "401 MODE-READER"},
			url:  "news:*",
			want: commands("CAPABILITIES", "LIST ACTIVE", "MODE READER", "CAPABILITIES",
				"LIST ACTIVE", "LIST NEWSGROUPS", "QUIT"),
			check: func(t *testing.T, res *fetch.Result, body []byte, f *fake) {
				if n := len(res.Listing.Entries); n != 5 {
					t.Errorf("%d entries, want 5: %q", n, urls(res.Listing))
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fake.groups = defaultGroups()
			f := newFake(t, &tc.fake)
			tr := &recorder{}
			c := client(fetch.Options{Tracer: tr}, Config{Server: f.addr()})
			raw := strings.Replace(tc.url, "%s", f.addr(), 1)
			res, body, err := get(t, c, raw)
			if err != nil {
				t.Fatalf("fetch %s: %v\ntrace:\n%s", raw, err, tr)
			}
			if got := f.transcript(t); got != tc.want {
				t.Errorf("the client sent\n%s\nwant\n%s", show(got), show(tc.want))
			}
			tc.check(t, res, body, f)
		})
	}
}

// TestMode401PooledSession: a pooled session remembers that it switched,
// so the fetches after the first send no MODE READER and get no 401.
func TestMode401PooledSession(t *testing.T) {
	f := newFake(t, &fake{caps: readerCaps, transitCaps: []string{"IHAVE"}, modeSwitch: true,
		transitSays: "401 MODE-READER", groups: defaultGroups()})
	c, _ := pooledClient(t, fetch.Options{}, Config{Server: f.addr()})
	for _, raw := range []string{
		"news:beta.7@fetch.test",
		"news:fetch.test.alpha",
		"nntp://" + f.addr() + "/fetch.test.alpha/4",
	} {
		if _, _, err := get(t, c, raw); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
	}
	c.Close()
	want := commands("CAPABILITIES", "ARTICLE <beta.7@fetch.test>", "MODE READER", "CAPABILITIES",
		"ARTICLE <beta.7@fetch.test>",
		"DATE", "GROUP fetch.test.alpha", "OVER 1-4",
		"DATE", "GROUP fetch.test.alpha", "ARTICLE 4",
		"QUIT")
	if got := f.transcript(t); got != want {
		t.Errorf("the client sent\n%s\nwant\n%s", show(got), show(want))
	}
	f.noConnection(t)
}

// mode401Err fetches rawURL from f, which must fail, and returns the
// error and what the client sent.
func mode401Err(t *testing.T, f *fake, rawURL string) (*fetch.Error, string) {
	t.Helper()
	c := client(fetch.Options{}, Config{Server: f.addr()})
	_, _, err := get(t, c, strings.Replace(rawURL, "%s", f.addr(), 1))
	if err == nil {
		t.Fatalf("no error; the client sent\n%s", show(f.transcript(t)))
	}
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		t.Fatalf("%v is not a *fetch.Error", err)
	}
	if fe.Kind != fetch.KindServer || fetch.Temporary(err) {
		t.Errorf("kind %v, temporary %v, want a permanent server refusal: %v", fe.Kind, fetch.Temporary(err), err)
	}
	return fe, f.transcript(t)
}

// TestMode401OtherLabel: a 401 naming a capability other than
// MODE-READER is an error that names the reply, and no MODE READER is
// sent.
func TestMode401OtherLabel(t *testing.T) {
	f := newFake(t, &fake{caps: readerCaps, transitCaps: []string{"IHAVE"}, modeSwitch: true,
		transitSays: "401 XSWITCH use XSWITCH first", groups: defaultGroups()})
	fe, got := mode401Err(t, f, "news:beta.7@fetch.test")
	msg := fe.Error()
	if fe.Code != 401 || fe.Reply != "XSWITCH use XSWITCH first" || !strings.Contains(msg, "server said 401 XSWITCH use XSWITCH first") ||
		!strings.Contains(msg, "XSWITCH capability") {
		t.Errorf("code %d reply %q: %v", fe.Code, fe.Reply, msg)
	}
	if want := commands("CAPABILITIES", "ARTICLE <beta.7@fetch.test>"); got != want {
		t.Errorf("the client sent\n%s\nwant\n%s", show(got), show(want))
	}
}

// TestMode401Twice: a 401 MODE-READER after MODE READER was sent on the
// connection, by the switch on a 401 or by the greeting's on the
// capability, is an error; MODE READER goes out once.
func TestMode401Twice(t *testing.T) {
	tests := []struct {
		name string
		fake fake
		url  string
		want string
	}{
		{
			name: "after the switch on a 401",
			fake: fake{modeSwitch: true, transitSays: "401 MODE-READER", handle: switchOnce},
			url:  "nntp://%s/fetch.test.beta/7",
			want: commands("CAPABILITIES", "GROUP fetch.test.beta", "MODE READER", "GROUP fetch.test.beta"),
		},
		{
			name: "after the switch on the MODE-READER capability",
			fake: fake{caps: readerCaps, transitCaps: []string{"MODE-READER"}, modeSwitch: true,
				transitSays: "401 MODE-READER", handle: switchOnce},
			url:  "news:beta.7@fetch.test",
			want: commands("CAPABILITIES", "MODE READER", "CAPABILITIES", "ARTICLE <beta.7@fetch.test>"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fake.groups = defaultGroups()
			f := newFake(t, &tc.fake)
			fe, got := mode401Err(t, f, tc.url)
			if msg := fe.Error(); fe.Code != 401 || !strings.Contains(msg, "server said 401 MODE-READER") ||
				!strings.Contains(msg, "still wants MODE READER") {
				t.Errorf("code %d: %v", fe.Code, msg)
			}
			if n := strings.Count(got, "MODE READER"); n != 1 {
				t.Errorf("MODE READER sent %d times, want once", n)
			}
			if got != tc.want {
				t.Errorf("the client sent\n%s\nwant\n%s", show(got), show(tc.want))
			}
		})
	}
}

// TestMode401AfterGroup: a 401 MODE-READER once a group is selected is
// an error, not a switch that would lose the group.
func TestMode401AfterGroup(t *testing.T) {
	f := newFake(t, &fake{caps: readerCaps, groups: defaultGroups(), handle: func(c *fakeConn, line string) bool {
		if strings.HasPrefix(line, "ARTICLE ") {
			c.printf("401 MODE-READER")
			return true
		}
		return false
	}})
	fe, got := mode401Err(t, f, "nntp://%s/fetch.test.beta/7")
	if msg := fe.Error(); fe.Code != 401 || !strings.Contains(msg, "server said 401 MODE-READER") ||
		!strings.Contains(msg, "after a group was selected") {
		t.Errorf("code %d: %v", fe.Code, msg)
	}
	if want := commands("CAPABILITIES", "GROUP fetch.test.beta", "ARTICLE 7"); got != want {
		t.Errorf("the client sent\n%s\nwant\n%s", show(got), show(want))
	}
}

// TestMode401ModeReader502: MODE READER answered 502 (RFC 3977 §5.3:
// reading service permanently unavailable) is a permanent error that says
// so, whether the switch was for a 401 or for the capability.
func TestMode401ModeReader502(t *testing.T) {
	const refusal = "502 reading service permanently unavailable"
	tests := []struct {
		name string
		fake fake
		want string
	}{
		{
			name: "on a 401",
			fake: fake{modeSwitch: true, transitSays: "401 MODE-READER", modeSays: refusal},
			want: commands("CAPABILITIES", "ARTICLE <beta.7@fetch.test>", "MODE READER"),
		},
		{
			name: "on the capability",
			fake: fake{caps: readerCaps, transitCaps: []string{"MODE-READER"}, modeSwitch: true,
				transitSays: "401 MODE-READER", modeSays: refusal},
			want: commands("CAPABILITIES", "MODE READER"),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.fake.groups = defaultGroups()
			f := newFake(t, &tc.fake)
			fe, got := mode401Err(t, f, "news:beta.7@fetch.test")
			msg := fe.Error()
			if fe.Op != "MODE READER" || fe.Code != 502 || !strings.Contains(msg, "does not permit reading") ||
				!strings.Contains(msg, "server said "+refusal) {
				t.Errorf("op %q code %d: %v", fe.Op, fe.Code, msg)
			}
			if got != tc.want {
				t.Errorf("the client sent\n%s\nwant\n%s", show(got), show(tc.want))
			}
		})
	}
}
