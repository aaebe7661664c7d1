//go:build integration

package redisq

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fetchproject/fetch/fetch/frontier"
)

// reviewURL is a new queue on the harness's server (FETCH_REDIS_*); its
// keys are removed when the test ends.
func reviewURL(t *testing.T) string {
	t.Helper()
	addr := os.Getenv("FETCH_REDIS_ADDR")
	if addr == "" {
		t.Fatal("FETCH_REDIS_ADDR is not set: run the tests with integration/test.sh, which starts Redis")
	}
	var b [6]byte
	rand.Read(b[:])
	name := "review-" + strings.NewReplacer("/", "-").Replace(t.Name()) + "-" + hex.EncodeToString(b[:])
	u := &url.URL{Scheme: "redis", Host: addr, Path: "/" + name,
		User: url.UserPassword(os.Getenv("FETCH_REDIS_USER"), os.Getenv("FETCH_REDIS_PASSWORD"))}
	t.Cleanup(func() {
		rdb := redis.NewClient(&redis.Options{Addr: addr, Username: os.Getenv("FETCH_REDIS_USER"),
			Password: os.Getenv("FETCH_REDIS_PASSWORD"), DisableIdentity: true})
		defer rdb.Close()
		rdb.Del(context.Background(), name, name+":seen", name+":done", name+":failed")
	})
	return u.String()
}

func reviewOpen(t *testing.T, raw string, opt Options) *Queue {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	q, err := Open(ctx, raw, opt)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { q.Close() })
	return q
}

// afterHook runs after each command the client sends (not pipelines).
type afterHook func(ctx context.Context, cmd redis.Cmder, err error) error

func (h afterHook) DialHook(n redis.DialHook) redis.DialHook { return n }
func (h afterHook) ProcessHook(n redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		return h(ctx, cmd, n(ctx, cmd))
	}
}
func (h afterHook) ProcessPipelineHook(n redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return n
}

// A task queued in the instant between Next's empty XREADGROUP and its
// XPENDING (nothing pending) is not seen by the drained check: the
// worker, idle for --idle-exit, exits although the stream holds a task
// that no worker will now read.
func TestIdleExitRace(t *testing.T) {
	const idle = 200 * time.Millisecond
	q := reviewOpen(t, reviewURL(t), Options{IdleExit: idle, ClaimTimeout: time.Minute})
	var once sync.Once
	q.rdb.AddHook(afterHook(func(ctx context.Context, cmd redis.Cmder, err error) error {
		q.mu.Lock()
		since := q.emptySince
		q.mu.Unlock()
		// An empty read with the queue empty for a while: once the
		// idle time has passed, the drained check that follows ends the
		// run, unless it sees a task queued now. (Waiting for a read
		// that came after the idle time by itself missed when the last
		// read before it ended just short of it.)
		if cmd.Name() == "xreadgroup" && errors.Is(err, redis.Nil) && !since.IsZero() {
			once.Do(func() {
				time.Sleep(idle - time.Since(since))
				// another worker's listing, or --enqueue, adds a task now
				if _, err := q.Add(context.Background(), frontier.Task{URL: "gopher://h.test/late"}); err != nil {
					t.Error(err)
				}
			})
		}
		return err
	}))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	l, err := q.Next(ctx)
	if err != nil {
		s, _ := q.Status(context.Background())
		t.Fatalf("Next: %v, with %d task(s) queued", err, s.Queued)
	}
	if got := l.Task().URL; got != "gopher://h.test/late" {
		t.Fatalf("Next handed out %q", got)
	}
	l.Done(ctx, nil)
}

// Two workers started without --worker must not share a consumer name:
// the second, at Open, takes the first's pending tasks as its own (a
// restart's recovery) and fetches them while the first still does. The
// name host:pid is the same for two containers sharing the host's
// network (hence hostname) that both run fetch as pid 1.
func TestDefaultConsumerUnique(t *testing.T) {
	raw := reviewURL(t)
	ctx := context.Background()
	a := reviewOpen(t, raw, Options{IdleExit: 200 * time.Millisecond})
	if _, err := a.Add(ctx, frontier.Task{URL: "ftp://h.test/big"}); err != nil {
		t.Fatal(err)
	}
	la, err := a.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer la.Done(ctx, nil)
	b := reviewOpen(t, raw, Options{IdleExit: 200 * time.Millisecond})
	if a.Consumer() == b.Consumer() {
		t.Errorf("two workers got the same default consumer name %q", a.Consumer())
	}
	nctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	lb, err := b.Next(nctx)
	if err == nil && lb.(*Lease).ID() == la.(*Lease).ID() {
		t.Fatalf("task %s (%s), leased to a live worker, was handed to a second one", la.(*Lease).ID(), la.Task().URL)
	}
}

// Done's reply lost (the connection reset after the script ran, as when
// the server restarts): the retry finds the entry acknowledged already
// and Done reports ErrLost ("taken over by another worker") for a task
// this worker finished and counted itself.
func TestDoneReplyLost(t *testing.T) {
	q := reviewOpen(t, reviewURL(t), Options{IdleExit: 200 * time.Millisecond})
	ctx := context.Background()
	if _, err := q.Add(ctx, frontier.Task{URL: "ftp://h.test/f"}); err != nil {
		t.Fatal(err)
	}
	l, err := q.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	q.rdb.AddHook(afterHook(func(ctx context.Context, cmd redis.Cmder, err error) error {
		if (cmd.Name() == "evalsha" || cmd.Name() == "eval") && err == nil {
			if args := cmd.Args(); len(args) > 1 && args[1] == doneScript().Hash() {
				once.Do(func() { err = io.ErrUnexpectedEOF })
			}
		}
		return err
	}))
	if err := l.Done(ctx, nil); err != nil {
		t.Errorf("Done of a task this worker held: %v", err)
	}
	s, err := q.Status(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if s.Done != 1 {
		t.Errorf("done = %d, want 1", s.Done)
	}
}

// Opening a queue only to add to it or read its counts (--enqueue,
// --queue-status) leaves no consumer behind in the group: the recovery
// read at Open (XREADGROUP ... 0) created one under the default name at
// every run, so that a status polled every few seconds grew the group's
// consumers without bound.
func TestOpenAddsNoConsumer(t *testing.T) {
	raw := reviewURL(t)
	ctx := context.Background()
	for range 3 {
		q := reviewOpen(t, raw, Options{})
		if _, err := q.Status(ctx); err != nil {
			t.Fatal(err)
		}
		q.Close()
	}
	q := reviewOpen(t, raw, Options{})
	cs, err := q.rdb.XInfoConsumers(ctx, q.keys.stream, Group).Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 0 {
		t.Errorf("after 3 status reads the group has %d consumers: %v", len(cs), cs)
	}
}
