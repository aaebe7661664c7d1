//go:build integration

package integration

// The telnet: driver against inetutils telnetd (integration/servers/telnet.sh),
// whose login program (testdata/harness/telnet-login.sh) asks "login: " and
// "Password: ", welcomes telnetuser/telnetpass with "Welcome to fetch-test"
// and answers each line at its "$ " prompt with "you said: <line>" until
// "exit".

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
	"github.com/fetchproject/fetch/schemes/telnet"
)

// telnetSession fetches u and runs its session with input in, returning
// the host's output and the -v trace.
func telnetSession(t *testing.T, u, in string) (string, string) {
	t.Helper()
	var mu sync.Mutex
	var trace strings.Builder
	opts := fetch.Options{Tracer: fetch.TracerFunc(func(d fetch.Direction, line string) {
		mu.Lock()
		fmt.Fprintf(&trace, "%c %s\n", d, line)
		mu.Unlock()
	})}
	c := schemes.NewClient(opts, schemes.Config{})
	if !slices.Contains(c.Schemes(), "telnet") {
		c.Register("telnet", telnet.New(telnet.Config{}))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := c.Fetch(ctx, u)
	if err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	defer res.Close()
	if res.Kind != fetch.KindSession {
		t.Fatalf("%s: a %v, want a session", u, res.Kind)
	}
	var out bytes.Buffer
	if err := res.Session.Run(ctx, strings.NewReader(in), &out); err != nil {
		t.Fatalf("%s: Run: %v\noutput: %q\ntrace:\n%s", u, err, out.String(), trace.String())
	}
	mu.Lock()
	defer mu.Unlock()
	return out.String(), trace.String()
}

func TestTelnetLogin(t *testing.T) {
	wantServer(t, "telnet")
	addr := serverAddr(t, "FETCH_TELNET_ADDR")
	user := harnessEnv(t, "FETCH_TELNET_USER")
	pass := harnessEnv(t, "FETCH_TELNET_PASS")
	login := fetch.Escape(user, "") + ":" + fetch.Escape(pass, "")
	cases := []struct {
		name, url, in string
		want          []string
	}{
		// RFC 1738 §3.8: the login in the URL, typed at the prompts.
		{"login-in-url", "telnet://" + login + "@" + addr + "/", "hello\nexit\n",
			[]string{"login: ", "Password: ", "Welcome to fetch-test", "you said: hello"}},
		// The final "/" may be omitted.
		{"no-final-slash", "telnet://" + login + "@" + addr, "hello\nexit\n",
			[]string{"Welcome to fetch-test", "you said: hello"}},
		// No login in the URL: the user types it.
		{"login-typed", "telnet://" + addr + "/", user + "\n" + pass + "\nhello\nexit\n",
			[]string{"Welcome to fetch-test", "you said: hello"}},
		// The user in the URL, the password typed.
		{"user-only", "telnet://" + fetch.Escape(user, "") + "@" + addr + "/", pass + "\nhello\nexit\n",
			[]string{"Welcome to fetch-test", "you said: hello"}},
		// A wrong password is the server's to say; the session is no error.
		{"wrong-password", "telnet://" + fetch.Escape(user, "") + ":wrong@" + addr + "/", "hello\nexit\n",
			[]string{"Login incorrect"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, trace := telnetSession(t, tc.url, tc.in)
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("%s: output lacks %q:\n%q", tc.url, w, out)
				}
			}
			if tc.name == "wrong-password" && strings.Contains(out, "Welcome") {
				t.Errorf("%s: logged in with a wrong password:\n%q", tc.url, out)
			}
			if strings.Contains(trace, pass) {
				t.Errorf("%s: the trace shows the password:\n%s", tc.url, trace)
			}
			if strings.Contains(tc.url, "@") && !strings.Contains(trace, "> "+user) {
				t.Errorf("%s: the trace does not show the user typed:\n%s", tc.url, trace)
			}
			// telnetd opens with option negotiation, answered and traced.
			if !strings.Contains(trace, "* server sent DO TERMINAL-TYPE") || !strings.Contains(trace, "* client sent WONT TERMINAL-TYPE") {
				t.Errorf("%s: negotiation not traced:\n%s", tc.url, trace)
			}
		})
	}
}

// TestTelnetUnsafeLogin: a CR or LF in the URL's login is refused with exit
// 4 before the server is contacted (RFC 1738 §6).
func TestTelnetUnsafeLogin(t *testing.T) {
	wantServer(t, "telnet")
	addr := serverAddr(t, "FETCH_TELNET_ADDR")
	c := schemes.NewClient(fetch.Options{}, schemes.Config{})
	if !slices.Contains(c.Schemes(), "telnet") {
		c.Register("telnet", telnet.New(telnet.Config{}))
	}
	for _, u := range []string{
		"telnet://telnetuser%0D%0Aecho:x@" + addr + "/",
		"telnet://telnetuser:telnetpass%0Aid@" + addr + "/",
	} {
		_, err := c.Fetch(context.Background(), u)
		if fetch.KindOf(err).ExitCode() != 4 {
			t.Errorf("%s: %v, want a line-safety refusal (exit 4)", u, err)
		}
	}
}
