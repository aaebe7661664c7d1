package gopher

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// fakeServer is an in-process gopher server for unit tests and fault
// injection: it records the exact bytes of each request and lets the test
// answer each connection as it likes.
type fakeServer struct {
	t    *testing.T
	ln   net.Listener
	mu   sync.Mutex
	reqs [][]byte
	wg   sync.WaitGroup
	// answer writes the reply to connection i, whose request was req.
	answer func(i int, req string, c net.Conn)
}

// dataFlag matches a request line that announces a data block (Gopher+
// §2.4: "+[view]<tab>1").
var dataFlag = regexp.MustCompile(`\t\+[^\t]*\t1\r\n$`)

func newFake(t *testing.T, answer func(i int, req string, c net.Conn)) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fakeServer{t: t, ln: ln, answer: answer}
	f.wg.Add(1)
	go f.serve()
	t.Cleanup(func() {
		ln.Close()
		f.wg.Wait()
	})
	return f
}

func (f *fakeServer) serve() {
	defer f.wg.Done()
	for i := 0; ; i++ {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.wg.Add(1)
		go func(i int, c net.Conn) {
			defer f.wg.Done()
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			req := readRequest(c)
			f.mu.Lock()
			f.reqs = append(f.reqs, req)
			f.mu.Unlock()
			if f.answer != nil {
				f.answer(i, string(req), c)
			}
		}(i, c)
	}
}

// readRequest reads one request: a line, and the data block up to its "."
// line when the line has the data flag.
func readRequest(c net.Conn) []byte {
	br := bufio.NewReader(c)
	var buf bytes.Buffer
	line, err := br.ReadString('\n')
	buf.WriteString(line)
	if err != nil || !dataFlag.MatchString(line) {
		return buf.Bytes()
	}
	for {
		line, err := br.ReadString('\n')
		buf.WriteString(line)
		if err != nil || line == ".\r\n" {
			return buf.Bytes()
		}
	}
}

func (f *fakeServer) port() int { return f.ln.Addr().(*net.TCPAddr).Port }

// url is gopher://127.0.0.1:<port>/<path>.
func (f *fakeServer) url(path string) string {
	return fmt.Sprintf("gopher://127.0.0.1:%d/%s", f.port(), path)
}

func (f *fakeServer) requests() [][]byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([][]byte(nil), f.reqs...)
}

// answerWith answers every connection with the same bytes.
func answerWith(s string) func(int, string, net.Conn) {
	return func(_ int, _ string, c net.Conn) { io.WriteString(c, s) }
}

// client is a fetch client with only the gopher driver.
func client(opts fetch.Options) *fetch.Client {
	c := fetch.NewClient(opts)
	c.Register("gopher", New(Config{}))
	return c
}

// get fetches u and reads a document's body whole.
func get(t *testing.T, c *fetch.Client, u string) (*fetch.Result, []byte, error) {
	t.Helper()
	return getWith(t, c, u, fetch.Request{})
}

// getWith is get with the per-request inputs of in.
func getWith(t *testing.T, c *fetch.Client, u string, in fetch.Request) (*fetch.Result, []byte, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	req, err := fetch.NewRequest(u)
	if err != nil {
		return nil, nil, err
	}
	in.URL = req.URL
	res, err := c.Do(ctx, &in)
	if err != nil {
		return nil, nil, err
	}
	defer res.Close()
	if res.Listing != nil {
		// The menu streams: read it all, as a caller printing it would.
		return res, nil, res.Listing.ReadAll()
	}
	if res.Document == nil {
		return res, nil, nil
	}
	b, err := io.ReadAll(res.Document.Body)
	return res, b, err
}

// traceLog collects trace lines.
type traceLog struct {
	mu    sync.Mutex
	lines []string
}

func (l *traceLog) Trace(d fetch.Direction, s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, string(d)+" "+s)
}

func (l *traceLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Join(l.lines, "\n")
}
