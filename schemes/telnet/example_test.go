package telnet_test

import (
	"context"
	"log"
	"os"
	"strings"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/telnet"
)

// Example logs in to a telnet service with the URL's advisory login
// (RFC 1738 §3.8), runs two commands and prints what the host said.
func Example() {
	c := fetch.NewClient(fetch.Options{})
	c.Register("telnet", telnet.New(telnet.Config{}))

	ctx := context.Background()
	res, err := c.Fetch(ctx, "telnet://guest:guest@bbs.example.com/")
	if err != nil {
		log.Fatal(err) // a CR or LF in the login is refused here (exit 4)
	}
	defer res.Close()
	// The user and password are typed at "login:" and "Password:"; the
	// input follows them. Run returns once the host hangs up, or shortly
	// after the input ends.
	if err := res.Session.Run(ctx, strings.NewReader("who\nexit\n"), os.Stdout); err != nil {
		log.Fatal(err)
	}
}

// ExampleRunTerminal joins the process's terminal to the session, in
// character mode while the host echoes; ^] closes it.
func ExampleRunTerminal() {
	c := fetch.NewClient(fetch.Options{})
	c.Register("telnet", telnet.New(telnet.Config{}))
	res, err := c.Fetch(context.Background(), "telnet://bbs.example.com/")
	if err != nil {
		log.Fatal(err)
	}
	defer res.Close()
	if err := telnet.RunTerminal(context.Background(), res.Session, os.Stdin, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
