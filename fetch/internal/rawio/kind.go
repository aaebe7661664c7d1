package rawio

// A Kind is what an output file is, as far as writing it goes.
type Kind int

const (
	Other Kind = iota // a terminal or another device: it can block
	Quick             // a regular file or /dev/null: a write is a copy
	Pipe              // a pipe: a write can wait for its reader
)
