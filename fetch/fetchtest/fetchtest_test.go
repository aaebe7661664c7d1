package fetchtest_test

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fetchproject/fetch/fetch/fetchtest"
)

// TestToyPasses runs the suite against the toy driver done right, in both
// URL forms: the suite must not fail a conforming driver.
func TestToyPasses(t *testing.T) {
	t.Run("host", func(t *testing.T) { fetchtest.Run(t, toyHarness(knobs{}, false, false)) })
	t.Run("opaque", func(t *testing.T) { fetchtest.Run(t, toyHarness(knobs{}, true, false)) })
}

// recorder is a testing.TB that notes failures instead of failing.
type recorder struct {
	testing.TB
	mu     sync.Mutex
	failed bool
	msgs   []string
}

func (r *recorder) Helper() {}
func (r *recorder) Fail() {
	r.mu.Lock()
	r.failed = true
	r.mu.Unlock()
}
func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}
func (r *recorder) Error(args ...any) { r.note(strings.TrimSuffix(sprintln(args...), "\n")) }
func (r *recorder) Errorf(format string, args ...any) {
	r.note(sprintf(format, args...))
}
func (r *recorder) Fatal(args ...any)                 { r.Error(args...); runtime.Goexit() }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); runtime.Goexit() }
func (r *recorder) FailNow()                          { r.Fail(); runtime.Goexit() }
func (r *recorder) note(msg string) {
	r.mu.Lock()
	r.failed = true
	r.msgs = append(r.msgs, msg)
	r.mu.Unlock()
}

// runCheck runs one check with a recorder; a panic counts as a failure.
func runCheck(t *testing.T, c fetchtest.Check, h *fetchtest.Harness) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() {
			if p := recover(); p != nil {
				r.Errorf("panic: %v", p)
			}
		}()
		c.Fn(r, h)
	}()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s did not finish in 2 minutes", c.Name)
	}
	return r
}

// TestChecksCanFail breaks one safeguard at a time in the toy driver and
// expects the checks that guard it to fail.
func TestChecksCanFail(t *testing.T) {
	t.Cleanup(releaseLeaks)
	tests := []struct {
		name        string
		k           knobs
		opaque      bool
		dropOptions bool
		fail        []string
	}{
		{"no line check", knobs{noLineCheck: true}, false, false,
			[]string{"LineSafety/selector/CR", "LineSafety/selector/LF", "LineSafety/selector/NUL", "LineSafety/selector/CRLF"}},
		{"sends before checking", knobs{sendFirst: true}, false, false, []string{"LineSafety/selector/NUL"}},
		{"configured port unchecked", knobs{noPortCheck: true}, true, false, []string{"PortPolicy/Refused"}},
		{"policy of its own", knobs{ownPolicy: true}, true, false, []string{"PortPolicy/AllowPort"}},
		{"wrong default port", knobs{wrongDefault: true}, false, false, []string{"PortPolicy/DefaultAllowed"}},
		{"no idle timeout or context", knobs{rawDial: true}, false, false,
			[]string{"Timeout/Silent", "Timeout/Stall", "Timeout/DribbleOpening", "Timeout/DribbleTransfer", "Cancel/DuringFetch", "Cancel/DuringBody"}},
		{"timeout of the wrong kind", knobs{timeoutKind: true}, false, false, []string{"Timeout/Silent", "Timeout/Stall"}},
		{"clean EOF when short", knobs{cleanEOF: true}, false, false, []string{"Truncation/Short", "Truncation/NoEnd"}},
		{"goroutine leak", knobs{leakGoroutine: true}, false, false, []string{"Timeout/Silent", "Truncation/Short"}},
		{"descriptor leak", knobs{leakFD: true}, false, false, []string{"Timeout/Silent", "Listing/Names"}},
		{"relative entry URLs", knobs{relativeURLs: true}, false, false, []string{"Listing/Names"}},
		{"entries dropped", knobs{shortListing: true}, false, false, []string{"Listing/100000"}},
		{"unbounded lines", knobs{unboundedLines: true}, false, false, []string{"LongLine/1MiB", "LongLine/Endless"}},
		{"over-long line of the wrong kind", knobs{lineKind: true}, false, false, []string{"LongLine/1MiB", "LongLine/Endless"}},
		{"unbounded listing", knobs{endlessListing: true}, false, false, []string{"MaxSize/EndlessListing"}},
		{"max size dropped", knobs{}, false, true, []string{"MaxSize/EndlessDocument"}},
		{"panic on garbage", knobs{panicOnGarbage: true}, false, false, []string{"Garbage"}},
		{"error of no kind", knobs{unknownKind: true}, false, false, []string{"Garbage"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := toyHarness(tt.k, tt.opaque, tt.dropOptions)
			checks := fetchtest.Checks(h)
			for _, name := range tt.fail {
				i := slices.IndexFunc(checks, func(c fetchtest.Check) bool { return c.Name == name })
				if i < 0 {
					t.Fatalf("no check %s", name)
				}
				r := runCheck(t, checks[i], h)
				if !r.Failed() {
					t.Errorf("%s passed a driver whose safeguard is broken (%s)", name, tt.name)
				} else {
					t.Logf("%s failed as it should: %s", name, first(r.msgs))
				}
			}
			releaseLeaks()
		})
	}
}

func first(msgs []string) string {
	if len(msgs) == 0 {
		return "(no message)"
	}
	return msgs[0]
}

func sprintf(format string, args ...any) string { return fmt.Sprintf(format, args...) }
func sprintln(args ...any) string               { return fmt.Sprintln(args...) }
