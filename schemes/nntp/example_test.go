package nntp_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/nntp"
)

// Example reads a newsgroup's newest articles and prints the first one.
// news: URLs name no server: Config.Server (or NNTPSERVER) does.
func Example() {
	c := fetch.NewClient(fetch.Options{
		// Answers AUTHINFO when the server asks for it (reply 480).
		Prompter: fetch.Answers{"user": "reader", "password": "secret"},
	})
	d := nntp.New(nntp.Config{Server: "news.example.com", PageSize: 20})
	c.Register("news", d)
	c.Register("nntp", d)

	ctx := context.Background()
	res, err := c.Fetch(ctx, "news:comp.infosystems.www.misc")
	if err != nil {
		log.Fatal(err)
	}
	// The overview streams from the server, an entry at a time; closing
	// the result ends the session.
	var first string
	for e, err := range res.Listing.All() {
		if err != nil {
			log.Fatal(err) // e.g. an overview that runs past the range asked for
		}
		if first == "" {
			first = e.URL
		}
		fmt.Printf("%s\t%s\t%s\n", e.Date.Format("2006-01-02"), e.Description, e.Name)
	}
	res.Close()
	if first == "" {
		return
	}

	// Each entry's URL is news:<message-id>: the article, streamed.
	art, err := c.Fetch(ctx, first)
	if err != nil {
		log.Fatal(err)
	}
	defer art.Close()
	fmt.Println("Subject:", art.Document.Meta[fetch.MetaSubject])
	if _, err := io.Copy(os.Stdout, art.Document.Body); err != nil {
		log.Fatal(err) // a connection that ends before "." is fetch.ErrTruncated
	}
}
