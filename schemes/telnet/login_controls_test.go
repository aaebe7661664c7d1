package telnet

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/fetchproject/fetch/fetch"
)

// The URL's user and password are typed as keystrokes into the remote
// terminal, whose line discipline acts on control characters: ^U erases
// the line ("alice^Uroot" logs in as root), ^H and DEL erase, ^C
// interrupts, ^D ends input. A login with one is refused before dialling,
// as the rlogin hand-off refuses it.
func TestControlCharsInLogin(t *testing.T) {
	for _, u := range []string{
		"telnet://alice%15root:pw@127.0.0.1:2323/",
		"telnet://alice%08%08%08%08%08root@127.0.0.1:2323/",
		"telnet://alice%7Froot@127.0.0.1:2323/",
		"telnet://alice:s3cr%03et@127.0.0.1:2323/",
		"telnet://alice:s3cr%04et@127.0.0.1:2323/",
	} {
		dialled := false
		d := dialFunc(func(ctx context.Context, network, addr string) (net.Conn, error) {
			dialled = true
			return nil, errors.New("no")
		})
		c := newClient(fetch.Options{Dialer: d}, Config{})
		_, err := c.Fetch(context.Background(), u)
		if fetch.KindOf(err) != fetch.KindPolicy || !errors.Is(err, fetch.ErrUnsafeLine) {
			t.Errorf("%s: %v, want a refusal (exit 4)", u, err)
		}
		if dialled {
			t.Errorf("%s: dialled before refusing", u)
		}
		if err != nil && strings.Contains(err.Error(), "s3cr") {
			t.Errorf("%s: the error shows the password: %v", u, err)
		}
	}
}
