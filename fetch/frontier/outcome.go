package frontier

// Outcomer is implemented by the leases of a frontier that keeps counts of
// outcomes (a shared queue's status shows how many tasks failed). A worker
// calls Outcome before Done; a lease without it is counted as done.
type Outcomer interface {
	Outcome(ok bool)
}

// Revocable is implemented by the leases of a frontier that can hand a
// task to another worker while this one still runs it: a shared queue
// gives a stalled worker's task to the next, and the stalled worker may
// wake up. Lost is closed once the task is no longer this worker's; the
// worker should stop it, unacknowledged, rather than fetch it a second
// time.
type Revocable interface {
	Lost() <-chan struct{}
}
