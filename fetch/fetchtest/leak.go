package fetchtest

import (
	"os"
	"runtime"
	"testing"
	"time"
)

// leakSettle is how long goroutines and descriptors get to go away.
const leakSettle = 5 * time.Second

// resources is a count of goroutines and open file descriptors.
type resources struct {
	goroutines int
	fds        int // -1 where /proc/self/fd cannot be read
}

func countResources() resources {
	r := resources{goroutines: runtime.NumGoroutine(), fds: -1}
	if des, err := os.ReadDir("/proc/self/fd"); err == nil {
		r.fds = len(des) - 1 // the directory's own descriptor
	}
	return r
}

// startPoller makes the runtime open its network poller's descriptors (an
// epoll and an eventfd on Linux), which it does the first time a
// descriptor is polled and keeps for the life of the process. Were that
// first time inside the function NoLeaks watches (a test run alone with
// -run), they would count as its leak. A pipe's descriptors are polled.
func startPoller() {
	if r, w, err := os.Pipe(); err == nil {
		r.Close()
		w.Close()
	}
}

// baseline is the fewest goroutines and descriptors seen over 50 ms:
// what the caller's previous work leaves winding down is not counted.
func baseline() resources {
	startPoller()
	b := countResources()
	for range 5 {
		time.Sleep(10 * time.Millisecond)
		r := countResources()
		b.goroutines = min(b.goroutines, r.goroutines)
		if r.fds >= 0 {
			b.fds = min(b.fds, r.fds)
		}
	}
	return b
}

// NoLeaks runs fn and fails t if goroutines or file descriptors remain
// afterwards that were not there before, once they have had leakSettle to
// finish. fn must stop its own fake servers before it returns.
func NoLeaks(t testing.TB, fn func()) {
	t.Helper()
	before := baseline()
	fn()
	deadline := time.Now().Add(leakSettle)
	var now resources
	for {
		runtime.GC()
		now = countResources()
		if now.goroutines <= before.goroutines && (before.fds < 0 || now.fds <= before.fds) {
			return
		}
		if time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if now.goroutines > before.goroutines {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Errorf("%d goroutines before, %d still running %v after:\n%s", before.goroutines, now.goroutines, leakSettle, buf)
	}
	if before.fds >= 0 && now.fds > before.fds {
		t.Errorf("%d file descriptors open before, %d still open %v after", before.fds, now.fds, leakSettle)
	}
}
