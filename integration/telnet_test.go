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
	// What the user types after logging in waits until the login has been
	// answered and the shell prompts, and "exit" until "hello" has been
	// answered, as a person types: typed earlier, a busy machine's login
	// program may not have read it yet when it is flushed, and telnetd
	// ends the session as soon as the shell exits, dropping what the
	// shell wrote last.
	out := &gatedOutput{}
	before, after, found := strings.Cut(in, "hello\n")
	var input io.Reader = strings.NewReader(in)
	if found {
		loggedIn := out.gate(func(text string) bool {
			i := strings.Index(text, "Welcome to fetch-test")
			return i >= 0 && strings.Contains(text[i:], "$ ") || strings.Contains(text, "Login incorrect")
		})
		answered := out.gate(func(text string) bool {
			return strings.Contains(text, "you said: hello") || strings.Contains(text, "Login incorrect")
		})
		input = io.MultiReader(strings.NewReader(before),
			&gatedInput{ctx: ctx, open: loggedIn, r: strings.NewReader("hello\n")},
			&gatedInput{ctx: ctx, open: answered, r: strings.NewReader(after)})
	}
	if err := res.Session.Run(ctx, input, out); err != nil {
		t.Fatalf("%s: Run: %v\noutput: %q\ntrace:\n%s", u, err, out.String(), trace.String())
	}
	mu.Lock()
	defer mu.Unlock()
	return out.String(), trace.String()
}

// gatedOutput collects a session's output and opens each gate once the
// output satisfies the gate's condition.
type gatedOutput struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	gates []*outputGate
}

type outputGate struct {
	cond func(string) bool
	open chan struct{}
	done bool
}

// gate returns a channel closed once cond holds for the output so far.
func (g *gatedOutput) gate(cond func(string) bool) chan struct{} {
	g.mu.Lock()
	defer g.mu.Unlock()
	og := &outputGate{cond: cond, open: make(chan struct{})}
	g.gates = append(g.gates, og)
	return og.open
}

func (g *gatedOutput) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.buf.Write(p)
	text := g.buf.String()
	for _, og := range g.gates {
		if !og.done && og.cond(text) {
			og.done = true
			close(og.open)
		}
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
