package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/frontier"
	"github.com/fetchproject/fetch/fetch/frontier/redisq"
)

// queueOptions are the flags of the shared frontier on Redis.
type queueOptions struct {
	enqueue      string        // --enqueue URL: add -i and the arguments, then exit
	queue        string        // --queue URL: be a worker of the queue
	status       string        // --queue-status URL: print its counts
	worker       string        // --worker NAME: the consumer name (default host:pid:random)
	claimTimeout time.Duration // --claim-timeout
	idleExit     time.Duration // --idle-exit
}

func (q *queueOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&q.enqueue, "enqueue", "", "")
	fs.StringVar(&q.queue, "queue", "", "")
	fs.StringVar(&q.status, "queue-status", "", "")
	fs.StringVar(&q.worker, "worker", "", "")
	q.claimTimeout = defaultClaimTimeout
	fs.Var((*seconds)(&q.claimTimeout), "claim-timeout", "")
	q.idleExit = defaultIdleExit
	fs.Var((*seconds)(&q.idleExit), "idle-exit", "")
}

// The defaults of --claim-timeout and --idle-exit, as --help states them.
const (
	defaultClaimTimeout = time.Minute
	defaultIdleExit     = 10 * time.Second
)

// timeouts are --claim-timeout and --idle-exit, 0 being each one's
// default as for every duration flag (redisq's own for a zero idle exit
// is 5s, not the 10s --help states).
func (q *queueOptions) timeouts() (claim, idle time.Duration) {
	claim, idle = q.claimTimeout, q.idleExit
	if claim <= 0 {
		claim = defaultClaimTimeout
	}
	if idle <= 0 {
		idle = defaultIdleExit
	}
	return claim, idle
}

func init() {
	// go-redis logs failed dials on its own; a worker reports what matters
	// (the queue unreachable for good) as an error, and a retry as a
	// warning, itself.
	redis.SetLogger(quietLogger{})
}

type quietLogger struct{}

func (quietLogger) Printf(context.Context, string, ...any) {}

// queueErr is a failure of the queue's server as the command reports it.
func queueErr(flagName string, err error) error {
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	k := fetch.KindNetwork
	msg := err.Error()
	switch {
	case errors.Is(err, context.Canceled):
		k = fetch.KindUnknown
	case strings.Contains(msg, "queue URL"):
		k = fetch.KindUsage
	case strings.Contains(msg, "WRONGPASS") || strings.Contains(msg, "NOAUTH") || strings.Contains(msg, "NOPERM"):
		k = fetch.KindServer
	}
	return &fetch.Error{Kind: k, Op: "--" + flagName, Offset: -1, Err: err}
}

// queueKey is the de-duplication key every worker of a queue uses: the
// URL's canonical text (Registry.Key) without its fragment, which no
// server is sent (a seed "h/a#top" and a link "h/a" are one document), or
// the text as given when it does not parse (it fails when fetched, once).
func queueKey(c *fetch.Client) func(string) string {
	reg := c.Registry()
	return func(raw string) string {
		u, err := reg.Parse(raw)
		if err != nil {
			return raw
		}
		u.Fragment, u.HasFragment = "", false
		return reg.Key(u)
	}
}

// openQueue connects to the queue named by --flagName.
func openQueue(ctx context.Context, s stdio, o *options, c *fetch.Client, flagName, raw string) (*redisq.Queue, error) {
	var warnOnce sync.Once
	claim, idle := o.queueOpts.timeouts()
	// Only a worker reads under its name: opened under it, --enqueue and
	// --queue-status (given --worker, or a configuration file's "worker")
	// would take that worker's pending tasks back as its restart does,
	// resetting their idle time, and a dead worker's would never be
	// taken over while the status is polled.
	consumer := ""
	if flagName == "queue" {
		consumer = o.queueOpts.worker
	}
	q, err := redisq.Open(ctx, raw, redisq.Options{
		Key:          queueKey(c),
		Consumer:     consumer,
		ClaimTimeout: claim,
		IdleExit:     idle,
		PoolSize:     o.batch.jobs + 8,
		OnRetry: func(err error) {
			if o.quiet {
				return
			}
			warnOnce.Do(func() {
				fmt.Fprintf(s.err, "fetch: warning: the queue's server is unreachable (%v); retrying\n", err)
			})
		},
	})
	if err != nil {
		return nil, queueErr(flagName, err)
	}
	return q, nil
}

// runEnqueue adds the URLs of -i and the command line to the queue, each
// unless the queue has seen its canonical form, and reports the counts.
func runEnqueue(ctx context.Context, s stdio, o *options) int {
	if len(o.batch.input) == 0 && len(o.urls) == 0 {
		fmt.Fprintln(s.err, "fetch: --enqueue: no URL given: -i FILE (or -i - for standard input), or URLs on the command line")
		return fetch.KindUsage.ExitCode()
	}
	c, err := newClient(o, s)
	if err != nil {
		return report(s, o, err)
	}
	defer c.Close()
	q, err := openQueue(ctx, s, o, c, "enqueue", o.queueOpts.enqueue)
	if err != nil {
		return report(s, o, err)
	}
	defer q.Close()
	lists, closeLists, err := openLists(s, o)
	if err != nil {
		return report(s, o, err)
	}
	defer closeLists()

	reg := c.Registry()
	var (
		given, added, bad int
		pending           []frontier.Task
		code              int
	)
	flush := func() bool {
		n, err := q.Add(ctx, pending...)
		added += n
		pending = pending[:0]
		if err != nil {
			code = report(s, o, queueErr("enqueue", err))
			return false
		}
		return true
	}
	add := func(raw string) bool {
		given++
		if _, err := reg.Parse(raw); err != nil {
			bad++
			report(s, o, withURL(raw, err))
			return true
		}
		pending = append(pending, frontier.Task{URL: raw})
		if len(pending) == 1024 {
			return flush()
		}
		return true
	}
	for _, raw := range o.urls {
		if !add(raw) {
			return code
		}
	}
	tooLong := func(list string, n int, start string) bool {
		given++
		bad++
		report(s, o, longLineErr(list, n))
		return true
	}
	if err := eachListLine(lists, add, tooLong); err != nil {
		return report(s, o, err)
	}
	if code != 0 || !flush() {
		return code
	}
	if !o.quiet {
		fmt.Fprintf(s.err, "fetch: queue %s: %d URLs given, %d queued, %d already seen, %d malformed\n",
			q.Name(), given, added, given-bad-added, bad)
	}
	if bad > 0 {
		return fetch.KindMalformed.ExitCode()
	}
	return 0
}

// runQueueStatus prints the queue's counts: as a table, or one JSON object
// with --json.
func runQueueStatus(ctx context.Context, s stdio, o *options) int {
	c, err := newClient(o, s)
	if err != nil {
		return report(s, o, err)
	}
	defer c.Close()
	q, err := openQueue(ctx, s, o, c, "queue-status", o.queueOpts.status)
	if err != nil {
		return report(s, o, err)
	}
	defer q.Close()
	st, err := q.Status(ctx)
	if err != nil {
		return report(s, o, queueErr("queue-status", err))
	}
	var total int64
	workers := make([]string, 0, len(st.Pending))
	for w, n := range st.Pending {
		if n > 0 {
			workers = append(workers, w)
			total += n
		}
	}
	sort.Strings(workers)
	if o.jsonOut {
		pending := map[string]int64{}
		for _, w := range workers {
			pending[w] = st.Pending[w]
		}
		line, _ := marshalJSON(map[string]any{
			"queue": q.Name(), "queued": st.Queued, "pending": pending,
			"done": st.Done, "failed": st.Failed, "seen": st.Seen,
		})
		fmt.Fprintln(s.out, string(line))
		return 0
	}
	fmt.Fprintf(s.out, "queue    %s\n", q.Name())
	fmt.Fprintf(s.out, "queued   %d\n", st.Queued)
	fmt.Fprintf(s.out, "pending  %d\n", total)
	for _, w := range workers {
		fmt.Fprintf(s.out, "  %-20s %d\n", w, st.Pending[w])
	}
	fmt.Fprintf(s.out, "done     %d\n", st.Done)
	fmt.Fprintf(s.out, "failed   %d\n", st.Failed)
	fmt.Fprintf(s.out, "seen     %d\n", st.Seen)
	return 0
}

// queueMode reports a run that talks to a queue rather than (only) to
// the URLs given.
func (o *options) queueMode() bool {
	q := o.queueOpts
	return q.enqueue != "" || q.queue != "" || q.status != ""
}
