// Package rawio reads and writes descriptors that never make a caller
// wait for long — non-blocking sockets, regular files and /dev/null —
// with raw system calls, which the Go scheduler does not watch.
//
// Why: the runtime's monitor thread (sysmon) sleeps soundly while every
// goroutine waits, and the next ordinary system call wakes it, after
// which it polls every 20 µs until the process is idle again. A client
// that sends a short request, waits for the server and writes the answer
// out pays that wake-up once a request. On the paravirtualised machines
// this project is measured on, a wake-up (a futex, then tens of
// nanosleeps on the other core) costs about as much as the request
// itself: 2,000 small HTTP documents in one process took 1.1 times
// curl's time with ordinary calls and 0.85 times with these.
//
// A raw call keeps the scheduler's processor while it runs, so only calls
// that cannot block belong here: the socket calls wait for readiness in
// Go's poller (through syscall.RawConn) and only then read or write, and a
// file write takes the time of a copy into the page cache (or, when the
// kernel throttles a writer with much unwritten data, that wait too).
// Terminals, pipes and other devices, which can block on a reader, are
// written as usual.
//
// With the race detector, NewSocket and NewFile return nil and Splice is
// an ordinary call: ordinary calls tell the detector which bytes the
// kernel wrote and that a write to a descriptor happens before the read
// that sees it, which in-process test servers rely on.
package rawio
