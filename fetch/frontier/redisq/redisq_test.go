//go:build integration

// These tests talk to the harness's real Redis (integration/servers/redis.sh:
// FETCH_REDIS_ADDR, FETCH_REDIS_USER, FETCH_REDIS_PASSWORD); run them with
// integration/test.sh, which starts it. There is no mock Redis.
package redisq_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fetchproject/fetch/fetch/frontier"
	"github.com/fetchproject/fetch/fetch/frontier/frontiertest"
	"github.com/fetchproject/fetch/fetch/frontier/redisq"
	"github.com/fetchproject/fetch/fetch/frontier/redisq/redistest"
)

func env(t *testing.T, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s is not set: run the tests with integration/test.sh, which starts Redis", name)
	}
	return v
}

// queueURL is a new queue's URL on the harness's server, with the user
// and password in it; the queue's keys are removed when the test ends.
func queueURL(t *testing.T) string {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	name := "test-" + strings.NewReplacer("/", "-").Replace(t.Name()) + "-" + hex.EncodeToString(b[:])
	u := &url.URL{Scheme: "redis", Host: env(t, "FETCH_REDIS_ADDR"), Path: "/" + name,
		User: url.UserPassword(env(t, "FETCH_REDIS_USER"), env(t, "FETCH_REDIS_PASSWORD"))}
	t.Cleanup(func() {
		rdb := admin(t)
		defer rdb.Close()
		rdb.Del(context.Background(), name, name+":seen", name+":done", name+":failed")
	})
	return u.String()
}

func admin(t *testing.T) *redis.Client {
	return redis.NewClient(&redis.Options{Addr: env(t, "FETCH_REDIS_ADDR"),
		Username: env(t, "FETCH_REDIS_USER"), Password: env(t, "FETCH_REDIS_PASSWORD"), DisableIdentity: true})
}

func open(t *testing.T, raw string, opt redisq.Options) *redisq.Queue {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q, err := redisq.Open(ctx, raw, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

func TestConformance(t *testing.T) {
	frontiertest.Run(t, func(t *testing.T, seeds []frontier.Task) frontier.Frontier {
		q := open(t, queueURL(t), redisq.Options{IdleExit: 300 * time.Millisecond, ClaimTimeout: time.Minute})
		if _, err := q.Add(context.Background(), seeds...); err != nil {
			t.Fatal(err)
		}
		return q
	})
}

// A task whose worker died (its lease never Done, its keep-alive gone) is
// taken over by another worker once idle past the claim timeout, and
// finished once.
func TestClaimAfterWorkerDies(t *testing.T) {
	raw := queueURL(t)
	ctx := context.Background()
	const claim = 500 * time.Millisecond
	dead := open(t, raw, redisq.Options{Consumer: "dead", ClaimTimeout: claim, IdleExit: time.Second})
	if _, err := dead.Add(ctx, frontier.Task{URL: "gopher://h.test/0/a"}, frontier.Task{URL: "gopher://h.test/0/b"}); err != nil {
		t.Fatal(err)
	}
	l, err := dead.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	abandoned := l.Task().URL
	dead.Close() // the worker is gone: no Done, no keep-alive

	live := open(t, raw, redisq.Options{Consumer: "live", ClaimTimeout: claim, IdleExit: 500 * time.Millisecond})
	start := time.Now()
	var got []string
	for {
		l, err := live.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if l.Task().URL == abandoned && time.Since(start) < claim {
			t.Errorf("the abandoned task was taken over after %v, before the claim timeout %v", time.Since(start), claim)
		}
		got = append(got, l.Task().URL)
		if err := l.Done(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if len(got) != 2 {
		t.Fatalf("live worker finished %v, want both tasks", got)
	}
	st, err := live.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Queued != 0 || st.Done != 2 || len(nonZero(st.Pending)) != 0 || st.Seen != 2 {
		t.Errorf("status %+v, want nothing queued or pending, 2 done, 2 seen", st)
	}
}

// A dead worker's task is taken over even when live workers hold more than
// ten older tasks: XAUTOCLAIM looks at ten pending entries a call, and a
// scan that always began at the start never reached it.
func TestClaimBehindLiveLeases(t *testing.T) {
	raw := queueURL(t)
	ctx := context.Background()
	const claim = 500 * time.Millisecond
	opts := func(name string) redisq.Options {
		return redisq.Options{Consumer: name, ClaimTimeout: claim, IdleExit: time.Hour}
	}
	live := open(t, raw, opts("live"))
	const held = 15
	var tasks []frontier.Task
	for i := range held + 1 {
		tasks = append(tasks, frontier.Task{URL: fmt.Sprintf("gopher://h.test/0/%02d", i)})
	}
	if _, err := live.Add(ctx, tasks...); err != nil {
		t.Fatal(err)
	}
	for range held { // leased, kept alive, not done: slow transfers
		if _, err := live.Next(ctx); err != nil {
			t.Fatal(err)
		}
	}
	dead := open(t, raw, opts("dead"))
	l, err := dead.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	abandoned := l.Task().URL
	dead.Close() // no Done, no keep-alive

	other := open(t, raw, opts("other"))
	cctx, cancel := context.WithTimeout(ctx, 20*claim)
	defer cancel()
	got, err := other.Next(cctx)
	if err != nil {
		t.Fatalf("the dead worker's task was not taken over within 20 claim timeouts: %v", err)
	}
	if got.Task().URL != abandoned {
		t.Errorf("took over %s, want the dead worker's %s", got.Task().URL, abandoned)
	}
}

func nonZero(m map[string]int64) map[string]int64 {
	out := map[string]int64{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// A long task is not taken over while its worker lives: the lease's
// keep-alive resets its idle time.
func TestKeepAlive(t *testing.T) {
	raw := queueURL(t)
	ctx := context.Background()
	// The keep-alive ticks every claim/3: only a stall of the whole
	// claim timeout on a busy machine would let b in.
	const claim = 2 * time.Second
	a := open(t, raw, redisq.Options{Consumer: "a", ClaimTimeout: claim, IdleExit: time.Second})
	b := open(t, raw, redisq.Options{Consumer: "b", ClaimTimeout: claim, IdleExit: 10 * claim})
	if _, err := a.Add(ctx, frontier.Task{URL: "ftp://h.test/big"}); err != nil {
		t.Fatal(err)
	}
	l, err := a.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	// b looks for work for several claim timeouts while a holds the task.
	bctx, cancel := context.WithTimeout(ctx, 5*claim/2)
	defer cancel()
	if got, err := b.Next(bctx); err == nil {
		t.Fatalf("b took over %v while a's lease was alive", got.Task())
	} else if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("b.Next: %v, want its deadline (a still holds the task)", err)
	}
	if err := l.Done(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// Outcomes are counted apart; a status names the pending work per worker.
func TestStatus(t *testing.T) {
	raw := queueURL(t)
	ctx := context.Background()
	q := open(t, raw, redisq.Options{Consumer: "w1", IdleExit: 200 * time.Millisecond})
	var tasks []frontier.Task
	for i := range 5 {
		tasks = append(tasks, frontier.Task{URL: fmt.Sprintf("gopher://h.test/0/%d", i)})
	}
	// de-duplication by key: a second spelling of the same URL is not new
	n, err := q.Add(ctx, append(tasks, tasks[0])...)
	if err != nil || n != 5 {
		t.Fatalf("Add = %d, %v; want 5", n, err)
	}
	var leases []frontier.Lease
	for range 3 {
		l, err := q.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		leases = append(leases, l)
	}
	leases[0].(frontier.Outcomer).Outcome(false)
	leases[0].Done(ctx, nil)
	leases[1].Done(ctx, []frontier.Task{{URL: "gopher://h.test/0/new", Depth: 1}, tasks[2]})
	st, err := q.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	want := redisq.Status{Queued: 3, Pending: map[string]int64{"w1": 1}, Done: 1, Failed: 1, Seen: 6}
	if st.Queued != want.Queued || st.Done != want.Done || st.Failed != want.Failed || st.Seen != want.Seen ||
		len(st.Pending) != 1 || st.Pending["w1"] != 1 {
		t.Errorf("status %+v, want %+v", st, want)
	}
	leases[2].Done(ctx, nil)
}

// Concurrent producers and consumers in several "processes" (queues with
// their own connections): every task finished exactly once.
func TestManyWorkers(t *testing.T) {
	raw := queueURL(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	seed := open(t, raw, redisq.Options{})
	var seeds []frontier.Task
	for i := range 20 {
		seeds = append(seeds, frontier.Task{URL: fmt.Sprintf("gopher://h.test/1/%d", i)})
	}
	if _, err := seed.Add(ctx, seeds...); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	count := map[string]int{}
	var wg sync.WaitGroup
	for w := range 3 {
		q := open(t, raw, redisq.Options{Consumer: fmt.Sprintf("w%d", w), IdleExit: time.Second})
		for range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					l, err := q.Next(ctx)
					if err == io.EOF {
						return
					}
					if err != nil {
						t.Error(err)
						return
					}
					task := l.Task()
					mu.Lock()
					count[task.URL]++
					mu.Unlock()
					var found []frontier.Task
					if task.Depth == 0 {
						// every menu links to the same ten documents
						for k := range 10 {
							found = append(found, frontier.Task{URL: fmt.Sprintf("gopher://h.test/0/doc%d", k), Depth: 1})
						}
					}
					if err := l.Done(ctx, found); err != nil {
						t.Error(err)
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	if len(count) != 30 {
		t.Errorf("%d distinct tasks finished, want 30", len(count))
	}
	for u, n := range count {
		if n != 1 {
			t.Errorf("%s finished %d times", u, n)
		}
	}
}

// The password never shows: not in errors, not in Redacted.
func TestPasswordNotShown(t *testing.T) {
	a, err := redisq.ParseAddr("redis://fetch:hunter2@127.0.0.1:1/q")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(a.Redacted(), "hunter2") {
		t.Errorf("Redacted() = %q", a.Redacted())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, err = redisq.Open(ctx, "redis://fetch:hunter2@127.0.0.1:1/q", redisq.Options{RetryFor: 200 * time.Millisecond})
	if err == nil {
		t.Fatal("Open of a closed port succeeded")
	}
	if strings.Contains(err.Error(), "hunter2") {
		t.Errorf("error shows the password: %v", err)
	}
	// a wrong password is refused at once, not retried for RetryFor
	u, _ := url.Parse(queueURL(t))
	u.User = url.UserPassword(env(t, "FETCH_REDIS_USER"), "wrong-pw")
	start := time.Now()
	_, err = redisq.Open(ctx, u.String(), redisq.Options{RetryFor: time.Minute})
	if err == nil || strings.Contains(err.Error(), "wrong-pw") {
		t.Errorf("Open with a wrong password: %v", err)
	}
	if time.Since(start) > 20*time.Second {
		t.Errorf("a wrong password was retried for %v", time.Since(start))
	}
}

// Workers ride out a restart of the server: calls made while it is down
// are retried, the queue comes back from the append-only file, and every
// task is finished once.
func TestServerRestart(t *testing.T) {
	r := redistest.Start(t, redistest.Config{})
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var retries sync.Map
	q := open(t, "redis://"+r.Addr+"/restart", redisq.Options{IdleExit: 500 * time.Millisecond,
		OnRetry: func(err error) { retries.Store(err.Error(), true) }})
	var tasks []frontier.Task
	for i := range 10 {
		tasks = append(tasks, frontier.Task{URL: fmt.Sprintf("ftp://h.test/f%d", i)})
	}
	if _, err := q.Add(ctx, tasks...); err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	take := func() frontier.Lease {
		l, err := q.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		count[l.Task().URL]++
		return l
	}
	for range 3 {
		if err := take().Done(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	held := take()
	r.Stop()
	restarted := make(chan struct{})
	go func() {
		time.Sleep(time.Second)
		r.Start()
		close(restarted)
	}()
	// Done while the server is down: retried until it is back.
	if err := held.Done(ctx, []frontier.Task{{URL: "ftp://h.test/found", Depth: 1}, tasks[0]}); err != nil {
		t.Fatalf("Done across the restart: %v", err)
	}
	<-restarted
	for {
		l, err := q.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		count[l.Task().URL]++
		if err := l.Done(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
	if len(count) != 11 {
		t.Errorf("%d distinct tasks, want 11 (10 and the one found): %v", len(count), count)
	}
	for u, n := range count {
		if n != 1 {
			t.Errorf("%s taken %d times", u, n)
		}
	}
	n := 0
	retries.Range(func(any, any) bool { n++; return true })
	if n == 0 {
		t.Error("no call was retried: the server was not down when Done ran")
	}
	st, err := q.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Done != 11 || st.Queued != 0 {
		t.Errorf("status after the restart %+v, want 11 done and nothing queued", st)
	}
}

// A worker restarted under its name takes back its own pending tasks at
// once, without waiting for the claim timeout.
func TestRestartRecoversOwn(t *testing.T) {
	raw := queueURL(t)
	ctx := context.Background()
	opts := redisq.Options{Consumer: "a", ClaimTimeout: time.Hour, IdleExit: 300 * time.Millisecond}
	q := open(t, raw, opts)
	q.Add(ctx, frontier.Task{URL: "gopher://h.test/0/x"}, frontier.Task{URL: "gopher://h.test/0/y"}, frontier.Task{URL: "gopher://h.test/0/z"})
	held := map[string]bool{}
	for range 2 {
		l, err := q.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		held[l.Task().URL] = true
	}
	q.Close() // killed while holding two

	q2 := open(t, raw, opts)
	var got []string
	for {
		l, err := q2.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, l.Task().URL)
		l.Done(ctx, nil)
	}
	if len(got) != 3 || !held[got[0]] || !held[got[1]] {
		t.Errorf("restarted worker took %v; want first the two it held (%v), then the third", got, held)
	}
}

// owner is the consumer an entry is pending with ("" once acknowledged).
func owner(t *testing.T, rdb *redis.Client, stream, id string) string {
	t.Helper()
	p, err := rdb.XPendingExt(context.Background(), &redis.XPendingExtArgs{
		Stream: stream, Group: redisq.Group, Start: id, End: id, Count: 1}).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(p) == 0 {
		return ""
	}
	return p[0].Consumer
}

// A restarted worker hands out a task it recovered at Open only if it is
// still its own: one another worker took over meanwhile (while it waited
// in the recovered list past the claim timeout) or finished is dropped.
func TestRestartRecoveredTakenOver(t *testing.T) {
	raw := queueURL(t)
	ctx := context.Background()
	opts := redisq.Options{Consumer: "a", ClaimTimeout: time.Hour, IdleExit: time.Hour}
	q := open(t, raw, opts)
	q.Add(ctx, frontier.Task{URL: "gopher://h.test/0/x"}, frontier.Task{URL: "gopher://h.test/0/y"}, frontier.Task{URL: "gopher://h.test/0/z"})
	var ids []string
	for range 3 {
		l, err := q.Next(ctx)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, l.(*redisq.Lease).ID())
	}
	q.Close() // killed while holding all three

	q2 := open(t, raw, opts) // recovers the three
	// Meanwhile worker b takes over the second and finishes the third.
	rdb := admin(t)
	defer rdb.Close()
	stream := q2.Name()
	if err := rdb.XClaimJustID(ctx, &redis.XClaimArgs{Stream: stream, Group: redisq.Group,
		Consumer: "b", Messages: []string{ids[1]}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.XAck(ctx, stream, redisq.Group, ids[2]).Err(); err != nil {
		t.Fatal(err)
	}
	rdb.XDel(ctx, stream, ids[2])

	l, err := q2.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if l.(*redisq.Lease).ID() != ids[0] {
		t.Errorf("first task after the restart is %s, want %s (still a's)", l.(*redisq.Lease).ID(), ids[0])
	}
	nctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if l2, err := q2.Next(nctx); err == nil {
		t.Errorf("a handed out %s again; b holds %s and finished %s", l2.(*redisq.Lease).ID(), ids[1], ids[2])
	} else if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
	if got := owner(t, rdb, stream, ids[1]); got != "b" {
		t.Errorf("the task b took over is pending with %q", got)
	}
	if err := l.Done(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// leaseOne opens the queue raw as worker "a" with the claim timeout claim,
// queues url and leases it.
func leaseOne(t *testing.T, raw string, claim time.Duration, url string) (*redisq.Queue, frontier.Lease) {
	t.Helper()
	ctx := context.Background()
	a := open(t, raw, redisq.Options{Consumer: "a", ClaimTimeout: claim, IdleExit: time.Hour})
	if _, err := a.Add(ctx, frontier.Task{URL: url}); err != nil {
		t.Fatal(err)
	}
	l, err := a.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return a, l
}

// A lease's keep-alive does not take its task back from a worker that took
// it over (after a stall of the whole claim timeout): it stops instead.
func TestKeepAliveYields(t *testing.T) {
	raw := queueURL(t)
	ctx := context.Background()
	const claim = 600 * time.Millisecond // a keep-alive every 200 ms
	a, l := leaseOne(t, raw, claim, "ftp://h.test/big")
	id := l.(*redisq.Lease).ID()
	rdb := admin(t)
	defer rdb.Close()
	// b takes it over, as XAUTOCLAIM would after a's stall.
	if err := rdb.XClaimJustID(ctx, &redis.XClaimArgs{Stream: a.Name(), Group: redisq.Group,
		Consumer: "b", Messages: []string{id}}).Err(); err != nil {
		t.Fatal(err)
	}
	// a's next keep-alive (within claim/3) finds the task b's and tells
	// a's worker; the bound here is generous.
	select {
	case <-l.(frontier.Revocable).Lost():
	case <-time.After(50 * claim):
		t.Fatalf("Lost not closed %v after b took the task over", 50*claim)
	}
	time.Sleep(3 * claim) // several more of a's keep-alive ticks
	if got := owner(t, rdb, a.Name(), id); got != "b" {
		t.Errorf("after b took the task over, it is pending with %q", got)
	}
	// b has said nothing for longer than the claim timeout: it died, and
	// a takes the task back like any other worker's (its own lease of
	// it, lost, is not one it is working on).
	nctx, cancel := context.WithTimeout(ctx, 100*claim)
	defer cancel()
	l2, err := a.Next(nctx)
	if err != nil {
		t.Fatalf("a took nothing back from b, dead: %v", err)
	}
	if got := l2.(*redisq.Lease).ID(); got != id {
		t.Errorf("a took %s, want %s back from b", got, id)
	}
	if err := l2.Done(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// A lease that stays its worker's is never reported lost.
func TestKeepAliveNotLost(t *testing.T) {
	raw := queueURL(t)
	ctx := context.Background()
	const claim = 600 * time.Millisecond
	_, l := leaseOne(t, raw, claim, "ftp://h.test/long")
	select {
	case <-l.(frontier.Revocable).Lost():
		t.Fatal("Lost closed while the task was a's")
	case <-time.After(4 * claim): // a dozen keep-alives
	}
	if err := l.Done(ctx, nil); err != nil {
		t.Fatal(err)
	}
}

// A worker whose own task went idle past the claim timeout while it was
// still working on it (its keep-alive could not reach the server) does
// not take it again: XAUTOCLAIM takes from any consumer, this one too,
// and a second lease would fetch the task twice at once.
func TestNoClaimOfOwnTask(t *testing.T) {
	raw := queueURL(t)
	ctx := context.Background()
	a, l := leaseOne(t, raw, time.Hour, "ftp://h.test/x")
	id := l.(*redisq.Lease).ID()
	rdb := admin(t)
	defer rdb.Close()
	// idle for two hours, still a's: as after a keep-alive cut off
	if err := rdb.Do(ctx, "XCLAIM", a.Name(), redisq.Group, "a", 0, id, "IDLE", (2 * time.Hour).Milliseconds(), "JUSTID").Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Add(ctx, frontier.Task{URL: "ftp://h.test/y"}); err != nil {
		t.Fatal(err)
	}
	l2, err := a.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if got := l2.Task().URL; got != "ftp://h.test/y" {
		t.Errorf("a's next task is %s (%s), want the new one: a leased its own task %s again", got, l2.(*redisq.Lease).ID(), id)
	}
	nctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	if l3, err := a.Next(nctx); err == nil {
		t.Errorf("a handed out %s (%s) too; it had two tasks, both leased", l3.Task().URL, l3.(*redisq.Lease).ID())
	} else if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
	if got := owner(t, rdb, a.Name(), id); got != "a" {
		t.Errorf("the task is pending with %q, want a", got)
	}
	for _, l := range []frontier.Lease{l, l2} {
		if err := l.Done(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}
}
