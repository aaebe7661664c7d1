package warc

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/fetchproject/fetch/fetch/filelock"
)

// Append opens path to add records after the ones it holds, as a batch
// resumed from its log does: what the earlier run recorded stays. A file
// that a killed run left ending in part of a record is first cut back to
// its last whole record, and one left in the middle of the warcinfo record
// that opens it is started again. The appended part begins with a warcinfo record of
// its own (the new run's command line). With MaxSize, the existing series
// NAME-00000.warc.gz, … (NAME-00000.warc, … when Uncompressed) is kept,
// its last file repaired, and the next file of the series started. A path
// that does not exist is created. The records are added in the file's own
// form: a file of gzip members is refused when Uncompressed, an
// uncompressed one when not, rather than made a mixture of both.
func Append(path string, opts Options) (*Writer, error) {
	w := newWriter(path, opts)
	if opts.MaxSize > 0 {
		serials, err := w.series()
		if err != nil {
			return nil, err
		}
		last := -1
		if len(serials) > 0 {
			last = serials[len(serials)-1]
		}
		if last >= 0 {
			// Locked while it is repaired and until the next file is:
			// another writer may be writing it still. The file before
			// it is locked first: a writer rotating holds its last
			// file until it has locked the next, so while it has
			// created the next and not yet locked it, the file before
			// is still held.
			if last > 0 {
				prev, err := lockExisting(w.seriesName(last - 1))
				if err != nil && !errors.Is(err, os.ErrNotExist) {
					return nil, err
				}
				if err == nil {
					defer prev.Close()
				}
			}
			name := w.seriesName(last)
			f, err := lockExisting(name)
			if err != nil {
				return nil, err
			}
			// A writer that rotated since the listing has a later file.
			if again, err := w.series(); err != nil || len(again) == 0 || again[len(again)-1] != last {
				f.Close()
				if err == nil {
					err = &os.PathError{Op: "lock", Path: path, Err: filelock.ErrLocked}
				}
				return nil, err
			}
			kept, err := repair(name, opts.Uncompressed, opts.KeepTail, opts.Log)
			if err != nil {
				f.Close()
				return nil, err
			}
			if kept == 0 {
				// Empty, or emptied of a torn warcinfo: started again,
				// still locked.
				w.serial = last
				if err := w.start(f, name); err != nil {
					w.Close()
					return nil, err
				}
				return w, nil
			}
			defer f.Close()
			w.serial = last + 1
		}
		if err := w.open(); err != nil {
			w.Close()
			return nil, err
		}
		return w, nil
	}
	// Locked before it is repaired: another writer may be writing it.
	f, err := lockExisting(path)
	if errors.Is(err, os.ErrNotExist) {
		if err := w.open(); err != nil {
			w.Close()
			return nil, err
		}
		return w, nil
	}
	if err != nil {
		return nil, err
	}
	good, err := repair(path, opts.Uncompressed, opts.KeepTail, opts.Log)
	if err != nil {
		f.Close()
		return nil, err
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		f.Close()
		return nil, err
	}
	w.f, w.size = f, good
	w.serial = 1
	w.files = append(w.files, path)
	if err := w.writeInfo(path); err != nil {
		f.Close()
		return nil, err
	}
	return w, nil
}

// Repair cuts the file at path back to its last whole gzip member (a
// record, in a file this package wrote) and reports the length it keeps.
// A file that does not begin with a whole member is an error rather than
// emptied (it may not be a WARC file at all), unless all it holds is the
// start of a warcinfo record: a kill while a file was opened.
func Repair(path string) (int64, error) {
	return repair(path, false, nil, "")
}

// RepairUncompressed is Repair for a file of uncompressed records
// (Options.Uncompressed): it is cut back to the end of its last whole
// record, header, Content-Length bytes of block and the CR LF CR LF after
// them.
func RepairUncompressed(path string) (int64, error) {
	return repair(path, true, nil, "")
}

// repair is Repair (RepairUncompressed when plain) and then, with keep,
// the cut of the groups of records at the end of the file (consecutive
// records of one task, never a warcinfo: see member.key) that keep
// refuses (Options.KeepTail), in one reading of the file. With log, keep
// is asked only when the last warcinfo names that log (Options.Log): the
// groups after another run's warcinfo are that run's, which keep, going
// by this run's log, would take for this one's unlogged. What it holds
// while reading is bounded whatever the file: only the groups after the
// last warcinfo, at most maxTailGroups of them, each with its key and its
// distinct types.
func repair(path string, plain bool, keep func([]string, string) bool, log string) (int64, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if err := sameForm(f, path, plain); err != nil {
		return 0, err
	}
	walk, torn := eachMember, tornInfo
	if plain {
		walk, torn = eachRecord, tornPlainInfo
	}
	var tail tailGroups
	var pending *member // fn sees a member before its end is checked
	good, err := walk(f, func(off int64, z io.Reader) error {
		if off == 0 && !plain {
			// A whole first member that is no WARC record: some other
			// gzip file, which appending would spoil.
			// (A member cut short is the torn warcinfo of a kill, if
			// what there is of it begins a record.)
			start := make([]byte, len("WARC/"))
			n, err := io.ReadFull(z, start)
			if !strings.HasPrefix("WARC/", string(start[:n])) || err == io.EOF {
				return errForeign
			}
			z = io.MultiReader(bytes.NewReader(start[:n]), z)
		}
		if keep != nil {
			if pending != nil {
				tail.add(*pending) // the member after it began: it was whole
			}
			m := readHead(off, z)
			pending = &m
		}
		return nil
	})
	if errors.Is(err, errForeign) {
		return 0, fmt.Errorf("warc: %s is a gzip file but not a WARC file: not appending to it", path)
	}
	if err != nil {
		return 0, err
	}
	if good == 0 && st.Size() > 0 && !torn(f) {
		if plain {
			return 0, fmt.Errorf("warc: %s does not begin with a whole WARC record: not appending to it", path)
		}
		return 0, fmt.Errorf("warc: %s does not begin with a whole gzip member: not appending to it", path)
	}
	if pending != nil && pending.off < good {
		tail.add(*pending) // else a torn last member, cut anyway
	}
	cut := good
	if log != "" && tail.log != log {
		tail.groups = nil // another run's, or one that named no log: all stay
	}
	for len(tail.groups) > 0 {
		g := tail.groups[len(tail.groups)-1]
		if keep(g.types, g.key) {
			break
		}
		cut = g.off
		tail.groups = tail.groups[:len(tail.groups)-1]
	}
	if cut < st.Size() {
		if err := f.Truncate(cut); err != nil {
			return 0, err
		}
		if err := f.Sync(); err != nil {
			return 0, err
		}
	}
	return cut, nil
}

// errForeign ends the walk of a gzip file whose first member holds no
// WARC record.
var errForeign = errors.New("not a WARC file")

// tornInfo reports whether f is what a kill leaves while the warcinfo
// record that opens a file is written (Create, or a rotation): a single
// gzip member cut short, as much of it as there is the start of a
// warcinfo record, or a gzip header cut short. Such a file holds nothing
// else, so Append may start it again.
func tornInfo(f *os.File) bool {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false
	}
	br := bufio.NewReader(f)
	if b, err := br.Peek(10); err != nil {
		// Shorter than a gzip header: the start of one (RFC 1952 §2.3:
		// ID1 ID2 and CM deflate) or not ours.
		return err == io.EOF && bytes.HasPrefix(b, []byte{0x1f, 0x8b, 8}[:min(len(b), 3)])
	}
	z, err := gzip.NewReader(br)
	if err != nil {
		return false
	}
	z.Multistream(false)
	const head = Version + "\r\nWARC-Type: warcinfo\r\n"
	got := make([]byte, len(head))
	n, err := io.ReadFull(z, got)
	if !strings.HasPrefix(head, string(got[:n])) {
		return false
	}
	if err == nil {
		_, err = io.Copy(io.Discard, z)
	}
	// The member runs to the end of the file without its end; a corrupt
	// one, or one followed by others, is not a kill's.
	return errors.Is(err, io.ErrUnexpectedEOF)
}

// sameForm refuses a file whose first bytes say it holds records of the
// other form than the one to be appended: gzip members (RFC 1952's ID1
// ID2) in a file to be written uncompressed, or a WARC version line in
// one to be written compressed. Appending would make a mixture that
// readers going by the name, or by the first record, misread.
func sameForm(f *os.File, path string, plain bool) error {
	var b [5]byte
	n, err := f.ReadAt(b[:], 0)
	if err != nil && err != io.EOF {
		return err
	}
	switch got := b[:n]; {
	case plain && bytes.HasPrefix(got, []byte{0x1f, 0x8b}):
		return fmt.Errorf("warc: %s holds gzip-compressed records, the form of a .warc.gz file: not adding uncompressed ones to it (rename it %s.gz to add to it)", path, filepath.Base(path))
	case !plain && n == len(b) && string(got) == "WARC/":
		return fmt.Errorf("warc: %s holds uncompressed records, the form of a .warc file: not adding gzip-compressed ones to it (give it a name ending in .warc to add to it)", path)
	}
	return nil
}

// tornPlainInfo is tornInfo for a file of uncompressed records: all it
// holds is the start of a warcinfo record, cut short.
func tornPlainInfo(f *os.File) bool {
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return false
	}
	const head = Version + "\r\nWARC-Type: warcinfo\r\n"
	br := bufio.NewReader(f)
	b, _ := br.Peek(len(head))
	if len(b) == 0 || !strings.HasPrefix(head, string(b)) {
		return false
	}
	_, err := plainRecord(br)
	return errors.Is(err, io.ErrUnexpectedEOF)
}

// maxTailGroups is how many groups of records at a file's end repair can
// cut: a batch leaves at most the last task's records without their log
// line, so this is far more than a resume needs, and it bounds the memory
// that reading a file of any size (or a hostile one) takes.
const maxTailGroups = 64

// tailGroups are the groups of records after a file's last warcinfo (or
// record without a key), the last maxTailGroups of them.
type tailGroups struct {
	groups []tailGroup
	log    string // the Fetch-Log of the last warcinfo
}

// tailGroup is one group: where its first record begins, its key and its
// records' types, each once, in order of first appearance.
type tailGroup struct {
	off   int64
	key   string
	types []string
}

func (t *tailGroups) add(m member) {
	typ, key := knownType(m.typ), m.key()
	if typ == "warcinfo" {
		t.log = m.log
	}
	if typ == "warcinfo" || key == "" {
		t.groups = t.groups[:0] // nothing before it is ever cut
		return
	}
	if n := len(t.groups); n > 0 && t.groups[n-1].key == key {
		g := &t.groups[n-1]
		if !slices.Contains(g.types, typ) {
			g.types = append(g.types, typ)
		}
		return
	}
	if len(t.groups) == maxTailGroups {
		// The oldest is never asked: what comes before the groups
		// examined stays.
		t.groups = append(t.groups[:0], t.groups[1:]...)
	}
	t.groups = append(t.groups, tailGroup{off: m.off, key: key, types: []string{typ}})
}

// knownType is a WARC-Type as one of the types WARC 1.1 §6 defines, or
// "unknown": the name read is not kept.
func knownType(t string) string {
	for _, k := range []string{"warcinfo", "response", "resource", "request", "metadata", "revisit", "conversion", "continuation"} {
		if t == k {
			return k
		}
	}
	return "unknown"
}

// eachMember calls fn with the offset and the decompressed reader of each
// whole gzip member of r, in order, and returns the offset just after the
// last whole one; a torn or foreign member ends the walk without error.
// What fn leaves unread of a member is read to check its trailer.
func eachMember(r io.Reader, fn func(off int64, member io.Reader) error) (int64, error) {
	cr := &countReader{r: r}
	// bufio.Reader is an io.ByteReader, so the decompressor reads no
	// further than each member's end; the buffer's unread bytes are not
	// yet consumed.
	br := bufio.NewReaderSize(cr, 64<<10)
	consumed := func() int64 { return cr.n - int64(br.Buffered()) }
	var good int64
	var z *gzip.Reader
	for {
		if _, err := br.Peek(1); err == io.EOF {
			return good, nil
		} else if err != nil {
			return good, err
		}
		var err error
		if z == nil {
			z, err = gzip.NewReader(br)
		} else {
			err = z.Reset(br)
		}
		// A member that does not decompress to its end is torn (the end
		// of what is whole), unless the file itself could not be read:
		// that is returned, so that no cut follows from it.
		if err != nil {
			return good, cr.err // a torn or foreign header
		}
		z.Multistream(false)
		if err := fn(good, z); err != nil {
			return good, err
		}
		if _, err := io.Copy(io.Discard, z); err != nil {
			return good, cr.err
		}
		good = consumed()
	}
}

// eachRecord is eachMember for a file of uncompressed records: fn gets
// the start of each whole record's header (at most maxHeadKept bytes),
// and the offset returned is just after the last whole record. A record
// cut short, or bytes that are not a record, end the walk without error;
// an error reading the file is returned, so that no cut follows from it.
func eachRecord(r io.Reader, fn func(off int64, head io.Reader) error) (int64, error) {
	cr := &countReader{r: r}
	br := bufio.NewReaderSize(cr, 64<<10)
	consumed := func() int64 { return cr.n - int64(br.Buffered()) }
	var good int64
	for {
		if _, err := br.Peek(1); err == io.EOF {
			return good, nil
		} else if err != nil {
			return good, err
		}
		head, err := plainRecord(br)
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, errNotRecord) {
			return good, nil
		}
		if err != nil {
			return good, err
		}
		if err := fn(good, bytes.NewReader(head)); err != nil {
			return good, err
		}
		good = consumed()
	}
}

// errNotRecord is plainRecord's answer to bytes that are not a record.
var errNotRecord = errors.New("warc: not a WARC record")

// maxHeadKept is how much of a record's header plainRecord keeps for
// readHead, which reads no more of a gzip member's either.
const maxHeadKept = 64 << 10

// plainRecord reads one uncompressed record from br (WARC 1.1 §4: a
// version line, header fields, a blank line, Content-Length bytes of
// block, CR LF CR LF) and returns the start of its header. A header of
// any length is read through, in bounded memory. The error is
// io.ErrUnexpectedEOF when the input ends inside the record, errNotRecord
// when what is read is not a record, else the reader's.
func plainRecord(br *bufio.Reader) ([]byte, error) {
	var head []byte
	length := int64(-1)
	first := true
	var line []byte // the start of the current line, enough to know a Content-Length
	for {
		chunk, err := br.ReadSlice('\n')
		if len(head) < maxHeadKept {
			head = append(head, chunk[:min(len(chunk), maxHeadKept-len(head))]...)
		}
		if len(line) < 128 {
			line = append(line, chunk[:min(len(chunk), 128-len(line))]...)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		if err != nil {
			return nil, err
		}
		text := strings.TrimRight(string(line), "\r\n")
		line = line[:0]
		switch k, v, _ := strings.Cut(text, ":"); {
		case first:
			if !strings.HasPrefix(text, "WARC/") {
				return nil, errNotRecord
			}
			first = false
			continue
		case text == "":
			if length < 0 {
				return nil, errNotRecord
			}
		case strings.EqualFold(strings.TrimSpace(k), "Content-Length"):
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil || n < 0 {
				return nil, errNotRecord
			}
			length = n
			continue
		default:
			continue
		}
		break
	}
	if _, err := io.CopyN(io.Discard, br, length); err != nil {
		if err == io.EOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	var end [4]byte
	if _, err := io.ReadFull(br, end[:]); err != nil {
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return nil, io.ErrUnexpectedEOF
		}
		return nil, err
	}
	if string(end[:]) != "\r\n\r\n" {
		return nil, errNotRecord
	}
	return head, nil
}

type countReader struct {
	r   io.Reader
	n   int64
	err error // a failure to read, not the end of the file
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	if err != nil && err != io.EOF && c.err == nil {
		c.err = err
	}
	return n, err
}

// member is one record of a file as repair sees it.
type member struct {
	off                 int64
	typ, uri, task, log string
}

// key is what groups a transfer's records: its Fetch-Task, or in a file
// written before that field, its WARC-Target-URI (each redirect hop then
// a group of its own).
func (m member) key() string {
	if m.task != "" {
		return m.task
	}
	return m.uri
}

// readHead reads a record's WARC-Type, WARC-Target-URI, Fetch-Task and
// Fetch-Log from the start of its member (at most 64 KiB of header).
func readHead(off int64, z io.Reader) member {
	m := member{off: off}
	hr := bufio.NewReaderSize(io.LimitReader(z, 64<<10), 4096)
	for {
		line, err := hr.ReadString('\n')
		line = strings.TrimRight(line, "\r\n")
		if k, v, ok := strings.Cut(line, ":"); ok {
			switch strings.ToLower(strings.TrimSpace(k)) {
			case "warc-type":
				m.typ = strings.TrimSpace(v)
			case "warc-target-uri":
				m.uri = strings.TrimSpace(v)
			case "fetch-task":
				m.task = strings.TrimSpace(v)
			case "fetch-log":
				m.log = strings.TrimSpace(v)
			}
		}
		if line == "" || err != nil {
			return m
		}
	}
}
