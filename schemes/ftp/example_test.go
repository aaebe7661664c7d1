package ftp_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/ftp"
)

// Example fetches a file and a directory listing from an FTP server with
// a client that has only the ftp driver. A bot passes its password in
// the URL or through fetch.Answers.
func Example() {
	c := fetch.NewClient(fetch.Options{
		Prompter: fetch.Answers{"password": os.Getenv("FTP_PASSWORD")},
	})
	c.Register("ftp", ftp.New(ftp.Config{
		AnonymousPassword: "bot@example.org",
		Method:            ftp.MethodSingleCWD,
	}))
	ctx := context.Background()

	res, err := c.Fetch(ctx, "ftp://ftp.example.org/pub/README")
	if err != nil {
		log.Fatal(err)
	}
	// Body streams RETR's data connection; a short transfer is an error
	// wrapping fetch.ErrTruncated, never a silent io.EOF.
	if _, err := io.Copy(os.Stdout, res.Document.Body); err != nil {
		log.Fatal(err)
	}
	if err := res.Close(); err != nil {
		log.Fatal(err)
	}

	// A URL ending in "/" (or a name that turns out to be a directory)
	// is a listing whose entries carry absolute, fetchable URLs.
	res, err = c.Fetch(ctx, "ftp://ftp.example.org/pub/")
	if err != nil {
		log.Fatal(err)
	}
	// The listing streams from the data connection; Close ends the
	// session, whether or not every entry was read.
	defer res.Close()
	for e, err := range res.Listing.All() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Println(e.Kind, e.Size, e.URL)
	}
}
