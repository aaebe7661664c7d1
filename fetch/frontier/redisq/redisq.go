// Package redisq is a Frontier shared by many processes, on many machines,
// through a Redis stream and a consumer group: the way Browsertrix Crawler
// and Archive Team's tools share a crawl, on a maintained engine rather
// than a coordinator of our own.
//
// A queue named NAME is four keys on the server:
//
//	NAME         the stream of tasks: one entry {url, depth} per task
//	NAME:seen    the set of canonical keys ever queued (the de-duplication)
//	NAME:done    the count of tasks finished with success
//	NAME:failed  the count of tasks finished with a failure
//	NAME:acked:WORKER  the last ids WORKER acknowledged (kept a few
//	             minutes: a Done retried after its reply was lost knows
//	             that the first try acknowledged it)
//
// and the consumer group "fetch" on the stream. A worker reads new entries
// with XREADGROUP under its own consumer name; an entry stays pending
// (in the group's pending list) until the worker's Lease.Done acknowledges
// it, which happens only after the outcome is durable. A worker keeps its
// leases fresh while it works (XCLAIM ... JUSTID resets their idle time,
// for as long as they are still its own); entries of a worker that died go
// idle, and after the claim timeout any other worker takes them over with
// XAUTOCLAIM. A worker that leaves with nothing pending (drained, or
// stopped with every lease Done) deletes its consumer from the group, and
// a worker that takes a task over deletes the consumers of workers gone
// for longer than the claim timeout once nothing is pending with them:
// without that, the group kept a consumer for every run of every worker
// (the default name is new at each run). Done is one Lua script:
// the tasks found are added (SADD to the seen set, XADD when new), the
// entry acknowledged, deleted from the stream and counted, all at once, so
// a worker killed at any point leaves either the whole step or none of it.
// Because acknowledged entries are deleted, the stream holds exactly the
// queued and the pending tasks. The seen set only grows, so its size is
// the count of URLs ever queued: AddWithin holds it to a limit (a crawl's
// --max-urls across all its workers).
//
// The de-duplication key is computed by the client (fetch's canonical URL
// text), so every worker must use the same key function. The keys are not
// hash-tagged: the queue needs a single Redis server (or a primary with
// replicas), not a cluster.
package redisq

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/frontier"
)

// Group is the consumer group every worker reads through.
const Group = "fetch"

// PasswordEnv names the environment variable that supplies the password
// when the queue URL has none (so that it stays out of process listings).
const PasswordEnv = "FETCH_REDIS_PASSWORD"

// Addr is a parsed queue URL: redis://[user[:password]@]host[:port]/NAME,
// or rediss:// for TLS. A query may select a database: ?db=N.
type Addr struct {
	TLS      bool
	Host     string // host:port
	User     string
	Password string
	Name     string // the stream's name
	DB       int
	raw      *url.URL
}

// ParseAddr parses a queue URL. The password comes from the URL, else
// from $FETCH_REDIS_PASSWORD.
func ParseAddr(raw string) (*Addr, error) {
	u, err := url.Parse(raw)
	if err != nil {
		if masked := fetch.RedactedText(raw); masked != raw {
			// net/url's reason quotes the text it stopped at, which
			// may be the password's (an unencoded "/", "?", "#" or a
			// stray "%" in it cut the login short).
			return nil, fmt.Errorf("queue URL %s: malformed (a password's \"/\", \"?\", \"#\" and \"%%\" must be %%-encoded)", masked)
		}
		return nil, fmt.Errorf("queue URL: %w", redactErr(err))
	}
	a := &Addr{raw: u}
	switch u.Scheme {
	case "redis":
	case "rediss":
		a.TLS = true
	default:
		return nil, fmt.Errorf("queue URL %s: the scheme must be redis or rediss", a.Redacted())
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("queue URL %s: no host", a.Redacted())
	}
	port := u.Port()
	if port == "" {
		port = "6379"
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, fmt.Errorf("queue URL %s: port %q is not a number from 1 to 65535", a.Redacted(), port)
	}
	a.Host = net.JoinHostPort(u.Hostname(), port)
	a.Name = strings.TrimPrefix(u.Path, "/")
	if a.Name == "" || strings.Contains(a.Name, "/") {
		return nil, fmt.Errorf("queue URL %s: the path must name the queue, as in redis://host:6379/crawl", a.Redacted())
	}
	if u.User != nil {
		a.User = u.User.Username()
		a.Password, _ = u.User.Password()
	}
	if a.Password == "" {
		a.Password = os.Getenv(PasswordEnv)
	}
	q := u.Query()
	if db := q.Get("db"); db != "" {
		if a.DB, err = strconv.Atoi(db); err != nil || a.DB < 0 {
			return nil, fmt.Errorf("queue URL %s: db=%q is not a database number", a.Redacted(), db)
		}
	}
	for k := range q {
		if k != "db" {
			return nil, fmt.Errorf("queue URL %s: unknown parameter %q (only db)", a.Redacted(), k)
		}
	}
	return a, nil
}

// Redacted is the URL with its password, if any, replaced by "xxxxx".
func (a *Addr) Redacted() string {
	if a.raw == nil {
		return ""
	}
	return a.raw.Redacted()
}

// redactErr drops the URL that net/url puts in its errors (it may hold a
// password), keeping what is wrong with it.
func redactErr(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Options configure a Queue.
type Options struct {
	// Key is the canonical de-duplication key of a URL; every worker of
	// a queue must use the same. Nil: the URL as written.
	Key func(url string) string
	// Consumer is this worker's name in the group (default
	// host:pid:random: two containers sharing a hostname both run
	// fetch as pid 1, and a second worker under a live one's name would
	// take the live one's tasks as its own at Open).
	Consumer string
	// ClaimTimeout is how long a task may go without its worker's sign
	// of life before another worker takes it over (default 1 minute).
	ClaimTimeout time.Duration
	// IdleExit: Next reports io.EOF once the queue has been empty, with
	// nothing pending anywhere, for this long (default 5 s).
	IdleExit time.Duration
	// RetryFor bounds how long a call keeps retrying while the server is
	// unreachable (a restart): default 2 minutes.
	RetryFor time.Duration
	// OnRetry, if set, is told of each failed attempt that will be
	// retried.
	OnRetry func(error)
	// TLS is the configuration for rediss:// (nil: the system's roots,
	// the URL's host as the server name).
	TLS *tls.Config
	// PoolSize is the most connections to the server: at least the
	// number of goroutines calling Next at once, plus a few (default 32).
	PoolSize int
}

// Queue is a Frontier on a Redis stream. Its methods are safe for
// concurrent use.
type Queue struct {
	rdb  *redis.Client
	addr *Addr
	opt  Options
	keys struct{ stream, seen, done, failed string }

	mu         sync.Mutex
	emptySince time.Time // when Next first found the queue empty with nothing pending; zero otherwise
	holds      int       // producers that may still Add (see Hold)
	closed     bool
	joined     bool             // this consumer may be in the group: Open or Next read under its name
	recovered  []redis.XMessage // this consumer's tasks left pending by its previous run
	claimFrom  string           // where the next XAUTOCLAIM scan of the pending list starts
	working    map[string]bool  // ids of this worker's leases not yet Done (see claim)

	closing chan struct{} // closed by Close: the keep-alives of leases not Done end with it
}

// claimScans bounds the XAUTOCLAIM calls one Next makes: each looks at
// ten entries of the pending list at most (Redis 7, COUNT 1), so one Next
// looks at 1,000 and the next one goes on from there.
const claimScans = 100

// claim takes over one task another consumer has left idle past the claim
// timeout, if there is one. XAUTOCLAIM looks at no more than ten times
// COUNT pending entries a call and returns where to go on: started from
// the beginning each time, it never saw a dead worker's task behind ten
// that live workers hold, so the scan goes on from where the last ended.
func (q *Queue) claim(ctx context.Context) ([]redis.XMessage, error) {
	q.mu.Lock()
	from := q.claimFrom
	q.mu.Unlock()
	if from == "" {
		from = "0-0"
	}
	var msgs []redis.XMessage
	for range claimScans {
		var next string
		err := q.retry(ctx, func(ctx context.Context) error {
			var err error
			msgs, next, err = q.rdb.XAutoClaim(ctx, &redis.XAutoClaimArgs{
				Stream: q.keys.stream, Group: Group, Consumer: q.opt.Consumer,
				MinIdle: q.opt.ClaimTimeout, Start: from, Count: 1,
			}).Result()
			return err
		})
		if err != nil {
			return nil, err
		}
		from = next
		if len(msgs) > 0 && q.isWorking(msgs[0].ID) {
			// This worker's own task, still being worked: its
			// keep-alive could not reach the server for the claim
			// timeout (a restart, a cut network), and XAUTOCLAIM, which
			// takes from any consumer, this one too, handed it back.
			// Leased again it would be fetched twice at once.
			msgs = nil
		}
		if len(msgs) > 0 || next == "0-0" { // one taken, or the whole list seen
			break
		}
	}
	q.mu.Lock()
	q.claimFrom = from
	q.mu.Unlock()
	if len(msgs) > 0 {
		// A worker has died (or stalled): once the last of its tasks
		// is taken over, its consumer is an empty name in the group.
		// A failure costs only that name, kept until the next try.
		q.forget(ctx, "")
	}
	return msgs, nil
}

// forgetScript deletes the group's consumers that have no pending entry
// and either are ARGV[3] or have been idle (no read, claim or keep-alive
// under their name) for ARGV[2] ms at least, and reports how many it
// deleted. The check and the deletion are one step: a consumer that
// still owns an entry is never deleted, since XGROUP DELCONSUMER would
// drop the entry from the pending list and no worker would ever take it
// over. A live worker's consumer deleted while it has nothing pending
// costs nothing: its next read creates it again. KEYS: stream. ARGV:
// group, idle time in ms, a consumer to delete whatever its idle time
// ("" for none).
var forgetScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(`
local n = 0
for _, c in ipairs(redis.call('XINFO', 'CONSUMERS', KEYS[1], ARGV[1])) do
	local f = {}
	for i = 1, #c, 2 do
		f[c[i]] = c[i+1]
	end
	if f['pending'] == 0 and (f['name'] == ARGV[3] or f['idle'] >= tonumber(ARGV[2])) then
		redis.call('XGROUP', 'DELCONSUMER', KEYS[1], ARGV[1], f['name'])
		n = n + 1
	end
end
return n
`)
})

// forget runs forgetScript once, within a few seconds: the idle time is
// the claim timeout, after which a consumer's tasks are the others' to
// take anyway. It is housekeeping, not worth a retry or an error: a
// consumer left behind is deleted by the next worker that takes a task
// over or leaves.
func (q *Queue) forget(ctx context.Context, self string) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	forgetScript().Run(ctx, q.rdb, []string{q.keys.stream}, Group,
		strconv.FormatInt(q.opt.ClaimTimeout.Milliseconds(), 10), self)
}

// Open connects to the queue at raw, creating its stream and group when
// missing.
func Open(ctx context.Context, raw string, opt Options) (*Queue, error) {
	a, err := ParseAddr(raw)
	if err != nil {
		return nil, err
	}
	if opt.Key == nil {
		opt.Key = func(s string) string { return s }
	}
	named := opt.Consumer != ""
	if !named {
		host, _ := os.Hostname()
		var r [4]byte
		rand.Read(r[:])
		opt.Consumer = fmt.Sprintf("%s:%d:%s", host, os.Getpid(), hex.EncodeToString(r[:]))
	}
	if opt.ClaimTimeout <= 0 {
		opt.ClaimTimeout = time.Minute
	}
	if opt.IdleExit <= 0 {
		opt.IdleExit = 5 * time.Second
	}
	if opt.RetryFor <= 0 {
		opt.RetryFor = 2 * time.Minute
	}
	if opt.PoolSize <= 0 {
		opt.PoolSize = 32
	}
	ro := &redis.Options{
		Addr:     a.Host,
		Username: a.User,
		Password: a.Password,
		DB:       a.DB,
		PoolSize: opt.PoolSize,
		// A blocked XREADGROUP holds its connection; the pool must not
		// time out waiting for one behind them.
		PoolTimeout:  time.Minute,
		DialTimeout:  10 * time.Second,
		ReadTimeout:  30 * time.Second,
		WriteTimeout: 30 * time.Second,
		// retries are ours (retry), bounded in time rather than count
		MaxRetries:            -1,
		ContextTimeoutEnabled: true,
		DisableIdentity:       true,
	}
	if a.TLS {
		tc := opt.TLS
		if tc == nil {
			tc = &tls.Config{}
		} else {
			tc = tc.Clone()
		}
		if tc.ServerName == "" {
			tc.ServerName = a.raw.Hostname()
		}
		tc.MinVersion = tls.VersionTLS12
		ro.TLSConfig = tc
	}
	q := &Queue{rdb: redis.NewClient(ro), addr: a, opt: opt, closing: make(chan struct{})}
	q.keys.stream = a.Name
	q.keys.seen = a.Name + ":seen"
	q.keys.done = a.Name + ":done"
	q.keys.failed = a.Name + ":failed"
	// A first connection that fails is not retried for long: a wrong
	// address is more likely than a restart just then.
	err = q.retryFor(ctx, min(opt.RetryFor, 5*time.Second), func(ctx context.Context) error {
		err := q.rdb.XGroupCreateMkStream(ctx, q.keys.stream, Group, "0").Err()
		if err != nil && strings.HasPrefix(err.Error(), "BUSYGROUP") {
			return nil
		}
		return err
	})
	if err != nil {
		q.rdb.Close()
		return nil, q.wrap("connect", err)
	}
	// A worker restarted under its name takes back at once what it held
	// when it stopped (another worker would wait for the claim timeout);
	// its log tells it which of those it had finished. A default name is
	// new, with nothing to take back: not reading under it keeps
	// --enqueue and --queue-status from adding a consumer to the group
	// at every run (XREADGROUP creates the consumer it names).
	q.joined = named
	for start := "0"; named; {
		msgs, err := q.readGroup(ctx, start, 256, -1)
		if err != nil {
			q.rdb.Close()
			return nil, q.wrap("recover", err)
		}
		if len(msgs) == 0 {
			break
		}
		q.recovered = append(q.recovered, msgs...)
		start = msgs[len(msgs)-1].ID
	}
	return q, nil
}

// Name is the queue's name (its stream's key).
func (q *Queue) Name() string { return q.addr.Name }

// Consumer is this worker's name in the group.
func (q *Queue) Consumer() string { return q.opt.Consumer }

// wrap names the queue (without its password) in an error.
func (q *Queue) wrap(op string, err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	return fmt.Errorf("queue %s: %s: %w", q.addr.Redacted(), op, err)
}

// retryable reports an error that a retry may cure: the server gone away
// or restarting (connection refused or reset, EOF, LOADING while it reads
// its append-only file), as opposed to a refusal (wrong password, wrong
// type).
func retryable(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return true
	}
	var ne net.Error
	if errors.As(err, &ne) {
		return true
	}
	var oe *net.OpError
	if errors.As(err, &oe) {
		return true
	}
	msg := err.Error()
	if strings.Contains(msg, "client is closed") {
		return false
	}
	for _, p := range []string{"LOADING", "TRYAGAIN", "MASTERDOWN", "connection refused", "connection reset", "broken pipe"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// retry runs f until it succeeds, fails for good, or the server has been
// unreachable for RetryFor; the waits grow from 100 ms to 5 s.
func (q *Queue) retry(ctx context.Context, f func(context.Context) error) error {
	return q.retryFor(ctx, q.opt.RetryFor, f)
}

func (q *Queue) retryFor(ctx context.Context, budget time.Duration, f func(context.Context) error) error {
	start := time.Now()
	wait := 100 * time.Millisecond
	for {
		err := f(ctx)
		if !retryable(err) || time.Since(start) > budget {
			return err
		}
		if q.opt.OnRetry != nil {
			q.opt.OnRetry(err)
		}
		select {
		case <-time.After(wait):
		case <-ctx.Done():
			return ctx.Err()
		}
		wait = min(2*wait, 5*time.Second)
	}
}

// doneScript adds the tasks found, then acknowledges, deletes and counts
// the entry, and notes its id among this worker's last acknowledged (a
// retry after a lost reply finds it there: done, not lost). KEYS: stream,
// seen, counter, acked. ARGV: group, id, the note's lifetime in ms, then
// triples.
var doneScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(`
local added = 0
for i = 4, #ARGV, 3 do
	if redis.call('SADD', KEYS[2], ARGV[i]) == 1 then
		redis.call('XADD', KEYS[1], '*', 'url', ARGV[i+1], 'depth', ARGV[i+2])
		added = added + 1
	end
end
if redis.call('XACK', KEYS[1], ARGV[1], ARGV[2]) == 1 then
	redis.call('XDEL', KEYS[1], ARGV[2])
	redis.call('INCR', KEYS[3])
	redis.call('LPUSH', KEYS[4], ARGV[2])
	redis.call('LTRIM', KEYS[4], 0, 1023)
	redis.call('PEXPIRE', KEYS[4], ARGV[3])
	return added
end
if redis.call('LPOS', KEYS[4], ARGV[2]) then
	return added
end
return -1 - added
`)
})

// holdScript resets the idle time of an entry (XCLAIM ... JUSTID) if it
// is still pending with this consumer, and reports whether it was: an
// entry another worker has taken over, or acknowledged, is left alone.
// KEYS: stream. ARGV: group, consumer, id.
var holdScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(`
local p = redis.call('XPENDING', KEYS[1], ARGV[1], ARGV[3], ARGV[3], 1)
if #p == 0 or p[1][2] ~= ARGV[2] then
	return 0
end
redis.call('XCLAIM', KEYS[1], ARGV[1], ARGV[2], 0, ARGV[3], 'JUSTID')
return 1
`)
})

// hold runs holdScript for the entry id: true while it is this
// consumer's.
func (q *Queue) hold(ctx context.Context, id string) (bool, error) {
	n, err := holdScript().Run(ctx, q.rdb, []string{q.keys.stream}, Group, q.opt.Consumer, id).Int()
	return n == 1, err
}

// addBatch is how many tasks one script call adds: a call blocks the
// server while it runs, so long lists go in slices.
const addBatch = 512

func (q *Queue) taskArgs(args []any, tasks []frontier.Task) []any {
	for _, t := range tasks {
		args = append(args, q.opt.Key(t.URL), t.URL, strconv.Itoa(t.Depth))
	}
	return args
}

// Add queues the tasks whose keys the queue has not seen, and reports how
// many it queued.
func (q *Queue) Add(ctx context.Context, tasks ...frontier.Task) (int, error) {
	n, _, err := q.AddWithin(ctx, 0, tasks...)
	return n, err
}

// addWithinScript queues tasks while the seen set holds fewer keys than
// a limit (0: no limit), and reports how many it queued and how many new
// ones it left out for the limit. The count and the additions are one
// step, so that workers adding at once never pass the limit together.
// KEYS: stream, seen. ARGV: the limit, then triples. The scripts are made
// on first use: NewScript hashes its text, and every start of the command
// would pay for that otherwise.
var addWithinScript = sync.OnceValue(func() *redis.Script {
	return redis.NewScript(`
local limit = tonumber(ARGV[1])
local seen = redis.call('SCARD', KEYS[2])
local added, over = 0, 0
for i = 2, #ARGV, 3 do
	if limit <= 0 or seen < limit then
		if redis.call('SADD', KEYS[2], ARGV[i]) == 1 then
			redis.call('XADD', KEYS[1], '*', 'url', ARGV[i+1], 'depth', ARGV[i+2])
			added = added + 1
			seen = seen + 1
		end
	elseif redis.call('SISMEMBER', KEYS[2], ARGV[i]) == 0 then
		over = over + 1
	end
end
return {added, over}
`)
})

// AddWithin is Add under a limit on the whole queue: it queues the tasks
// whose keys the queue has not seen only while the queue has seen fewer
// than limit keys (every URL ever queued counts, by any worker, through
// Add as well), and reports how many it queued and how many new ones it
// left out. A task already seen takes no room and is not left
// out. The limit is the caller's, not the queue's: workers given
// different limits each hold the shared count to their own. A limit of 0
// is none (Add). Add and Lease.Done, which have no limit, still queue
// past it.
func (q *Queue) AddWithin(ctx context.Context, limit int64, tasks ...frontier.Task) (added, over int, err error) {
	// A key is offered once a call: the script counts each task it
	// leaves out, and a listing that links one URL twice (or twice but
	// for the fragment, which the caller drops) made two of one URL left
	// out, where a crawl of one process counts one (Memory.Unseen).
	var triples []any // key, URL, depth: a task's arguments to the script
	offered := make(map[string]bool, len(tasks))
	for _, t := range tasks {
		k := q.opt.Key(t.URL)
		if !offered[k] {
			offered[k] = true
			triples = append(triples, k, t.URL, strconv.Itoa(t.Depth))
		}
	}
	for len(triples) > 0 {
		n := min(len(triples), 3*addBatch)
		args := append([]any{strconv.FormatInt(limit, 10)}, triples[:n]...)
		var r []int64
		err = q.retry(ctx, func(ctx context.Context) error {
			var err error
			r, err = addWithinScript().Run(ctx, q.rdb, []string{q.keys.stream, q.keys.seen}, args...).Int64Slice()
			return err
		})
		if err == nil && len(r) != 2 {
			err = fmt.Errorf("the script answered %v, not two counts", r)
		}
		if err != nil {
			return added, over, q.wrap("add", err)
		}
		added += int(r[0])
		over += int(r[1])
		triples = triples[n:]
	}
	return added, over, nil
}

// Next implements frontier.Frontier: a task another worker abandoned
// (idle past the claim timeout) first, else a new one; io.EOF once the
// queue has been empty with nothing pending, and nothing held (Hold), for
// IdleExit.
func (q *Queue) Next(ctx context.Context) (frontier.Lease, error) {
	// Block in short slices so that the idle-exit and claim checks run
	// even while nothing arrives.
	block := min(time.Second, q.opt.IdleExit/2, q.opt.ClaimTimeout/2)
	block = max(block, 10*time.Millisecond)
	for {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		q.mu.Lock()
		closed := q.closed
		q.joined = true
		var mine *redis.XMessage
		if len(q.recovered) > 0 {
			mine = &q.recovered[0]
			q.recovered = q.recovered[1:]
		}
		q.mu.Unlock()
		if closed {
			return nil, frontier.ErrClosed
		}
		if mine != nil {
			// It was this consumer's at Open; since then another
			// worker may have taken it over (it waited here past the
			// claim timeout with no keep-alive) and even finished it.
			// Hand it out only if it is still ours, taking it back
			// from idle in the same step.
			var ours bool
			err := q.retry(ctx, func(ctx context.Context) error {
				var err error
				ours, err = q.hold(ctx, mine.ID)
				return err
			})
			if err != nil {
				return nil, q.wrap("recover", err)
			}
			if ours {
				return q.lease(*mine), nil
			}
			continue
		}
		msgs, err := q.claim(ctx)
		if err != nil {
			return nil, q.wrap("claim", err)
		}
		if len(msgs) == 0 {
			msgs, err = q.readGroup(ctx, ">", 1, block)
			if err != nil {
				return nil, q.wrap("read", err)
			}
		}
		if len(msgs) > 0 {
			q.mu.Lock()
			q.emptySince = time.Time{}
			q.mu.Unlock()
			return q.lease(msgs[0]), nil
		}
		// Nothing new: drained once nothing is pending anywhere (a
		// pending task may still add more) for IdleExit. The stream
		// holds exactly the queued and the pending tasks (Done deletes
		// what it acknowledges), so its length, in one command, is both:
		// XPENDING alone missed a task queued since the XREADGROUP.
		var pending int64
		err = q.retry(ctx, func(ctx context.Context) error {
			n, err := q.rdb.XLen(ctx, q.keys.stream).Result()
			if err == nil {
				pending = n
			}
			return err
		})
		if err != nil {
			return nil, q.wrap("pending", err)
		}
		q.mu.Lock()
		now := time.Now()
		switch {
		case pending > 0 || q.holds > 0:
			q.emptySince = time.Time{}
		case q.emptySince.IsZero():
			q.emptySince = now
		case now.Sub(q.emptySince) >= q.opt.IdleExit:
			q.mu.Unlock()
			return nil, io.EOF
		}
		q.mu.Unlock()
	}
}

// Hold tells the queue that a producer in this process (a worker reading
// its -i list of seeds) may still Add: until the returned release is
// called, Next does not report io.EOF however long the queue stays empty,
// and the idle time it waits for starts again at the release. Without
// it, a worker whose list came slowly (a pipe) found the queue empty,
// left after IdleExit with its seeds still unread, and then failed to
// add them to a closed queue.
func (q *Queue) Hold() (release func()) {
	q.mu.Lock()
	q.holds++
	q.mu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			q.mu.Lock()
			q.holds--
			q.emptySince = time.Time{}
			q.mu.Unlock()
		})
	}
}

// readGroup reads at most count entries through the group from start:
// ">" for entries never handed out (waiting up to block for one), an id
// for this consumer's pending entries after it (block < 0: no wait).
func (q *Queue) readGroup(ctx context.Context, start string, count int64, block time.Duration) ([]redis.XMessage, error) {
	var msgs []redis.XMessage
	err := q.retry(ctx, func(ctx context.Context) error {
		streams, err := q.rdb.XReadGroup(ctx, &redis.XReadGroupArgs{
			Group: Group, Consumer: q.opt.Consumer,
			Streams: []string{q.keys.stream, start}, Count: count, Block: block,
		}).Result()
		if errors.Is(err, redis.Nil) {
			return nil
		}
		if err == nil && len(streams) > 0 {
			msgs = streams[0].Messages
		}
		return err
	})
	return msgs, err
}

// isWorking reports whether id is one of this worker's leases not yet Done.
func (q *Queue) isWorking(id string) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.working[id]
}

// lease turns a stream entry into a Lease and keeps it fresh until Done.
func (q *Queue) lease(m redis.XMessage) *Lease {
	l := &Lease{q: q, id: m.ID, stop: make(chan struct{}), lost: make(chan struct{}), ok: true}
	q.mu.Lock()
	if q.working == nil {
		q.working = map[string]bool{}
	}
	q.working[m.ID] = true
	q.mu.Unlock()
	l.task.URL, _ = m.Values["url"].(string)
	if d, ok := m.Values["depth"].(string); ok {
		l.task.Depth, _ = strconv.Atoi(d)
	}
	go l.keepAlive()
	return l
}

// Close implements frontier.Frontier: leases not Done stay pending and are
// taken over by other workers after the claim timeout. A worker that has
// nothing pending leaves the group: its consumer is deleted (and so are
// those of workers gone for longer than the claim timeout with nothing
// pending), so that the group does not grow by a consumer at every run.
// One that still holds a lease keeps its consumer, which owns the lease's
// entry until another worker takes it over.
func (q *Queue) Close() error {
	q.mu.Lock()
	if q.closed {
		q.mu.Unlock()
		return nil
	}
	q.closed = true
	close(q.closing)
	joined := q.joined
	q.mu.Unlock()
	if joined {
		q.forget(context.Background(), q.opt.Consumer)
	}
	return q.rdb.Close()
}

// Lease is a task read from the queue.
type Lease struct {
	q    *Queue
	id   string
	task frontier.Task
	stop chan struct{}
	lost chan struct{} // closed when the keep-alive finds the entry another's
	once sync.Once
	ok   bool
}

// Task implements frontier.Lease.
func (l *Lease) Task() frontier.Task { return l.task }

// ID is the task's stream entry id.
func (l *Lease) ID() string { return l.id }

// Lost implements frontier.Revocable: it is closed when a keep-alive
// finds that the task has been taken over by another worker (this one
// stalled past the claim timeout).
func (l *Lease) Lost() <-chan struct{} { return l.lost }

// Outcome implements frontier.Outcomer: a failed task is counted in
// NAME:failed rather than NAME:done.
func (l *Lease) Outcome(ok bool) { l.ok = ok }

// keepAlive resets the entry's idle time a few times per claim timeout,
// so that no other worker takes over a task that is merely long. It stops
// once the entry is no longer this consumer's (taken over after a stall,
// or acknowledged): claiming it back would give one task to two workers.
// Then it closes lost, so that the worker stops too.
func (l *Lease) keepAlive() {
	t := time.NewTicker(l.q.opt.ClaimTimeout / 3)
	defer t.Stop()
	for {
		select {
		case <-l.stop:
			return
		case <-l.q.closing:
			return
		case <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), l.q.opt.ClaimTimeout/3)
			// an error here is not fatal: the next tick tries again,
			// and at worst another worker takes the task over
			ours, err := l.q.hold(ctx, l.id)
			cancel()
			if err == nil && !ours {
				l.q.mu.Lock()
				delete(l.q.working, l.id) // another's now: claim may take it back if that one dies
				l.q.mu.Unlock()
				close(l.lost)
				return
			}
		}
	}
}

// ErrLost is returned by Done when the task was no longer this worker's:
// it had been acknowledged already (another worker took it over after
// the claim timeout and finished it).
var ErrLost = errors.New("redisq: the task had been taken over by another worker")

// Done implements frontier.Lease.
func (l *Lease) Done(ctx context.Context, found []frontier.Task) error {
	var err error
	l.once.Do(func() {
		close(l.stop)
		// It leaves the working set once acknowledged, not before: its
		// keep-alive has stopped, and until the acknowledgement (a long
		// found list, retries while the server is away) this worker's
		// own claim would take it, idle, for a second lease.
		defer func() {
			l.q.mu.Lock()
			delete(l.q.working, l.id)
			l.q.mu.Unlock()
		}()
		counter := l.q.keys.done
		if !l.ok {
			counter = l.q.keys.failed
		}
		keys := []string{l.q.keys.stream, l.q.keys.seen, counter,
			l.q.keys.stream + ":acked:" + l.q.opt.Consumer}
		// Found tasks beyond one script call's share go first, through
		// Add; the last slice goes with the acknowledgement.
		for len(found) > addBatch {
			if _, err = l.q.Add(ctx, found[:addBatch]...); err != nil {
				return
			}
			found = found[addBatch:]
		}
		// the note outlives every retry of this Done
		note := max(2*l.q.opt.RetryFor, 10*time.Minute).Milliseconds()
		args := l.q.taskArgs([]any{Group, l.id, strconv.FormatInt(note, 10)}, found)
		var r int
		err = l.q.retry(ctx, func(ctx context.Context) error {
			var err error
			r, err = doneScript().Run(ctx, l.q.rdb, keys, args...).Int()
			return err
		})
		if err != nil {
			err = l.q.wrap("done", err)
			return
		}
		if r < 0 {
			err = ErrLost
		}
	})
	return err
}

// Status is a snapshot of a queue.
type Status struct {
	Queued  int64            // in the stream, not yet handed to a worker
	Pending map[string]int64 // handed out, not yet done, per worker
	Done    int64            // finished with success
	Failed  int64            // finished with a failure
	Seen    int64            // distinct URLs ever queued
}

// Status reads the queue's counts.
func (q *Queue) Status(ctx context.Context) (Status, error) {
	var s Status
	err := q.retry(ctx, func(ctx context.Context) error {
		pipe := q.rdb.Pipeline()
		xlen := pipe.XLen(ctx, q.keys.stream)
		pend := pipe.XPending(ctx, q.keys.stream, Group)
		done := pipe.Get(ctx, q.keys.done)
		failed := pipe.Get(ctx, q.keys.failed)
		seen := pipe.SCard(ctx, q.keys.seen)
		if _, err := pipe.Exec(ctx); err != nil && !errors.Is(err, redis.Nil) {
			return err
		}
		p := pend.Val()
		s = Status{Pending: map[string]int64{}}
		if p != nil {
			s.Pending = p.Consumers
			s.Queued = xlen.Val() - p.Count
		} else {
			s.Queued = xlen.Val()
		}
		s.Done, _ = done.Int64()
		s.Failed, _ = failed.Int64()
		s.Seen = seen.Val()
		return nil
	})
	return s, q.wrap("status", err)
}
