package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/filelock"
)

// logLine is one URL's outcome in a batch: a line of the --log file and,
// with --json, of standard output.
type logLine struct {
	URL        string `json:"url"`     // as given in the list (password masked)
	Outcome    string `json:"outcome"` // "ok" or "failed"
	Error      string `json:"error,omitempty"`
	Exit       int    `json:"exit"` // the exit status of this URL's outcome
	Bytes      int64  `json:"bytes"`
	SHA256     string `json:"sha256,omitempty"`
	DurationMS int64  `json:"duration_ms"`
	Attempts   int    `json:"attempts"`
	File       string `json:"file,omitempty"`

	rec      *warcRecord // the last attempt's WARC records, written with the line
	fetchErr error       // the last attempt's error, for its WARC record
}

// batchLog appends outcome lines to the --log file, each synced to disk
// before the next URL is counted done, so a batch killed at any moment
// finds in its log exactly the URLs whose files are complete.
type batchLog struct {
	mu   sync.Mutex
	f    *os.File // nil without --log
	keep bool     // f is a file to sync (not /dev/null)
	json io.Writer
	err  error // the first write failure; the batch stops on it
	// logged lists the URLs the log held as ok when it was opened, for
	// the WARC's repair (batch.keepTail); dropped once the WARC is open.
	logged []string
}

// maxLogLine is the longest log line read whole: a list's URLs are at most
// 64 KiB, and a line repeats one in its error message.
const maxLogLine = 1 << 20

// errNotRegularLog is the error for a --log that is a directory, a FIFO
// or a device other than /dev/null.
var errNotRegularLog = errors.New("not a regular file (a --log is one, or /dev/null to keep none)")

// lockErr is the error for the file of flag (--log, --warc) that another
// writer has locked (filelock.ErrLocked): most likely a run of fetch
// still going, of which the next run of a cron job must not cut the
// records.
func lockErr(flag, name string, err error) error {
	if !errors.Is(err, filelock.ErrLocked) {
		return outputErr(flag+": open", name, err)
	}
	return &fetch.Error{Kind: fetch.KindLocal, Op: flag + " " + fetch.RedactedText(name), Offset: -1,
		Err: fmt.Errorf("%w; another fetch is writing it: wait for that run to end, or give this one a %s of its own", filelock.ErrLocked, flag)}
}

// readDone reads a log from its start: the URLs it records as ok (their
// digests, and the URLs themselves as a list), and the files they were
// written to (file → URL), each as spell writes it (nil: as the log
// does). A last line cut short by a kill is ignored (its URL is fetched
// again); whole is the length of the log without it, where the next line
// goes.
func readDone(f io.Reader, spell func(string) string) (done map[nameDigest]bool, urls []string, names map[nameDigest]nameDigest, whole int64, err error) {
	done, names = map[nameDigest]bool{}, map[nameDigest]nameDigest{}
	r := bufio.NewReader(f)
	for {
		line, n, err := readLogLine(r)
		if err == io.EOF {
			return done, urls, names, whole, nil // and a last line without its end is not counted
		}
		if err != nil {
			return nil, nil, nil, 0, err
		}
		if whole == 0 {
			// a byte order mark an editor added: the first line is
			// still one (-i lists skip it too)
			line = bytes.TrimPrefix(line, []byte("\ufeff"))
		}
		whole += n
		if len(line) > maxLogLine {
			continue // no line of a list's URL: its URL (megabytes long) is fetched again
		}
		var l logLine
		if json.Unmarshal(line, &l) == nil && l.Outcome == "ok" {
			done[digestName(l.URL)] = true
			urls = append(urls, l.URL)
			if file := l.File; file != "" {
				if spell != nil {
					file = spell(file)
				}
				names[fileKey(file)] = digestName(l.URL)
				// and its directories, all the way up (claim asks
				// only those in the output directory)
				for d := filepath.Dir(file); ; d = filepath.Dir(d) {
					k := dirDigest(d)
					if _, ok := names[k]; ok {
						break
					}
					names[k] = nameDigest{}
					if filepath.Dir(d) == d {
						break
					}
				}
			}
		}
	}
}

// readLogLine reads one line through its "\n": at most its first
// maxLogLine+1 bytes, and its whole length.
func readLogLine(r *bufio.Reader) ([]byte, int64, error) {
	line, err := r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return line, int64(len(line)), err
	}
	kept := append([]byte(nil), line...) // the next read reuses the buffer
	n := int64(len(line))
	for errors.Is(err, bufio.ErrBufferFull) {
		line, err = r.ReadSlice('\n')
		n += int64(len(line))
		kept = append(kept, line[:min(len(line), max(0, maxLogLine+1-len(kept)))]...)
	}
	return kept, n, err
}

// openLog opens the --log file for appending and returns the URLs it
// already records as ok and the files they have.
func openLog(name string, jsonOut io.Writer, spell func(string) string) (*batchLog, map[nameDigest]bool, map[nameDigest]nameDigest, error) {
	l := &batchLog{json: jsonOut}
	if name == "" {
		return l, map[nameDigest]bool{}, map[nameDigest]nameDigest{}, nil
	}
	if fi, err := os.Stat(name); err == nil && !fi.Mode().IsRegular() && name != os.DevNull {
		// before opening: a FIFO's open waits for a reader, and a device
		// would be read without end (/dev/zero)
		return nil, nil, nil, outputErr("--log: read", name, errNotRegularLog)
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o666) // RDWR: Windows locks no append-only handle
	if err != nil {
		return nil, nil, nil, outputErr("--log: open", name, err)
	}
	fi, err := f.Stat()
	l.keep = err == nil && fi.Mode().IsRegular()
	// Locked before it is read: another run writing it would go on
	// appending after this one read it, and have its last lines cut.
	if l.keep {
		if err := filelock.TryLock(f); err != nil {
			f.Close()
			return nil, nil, nil, lockErr("--log", name, err)
		}
	}
	// Read through the file opened and locked, not by its name again,
	// which may name another file by now; /dev/null reads as empty.
	done, urls, names, whole, err := readDone(f, spell)
	if err != nil {
		f.Close()
		return nil, nil, nil, outputErr("--log: read", name, err)
	}
	// A line cut short by a kill goes, so that every line of the log is
	// whole JSON; its URL was not done and is fetched again. (Its size
	// now: a run that held the lock may have added to it since the Stat.)
	if fi, err = f.Stat(); err == nil && l.keep && fi.Size() > whole {
		if err := f.Truncate(whole); err != nil {
			f.Close()
			return nil, nil, nil, outputErr("--log: write", name, err)
		}
	}
	l.f, l.logged = f, urls
	return l, done, names, nil
}

// wanted reports whether the lines go anywhere (--log, --json).
func (l *batchLog) wanted() bool { return l.json != nil || l.f != nil }

// write appends one line and syncs it.
func (l *batchLog) write(line logLine) error {
	if !l.wanted() {
		return nil // neither --log nor --json: nothing to write
	}
	b, err := marshalJSON(line)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil {
		return l.err
	}
	// --json shows the lines the log holds: a line the log failed to
	// take is no URL done (a rerun fetches it), and standard output
	// saying "ok" for it would contradict the log.
	if l.f != nil {
		if _, err := l.f.Write(b); err != nil {
			l.err = outputErr("--log: write", l.f.Name(), err)
		} else if l.keep {
			if err := l.f.Sync(); err != nil {
				l.err = outputErr("--log: sync", l.f.Name(), err)
			}
		}
	}
	if l.json != nil && l.err == nil {
		l.json.Write(b)
	}
	return l.err
}

// removeEmpty removes the log file if it holds no line, ahead of close:
// still locked where an open file can be removed, so that no other run
// takes it in between; after closing it on Windows, which removes no
// open file. A log with lines is another run's, which created it after
// this one looked for it.
func (l *batchLog) removeEmpty() {
	if l.f == nil || !l.keep {
		return
	}
	if fi, err := l.f.Stat(); err != nil || fi.Size() != 0 {
		return
	}
	if runtime.GOOS == "windows" {
		l.f.Close()
		os.Remove(l.f.Name())
		l.f = nil
		return
	}
	os.Remove(l.f.Name())
}

func (l *batchLog) close() error {
	if l.f == nil {
		return nil
	}
	if err := l.f.Close(); err != nil {
		return &fetch.Error{Kind: fetch.KindLocal, Op: "close " + l.f.Name(), Offset: -1, Err: err}
	}
	return nil
}
