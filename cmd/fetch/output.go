package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/gopher"
	"github.com/fetchproject/fetch/schemes/mailto"
	"github.com/fetchproject/fetch/schemes/telnet"
)

// claimFile refuses dest when an earlier URL of the run saved its
// document there (another URL: the same one twice is the same document),
// which -O names taken from paths, or a template without enough of the
// URL in it, make easily; a batch gives such names a suffix instead.
// release(true) records dest as u's once its document is saved.
func (o *options) claimFile(dest string, u *fetch.URL) (release func(saved bool), err error) {
	abs, err := filepath.Abs(dest)
	if err != nil {
		return nil, outputErr("create", dest, err)
	}
	// Compared as a batch compares names (folded): where names that
	// differ only in case are one file, "readme" is the file "README" is.
	abs = folded(abs)
	url := u.Redacted()
	if prev, ok := o.written[abs]; ok && prev != url {
		flag := "-o"
		if o.remoteName {
			flag = "-O"
		}
		return nil, &fetch.Error{Kind: fetch.KindUsage, Op: flag, URL: url, Offset: -1,
			Err: fmt.Errorf("%s is the file of %s, saved earlier in this run: name the files apart (a template with more of the URL, {path} say), or run a batch (--output-dir, -j), which does", dest, prev)}
	}
	return func(saved bool) {
		if saved {
			if o.written == nil {
				o.written = map[string]string{}
			}
			o.written[abs] = url
		}
	}, nil
}

// nameIsDir is why a document's file cannot be a directory found at its
// name. Outside a batch a name -O or a template makes is not changed, as
// it is not for one an earlier URL took (claimFile): the user is told how
// to name the file apart instead.
func (o *options) nameIsDir() error {
	switch {
	case o.remoteName:
		return errors.New("is a directory: name the file with -o FILE, or run a batch (--output-dir, -j), which names it apart")
	case len(o.outputs) == 1 && isTemplate(o.outputs[0]):
		return errors.New("is a directory: run a batch (--output-dir, -j), which names the file apart")
	}
	return errors.New("is a directory")
}

// notOwnFile refuses dest, the file a URL of the command line is saved
// to, when it is the run's --warc file, a part of a rotating one, or its
// --json-meta file. The command line's check (sameFiles) sees -o as
// written, before any URL is fetched: a name that -O or a template makes
// of a URL, or an -o naming a rotating WARC's part (NAME-00000.warc.gz
// from --warc NAME.warc.gz), passed it, and the document replaced the
// archive, whose records went on into a file no name reached, or the
// metadata line replaced the document.
func (o *options) notOwnFile(s stdio, dest string) error {
	flag := "-o"
	if o.remoteName {
		flag = "-O"
	}
	if err := sameFiles(s, []ownFile{{"--warc", o.warc.path}, {"--json-meta", o.jsonMeta}, {flag, dest}}); err != nil {
		return err
	}
	if o.warc.path == "" || o.warc.maxSize <= 0 {
		return nil
	}
	stem, ext := warcSeries(o.warc.path)
	realStem, err1 := resolvedPath(stem)
	real, err2 := resolvedPath(dest)
	if err1 != nil || err2 != nil {
		return nil
	}
	if !isSeriesPart(real, realStem, ext) {
		return nil
	}
	return &fetch.Error{Kind: fetch.KindUsage, Op: flag, Offset: -1,
		Err: fmt.Errorf("%s is a part of --warc %s too: each needs a file of its own", fetch.RedactedText(dest), fetch.RedactedText(o.warc.path))}
}

// maxEntryName is the longest name a directory entry holds on the
// common file systems (NAME_MAX, in bytes).
const maxEntryName = 255

// fetchOne dereferences one URL, the i-th of the command line, and
// delivers its result.
func fetchOne(ctx context.Context, c *fetch.Client, o *options, s stdio, raw string, i int) (err error) {
	u, err := c.Parse(raw)
	if err != nil {
		return err
	}
	dest, forced := o.destFor(i)
	if isTemplate(dest) {
		if dest, err = expandTemplate(inOutputDir(o, dest), u); err != nil {
			return err
		}
	}
	if o.remoteName {
		if dest, err = remoteNameOf(c, u); err != nil {
			return err
		}
		if len(dest) > maxEntryName {
			// It would fail whole ("file name too long"): cut as a
			// batch cuts its names, which the same URL gets there.
			if dest, err = remoteFile(c, u); err != nil {
				return err
			}
		}
		if dir := o.batch.outputDir; dir != "" {
			if err := os.MkdirAll(dir, 0o777); err != nil {
				return outputErr("create", dir, err)
			}
			dest = inOutputDir(o, dest)
		}
	}
	if dest != "" {
		if err := o.notOwnFile(s, dest); err != nil {
			return err
		}
		// A directory cannot be replaced by the file: said before the
		// transfer, not after it as a failed rename of the temporary file.
		st, serr := os.Stat(dest)
		if serr == nil && st.IsDir() {
			return outputErr("create", dest, o.nameIsDir())
		}
		if serr != nil || st.Mode().IsRegular() {
			// (a device or FIFO, /dev/null say, is written in place
			// and holds no document to lose)
			release, cerr := o.claimFile(dest, u)
			if cerr != nil {
				return cerr
			}
			defer func() { release(err == nil) }() // fetchOne's own err
		}
	}
	req, err := newRequest(o, s, u)
	if err != nil {
		return err
	}
	if o.resume != "" && (o.set["C"] || dest != "") {
		// The configuration file's C resumes only a file: standard
		// output has nothing to continue.
		if req.Offset, err = resumeOffset(o.resume, dest); err != nil {
			return err
		}
	}
	if d, ok := c.Driver(u.Scheme); ok && !o.dryRun {
		if _, sends := d.(*mailto.Driver); sends {
			// A mailto: URL gives a sent message, never a document:
			// what cannot apply to it is refused before it is sent,
			// not after (a rerun would send it again).
			if err := outputApplies(o, fetch.KindSent, dest, false); err != nil {
				return err
			}
		}
	}
	rec := beginWARC(o, c, req)
	defer rec.end(o, &err)
	res, err := c.Do(ctx, req)
	if err != nil {
		return err
	}
	defer res.Close()
	rec.result(res)
	d, _ := c.Driver(res.URL.Scheme)
	if err := outputApplies(o, res.Kind, dest, handsOff(d)); err != nil {
		return err
	}

	switch res.Kind {
	case fetch.KindDocument:
		if o.info {
			if dest != "" { // -o takes the metadata, as it takes a listing
				return writeOutput(ctx, o, dest, 0, func(w io.Writer) error { return printInfo(w, o, res) })
			}
			return printInfo(s.out, o, res)
		}
		if attrs, ok := gopher.DocumentAttributes(res.Document); ok && dest == "" && !o.raw {
			// Gopher+ attribute blocks: structured for --json, rendered
			// with each view's URL for people; --raw or -o keep the bytes.
			if o.jsonOut {
				return printJSON(s.out, attrs)
			}
			// Rendered, the server's text (names, admin fields, the
			// abstract) is the command's output, as a menu's listing
			// is: shown without its control characters. It streams, as
			// it is several times the reply's size.
			pw := &mapWriter{w: s.out, mapping: printableText}
			err := gopher.RenderAttributes(pw, attrs)
			if err == nil {
				err = pw.Flush()
			}
			if err != nil {
				return &fetch.Error{Kind: fetch.KindLocal, Op: "write", Offset: -1, Err: err}
			}
			return nil
		}
		if dest != "" {
			if err := saveDocument(ctx, o, s, res, dest); err != nil {
				return err
			}
			if o.jsonMeta != "" {
				return writeMeta(o, s, docInfo(res, dest))
			}
			if o.jsonOut {
				return printJSON(s.out, docInfo(res, dest))
			}
			return nil
		}
		if req.Offset > 0 && res.Document.Offset != req.Offset {
			// A file would be written whole again; standard output, where
			// "-C N URL >> part" appends, would get the start twice.
			return &fetch.Error{Kind: fetch.KindServer, Op: "-C", URL: res.URL.Redacted(), Offset: -1,
				Err: fmt.Errorf("asked for the document from byte %d, but it comes from byte %d (%s: cannot resume)", req.Offset, res.Document.Offset, res.URL.Scheme)}
		}
		if !forced && outputIsTerminal(s.out) {
			if err := refuseBinary(res); err != nil {
				return err
			}
		}
		if _, err := copyBody(ctx, o, s, s.out, res, res.Document.Size); err != nil {
			return err
		}
		if o.jsonOut || o.jsonMeta != "" {
			// The document has standard output: the metadata goes to
			// standard error or the --json-meta file, never lost.
			return writeMeta(o, s, docInfo(res, ""))
		}
		return nil
	case fetch.KindListing:
		if dest != "" {
			return writeOutput(ctx, o, dest, 0, func(w io.Writer) error { return printListing(w, o, s, res) })
		}
		return printListing(s.out, o, s, res)
	case fetch.KindSent:
		if dest != "" {
			// -o keeps the confirmation: JSON with --json, else its line.
			return writeOutput(ctx, o, dest, 0, func(w io.Writer) error {
				if o.jsonOut {
					return printJSON(w, res.Sent)
				}
				_, err := io.WriteString(w, sentLine(res.Sent))
				return fetch.Wrap(fetch.KindLocal, "write", err)
			})
		}
		if o.jsonOut {
			return printJSON(s.out, res.Sent)
		}
		if !o.quiet {
			io.WriteString(s.err, sentLine(res.Sent))
		}
		return nil
	case fetch.KindSession:
		if handsOff(d) {
			// rlogin, tn3270: the user's program takes the terminal as it is.
			return res.Session.Run(ctx, s.in, s.out)
		}
		if dest != "" {
			// -o takes the session's output (capped by --max-size in the
			// driver); input still comes from standard input.
			return writeOutput(ctx, o, dest, 0, func(w io.Writer) error { return res.Session.Run(ctx, s.in, w) })
		}
		// A terminal gets raw mode while the server echoes, the window size,
		// and ^] to close; anything else is a plain byte bridge.
		in, inOK := s.in.(*os.File)
		out, outOK := s.out.(*os.File)
		if inOK && outOK {
			return telnet.RunTerminal(ctx, res.Session, in, out)
		}
		return res.Session.Run(ctx, s.in, s.out)
	}
	return fmt.Errorf("driver returned an empty result")
}

// inOutputDir is name, a file -O or an -o template names, inside
// --output-dir when one is set. On the command line the flag makes the run
// a batch; here it comes from the configuration file, and is the default
// directory for every run's -O and templates alike.
func inOutputDir(o *options, name string) string {
	if o.batch.outputDir == "" || filepath.IsAbs(name) {
		return name
	}
	return filepath.Join(o.batch.outputDir, name)
}

// outputApplies refuses, as a usage error, an output option that has no
// meaning for what the URL turned out to be (issue #12: every output
// option applies to every scheme or is refused): --info and -C are for
// documents, --json has no form for an interactive session, and a file
// (dest, from -o or -O) and --max-size none for a session handed to the
// user's own program (handsOff), which writes to the terminal itself.
func outputApplies(o *options, k fetch.ResultKind, dest string, handsOff bool) error {
	refuse := func(flag, why string) error {
		return &fetch.Error{Kind: fetch.KindUsage, Op: flag, Offset: -1, Err: fmt.Errorf("%s does not apply: %s", flag, why)}
	}
	if k == fetch.KindDocument {
		return nil
	}
	what := string(k)
	if k == fetch.KindSent {
		what = "message to send" // (refused before it is sent)
	}
	switch {
	case dest != "" && k == fetch.KindSession && handsOff:
		flag := "-o"
		if o.remoteName {
			flag = "-O"
		}
		return handOffFileRefusal(flag)
	case o.set["max-size"] && k == fetch.KindSession && handsOff:
		// Only the flag: a max-size from the configuration file is meant
		// for documents.
		return refuse("--max-size", "an rlogin or tn3270 session's program writes to the terminal, not through fetch, which cannot count its output")
	case o.info:
		return refuse("--info", "the URL gave a "+what+", not a document")
	case o.set["C"]:
		// Only the flag: the configuration file's C is a default for
		// documents, as its max-size is.
		return refuse("-C", "only a document can be resumed, and the URL gave a "+what)
	case o.jsonOut && k == fetch.KindSession:
		return refuse("--json", "a telnet session's output is the terminal's bytes")
	}
	return nil
}

// handOffFileRefusal is the usage error for -o FILE or -O (flag) with an
// rlogin or tn3270 URL, whose session runs the user's program on the
// terminal.
func handOffFileRefusal(flag string) error {
	return &fetch.Error{Kind: fetch.KindUsage, Op: flag, Offset: -1,
		Err: fmt.Errorf("%s does not apply: an rlogin or tn3270 session runs its program on the terminal, whose output cannot go to a file", flag)}
}

func resumeOffset(spec, dest string) (int64, error) {
	if spec == "-" {
		st, err := os.Stat(dest)
		if errors.Is(err, os.ErrNotExist) {
			return 0, nil
		}
		if err != nil {
			return 0, fetch.Wrap(fetch.KindLocal, "resume", err)
		}
		return st.Size(), nil
	}
	n, err := strconv.ParseInt(spec, 10, 64)
	if err != nil || n < 0 {
		return 0, &fetch.Error{Kind: fetch.KindUsage, Op: "-C", Offset: -1, Err: fmt.Errorf("%q is not a byte offset or -", spec)}
	}
	return n, nil
}

// saveDocument writes the body to a temporary file beside dest and renames
// it into place only when the whole transfer succeeded.
func saveDocument(ctx context.Context, o *options, s stdio, res *fetch.Result, dest string) error {
	off := res.Document.Offset
	return writeOutput(ctx, o, dest, off, func(w io.Writer) error {
		total := res.Document.Size
		_, err := copyBody(ctx, o, s, w, res, total)
		if fetch.KindOf(err) == fetch.KindLocal {
			return outputErr("write", dest, err) // the file asked for, not the temporary one
		}
		return err
	})
}

// writeOutput writes -o's destination. A regular file (or a new one) is
// written atomically; a device, FIFO or socket is opened and written in
// place, as curl does, since renaming over it would replace it (issue
// #12: "-o /dev/null" as root); a symbolic link is followed, never
// replaced, and a dangling one is refused.
func writeOutput(ctx context.Context, o *options, dest string, keep int64, fill func(io.Writer) error) error {
	// Stat follows links, /proc's too (/dev/stdout onto a pipe).
	st, serr := os.Stat(dest)
	if serr == nil && !st.Mode().IsRegular() && !st.IsDir() {
		if keep > 0 {
			return &fetch.Error{Kind: fetch.KindUsage, Op: "-C", Offset: -1,
				Err: fmt.Errorf("%s is not a regular file: there is nothing to resume", dest)}
		}
		w, err := openSpecial(ctx, o, dest, st.Mode())
		if err != nil {
			return err
		}
		err = fill(w)
		if cerr := w.Close(); err == nil && cerr != nil {
			err = fetch.Wrap(fetch.KindLocal, "write", cerr)
		}
		return err
	}
	if serr == nil {
		if f := openDescriptorDest(dest); f != nil {
			// /dev/stdout onto a file (">> log"): written through the
			// descriptor, as "-o -" would be, never replaced
			if keep > 0 {
				f.Close()
				return &fetch.Error{Kind: fetch.KindUsage, Op: "-C", Offset: -1,
					Err: fmt.Errorf("%s is an open descriptor: there is nothing to resume", dest)}
			}
			err := fill(f)
			if cerr := f.Close(); err == nil && cerr != nil {
				err = fetch.Wrap(fetch.KindLocal, "write", cerr)
			}
			return err
		}
	}
	target := dest
	if lst, err := os.Lstat(dest); err == nil && lst.Mode()&os.ModeSymlink != 0 {
		// The file the link leads to is replaced, the link kept.
		t, err := filepath.EvalSymlinks(dest)
		if serr != nil || err != nil {
			if err == nil {
				err = serr
			}
			return &fetch.Error{Kind: fetch.KindLocal, Op: "create", Offset: -1,
				Err: fmt.Errorf("%s is a symbolic link that leads nowhere (%v); not replacing it", dest, err)}
		}
		target = t
	}
	return writeAtomically(target, keep, fill)
}

// writeAtomically creates a temporary file in dest's directory, lets fill
// write it, and renames it to dest on success; on failure nothing is left
// but what was there before. With keep > 0 the first keep bytes of the
// existing dest are carried over (resume).
func writeAtomically(dest string, keep int64, fill func(io.Writer) error) (err error) {
	tmp, err := createTemp(dest)
	if err != nil {
		return outputErr("create", dest, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if keep > 0 {
		old, err := os.Open(dest)
		if err != nil {
			return fetch.Wrap(fetch.KindLocal, "resume", err)
		}
		n, err := io.Copy(tmp, io.LimitReader(old, keep))
		old.Close()
		if err != nil {
			return fetch.Wrap(fetch.KindLocal, "resume", err)
		}
		if n != keep {
			return &fetch.Error{Kind: fetch.KindLocal, Op: "resume", Offset: -1,
				Err: fmt.Errorf("%s has %d bytes, fewer than the offset %d", dest, n, keep)}
		}
	}
	if err := fill(tmp); err != nil {
		return err
	}
	if err := tmp.Close(); err != nil {
		return outputErr("write", dest, err)
	}
	if err := os.Rename(tmp.Name(), dest); err != nil {
		return outputErr("rename to", dest, err)
	}
	return nil
}

// createTemp makes a new file beside dest that will be renamed to it.
// Its mode is dest's when dest exists (a resume keeps it), else 0666 less
// the umask, as for any file the user creates; os.CreateTemp's 0600 would
// leave every download private.
func createTemp(dest string) (*os.File, error) {
	mode := os.FileMode(0o666)
	if st, err := os.Stat(dest); err == nil && st.Mode().IsRegular() {
		mode = st.Mode().Perm()
	}
	dir, base := filepath.Dir(dest), filepath.Base(dest)
	if len(base) > 100 {
		// The temporary name is some 20 bytes longer than base: a name
		// near a directory entry's limit (255 bytes) would have none.
		base = strings.ToValidUTF8(base[:100], "") // not half a character
	}
	for i := 0; ; i++ {
		name := filepath.Join(dir, fmt.Sprintf(".%s.part-%d-%d", base, os.Getpid(), rand.Uint32()))
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, mode)
		if err == nil {
			if st, statErr := os.Stat(dest); statErr == nil && st.Mode().IsRegular() {
				f.Chmod(mode) // the umask does not apply to a mode being kept
			}
			return f, nil
		}
		if !errors.Is(err, os.ErrExist) || i > 100 {
			return nil, err
		}
	}
}

// copyBufferSize is the size of the reads and writes that move a document:
// 256 KiB rather than io.Copy's 32 KiB, so that a fast server's stream
// costs an eighth of the system calls (1 GiB from pyftpdlib took 32,768
// reads and as many writes with 32 KiB).
const copyBufferSize = 256 << 10

// copyBuffers keeps the buffers of finished copies: a batch of small
// documents would otherwise allocate and clear 256 KiB for each (200
// documents of 1 KiB spent a third of their time in the allocator and
// the collector).
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, copyBufferSize); return &b }}

// stdoutOutput is fetch.FileOutput of standard output, made once: a batch
// written there would otherwise look up what it is for every document. f
// is the file it wraps (os.Stdout when first asked).
var stdoutOutput = sync.OnceValue(func() (o struct {
	f *os.File
	w io.Writer
}) {
	o.f = os.Stdout
	o.w = fetch.FileOutput(o.f)
	return o
})

// copyDocument copies r to w, errors writing w coming back as
// localWriteError: into a file the body moves itself where it can
// (fetch.FileWriter: splice on Linux, the bytes never copied through this
// process), and otherwise, or for what remains, through a pooled buffer.
func copyDocument(w io.Writer, r io.Reader) (int64, error) {
	var n int64
	f, toFile := w.(*os.File)
	if toFile {
		if fw, ok := r.(fetch.FileWriter); ok {
			m, err := fw.WriteToFile(f, -1)
			n = m
			var fe *fetch.Error
			switch {
			case err == nil, errors.Is(err, errors.ErrUnsupported):
			case errors.As(err, &fe) && fe.Kind == fetch.KindLocal && fe.Op == "write":
				return n, localWriteError{fe.Err}
			default:
				return n, err
			}
		}
	}
	bp := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(bp)
	m, err := io.CopyBuffer(localWriter{fileOutput(w)}, r, *bp)
	return n + m, err
}

// fileOutput is w, written with raw system calls where w is a file that
// allows them (fetch.FileOutput; standard output's made once a run).
func fileOutput(w io.Writer) io.Writer {
	f, ok := w.(*os.File)
	if !ok {
		return w
	}
	if o := stdoutOutput(); o.f == f {
		return o.w
	}
	return fetch.FileOutput(f)
}

// readAhead reads r into buf until r ends (whole) or buf is full; head is
// what it read. Not io.ReadFull: it turns a short read's end into
// io.ErrUnexpectedEOF, which is also what a driver returns for a
// document cut short.
func readAhead(r io.Reader, buf []byte) (head []byte, whole bool, err error) {
	n := 0
	for n < len(buf) {
		m, err := r.Read(buf[n:])
		n += m
		switch {
		case err == io.EOF:
			return buf[:n], true, nil
		case err != nil:
			return buf[:n], false, err
		}
	}
	return buf[:n], false, nil
}

// writeHead writes what readAhead read to w as copyDocument would (errors
// writing come back as localWriteError).
func writeHead(w io.Writer, head []byte) (int64, error) {
	if len(head) == 0 {
		return 0, nil
	}
	n, err := localWriter{fileOutput(w)}.Write(head)
	return int64(n), err
}

// copyBody streams the document to w, with a progress bar when wanted.
// Errors writing w are local (exit 7); errors reading are the driver's.
func copyBody(ctx context.Context, o *options, s stdio, w io.Writer, res *fetch.Result, total int64) (int64, error) {
	var r io.Reader = res.Document.Body
	bar := newProgress(o, s, w, total, res.Document.Offset)
	if bar != nil {
		r = io.TeeReader(r, bar)
	}
	n, err := copyDocument(w, r)
	if bar != nil {
		bar.end(err)
	}
	if err != nil {
		var lw localWriteError
		if errors.As(err, &lw) {
			return n, &fetch.Error{Kind: fetch.KindLocal, Op: "write", Offset: -1, Err: lw.err}
		}
		if ctx.Err() != nil {
			return n, fetch.Wrap(fetch.KindNetwork, "read", ctx.Err())
		}
		return n, err
	}
	return n, nil
}

type localWriteError struct{ err error }

func (e localWriteError) Error() string { return e.err.Error() }

// localWriter marks write failures so they are told apart from read ones.
type localWriter struct{ w io.Writer }

func (l localWriter) Write(p []byte) (int, error) {
	n, err := l.w.Write(p)
	if err != nil {
		err = localWriteError{err}
	}
	return n, err
}

// docJSON is a document's metadata as --json and --info print it.
type docJSON struct {
	URL      string            `json:"url"`
	Kind     string            `json:"kind"`
	MIMEType string            `json:"mime_type,omitempty"`
	Size     int64             `json:"size"`
	ModTime  string            `json:"mod_time,omitempty"`
	Saved    string            `json:"saved_to,omitempty"`
	Meta     map[string]string `json:"meta,omitempty"`
}

func docInfo(res *fetch.Result, saved string) docJSON {
	d := res.Document
	j := docJSON{URL: res.URL.Redacted(), Kind: string(res.Kind), MIMEType: d.MIMEType, Size: d.Size, Saved: saved, Meta: d.Meta}
	if !d.ModTime.IsZero() {
		j.ModTime = d.ModTime.UTC().Format(time.RFC3339)
	}
	return j
}

func printInfo(w io.Writer, o *options, res *fetch.Result) error {
	j := docInfo(res, "")
	if o.jsonOut {
		return printJSON(w, j)
	}
	// The values come from the server (an article's Subject, a WAIS
	// headline): like a listing's names, shown without their control
	// characters (JSON escapes them).
	clean := func(s string) string { return strings.Map(printable, s) }
	// Buffered, its first write error kept (-o may be a file), rather
	// than built whole: the metadata of a Prospero object offering
	// 74,000 access methods is 6.6 MB.
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "url: %s\n", clean(j.URL))
	if j.MIMEType != "" {
		fmt.Fprintf(b, "type: %s\n", clean(j.MIMEType))
	}
	if j.Size >= 0 {
		fmt.Fprintf(b, "size: %d\n", j.Size)
	}
	if j.ModTime != "" {
		fmt.Fprintf(b, "modified: %s\n", j.ModTime)
	}
	for _, k := range sortedKeys(j.Meta) {
		fmt.Fprintf(b, "%s: %s\n", clean(k), clean(j.Meta[k]))
	}
	return fetch.Wrap(fetch.KindLocal, "write", b.Flush())
}

func printJSON(w io.Writer, v any) error {
	b, err := marshalJSON(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	if err != nil {
		return &fetch.Error{Kind: fetch.KindLocal, Op: "write", Offset: -1, Err: err}
	}
	return nil
}

// marshalJSON is json.Marshal with the C1 controls (U+0080-U+009F)
// escaped too: JSON escapes only U+0000-U+001F, and a line on a terminal
// would carry a server's U+009B (CSI) raw. Escaped, the string is the same.
func marshalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return escapeC1(b), nil
}

// escapeC1 is JSON text b with U+0080-U+009F written as \u escapes.
func escapeC1(b []byte) []byte {
	if !bytes.Contains(b, []byte{0xc2}) {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); i++ {
		// Marshal writes valid UTF-8: C2 80-9F is always U+0080-U+009F,
		// and it appears only inside strings.
		if b[i] == 0xc2 && i+1 < len(b) && b[i+1] >= 0x80 && b[i+1] <= 0x9f {
			out = fmt.Appendf(out, `\u%04x`, b[i+1])
			i++
			continue
		}
		out = append(out, b[i])
	}
	return out
}

// printListing writes one entry a line: kind, size, date, name, then a tab
// and the entry's absolute URL (absent for text lines), so that
// "cut -f2" gives URLs to paste back into fetch. With --json, one JSON
// object a line. Entries are written as they arrive: a streaming listing
// is never held whole.
func printListing(w io.Writer, o *options, s stdio, res *fetch.Result) error {
	bar := newListingProgress(o, s, w)
	if bar == nil {
		return printListingVisit(w, o, res, nil)
	}
	err := printListingVisit(w, o, res, func(fetch.Entry) { bar.add(1) })
	bar.end(err)
	return err
}

// printListingVisit is printListing calling visit (when not nil) with each
// entry as it goes.
func printListingVisit(w io.Writer, o *options, res *fetch.Result, visit func(fetch.Entry)) error {
	l := res.Listing
	bw := bufio.NewWriter(w)
	for l.Next() {
		e := l.Entry()
		if visit != nil {
			visit(e)
		}
		var err error
		if o.jsonOut {
			err = printJSON(bw, e)
		} else {
			_, err = fmt.Fprintln(bw, listingLine(e))
		}
		if err != nil {
			return fetch.Wrap(fetch.KindLocal, "write", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return &fetch.Error{Kind: fetch.KindLocal, Op: "write", Offset: -1, Err: err}
	}
	return l.Err()
}

func listingLine(e fetch.Entry) string {
	size, date := "-", "-"
	if e.Size >= 0 {
		size = strconv.FormatInt(e.Size, 10)
	}
	if !e.Date.IsZero() {
		date = e.Date.UTC().Format("2006-01-02 15:04")
	}
	name := strings.Map(printable, e.Name)
	// A directory shows its "/" where its URL has one (FTP, file), not
	// for a news group.
	if e.Kind == fetch.EntryDir && strings.HasSuffix(e.URL, "/") && !strings.HasSuffix(name, "/") {
		name += "/"
	}
	line := fmt.Sprintf("%-7s %12s %16s  %s", e.Kind, size, date, name)
	if e.URL != "" {
		line += "\t" + e.URL
	}
	return line
}

// printable keeps server-supplied names from writing control characters
// (terminal escapes) to the user's screen.
func printable(r rune) rune {
	if r < 0x20 || r >= 0x7f && r <= 0x9f {
		return '?'
	}
	return r
}

// printableLines is printable but keeps line breaks, for a message that
// may quote a server's multi-line reply: a new line cannot steer the
// terminal, a carriage return or an escape can.
func printableLines(r rune) rune {
	if r == '\n' {
		return r
	}
	return printable(r)
}

// printableText is printableLines keeping tabs too, for rendered text.
func printableText(r rune) rune {
	if r == '\t' {
		return r
	}
	return printableLines(r)
}

// mapWriter writes to w what is written to it with each character
// mapped, as strings.Map(mapping, text) maps the whole text; bytes that
// are no UTF-8 are characters utf8.RuneError, as there. A character that
// two writes split is held until its last byte comes; Flush writes what
// is held at the end.
type mapWriter struct {
	w       io.Writer
	mapping func(rune) rune
	held    []byte // the start of a character the last write ended in
	buf     []byte // the mapped text, kept from write to write
}

func (m *mapWriter) Write(p []byte) (int, error) {
	in := p
	if len(m.held) > 0 {
		in = append(m.held, p...)
		m.held = nil
	}
	rest, err := m.write(in, false)
	if err != nil {
		return 0, err
	}
	if len(rest) > 0 {
		m.held = append([]byte(nil), rest...)
	}
	return len(p), nil
}

// Flush writes the incomplete character held at the end, byte by byte.
func (m *mapWriter) Flush() error {
	held := m.held
	m.held = nil
	_, err := m.write(held, true)
	return err
}

// write maps in and writes it to m.w, but for an incomplete character at
// its end, returned unless final.
func (m *mapWriter) write(in []byte, final bool) (rest []byte, err error) {
	out := m.buf[:0]
	for len(in) > 0 {
		r, size := rune(in[0]), 1
		if r >= utf8.RuneSelf {
			if !final && !utf8.FullRune(in) {
				break
			}
			r, size = utf8.DecodeRune(in)
		}
		if r = m.mapping(r); r >= 0 {
			out = utf8.AppendRune(out, r)
		}
		in = in[size:]
	}
	m.buf = out
	if len(out) > 0 {
		_, err = m.w.Write(out)
	}
	return in, err
}

// sentLine is the confirmation of a sent message. The recipients come
// from the URL (percent-decoded, so any octet) and the reply from the
// SMTP server: neither may write control characters to the terminal.
func sentLine(s *fetch.Sent) string {
	line := fmt.Sprintf("sent to %s via %s: %s", strings.Join(s.Recipients, ", "), s.Server, s.Reply)
	return strings.Map(printable, line) + "\n"
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// openSpecial opens a device, FIFO or Unix socket to write in place. The
// timeouts apply: opening a FIFO waits for a reader, and writing one or a
// socket waits for it to read, at most --timeout each time (--max-time
// ends it through ctx).
func openSpecial(ctx context.Context, o *options, path string, mode os.FileMode) (io.WriteCloser, error) {
	wctx := ctx // the writes' context: the open's own ends with the open
	// The open waits at most --timeout (and within --max-time).
	wait, flag := o.timeout, "--timeout"
	if o.maxTime > 0 && (wait <= 0 || o.maxTime < wait) {
		wait, flag = o.maxTime, "--max-time"
	}
	if wait > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, wait)
		defer cancel()
	}
	localErr := func(err error) error {
		if ctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) {
			limit := ""
			if wait > 0 {
				limit = fmt.Sprintf(" (%v, %s)", wait, flag)
			}
			return &fetch.Error{Kind: fetch.KindLocal, Op: "open", Offset: -1,
				Err: fmt.Errorf("%s: %w waiting for a reader%s", path, fetch.ErrTimeout, limit)}
		}
		return fetch.Wrap(fetch.KindLocal, "open", err)
	}
	switch {
	case mode&os.ModeSocket != 0:
		var d net.Dialer
		c, err := d.DialContext(ctx, "unix", path)
		if err != nil {
			return nil, localErr(err)
		}
		return newDeadlineWriter(wctx, o, c, c.SetWriteDeadline, c), nil
	case mode&os.ModeNamedPipe != 0:
		// O_NONBLOCK: the open fails (ENXIO) while no reader has the FIFO
		// open, instead of blocking where no timeout could end it.
		for {
			f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
			if err == nil {
				return newDeadlineWriter(wctx, o, f, f.SetWriteDeadline, f), nil
			}
			if !errors.Is(err, syscall.ENXIO) {
				return nil, localErr(err)
			}
			select {
			case <-ctx.Done():
				return nil, localErr(ctx.Err())
			case <-time.After(20 * time.Millisecond):
			}
		}
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0) // a device: no truncation, no rename
	if err != nil {
		return nil, localErr(err)
	}
	return f, nil
}

// deadlineWriter gives each write idle time to complete, and ends a
// write under way when its context ends (--max-time, an interrupt).
type deadlineWriter struct {
	w      io.Writer
	set    func(time.Time) error
	idle   time.Duration
	c      io.Closer
	ctx    context.Context
	stop   func() bool
	cancel context.CancelFunc
}

// newDeadlineWriter writes w, whose write deadline set sets, within
// --timeout (its default when 0) a write and --max-time in all, and until
// ctx ends.
func newDeadlineWriter(ctx context.Context, o *options, w io.Writer, set func(time.Time) error, c io.Closer) *deadlineWriter {
	idle := o.timeout
	if idle <= 0 {
		idle = fetch.DefaultIdleTimeout
	}
	cancel := context.CancelFunc(func() {})
	if o.maxTime > 0 {
		ctx, cancel = context.WithTimeoutCause(ctx, o.maxTime,
			fmt.Errorf("%w: the reader took more than --max-time %v", fetch.ErrTimeout, o.maxTime))
	}
	d := &deadlineWriter{w: w, set: set, idle: idle, c: c, ctx: ctx, cancel: cancel}
	d.stop = context.AfterFunc(ctx, func() { set(time.Unix(1, 0)) }) // wakes a write under way
	return d
}

func (d *deadlineWriter) Write(p []byte) (int, error) {
	d.set(time.Now().Add(d.idle))
	if d.ctx.Err() != nil { // after set: a deadline the context's end moved back stays so
		return 0, context.Cause(d.ctx)
	}
	n, err := d.w.Write(p)
	switch {
	case err != nil && d.ctx.Err() != nil:
		err = context.Cause(d.ctx)
	case errors.Is(err, os.ErrDeadlineExceeded):
		err = fmt.Errorf("%w: the reader took more than %v", fetch.ErrTimeout, d.idle)
	}
	return n, err
}

func (d *deadlineWriter) Close() error {
	d.stop()
	d.cancel()
	return d.c.Close()
}
