package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/schollz/progressbar/v3"
)

// loopbackServer serves h on 127.0.0.1 at a port in 23000-23999, trying
// the next while one is taken.
func loopbackServer(t *testing.T, h http.Handler) *httptest.Server {
	t.Helper()
	srv := httptest.NewUnstartedServer(h)
	srv.Listener.Close()
	start := rand.IntN(1000)
	for i := range 1000 {
		l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", 23000+(start+i)%1000))
		if err == nil {
			srv.Listener = l
			srv.Start()
			t.Cleanup(srv.Close)
			return srv
		}
	}
	t.Fatal("no free port in 23000-23999")
	return nil
}

// cutShort answers with a body of size bytes (chunked when size is -1)
// and closes the connection after sent of them.
func cutShort(size, sent int) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if size >= 0 {
			w.Header().Set("Content-Length", fmt.Sprint(size))
		}
		w.Write(bytes.Repeat([]byte("x"), sent))
		w.(http.Flusher).Flush()
		if c, _, err := w.(http.Hijacker).Hijack(); err == nil {
			c.Close()
		}
	})
}

// lastDrawing is the bar's last drawing in stderr, the one left on the
// screen before the line that starts with prefix; ok is false when that
// line does not start a line of its own.
func lastDrawing(stderr, prefix string) (drawing string, ok bool) {
	before, _, found := strings.Cut(stderr, "\n"+prefix)
	if !found {
		return "", false
	}
	draws := strings.Split(before, "\r")
	for i := len(draws) - 1; i >= 0; i-- {
		if strings.TrimSpace(draws[i]) != "" {
			return draws[i], true
		}
	}
	return "", true
}

// TestProgressFailureKeepsCount: a transfer cut short leaves its bar at
// the bytes received, and the error starts a line of its own. The bar was
// filled to the size before, with a rate from bytes never received
// ("100% ... (4.0/4.0 MiB, ...)").
func TestProgressFailureKeepsCount(t *testing.T) {
	const size, sent = 4 << 20, 3 << 19 // 1.5 MiB of 4
	srv := loopbackServer(t, cutShort(size, sent))
	out := filepath.Join(t.TempDir(), "doc")
	code, _, stderr := runFetch(t, "", "--progress", "-o", out, srv.URL+"/doc")
	if code == 0 {
		t.Fatalf("a body cut short: exit 0: %q", stderr)
	}
	drawing, ok := lastDrawing(stderr, "fetch: ")
	if !ok {
		t.Fatalf("the error does not start a line: %q", stderr)
	}
	if !strings.Contains(drawing, " 37% ") || !strings.Contains(drawing, "(1.5/4.0 MiB") {
		t.Errorf("the last drawing is %q, want 37%% and 1.5/4.0 MiB", drawing)
	}
	if strings.Contains(stderr, "100%") {
		t.Errorf("the bar was filled: %q", stderr)
	}
}

// TestProgressFailureUnsized: a document of unknown size cut short keeps
// its count too, and nothing is drawn after the error: the bar's spinner
// redraws itself until the bar is finished (Exit does not finish it).
func TestProgressFailureUnsized(t *testing.T) {
	const sent = 3 << 19
	srv := loopbackServer(t, cutShort(-1, sent))
	t.Setenv("FETCH_CONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	var stderr lockedBuffer
	out := filepath.Join(t.TempDir(), "doc")
	code := run(context.Background(), []string{"--progress", "-o", out, srv.URL + "/doc"},
		stdio{in: strings.NewReader(""), out: new(bytes.Buffer), err: &stderr})
	if code == 0 {
		t.Fatalf("a body cut short: exit 0: %q", stderr.String())
	}
	ended := stderr.String()
	drawing, ok := lastDrawing(ended, "fetch: ")
	if !ok || !strings.Contains(drawing, "1.5 MiB") {
		t.Errorf("the last drawing before the error is %q, want 1.5 MiB: %q", drawing, ended)
	}
	// The spinner draws every tenth of a second: three would show.
	time.Sleep(300 * time.Millisecond)
	if later := stderr.String(); later != ended {
		t.Errorf("drawn after the error: %q", strings.TrimPrefix(later, ended))
	}
}

// lockedBuffer is a bytes.Buffer a bar's goroutine may write to while a
// test reads it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// fixedWidth is a terminal width that does not change.
func fixedWidth(cols int) *termWidth {
	t := &termWidth{stop: func() {}}
	t.cols.Store(int64(cols))
	return t
}

func TestFitLine(t *testing.T) {
	const line = "queued 1234  active 16  done 5678  failed 12  1.5 GiB  12.3 MiB/s  ETA 1m23s"
	const bar = "█████ 50%  (1.5 MiB)"
	tests := []struct {
		line string
		cols int
		want string
	}{
		{line, 0, line}, // the width is not known
		{line, 20, "queued 1234"},
		{line, 40, "queued 1234  active 16  done 5678"},
		{line, 80, line},
		{line, 200, line},
		{line, len(line), "queued 1234  active 16  done 5678  failed 12  1.5 GiB  12.3 MiB/s"},
		{line, len(line) + 1, line},
		{line, 8, "queued "}, // a first field too wide is cut within
		{line, 1, ""},
		// Runes, not bytes: "█" is one column in three bytes, and is
		// never cut in two.
		{bar, 12, "█████ 50%"},
		{bar, 6, "█████"},
		{bar, 20, "█████ 50%"},
		{bar, 21, bar},
	}
	for _, tt := range tests {
		got := fitLine(tt.line, tt.cols)
		if got != tt.want {
			t.Errorf("fitLine(%q, %d) = %q, want %q", tt.line, tt.cols, got, tt.want)
		}
		if tt.cols > 0 && utf8.RuneCountInString(got) > tt.cols-1 || !utf8.ValidString(got) {
			t.Errorf("fitLine(%q, %d) = %q: wider than %d columns, or not UTF-8", tt.line, tt.cols, got, tt.cols-1)
		}
	}
}

// TestFitWriterCutsBar: a bar drawn through fitWriter has no line wider
// than the terminal less one column, whatever the terminal's width, and
// its "█" are kept whole.
func TestFitWriterCutsBar(t *testing.T) {
	for _, cols := range []int{20, 40, 80, 200} {
		var buf bytes.Buffer
		w := &fitWriter{w: &buf, width: fixedWidth(cols)}
		bar := progressbar.NewOptions64(100<<20,
			progressbar.OptionSetWriter(w),
			progressbar.OptionSetWidth(60),
			progressbar.OptionShowBytes(true),
			progressbar.OptionShowCount(),
			progressbar.OptionOnCompletion(func() { fmt.Fprintln(w) }),
			progressbar.OptionSetRenderBlankState(true),
		)
		for range 4 {
			bar.Add64(20 << 20)
		}
		bar.Finish()
		out := buf.String()
		if !utf8.ValidString(out) {
			t.Errorf("%d columns: a rune was cut: %q", cols, out)
		}
		widest := 0
		for _, line := range strings.FieldsFunc(out, func(r rune) bool { return r == '\r' || r == '\n' }) {
			widest = max(widest, utf8.RuneCountInString(line))
		}
		if widest > cols-1 {
			t.Errorf("%d columns: a line of %d: %q", cols, widest, out)
		}
		// The bar's line, 60 columns of bar and some 45 more, is cut
		// just at the limit on the narrower terminals.
		if cols <= 80 && widest != cols-1 {
			t.Errorf("%d columns: the widest line is %d, want %d: %q", cols, widest, cols-1, out)
		}
		if !strings.HasSuffix(out, "\n") {
			t.Errorf("%d columns: the line does not end: %q", cols, out)
		}
	}
}

// TestBarFollowsWidth: a sized bar is narrowed when the terminal is, so
// that its figures still fit; it kept the width it started with, and its
// line was cut within them.
func TestBarFollowsWidth(t *testing.T) {
	var buf bytes.Buffer
	width := fixedWidth(200)
	p := barOn(&buf, width, 100<<20, progressbar.OptionShowBytes(true), progressbar.OptionUseIECUnits(true))
	p.add(10 << 20)
	p.give()
	width.cols.Store(60)
	p.add(40 << 20)
	p.give()
	draws := strings.Split(buf.String(), "\r")
	last := draws[len(draws)-1]
	if !strings.Contains(last, "(50/100 MiB, ") || !strings.Contains(last, "/s) [") || utf8.RuneCountInString(last) > 59 {
		t.Errorf("on 60 columns, the last drawing is %q (%d columns), want its figures whole in 59", last, utf8.RuneCountInString(last))
	}
	if bar := strings.Split(last, "|"); len(bar) < 3 || utf8.RuneCountInString(bar[1]) != 14 {
		t.Errorf("on 60 columns, the bar is not 14 columns: %q", last)
	}
	p.end(nil)
	if !strings.HasSuffix(buf.String(), "\n") {
		t.Errorf("the line does not end: %q", buf.String())
	}
}
