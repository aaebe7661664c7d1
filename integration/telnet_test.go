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
	"io"
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
	// Every case ends with the server closing the session (after "exit",
	// or "Login incorrect"), so a long linger costs nothing and keeps a
	// slow machine's pauses from ending the session early.
	tc := telnet.Config{Linger: 20 * time.Second}
	c := schemes.NewClient(opts, schemes.Config{Telnet: tc})
	if !slices.Contains(c.Schemes(), "telnet") {
		c.Register("telnet", telnet.New(tc))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := c.Fetch(ctx, u)
	if err != nil {
		t.Fatalf("%s: %v", u, err)
	}
	defer res.Close()
	if res.Kind != fetch.KindSession {
		t.Fatalf("%s: a %v, want a session", u, res.Kind)
	}
	// What the user types after logging in ("hello", "exit") waits until
	// the login program has answered, as a person would: typed earlier, a
	// busy machine's login program may not have read it yet when it is
	// gone.
	out := &gatedOutput{open: make(chan struct{})}
	before, after, found := strings.Cut(in, "hello\n")
	if found {
		after = "hello\n" + after
	}
	input := io.MultiReader(strings.NewReader(before), &gatedInput{ctx: ctx, open: out.open, r: strings.NewReader(after)})
	if err := res.Session.Run(ctx, input, out); err != nil {
		t.Fatalf("%s: Run: %v\noutput: %q\ntrace:\n%s", u, err, out.String(), trace.String())
	}
	mu.Lock()
	defer mu.Unlock()
	return out.String(), trace.String()
}

// gatedOutput collects a session's output and opens its gate once the
// login program has answered the login (either way).
type gatedOutput struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	open chan struct{}
	done bool
}

func (g *gatedOutput) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.buf.Write(p)
	if !g.done && (strings.Contains(g.buf.String(), "Welcome to fetch-test") || strings.Contains(g.buf.String(), "Login incorrect")) {
		g.done = true
		close(g.open)
	}
	return len(p), nil
}

func (g *gatedOutput) String() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.buf.String()
}

// gatedInput reads r once open is closed (or fails when ctx ends).
type gatedInput struct {
	ctx  context.Context
	open chan struct{}
	r    io.Reader
}

func (g *gatedInput) Read(p []byte) (int, error) {
	select {
	case <-g.open:
		return g.r.Read(p)
	case <-g.ctx.Done():
		return 0, g.ctx.Err()
	}
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
