package frontier

// Outcomer is implemented by the leases of a frontier that keeps counts of
// outcomes (a shared queue's status shows how many tasks failed). A worker
// calls Outcome before Done; a lease without it is counted as done.
type Outcomer interface {
	Outcome(ok bool)
}
