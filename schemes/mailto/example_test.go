package mailto_test

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/mailto"
)

// A bot sends a message to the mailbox a mailto URL names, through its own
// submission server; the URL can set the recipients, subject and body but
// never the server or the sender.
func Example() {
	c := fetch.NewClient(fetch.Options{})
	c.Register("mailto", mailto.New(mailto.Config{
		SMTPServer: "127.0.0.1:587", // the user's submission server
		From:       "Build Bot <bot@example.org>",
	}))
	req, err := fetch.NewRequest("mailto:dev@example.org?subject=Build%20failed")
	if err != nil {
		fmt.Println(err)
		return
	}
	req.Body = strings.NewReader("The nightly build failed.\n")
	res, err := c.Do(context.Background(), req)
	if err != nil {
		fmt.Println("not sent:", err, "exit status", fetch.KindOf(err).ExitCode())
		return
	}
	fmt.Println("sent to", res.Sent.Recipients, "queued as", res.Sent.Reply)
}

// With DryRun the composed message comes back as a message/rfc822
// document instead of being sent.
func Example_dryRun() {
	c := fetch.NewClient(fetch.Options{})
	c.Register("mailto", mailto.New(mailto.Config{DryRun: true, From: "me@example.org"}))
	res, err := c.Fetch(context.Background(), "mailto:infobot@example.com?subject=current-issue&body=send%20current-issue")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer res.Close()
	msg, _ := io.ReadAll(res.Document.Body) // or write it to a file
	fmt.Println(res.Document.MIMEType)
	for _, line := range strings.Split(string(msg), "\r\n") {
		if !strings.HasPrefix(line, "Date:") && !strings.HasPrefix(line, "Message-ID:") {
			fmt.Println(line)
		}
	}
	// Output:
	// message/rfc822
	// From: me@example.org
	// To: infobot@example.com
	// Subject: current-issue
	// MIME-Version: 1.0
	// Content-Type: text/plain; charset=utf-8
	// Content-Transfer-Encoding: 7bit
	//
	// send current-issue
	//
}
