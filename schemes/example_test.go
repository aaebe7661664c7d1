package schemes_test

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

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
	// Output: [file ftp gopher http https mailto news nntp telnet]
}

// A concurrent bot shares one client between its workers: the client is
// safe for concurrent use, each fetch carries its own inputs on a Request
// (here a resume offset), and sessions to the same server (FTP logins,
// NNTP sessions, HTTP connections) are reused from the client's pools.
// Close says goodbye to the idle ones when the bot is done.
func Example_concurrentBot() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	for _, name := range []string{"a.txt", "b.txt", "c.txt"} {
		os.WriteFile(filepath.Join(dir, name), []byte("partial "+name+"\n"), 0o644)
	}

	client := schemes.NewClient(fetch.Options{MaxSize: 10 << 20, IdleSessionTimeout: time.Minute}, schemes.Config{})
	defer client.Close()

	type job struct {
		url    string
		offset int64 // bytes already archived
	}
	jobs := make(chan job)
	results := make([]string, 3)
	var wg sync.WaitGroup
	for range 2 { // workers
		wg.Go(func() {
			for j := range jobs {
				req, err := fetch.NewRequest(j.url)
				if err != nil {
					continue
				}
				req.Offset = j.offset
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				res, err := client.Do(ctx, req)
				if err == nil {
					b, _ := io.ReadAll(res.Document.Body)
					res.Close()
					results[j.url[len(j.url)-5]-'a'] = string(b)
				}
				cancel()
			}
		})
	}
	for i, name := range []string{"a.txt", "b.txt", "c.txt"} {
		jobs <- job{url: "file://" + filepath.Join(dir, name), offset: int64(i)}
	}
	close(jobs)
	wg.Wait()
	for _, r := range results {
		fmt.Print(r)
	}
	// Output:
	// partial a.txt
	// artial b.txt
	// rtial c.txt
}
