// Package frontier holds the work of a batch or a crawl: the URLs still to
// fetch, each handed to one worker at a time and acknowledged only once
// its outcome is durable, and the set of URLs already seen, so that each
// is fetched once.
//
// A Frontier is what a batch's workers read from. The command line's
// list of URLs, a crawl kept on disk beside its log and a queue shared by
// many machines through Redis are Frontiers; the workers do not know which
// one they read. The protocol is that of a work queue with leases:
//
//	for {
//		l, err := f.Next(ctx)
//		if err == io.EOF {
//			break // nothing queued and nothing leased: the work is done
//		}
//		...fetch l.Task().URL, make its outcome durable...
//		l.Done(ctx, found) // found: the links to follow, added before the ack
//	}
//
// A lease that is never Done (its worker died) is handed out again: at
// once by a frontier of one process when it is reopened, after a claim
// timeout by a shared one. So a task may be fetched twice only when a
// worker dies between making its outcome durable and Done; a worker that
// reads its log before fetching (as the command does) skips it.
package frontier

import (
	"context"
	"errors"
)

// Task is one URL to fetch.
type Task struct {
	URL   string // absolute, as given or as resolved from a listing
	Depth int    // links followed from a seed to reach it; 0 for a seed
}

// Frontier hands out tasks. Its methods are safe for concurrent use.
type Frontier interface {
	// Next blocks until a task is free and leases it to the caller. It
	// returns io.EOF once the frontier is drained: nothing queued and no
	// lease outstanding (an outstanding lease may still add tasks).
	Next(ctx context.Context) (Lease, error)
	// Close releases what the frontier holds; leases not Done are
	// handed out again by the next frontier opened on the same state.
	Close() error
}

// Lease is a task handed to one worker.
type Lease interface {
	Task() Task
	// Done acknowledges the task, its outcome (success or failure)
	// being durable, and first adds the tasks found in it, each unless
	// its key was seen before. Done may be called once.
	Done(ctx context.Context, found []Task) error
}

// ErrClosed is returned by Next after Close.
var ErrClosed = errors.New("frontier: closed")
