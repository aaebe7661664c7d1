package schemes_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes"
)

// A bot builds one client with every driver and fetches URLs with it.
// Errors carry the exit status the fetch command would report.
func Example() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "note.txt"), []byte("hello, archive\n"), 0o644)

	client := schemes.Default()
	res, err := client.Fetch(context.Background(), "file://"+dir+"/note.txt")
	if err != nil {
		fmt.Println("failed with exit status", fetch.KindOf(err).ExitCode())
		return
	}
	defer res.Close()
	body, _ := io.ReadAll(res.Document.Body)
	fmt.Print(res.Document.MIMEType, ": ", string(body))

	_, err = client.Fetch(context.Background(), "gopher://127.0.0.1:25/")
	fmt.Println("port 25:", fetch.KindOf(err).ExitCode())
	// Output:
	// text/plain; charset=utf-8: hello, archive
	// port 25: 4
}

// NewClient takes the options and each driver's settings; a bot that must
// never block on a question supplies its answers up front.
func ExampleNewClient() {
	client := schemes.NewClient(fetch.Options{
		Prompter: fetch.Answers{"query": "gopher history"},
		MaxSize:  10 << 20,
	}, schemes.Config{})
	fmt.Println(client.Schemes())
	// Output: [file ftp gopher http https mailto news nntp prospero rlogin telnet tn3270 wais]
}
