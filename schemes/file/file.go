// Package file is the driver for file: URLs (RFC 1738 §3.10).
//
// Grammar: file://<host>/<path>. An empty host or "localhost" names the
// machine fetch runs on: the path is decoded and opened, a directory gives
// a listing of file: URLs. Any other host is not reachable by the file
// scheme itself; classic clients (Mosaic, Lynx) retried such URLs over
// FTP, and Config.FTPFallback does the same.
//
// A directory of more than 1,048,576 entries is refused with
// fetch.ErrTooLarge, as the FTP, Gopher and NNTP drivers refuse a listing
// of more lines than that.
package file

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// Config holds the file driver's settings.
type Config struct {
	// FTPFallback fetches file://host/path from another host as
	// ftp://host/path instead of refusing it.
	FTPFallback bool
	// Special opens FIFOs, devices and Unix sockets, which are refused
	// otherwise: reading one may wait for a writer or never end. When
	// opened, the idle timeout bounds the wait for each read (and for a
	// FIFO's writer), Options.MaxTime the whole.
	Special bool
}

// Driver opens local files and directories.
type Driver struct{ cfg Config }

var _ fetch.Driver = (*Driver)(nil)

// New returns a driver with cfg.
func New(cfg Config) *Driver { return &Driver{cfg: cfg} }

// Fetch opens the file or directory the URL names.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	fu, err := ParseURL(req.URL)
	if err != nil {
		return nil, err
	}
	if fu.Host != "" {
		return d.remote(ctx, req, fu)
	}
	if strings.IndexByte(fu.Path, 0) >= 0 {
		return nil, &fetch.Error{Kind: fetch.KindPolicy, Op: "open", Part: "path", Offset: -1, Err: fetch.ErrUnsafeLine}
	}
	name := filepath.FromSlash(fu.Path)
	// Looked at before opening: opening a FIFO waits for a writer.
	if st, err := os.Stat(name); err == nil && !st.Mode().IsRegular() && !st.IsDir() {
		return d.special(ctx, req, name, st.Mode())
	}
	// Without waiting: the name may have become a FIFO since the look
	// above, and a blocking open of it would wait for a writer.
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, openError(req, err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, openError(req, err)
	}
	if !st.Mode().IsRegular() && !st.IsDir() {
		f.Close()
		return d.special(ctx, req, name, st.Mode())
	}
	if st.IsDir() {
		defer f.Close()
		return list(ctx, req, f, fu.Path)
	}
	if off := req.Offset; off > 0 {
		if off > st.Size() {
			// The local copy is longer than the file: not a part of it
			// (as FTP refuses a REST past the end).
			f.Close()
			return nil, &fetch.Error{Kind: fetch.KindServer, Op: "resume", URL: req.URL.Redacted(), Offset: -1,
				Err: fmt.Errorf("cannot resume at byte %d: the file has %d bytes", off, st.Size())}
		}
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			f.Close()
			return nil, openError(req, err)
		}
	}
	br := bufio.NewReader(req.CapturePayload(f, nil)) // the bytes read, for an archive
	doc := &fetch.Document{
		Body:     readCloser{ctxReader{ctx, &sizedReader{r: br, left: st.Size() - req.Offset}}, f},
		MIMEType: mimeType(name, br),
		Size:     st.Size(),
		ModTime:  st.ModTime(),
		Offset:   req.Offset,
	}
	return &fetch.Result{Kind: fetch.KindDocument, Document: doc}, nil
}

// sizedReader reads r, which the file's size said holds left bytes more:
// an end before them (the file was cut short while it was read) is
// fetch.ErrTruncated, not the end of the document. A file that grows is
// read on to its end.
type sizedReader struct {
	r    io.Reader
	left int64
	got  int64
}

func (s *sizedReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	s.left -= int64(n)
	s.got += int64(n)
	if err == io.EOF && s.left > 0 {
		return n, fmt.Errorf("%w: the file ended after %d bytes of the %d its size announced (it was cut short while read)",
			fetch.ErrTruncated, s.got, s.got+s.left)
	}
	return n, err
}

// remote handles file://host/path for a host other than this one.
func (d *Driver) remote(ctx context.Context, req *fetch.Request, fu *URL) (*fetch.Result, error) {
	if !d.cfg.FTPFallback {
		return nil, &fetch.Error{Kind: fetch.KindPolicy, Op: "file", Part: "host", Offset: -1,
			Setting: "file.Config.FTPFallback",
			Err: errors.New("file: URLs name files on " + fu.Host + ", which is not this machine; " +
				"the FTP fallback fetches it as ftp://" + fetch.FormatHost(fu.Host) + "/… as classic clients did")}
	}
	u := req.URL.Clone()
	u.Scheme = "ftp"
	u.Port = 0
	// ";" is data in a file name, but a bare ";type=" in an ftp: URL is a
	// typecode (and any other bare ";" is refused there): kept as data.
	u.Path = strings.ReplaceAll(u.Path, ";", "%3B")
	next := *req // the same per-request inputs (a resume offset) for the ftp URL
	next.URL = u
	return req.Client.Do(ctx, &next)
}

type readCloser struct {
	io.Reader
	io.Closer
}

// ctxReader ends a read of an endless local file (/dev/zero, a device)
// when the fetch's context ends: --max-time and Ctrl-C hold for files too.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, &fetch.Error{Kind: fetch.KindNetwork, Op: "read", Offset: -1, Err: fmt.Errorf("%w: %w", fetch.ErrTimeout, err)}
	}
	return c.r.Read(p)
}

func openError(req *fetch.Request, err error) error {
	k := fetch.KindLocal
	// ENOTDIR: a path through a file ("a.txt/b") names no file either.
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return &fetch.Error{Kind: fetch.KindServer, Op: "open", Part: "path", Offset: -1,
			Err: fmt.Errorf("%w: %w", fetch.ErrNotFound, err)}
	}
	return &fetch.Error{Kind: k, Op: "open", Part: "path", Offset: -1, Err: err}
}

// mimeType goes by the name's extension, then by sniffing the first bytes.
func mimeType(name string, br *bufio.Reader) string {
	if t := fetch.TypeByExtension(filepath.Ext(name)); t != "" {
		return t
	}
	head, _ := br.Peek(512)
	return http.DetectContentType(head)
}

// maxDirEntries bounds the entries of one directory listing, as the FTP,
// Gopher and NNTP drivers bound a listing's lines: a directory of millions
// of names, or a network file system that never ends one, would otherwise
// take memory without end. A variable so that a test can lower it.
var maxDirEntries = 1 << 20

// maxDirBytes bounds a listing in bytes as maxDirEntries does in entries:
// each entry's name and its URL, which repeats the directory's path, so
// that a million entries under a long path cannot take gigabytes. A
// variable so that a test can lower it.
var maxDirBytes int64 = 64 << 20

// dirChunk is how many entries list asks the directory for at a time.
const dirChunk = 1024

// readDir reads the entries of the directory f, a chunk at a time, and
// stops with fetch.ErrTooLarge at one more than maxDirEntries, or when ctx
// ends (--max-time).
func readDir(ctx context.Context, req *fetch.Request, f *os.File, dir string) ([]fs.DirEntry, error) {
	var des []fs.DirEntry
	var size int64
	for {
		if err := ctx.Err(); err != nil {
			return nil, &fetch.Error{Kind: fetch.KindNetwork, Op: "list", Offset: -1, Err: fmt.Errorf("%w: %w", fetch.ErrTimeout, err)}
		}
		// Never more than one entry past the bound: enough to tell a
		// directory over it from one at it.
		chunk, err := f.ReadDir(min(dirChunk, maxDirEntries+1-len(des)))
		des = append(des, chunk...)
		if len(des) > maxDirEntries {
			return nil, &fetch.Error{Kind: fetch.KindPolicy, Op: "list", Part: "path", Offset: -1,
				Err: fmt.Errorf("%w: a directory listing is limited to %d entries", fetch.ErrTooLarge, maxDirEntries)}
		}
		for _, de := range chunk {
			size += int64(len(dir) + 2*len(de.Name()))
		}
		if size > maxDirBytes {
			return nil, &fetch.Error{Kind: fetch.KindPolicy, Op: "list", Part: "path", Offset: -1,
				Err: fmt.Errorf("%w: a directory listing is limited to %d bytes of names and URLs", fetch.ErrTooLarge, maxDirBytes)}
		}
		if err == io.EOF {
			return des, nil
		}
		if err != nil {
			return nil, openError(req, err)
		}
	}
}

// list reads a directory into a listing of file: URLs.
func list(ctx context.Context, req *fetch.Request, f *os.File, dir string) (*fetch.Result, error) {
	des, err := readDir(ctx, req, f, dir)
	if err != nil {
		return nil, err
	}
	sort.Slice(des, func(i, j int) bool { return des[i].Name() < des[j].Name() })
	if !strings.HasSuffix(dir, "/") {
		dir += "/"
	}
	base := req.URL.Clone()
	base.Host, base.Port, base.Slashes, base.Opaque = "", 0, true, ""
	base.HasPath = true
	base.Path = escapePath(dir[1:])
	l := &fetch.Listing{Title: dir}
	for _, de := range des {
		e := fetch.Entry{Name: de.Name(), Kind: fetch.EntryFile, Size: -1}
		seg := fetch.Escape(de.Name(), "")
		if info, err := de.Info(); err == nil {
			e.Date = info.ModTime()
			if info.Mode().IsRegular() {
				e.Size = info.Size()
			}
		}
		switch {
		case de.IsDir():
			e.Kind = fetch.EntryDir
			seg += "/"
		case de.Type()&fs.ModeSymlink != 0:
			e.Kind = fetch.EntryLink
		case de.Type()&(fs.ModeNamedPipe|fs.ModeSocket|fs.ModeDevice|fs.ModeCharDevice) != 0:
			e.Kind = fetch.EntryOther // a FIFO, socket or device: no file
		default:
			e.Type = fetch.TypeByExtension(path.Ext(de.Name()))
		}
		eu := base.Clone()
		eu.Path += seg
		e.URL = eu.String()
		l.Entries = append(l.Entries, e)
	}
	if req.Capture != nil {
		// A directory has no wire form: an archive gets the names it
		// holds, sorted, one a line, a directory's ending in "/" (as
		// ls -p shows them), control characters %-escaped.
		w := req.Capture.Payload(nil)
		for _, de := range des {
			var b strings.Builder
			for _, c := range []byte(de.Name()) {
				if c < 0x20 || c == 0x7f || c == '%' {
					fmt.Fprintf(&b, "%%%02X", c)
				} else {
					b.WriteByte(c)
				}
			}
			if de.IsDir() {
				b.WriteByte('/')
			}
			b.WriteByte('\n')
			io.WriteString(w, b.String())
		}
	}
	res := base.Clone()
	return &fetch.Result{Kind: fetch.KindListing, URL: res, Listing: l}, nil
}

// escapePath escapes each segment of a decoded path, keeping the slashes.
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = fetch.Escape(s, "")
	}
	return strings.Join(segs, "/")
}

// special opens a FIFO, device or Unix socket when Config.Special allows
// it, with the timeouts applied; otherwise it is refused.
func (d *Driver) special(ctx context.Context, req *fetch.Request, name string, mode fs.FileMode) (*fetch.Result, error) {
	what := "a device"
	switch {
	case mode&fs.ModeNamedPipe != 0:
		what = "a FIFO"
	case mode&fs.ModeSocket != 0:
		what = "a socket"
	}
	if !d.cfg.Special {
		return nil, &fetch.Error{Kind: fetch.KindPolicy, Op: "open", Part: "path", Offset: -1,
			Err: fmt.Errorf("%s is %s, not a file or directory: reading it may wait or never end (--file-special opens it, with the timeouts applied)", name, what)}
	}
	if req.Offset > 0 {
		return nil, &fetch.Error{Kind: fetch.KindUsage, Op: "open", Part: "path", Offset: -1,
			Err: fmt.Errorf("%s is %s: there is no offset to resume from", name, what)}
	}
	idle := req.Options.Idle()
	var rc io.ReadCloser
	var setDeadline func(time.Time) error
	switch {
	case mode&fs.ModeSocket != 0:
		dctx, cancel := context.WithTimeout(ctx, idle)
		c, err := (&net.Dialer{}).DialContext(dctx, "unix", name)
		cancel()
		if err != nil {
			return nil, specialError(req, "open", err)
		}
		rc, setDeadline = c, c.SetReadDeadline
	case mode&fs.ModeNamedPipe != 0:
		f, err := openFIFO(ctx, name, idle)
		if err != nil {
			return nil, specialError(req, "open", err)
		}
		rc, setDeadline = f, f.SetReadDeadline
	default:
		f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return nil, specialError(req, "open", err)
		}
		rc, setDeadline = f, f.SetReadDeadline
	}
	// A read blocked in the poller ends when the context does (--max-time).
	stop := context.AfterFunc(ctx, func() { setDeadline(time.Now()) })
	body := &idleReader{ctx: ctx, r: rc, set: setDeadline, idle: idle, req: req}
	doc := &fetch.Document{
		Body:     readCloser{body, closerFunc(func() error { stop(); return rc.Close() })},
		MIMEType: "application/octet-stream",
		Size:     -1,
	}
	return &fetch.Result{Kind: fetch.KindDocument, Document: doc}, nil
}

// openFIFO opens a FIFO for reading, waiting for a writer at most idle
// (and while ctx lasts). A blocked open cannot be interrupted, so it runs
// apart; to end it, the FIFO is opened for writing (which a waiting
// reader allows) and closed at once, and the reader sees an end of file.
func openFIFO(ctx context.Context, name string, idle time.Duration) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	ch := make(chan opened, 1)
	go func() {
		f, err := os.OpenFile(name, os.O_RDONLY, 0)
		ch <- opened{f, err}
	}()
	t := time.NewTimer(idle)
	defer t.Stop()
	var cause error
	select {
	case o := <-ch:
		return o.f, o.err
	case <-t.C:
		cause = fmt.Errorf("%w: no writer opened the FIFO within %v", fetch.ErrTimeout, idle)
	case <-ctx.Done():
		cause = fmt.Errorf("%w: %w", fetch.ErrTimeout, ctx.Err())
	}
	// Bounded: if the FIFO was removed meanwhile, the open cannot be
	// reached by name and its goroutine is left behind.
	for range 200 {
		if w, err := os.OpenFile(name, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		select {
		case o := <-ch:
			if o.f != nil {
				o.f.Close()
			}
			return nil, cause
		case <-time.After(10 * time.Millisecond):
		}
	}
	return nil, cause
}

func specialError(req *fetch.Request, op string, err error) error {
	k := fetch.KindLocal
	if errors.Is(err, fetch.ErrTimeout) || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, context.DeadlineExceeded) {
		k = fetch.KindNetwork
	}
	return &fetch.Error{Kind: k, Op: op, Part: "path", Offset: -1, Err: err}
}

type closerFunc func() error

func (f closerFunc) Close() error { return f() }

// idleReader gives each read of a special file the idle timeout, where
// the file can have a deadline (FIFOs, sockets, terminals).
type idleReader struct {
	ctx  context.Context
	r    io.Reader
	set  func(time.Time) error
	idle time.Duration
	req  *fetch.Request
}

func (r *idleReader) Read(p []byte) (int, error) {
	if err := r.ctx.Err(); err != nil {
		return 0, specialError(r.req, "read", fmt.Errorf("%w: %w", fetch.ErrTimeout, err))
	}
	r.set(time.Now().Add(r.idle)) // an error means the file cannot wait: nothing to bound
	n, err := r.r.Read(p)
	if err != nil && err != io.EOF {
		if errors.Is(err, os.ErrDeadlineExceeded) {
			if r.ctx.Err() != nil {
				err = fmt.Errorf("%w: %w", fetch.ErrTimeout, r.ctx.Err())
			} else {
				err = fmt.Errorf("%w: nothing to read for %v", fetch.ErrTimeout, r.idle)
			}
		}
		err = specialError(r.req, "read", err)
	}
	return n, err
}
