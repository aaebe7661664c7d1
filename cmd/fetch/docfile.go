package main

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
)

// tempPrefix starts the name of every temporary file of a batch, followed
// by the process id: a later run recognises and removes those of a run
// that was killed.
const tempPrefix = ".fetch-part."

// A docFile is a document being written into the output directory. No
// name there shows it until publish, so a name in the output directory
// is always a whole document.
//
// Where the system allows (Linux: O_TMPFILE), the file has no name at all
// until publish links it in: a killed run leaves nothing behind, and the
// directory is changed once a document, not twice (create, then rename).
// Creating files dominates a batch of small documents, and an unnamed
// file is made without holding the directory's lock, so transfers create
// theirs side by side. Elsewhere the file is written under a temporary
// name (tempPrefix) and renamed.
type docFile struct {
	*os.File
	temp   string // the temporary name; "" for an unnamed file
	closed bool   // by publish, which is called again after errNameIsDir
}

// errNameIsDir is publish's failure when a directory has the document's
// name: it is never replaced, and the document waits for another name.
var errNameIsDir = errors.New("is a directory")

// createDoc starts a document that is to be published in dir; base is
// the final name, which a temporary name ends with so that a user who
// finds one can tell what it was.
func createDoc(dir, base string) (*docFile, error) {
	if f, err := openUnnamed(dir); err == nil {
		return &docFile{File: f}, nil
	} else if !errors.Is(err, errors.ErrUnsupported) {
		return nil, err
	}
	return createTempDoc(dir, base)
}

// createTempDoc starts a document under a temporary name in dir.
func createTempDoc(dir, base string) (*docFile, error) {
	for i := 0; ; i++ {
		name := tempName(dir, base)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if err == nil {
			return &docFile{File: f, temp: name}, nil
		}
		if !errors.Is(err, os.ErrExist) || i > 100 {
			return nil, err
		}
	}
}

// tempName is a temporary name in dir for a document to be named base.
func tempName(dir, base string) string {
	if len(base) > 100 {
		base = strings.ToValidUTF8(base[:100], "") // not half a character
	}
	return filepath.Join(dir, fmt.Sprintf("%s%d.%08x.%s", tempPrefix, os.Getpid(), rand.Uint32(), base))
}

// publish gives the whole document its name dest, replacing a file of
// that name, and closes it. The caller syncs first when the document is
// to survive a crash. A directory named dest is kept: publish then fails
// with an error matching errNameIsDir, and the document, still whole, can
// be published under another name or discarded.
func (d *docFile) publish(dest string) error {
	if d.temp == "" {
		err := linkUnnamed(d.File, dest)
		if errors.Is(err, os.ErrExist) {
			// dest exists (a rerun over earlier output): under a
			// temporary name first, then renamed over it
			err = d.linkTemp(dest)
			if errors.Is(err, errNameIsDir) {
				return err // d.temp names it now
			}
		}
		if cerr := d.Close(); err == nil && cerr != nil {
			os.Remove(dest)
			err = cerr
		}
		return err
	}
	if !d.closed {
		d.closed = true
		if err := d.Close(); err != nil {
			return err
		}
	}
	return renameDoc(d.temp, dest)
}

// renameDoc renames the document old to dest, unless dest is a directory
// (errNameIsDir). Only a failed rename looks: every system refuses to
// rename a file over a directory, each with its own error (Go's
// os.Rename says "file exists").
func renameDoc(old, dest string) error {
	err := os.Rename(old, dest)
	if err != nil {
		if st, serr := os.Lstat(dest); serr == nil && st.IsDir() {
			return &os.PathError{Op: "rename", Path: dest, Err: errNameIsDir}
		}
	}
	return err
}

// linkTemp names an unnamed document by a temporary name in dest's
// directory and renames that over dest. When dest is a directory, the
// temporary name is kept (d.temp): a file that was linked once cannot be
// linked again once its last name is gone.
func (d *docFile) linkTemp(dest string) error {
	for i := 0; ; i++ {
		name := tempName(filepath.Dir(dest), filepath.Base(dest))
		err := linkUnnamed(d.File, name)
		if err == nil {
			if err := renameDoc(name, dest); err != nil {
				if errors.Is(err, errNameIsDir) {
					d.temp = name
				} else {
					os.Remove(name)
				}
				return err
			}
			return nil
		}
		if !errors.Is(err, os.ErrExist) || i > 100 {
			return err
		}
	}
}

// discard drops an unfinished document: its temporary name too, if it
// has one.
func (d *docFile) discard() {
	d.Close()
	if d.temp != "" {
		os.Remove(d.temp)
	}
}
