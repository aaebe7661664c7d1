// Package warc records fetches in WARC 1.1 files (ISO 28500:2017): one
// gzip member per record (a NAME.warc.gz file), or the records as they
// are (Options.Uncompressed, a NAME.warc file), a warcinfo record at the
// head of every file, HTTP as request and response records holding the
// bytes exactly as they crossed the wire, and every other scheme as a
// resource record of the raw document or listing plus a metadata record
// of the protocol conversation (see Transfer).
//
// Why a writer of our own rather than github.com/nlnwa/gowarc v1.2.0 or
// github.com/internetarchive/gowarc v0.8.101: both were read for fit.
// nlnwa/gowarc's record builder spools and digests a block, but Build
// parses an HTTP block back into its own header model and validates it,
// its file writer names files by its own pattern (timestamp, serial,
// host name, ".open" suffix) and writes through its own goroutine
// pipeline, its time fields have whole-second precision, and its module
// graph brings Prometheus, x/net and others into ours for what is here
// a few hundred lines. internetarchive/gowarc is built around its own
// HTTP capture client, which would bypass our drivers. The parts of WARC
// we need (a header block, two SHA-1 digests, a gzip member, rotation)
// are small and written below against the standard; the files are
// checked by an independent reader (warcio) in the integration tests.
package warc

import (
	"compress/gzip"
	"crypto/rand"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/filelock"
)

// Version is the WARC version written.
const Version = "WARC/1.1"

// Options configure a Writer.
type Options struct {
	// MaxSize starts a new file once the current one has reached this many
	// bytes (0: one file). Files are then named NAME-00000.warc.gz,
	// NAME-00001.warc.gz, … from the path given to Create (NAME-00000.warc,
	// … when Uncompressed).
	MaxSize int64
	// Uncompressed writes each record as it is, not as a gzip member:
	// the form readers expect of a file named NAME.warc, where the name
	// NAME.warc.gz says gzip (WARC 1.1 Annex D). The caller chooses; see
	// PlainName.
	Uncompressed bool
	// Software and CommandLine go into each file's warcinfo record; the
	// caller masks passwords in CommandLine.
	Software    string
	CommandLine string
	// KeepTail, for Append: called for the records at the end of the
	// file that one fetch wrote (consecutive records with one
	// Fetch-Task, see Header.Task; in a file without that field, one
	// WARC-Target-URI), with their types (each once, in order of first
	// appearance; one WARC 1.1 does not define is "unknown") and that
	// task; false cuts them away, and the group before is asked next,
	// up to the last warcinfo and at most 64 groups back. A batch
	// resumed from its log keeps only the transfers its log records, so
	// that none is recorded twice. With Log, KeepTail is asked only when
	// that warcinfo names the same log: records after one naming another
	// log, or none, are another run's, which this log says nothing of,
	// and all of them stay. Only the series' last file is repaired: a
	// caller logs a transfer before it writes the next one's records
	// (the batch does, under one lock), so that the records a kill
	// leaves unlogged are the last transfer's, after which a rotating
	// writer has not yet started a file (it rotates before a group, not
	// after one).
	KeepTail func(types []string, task string) bool
	// Log names the log that records this writer's transfers (a batch's
	// --log; the caller chooses the name, a digest say), in the field
	// Fetch-Log of each warcinfo record the writer writes.
	Log string
	// Now is the clock (tests); nil means time.Now.
	Now func() time.Time
	// NewID makes record ids (tests); nil means random UUIDs.
	NewID func() string
}

// PlainName reports whether a file name asks for an uncompressed WARC
// file (it ends in ".warc"), the convention of wget, warcio and pywb: a
// name ending in ".warc.gz" is per-record gzip.
func PlainName(path string) bool {
	return strings.HasSuffix(path, ".warc")
}

// Ext is the ending of the files of a rotating Writer: ".warc", or
// ".warc.gz" when compressed.
func (o Options) Ext() string {
	if o.Uncompressed {
		return ".warc"
	}
	return ".warc.gz"
}

// Writer appends records to a WARC file, rotating by size. It is safe for
// concurrent use: each record is written whole (one gzip member, unless
// Uncompressed), and a transfer's records together, under a lock, so
// transfers running at once never interleave; a file is rotated only
// between transfers.
type Writer struct {
	opts   Options
	base   string // path without .warc.gz (or .warc) when rotating
	path   string // the path asked for
	dir    string
	mu     sync.Mutex
	f      *os.File
	size   int64
	serial int
	files  []string
	err    error // a failed write poisons the writer
	named  bool  // a file was created since the last Sync: its name is not synced
	// clobber lets open empty a file that holds records: Create's one
	// file, which it truncates as asked. Every other file open starts
	// (a series' next one, Append's new one) did not exist when the
	// writer looked, so records in it are another writer's.
	clobber bool
}

// Create opens path (truncating it) and writes its warcinfo record. With
// MaxSize, the files of an earlier series of the same name are removed
// first, as one file would be truncated: left, the earlier run's later
// files would read as part of this run's series (and an Append after it
// would go on from the last of them).
//
// Each file the Writer writes is locked until it is done with
// (filelock.TryLock): Create and Append fail with filelock.ErrLocked,
// changing nothing, when another Writer, in this process or another, is
// writing the file or any file of the series.
func Create(path string, opts Options) (*Writer, error) {
	w := newWriter(path, opts)
	w.clobber = opts.MaxSize <= 0
	if opts.MaxSize > 0 {
		serials, err := w.series()
		if err != nil {
			return nil, err
		}
		// None is removed while another writer is writing one of them:
		// each is locked first, and the series listed again after, since
		// a writer rotating meanwhile locks its next file before it lets
		// go of the last. They stay locked while they are removed, so
		// that an Append cannot take the last of them in between and
		// go on from it; on Windows, which removes no open file, the
		// locks go first, and such an Append makes the removal fail.
		var locked []*os.File
		unlock := func() {
			for _, f := range locked {
				f.Close()
			}
		}
		defer unlock()
		for _, n := range serials {
			f, err := lockExisting(w.seriesName(n))
			if errors.Is(err, os.ErrNotExist) {
				continue
			}
			if err != nil {
				unlock()
				return nil, err
			}
			locked = append(locked, f)
		}
		again, err := w.series()
		if err != nil {
			return nil, err
		}
		if !slices.Equal(again, serials) {
			return nil, &os.PathError{Op: "lock", Path: w.path, Err: filelock.ErrLocked}
		}
		if runtime.GOOS == "windows" {
			unlock()
			locked = nil
		}
		for _, n := range serials {
			if err := os.Remove(w.seriesName(n)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return nil, err
			}
		}
	}
	if err := w.open(); err != nil {
		w.Close()
		return nil, err
	}
	return w, nil
}

// lockExisting opens the existing file name for writing and locks it
// (filelock.TryLock); the error names the file.
func lockExisting(name string) (*os.File, error) {
	f, err := os.OpenFile(name, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	if err := filelock.TryLock(f); err != nil {
		f.Close()
		return nil, &os.PathError{Op: "lock", Path: name, Err: err}
	}
	return f, nil
}

// newWriter is a Writer for path with no file open yet.
func newWriter(path string, opts Options) *Writer {
	if opts.Now == nil {
		opts.Now = time.Now
	}
	if opts.NewID == nil {
		opts.NewID = newUUID
	}
	w := &Writer{opts: opts, path: path, dir: filepath.Dir(path)}
	w.base = strings.TrimSuffix(strings.TrimSuffix(path, ".gz"), ".warc")
	return w
}

// Files lists the files written so far, in order.
func (w *Writer) Files() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]string(nil), w.files...)
}

func (w *Writer) name() string {
	if w.opts.MaxSize <= 0 {
		return w.path
	}
	return w.seriesName(w.serial)
}

// seriesName is the name of file n of the rotating series: NAME-00000,
// …, NAME-99999, NAME-100000, ….
func (w *Writer) seriesName(n int) string {
	return fmt.Sprintf("%s-%05d%s", w.base, n, w.opts.Ext())
}

// series lists the serials of the rotating series' files that exist, in
// increasing order. It reads the directory rather than matching a glob
// pattern, which a name holding '[', '*' or '?' would change. The
// directory and the names' start are split from the stem as seriesName
// joins them: filepath.Dir and filepath.Base would read a stem ending in
// a separator (--warc DIR/.warc.gz, files DIR/-00000.warc.gz) as the
// name DIR in DIR's parent, and find none of the series' files.
func (w *Writer) series() ([]int, error) {
	dir, stem := filepath.Split(w.base)
	if dir == "" {
		dir = "."
	}
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	prefix, ext := stem+"-", w.opts.Ext()
	var serials []int
	for _, e := range ents {
		digits, ok := strings.CutPrefix(e.Name(), prefix)
		if !ok {
			continue
		}
		if digits, ok = strings.CutSuffix(digits, ext); !ok || len(digits) < 5 || strings.Trim(digits, "0123456789") != "" {
			continue
		}
		n, err := strconv.Atoi(digits)
		if err != nil || fmt.Sprintf("%05d", n) != digits {
			continue // not as the writer names it (too long, or 6 digits with a leading 0)
		}
		serials = append(serials, n)
	}
	slices.Sort(serials)
	return serials, nil
}

// open starts the next file with its warcinfo record; w.mu is held or
// the writer is not yet shared. The file is locked before it is emptied,
// so that one another writer is writing is left alone. One that holds
// records and that it is not to clobber is left alone too, though no
// lock is held on it: another writer began it since this one looked
// (a Create or Append of the same new series, another run given the
// series' next name as a WARC of its own) and may have finished it.
// Its lock protects it only while that writer writes it.
func (w *Writer) open() error {
	name := w.name()
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o666)
	if err != nil {
		return err
	}
	if err := filelock.TryLock(f); err != nil {
		f.Close()
		return &os.PathError{Op: "lock", Path: name, Err: err}
	}
	if !w.clobber {
		fi, err := f.Stat()
		if err == nil && fi.Size() > 0 {
			err = &os.PathError{Op: "lock", Path: name, Err: filelock.ErrLocked}
		}
		if err != nil {
			f.Close()
			return err
		}
	}
	return w.start(f, name)
}

// start makes f, named name and locked, the writer's current file: it is
// emptied and begun with a warcinfo record. f is closed if it cannot be
// emptied; past that it is the writer's, closed by Close.
func (w *Writer) start(f *os.File, name string) error {
	if err := f.Truncate(0); err != nil {
		f.Close()
		return err
	}
	w.f, w.size = f, 0
	w.named = true
	w.serial++
	w.files = append(w.files, name)
	return w.writeInfo(name)
}

// writeInfo writes the warcinfo record that opens a file (or the part of
// it that Append adds).
func (w *Writer) writeInfo(name string) error {
	info := fmt.Sprintf("software: %s\r\nformat: WARC File Format 1.1\r\nconformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\ncommand-line: %s\r\n",
		w.opts.Software, strings.NewReplacer("\r", " ", "\n", " ").Replace(w.opts.CommandLine))
	b, err := w.NewBlock(false)
	if err != nil {
		return err
	}
	b.Write([]byte(info))
	h := Header{Type: "warcinfo", ContentType: "application/warc-fields", Filename: filepath.Base(name), Log: w.opts.Log}
	return w.write(&h, b)
}

// Header is the WARC header of one record. The writer fills in
// WARC-Record-ID and WARC-Date when empty, and the digests and length
// from the block.
type Header struct {
	Type         string // warcinfo, request, response, resource, metadata
	ID           string // <urn:uuid:…>
	Date         time.Time
	TargetURI    string
	ContentType  string
	IPAddress    string
	ConcurrentTo string
	WarcinfoID   string
	Filename     string
	// Task is the URL the fetch was asked for, on every record of its
	// transfer (field Fetch-Task, this program's own): an HTTP record's
	// WARC-Target-URI is its hop's URL, so after a redirect only this
	// says which fetch the records belong to (Append's KeepTail).
	Task string
	// Log, on a warcinfo record, names the log of the run whose records
	// follow (field Fetch-Log, this program's own; Options.Log).
	Log string
}

func (h *Header) format(b *Block) string {
	var s strings.Builder
	field := func(k, v string) {
		if v != "" {
			// callers give redacted URLs, types and ids, which hold no
			// control character, but a library caller's value holding
			// CR LF would otherwise add fields of its own
			s.WriteString(k + ": " + fetch.EscapeControls(v) + "\r\n")
		}
	}
	s.WriteString(Version + "\r\n")
	field("WARC-Type", h.Type)
	field("WARC-Record-ID", h.ID)
	field("WARC-Date", FormatDate(h.Date))
	field("WARC-Filename", h.Filename)
	field("WARC-Target-URI", h.TargetURI)
	field("WARC-IP-Address", h.IPAddress)
	field("WARC-Concurrent-To", h.ConcurrentTo)
	field("WARC-Warcinfo-ID", h.WarcinfoID)
	field(TaskField, h.Task)
	field(LogField, h.Log)
	field("Content-Type", h.ContentType)
	field("WARC-Block-Digest", b.BlockDigest())
	if h.Type == "response" || h.Type == "resource" {
		field("WARC-Payload-Digest", b.PayloadDigest())
	}
	field("Content-Length", fmt.Sprint(b.Size()))
	s.WriteString("\r\n")
	return s.String()
}

// TaskField is the header field naming the fetch a record belongs to
// (Header.Task). WARC 1.1 §4 lets a writer add fields of its own; readers
// ignore the ones they do not know.
const TaskField = "Fetch-Task"

// LogField is the warcinfo header field naming the log of the run whose
// records follow (Header.Log).
const LogField = "Fetch-Log"

// FormatDate is WARC-Date with microseconds (WARC 1.1 §5.4 allows a
// fraction of a second).
func FormatDate(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05.000000Z")
}

// Write appends one record holding b and releases b. h.ID and h.Date are
// filled in when empty.
func (w *Writer) Write(h *Header, b *Block) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.write(h, b)
}

// writeGroup appends the records of one transfer (each hs[i] holding
// bs[i]) together and releases the blocks: no other record comes between
// them and no rotation splits them, so a file's end is always the end of
// a whole transfer's records (what Append's repair groups). On a failure
// the file is cut back to where they began.
func (w *Writer) writeGroup(hs []*Header, bs []*Block) (err error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	defer func() {
		for _, b := range bs {
			b.Close()
		}
	}()
	if err := w.rotate(); err != nil {
		return err
	}
	start := w.size
	for i := range hs {
		if err := w.record(hs[i], bs[i]); err != nil {
			if w.size > start {
				if terr := w.f.Truncate(start); terr != nil {
					w.err = terr
				}
				w.f.Seek(start, io.SeekStart)
				w.size = start
			}
			return err
		}
	}
	return nil
}

// write appends one record, after a rotation if the file is full; w.mu
// is held.
func (w *Writer) write(h *Header, b *Block) error {
	if h.Type != "warcinfo" {
		if err := w.rotate(); err != nil {
			b.Close()
			return err
		}
	}
	return w.record(h, b)
}

// rotate starts the next file if the current one has reached MaxSize;
// w.mu is held.
func (w *Writer) rotate() error {
	if w.err != nil {
		return w.err
	}
	if w.opts.MaxSize <= 0 || w.size < w.opts.MaxSize {
		return nil
	}
	// The next file is opened, and locked, before the last is closed:
	// the series always has a file locked, which Create and Append of
	// the same series look for.
	last := w.f
	if err := w.open(); err != nil {
		if w.f != last {
			last.Close() // the next file is open, its warcinfo not written
		}
		w.err = err
		return err
	}
	if err := last.Close(); err != nil {
		w.err = err
		return err
	}
	return nil
}

// record appends one record holding b to the current file and releases
// b; w.mu is held.
func (w *Writer) record(h *Header, b *Block) (err error) {
	defer b.Close()
	b.finish()
	if w.err != nil {
		return w.err
	}
	if b.err != nil {
		return b.err
	}
	if h.ID == "" {
		h.ID = w.opts.NewID()
	}
	if h.Date.IsZero() {
		h.Date = w.opts.Now()
	}
	start := w.size
	defer func() {
		if err != nil {
			// Nothing half-written stays: the file ends at the last
			// whole record.
			if terr := w.f.Truncate(start); terr != nil {
				w.err = terr
			}
			w.f.Seek(start, io.SeekStart)
		}
	}()
	if _, err := b.f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	cw := &countWriter{w: w.f}
	var out io.Writer = cw
	var z *gzip.Writer
	if !w.opts.Uncompressed {
		z = gzip.NewWriter(cw)
		out = z
	}
	if _, err := io.WriteString(out, h.format(b)); err != nil {
		return err
	}
	n, err := io.Copy(out, b.f)
	if err != nil {
		return err
	}
	if n != b.size {
		return fmt.Errorf("warc: spool gave %d bytes of %d", n, b.size)
	}
	if _, err := io.WriteString(out, "\r\n\r\n"); err != nil {
		return err
	}
	if z != nil {
		if err := z.Close(); err != nil {
			return err
		}
	}
	w.size += cw.n
	return nil
}

// Sync commits what has been written to stable storage: the current
// file's records and, when a file was created since the last Sync (the
// first, or the next of a series), the directory entry that names it. A
// caller that records elsewhere that a record is written (a batch's log
// line) syncs first, so that a crash never leaves that claim without the
// record.
func (w *Writer) Sync() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err != nil {
		return w.err
	}
	if w.f == nil {
		return nil
	}
	if err := w.f.Sync(); err != nil {
		w.err = err
		return err
	}
	if w.named {
		// Best effort, as directories cannot be synced everywhere
		// (Windows).
		if d, err := os.Open(w.dir); err == nil {
			d.Sync()
			d.Close()
		}
		w.named = false
	}
	return nil
}

// Close closes the current file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.f == nil {
		return w.err
	}
	err := w.f.Close()
	w.f = nil
	if w.err != nil {
		return w.err
	}
	return err
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

func newUUID() string {
	var b [16]byte
	rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("<urn:uuid:%x-%x-%x-%x-%x>", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}
