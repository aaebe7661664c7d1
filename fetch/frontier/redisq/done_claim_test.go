//go:build integration

package redisq

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fetchproject/fetch/fetch/frontier"
)

// beforeHook runs before each command the client sends (not pipelines).
type beforeHook func(ctx context.Context, cmd redis.Cmder)

func (h beforeHook) DialHook(n redis.DialHook) redis.DialHook { return n }
func (h beforeHook) ProcessHook(n redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		h(ctx, cmd)
		return n(ctx, cmd)
	}
}
func (h beforeHook) ProcessPipelineHook(n redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return n
}

// TestNoClaimOfOwnTaskDuringDone: Done stops the keep-alive first, and
// the entry may be idle past the claim timeout already (the keep-alive
// cut off by a restart, Done retrying, a long found list added first):
// until it is acknowledged, the worker's own Next must not lease it again.
// Done took it out of the working set before its acknowledgement, and the
// dispatcher's Next, claiming in between, fetched the task a second time.
func TestNoClaimOfOwnTaskDuringDone(t *testing.T) {
	raw := reviewURL(t)
	q := reviewOpen(t, raw, Options{ClaimTimeout: time.Minute})
	ctx := context.Background()
	if _, err := q.Add(ctx, frontier.Task{URL: "ftp://h.test/x"}); err != nil {
		t.Fatal(err)
	}
	l, err := q.Next(ctx)
	if err != nil {
		t.Fatal(err)
	}
	id := l.(*Lease).ID()
	if err := q.rdb.Do(ctx, "XCLAIM", q.keys.stream, Group, q.opt.Consumer, 0, id, "IDLE", (2 * time.Hour).Milliseconds(), "JUSTID").Err(); err != nil {
		t.Fatal(err)
	}
	var once sync.Once
	var again []redis.XMessage
	q.rdb.AddHook(beforeHook(func(ctx context.Context, cmd redis.Cmder) {
		if n := cmd.Name(); (n == "evalsha" || n == "eval") && strings.Contains(fmt.Sprint(cmd.Args()), ":acked:") {
			once.Do(func() {
				// Next, in the dispatcher's goroutine, at this moment
				again, _ = q.claim(ctx)
			})
		}
	}))
	if err := l.Done(ctx, nil); err != nil {
		t.Logf("Done: %v", err)
	}
	if len(again) > 0 {
		t.Errorf("while Done acknowledged %s, the worker's own Next claimed it again: %v", id, again[0].Values)
	}
}
