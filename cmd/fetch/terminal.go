package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/fetchproject/fetch/fetch"
	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"
)

// terminalFd returns the descriptor of v when it is a terminal.
func terminalFd(v any) (int, bool) {
	f, ok := v.(*os.File)
	if !ok {
		return 0, false
	}
	is, known := stdTerminals()[f]
	if !known {
		is = term.IsTerminal(int(f.Fd()))
	}
	if !is {
		return 0, false
	}
	return int(f.Fd()), true
}

// stdTerminals tells, once a run, which of the standard files are
// terminals: a batch asks for every URL, and each question is a system call.
var stdTerminals = sync.OnceValue(func() map[*os.File]bool {
	m := map[*os.File]bool{}
	for _, f := range []*os.File{os.Stdin, os.Stdout, os.Stderr} {
		m[f] = term.IsTerminal(int(f.Fd()))
	}
	return m
})

func isTerminalWriter(w io.Writer) bool { _, ok := terminalFd(w); return ok }

// newProgress returns a progress bar on stderr, or nil when none is wanted:
// only when stderr is a terminal (or --progress), the body is not going to
// that same terminal, and the transfer may be long (unknown size or over
// 1 MiB).
func newProgress(o *options, s stdio, dest io.Writer, total, offset int64) *progress {
	if !progressFor(o, s, dest) || !o.progress && total >= 0 && total-offset < 1<<20 {
		return nil
	}
	max := int64(-1)
	if total >= 0 {
		max = total - offset
	}
	return newBar(s, max,
		progressbar.OptionShowBytes(true),
		progressbar.OptionUseIECUnits(true), // it counts in 1024s: say MiB
	)
}

// progressFor tells whether output to dest gets a progress bar on stderr:
// never with -q or --no-progress, always with --progress, and otherwise
// when stderr is a terminal that dest is not.
func progressFor(o *options, s stdio, dest io.Writer) bool {
	if o.quiet || o.noProgress {
		return false
	}
	return o.progress || isTerminalWriter(s.err) && !isTerminalWriter(dest)
}

// newListingProgress is a listing's progress bar, counting its entries as
// they come (a news group or a gopher hole's menu may hold a million), or
// nil when none is wanted.
func newListingProgress(o *options, s stdio, dest io.Writer) *progress {
	if !progressFor(o, s, dest) {
		return nil
	}
	return newBar(s, -1,
		progressbar.OptionShowIts(),
		progressbar.OptionSetItsString("entries"),
	)
}

// progress is a progress bar that counts what is handed to it (Write, for
// an io.TeeReader, or add) and is ended with end.
//
// It throttles the drawing itself, to one every tenth of a second: the
// bar's own throttle skips drawing a count that comes too soon after the
// last drawing, so the drawing left on the screen when a transfer failed
// could be a tenth of a second behind what was received. Here the bar
// draws each count it is given, and end gives it the last one.
type progress struct {
	bar     *progressbar.ProgressBar
	sized   bool  // the bar's end is the document's size
	pending int64 // counted and not yet given to the bar
	given   time.Time
	width   *termWidth // nil when stderr's width is unknown
	columns int        // the bar's own width, within its line
}

// newBar is a bar on stderr counting up to total (-1: unknown), with the
// options all bars share and opts.
func newBar(s stdio, total int64, opts ...progressbar.Option) *progress {
	return barOn(s.err, watchWidth(s.err), total, opts...)
}

// barOn is newBar drawing on w, a terminal width wide (nil: a width not
// known). On a terminal of known width, the drawing is cut to that width
// less one column (see fitWriter), and the bar narrowed so that most lines
// fit without a cut.
func barOn(w io.Writer, width *termWidth, total int64, opts ...progressbar.Option) *progress {
	p := &progress{sized: total >= 0, given: time.Now(), width: width, columns: barColumns(width.get())}
	out := w
	if width != nil {
		out = &fitWriter{w: w, width: width}
	}
	p.bar = progressbar.NewOptions64(total, append([]progressbar.Option{
		progressbar.OptionSetWriter(out),
		progressbar.OptionSetWidth(p.columns),
		progressbar.OptionThrottle(0), // progress.add throttles
		progressbar.OptionShowCount(),
		progressbar.OptionOnCompletion(func() { fmt.Fprintln(out) }),
		progressbar.OptionSetRenderBlankState(true),
	}, opts...)...)
	return p
}

// Write counts len(b) bytes.
func (p *progress) Write(b []byte) (int, error) {
	p.add(int64(len(b)))
	return len(b), nil
}

// add counts n, giving the bar what was counted when its last drawing is
// a tenth of a second old.
func (p *progress) add(n int64) {
	p.pending += n
	if now := time.Now(); now.Sub(p.given) >= 100*time.Millisecond {
		p.give()
		p.given = now
	}
}

// give hands the bar what was counted, which it draws at once.
func (p *progress) give() {
	// A sized bar is narrowed or widened when the terminal is. Setting an
	// option after the bar is made is safe for it: only an unsized bar
	// has a goroutine of the library's drawing it, and a sized one is
	// drawn only from the goroutine that counts.
	if c := barColumns(p.width.get()); p.sized && c != p.columns {
		progressbar.OptionSetWidth(c)(p.bar)
		p.columns = c
	}
	p.bar.Add64(p.pending)
	p.pending = 0
}

// end draws the bar a last time and ends its line, after the transfer
// succeeded (err nil) or failed.
//
// After a failure a sized bar stays at its count: Finish would fill it to
// the size, with a rate from bytes never received, while Exit keeps the
// last drawing and ends the line. An unsized bar is ended with Finish
// either way: that leaves its count as it is (only the spinner is moved
// to its end), and a bar that Exit leaves unfinished goes on being redrawn
// by its spinner goroutine, over the error message.
func (p *progress) end(err error) {
	p.give()
	switch {
	case err == nil || !p.sized:
		p.bar.Finish()
	case !p.bar.IsFinished(): // a failure after the last byte leaves it full, its line ended
		p.bar.Exit()
	}
	p.width.end()
}

// barText is about the columns a sized bar's line takes besides the bar
// itself: 40 for "  45% |", "| (45/100 MiB, 2.7 GiB/s) [1s:2s]", a few
// more for a larger or slower transfer.
const barText = 45

// barColumns is the width of a bar on a terminal cols wide (0: not
// known). At least one column: an unsized bar's spinner counts modulo the
// width, and the library refuses a zero.
func barColumns(cols int) int {
	if cols <= 0 {
		return 30
	}
	return min(max(cols-1-barText, 1), 30)
}

// termWidth is the width in columns of the terminal a progress line is
// drawn on, read when it is made and again each time the terminal says it
// changed (SIGWINCH, where there is one). Its methods take a nil
// termWidth as a width not known.
type termWidth struct {
	cols atomic.Int64
	stop func()
}

// watchWidth follows the width of w, or is nil when w is not a terminal or
// its width cannot be read: lines are then drawn whole.
func watchWidth(w io.Writer) *termWidth {
	fd, ok := terminalFd(w)
	if !ok {
		return nil
	}
	return watchSize(func() (int, error) {
		cols, _, err := term.GetSize(fd)
		return cols, err
	})
}

// watchSize is watchWidth with the width read by size.
func watchSize(size func() (int, error)) *termWidth {
	cols, err := size()
	if err != nil || cols <= 0 {
		return nil
	}
	t := &termWidth{}
	t.cols.Store(int64(cols))
	resized := make(chan os.Signal, 1)
	notifyResize(resized)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case <-resized:
				// A width that cannot be read now leaves the last one.
				if cols, err := size(); err == nil && cols > 0 {
					t.cols.Store(int64(cols))
				}
			case <-done:
				return
			}
		}
	}()
	t.stop = sync.OnceFunc(func() {
		signal.Stop(resized)
		close(done)
	})
	return t
}

// get is the width in columns, 0 when not known.
func (t *termWidth) get() int {
	if t == nil {
		return 0
	}
	return int(t.cols.Load())
}

// end stops following the width.
func (t *termWidth) end() {
	if t != nil {
		t.stop()
	}
}

// fitLine is a status line cut to fit a terminal cols wide less one
// column: some terminals wrap as soon as the last column is written, and
// the next redraw, which returns to the start of the line, then leaves the
// line above behind. Fields are separated by two spaces, the most needed
// first (a batch's counts, then its bytes, rate and ETA), so whole ones
// are dropped from the end; a first field wider than the terminal is cut
// within. A cols of 0 or less, a width not known, leaves the line whole.
//
// Each rune is taken as one column: a status line is ASCII, and a bar
// draws "█", one column in three bytes.
func fitLine(line string, cols int) string {
	limit := cols - 1
	if cols <= 0 || utf8.RuneCountInString(line) <= limit {
		return line
	}
	fit := ""
	for i := 0; i < len(line); {
		j := strings.Index(line[i:], "  ")
		if j < 0 {
			break
		}
		if utf8.RuneCountInString(line[:i+j]) > limit {
			break
		}
		fit = line[:i+j]
		i += j + 2
	}
	if fit != "" {
		return fit
	}
	return cutColumns(line, limit)
}

// cutColumns is s cut after its first n runes.
func cutColumns(s string, n int) string {
	for i := range s {
		if n <= 0 {
			return s[:i]
		}
		n--
	}
	return s
}

// fitWriter passes a progress bar's drawing on to w with each line cut to
// the terminal's width less one column (see fitLine). The bar starts each
// drawing with a carriage return, and with the options newBar sets it
// writes no escape sequences, so the runes since the last carriage return
// or newline are the column it is at. Its writes are whole strings, one at
// a time (under the bar's lock).
type fitWriter struct {
	w     io.Writer
	width *termWidth
	col   int // columns written since the last \r or \n
	buf   []byte
}

func (f *fitWriter) Write(p []byte) (int, error) {
	limit := f.width.get() - 1
	f.buf = f.buf[:0]
	for i := 0; i < len(p); {
		r, n := utf8.DecodeRune(p[i:])
		switch {
		case r == '\r' || r == '\n':
			f.col = 0
			f.buf = append(f.buf, p[i:i+n]...)
		case f.col < limit:
			f.col++
			f.buf = append(f.buf, p[i:i+n]...)
		}
		i += n
	}
	if _, err := f.w.Write(f.buf); err != nil {
		return 0, err
	}
	return len(p), nil
}

// terminalPrompter asks the user at the terminal; answers from flags
// (--query, --form) come first, so scripts never block.
type terminalPrompter struct {
	answers fetch.Answers
	in      *os.File
	out     io.Writer
	fd      int
	canAsk  bool
}

func newPrompter(o *options, s stdio) fetch.Prompter {
	a := fetch.Answers{}
	if o.query != "" {
		a["query"] = o.query
	}
	for _, kv := range o.form {
		if k, v, ok := strings.Cut(kv, "="); ok {
			a[k] = v
		}
	}
	p := &terminalPrompter{answers: a, out: s.err}
	if f, ok := s.in.(*os.File); ok {
		if fd, ok := terminalFd(f); ok {
			p.in, p.fd, p.canAsk = f, fd, true
		}
	}
	return p
}

func (p *terminalPrompter) Prompt(ctx context.Context, q fetch.Question) (string, error) {
	if v, err := p.answers.Prompt(ctx, q); err == nil {
		return v, nil
	}
	if !p.canAsk {
		hint := promptHint(q)
		return "", &fetch.Error{Kind: fetch.KindUsage, Op: "prompt", URL: q.URL, Part: q.Field, Offset: -1,
			Err: fmt.Errorf("%w: %s (not a terminal; give %s)", fetch.ErrNoAnswer, q.Label, hint)}
	}
	// The label, choices and default come from the URL (a mail's
	// recipients) or from the server (a Gopher+ form): shown with
	// printable, so neither writes control characters to the terminal.
	label := q.Label
	if label == "" {
		label = q.Field
	}
	if len(q.Choices) > 0 {
		fmt.Fprintf(p.out, "%s\n", strings.Map(printable, label))
		for i, c := range q.Choices {
			fmt.Fprintf(p.out, "  %d) %s\n", i+1, strings.Map(printable, c))
		}
		label = "choice"
	}
	if q.Default != "" {
		label += " [" + q.Default + "]"
	}
	fmt.Fprintf(p.out, "%s: ", strings.Map(printable, label))
	var answer string
	if q.Secret {
		b, err := term.ReadPassword(p.fd)
		fmt.Fprintln(p.out)
		if err != nil {
			return "", fetch.Wrap(fetch.KindLocal, "prompt", err)
		}
		answer = string(b)
	} else {
		line, err := bufio.NewReader(p.in).ReadString('\n')
		if err != nil && line == "" {
			return "", fetch.Wrap(fetch.KindLocal, "prompt", err)
		}
		answer = strings.TrimRight(line, "\r\n")
	}
	if answer == "" {
		answer = q.Default
	}
	if len(q.Choices) > 0 {
		if n, err := strconv.Atoi(answer); err == nil && n >= 1 && n <= len(q.Choices) {
			answer = q.Choices[n-1]
		}
	}
	return answer, nil
}

// editDraft opens $VISUAL or $EDITOR (else vi) on draft and returns what
// the user saved.
func editDraft(ctx context.Context, draft []byte) ([]byte, error) {
	editor := os.Getenv("VISUAL")
	if editor == "" {
		editor = os.Getenv("EDITOR")
	}
	if editor == "" {
		editor = "vi"
	}
	f, err := os.CreateTemp("", "fetch-mail-*.txt")
	if err != nil {
		return nil, fetch.Wrap(fetch.KindLocal, "editor", err)
	}
	defer os.Remove(f.Name())
	if _, err := f.Write(draft); err != nil {
		f.Close()
		return nil, fetch.Wrap(fetch.KindLocal, "editor", err)
	}
	f.Close()
	cmd := exec.CommandContext(ctx, "sh", "-c", editor+` "$1"`, "editor", f.Name())
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		return nil, fetch.Wrap(fetch.KindLocal, "editor", err)
	}
	b, err := os.ReadFile(f.Name())
	return b, fetch.Wrap(fetch.KindLocal, "editor", err)
}

// stderrTracer prints the protocol conversation for -v; without -v it
// prints only the drivers' warnings (a dropped mail header, an empty body).
type stderrTracer struct {
	w       io.Writer
	verbose bool
}

func (t stderrTracer) Trace(dir fetch.Direction, line string) {
	switch {
	case t.verbose:
		fmt.Fprintf(t.w, "%c %s\n", dir, strings.Map(printable, line))
	case dir == fetch.DirInfo && strings.HasPrefix(line, "warning:"):
		fmt.Fprintf(t.w, "fetch: %s\n", strings.Map(printable, settingsInWords(line)))
	}
}

// promptHint names what answers question q when no one can be asked: the
// flag or configuration setting for that scheme's field.
func promptHint(q fetch.Question) string {
	news := isNewsURL(q.URL)
	switch {
	case q.Field == "query":
		return "--query WORDS"
	case q.Field == "user" && news:
		return "--nntp-user USER"
	case q.Field == "password" && news:
		return "nntp-password in the configuration file"
	case q.Field == "password":
		return "the password in the URL, or run it at a terminal to be asked"
	case q.Field == "confirm":
		return "run it at a terminal, or --dry-run to see the message"
	}
	return "--form " + q.Field + "=VALUE"
}
