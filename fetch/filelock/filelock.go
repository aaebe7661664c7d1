// Package filelock keeps two writers of one file apart: two runs of a
// batch given the same log, or two programs appending to the same WARC
// file, would each cut what they take for the other's half-written tail
// and interleave their own records. Each writer takes an exclusive
// advisory lock on the file it writes, without waiting; the second is
// told the file is in use and stops before it changes anything.
//
// The lock belongs to the open file: it is released when the file is
// closed or the process ends, killed included, so a run that died leaves
// nothing to clean up. It is advisory: it keeps out only writers that ask
// for it (every writer of this module does), and readers are never held.
package filelock

import "errors"

// ErrLocked is TryLock's error when another open file holds the lock: a
// writer in another process, or another writer of the same file in this
// one.
var ErrLocked = errors.New("in use: another writer holds its lock")

// TryLock takes the exclusive lock on f, or returns ErrLocked at once when
// another open file of the same file holds it. Where the file system or
// the platform has no such locks, it takes none and returns nil: the file
// is written unguarded, as it would be without this package.
func TryLock(f interface{ Fd() uintptr }) error { return tryLock(f.Fd()) }
