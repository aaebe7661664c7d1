//go:build integration

package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// testQueue is a new queue on the tests' Redis, with a client for
// looking into it and its URL for the command (the password in it);
// its keys are deleted when the test ends.
func testQueue(t *testing.T, what string) (rdb *redis.Client, name string, u *url.URL) {
	t.Helper()
	addr := os.Getenv("FETCH_REDIS_ADDR")
	if addr == "" {
		t.Fatal("FETCH_REDIS_ADDR is not set: run the tests with integration/test.sh, which starts Redis")
	}
	user, pw := os.Getenv("FETCH_REDIS_USER"), os.Getenv("FETCH_REDIS_PASSWORD")
	var b [6]byte
	rand.Read(b[:])
	name = "test-" + what + "-" + hex.EncodeToString(b[:])
	rdb = redis.NewClient(&redis.Options{Addr: addr, Username: user, Password: pw, DisableIdentity: true})
	t.Cleanup(func() {
		rdb.Del(context.Background(), name, name+":seen", name+":done", name+":failed")
		rdb.Close()
	})
	return rdb, name, &url.URL{Scheme: "redis", Host: addr, Path: "/" + name, User: url.UserPassword(user, pw)}
}

// --queue-status (and --enqueue) with a worker's name (on the command
// line, or "worker = w1" in a machine's configuration file, which every
// run reads) opened the queue as that worker: its recovery read
// (XREADGROUP ... 0) handed w1's pending tasks to w1 again, resetting
// their idle time. w1 being dead, a status polled more often than
// --claim-timeout kept its tasks from ever being taken over, and the
// other workers, seeing them pending, never finished.
func TestQueueStatusKeepsDeadWorkersTasksIdle(t *testing.T) {
	rdb, name, u := testQueue(t, "status")
	ctx := context.Background()
	if err := rdb.XGroupCreateMkStream(ctx, name, "fetch", "0").Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.XAdd(ctx, &redis.XAddArgs{Stream: name, Values: []string{"url", "gopher://h.test/", "depth", "0"}}).Err(); err != nil {
		t.Fatal(err)
	}
	// w1 reads the task and dies
	if err := rdb.XReadGroup(ctx, &redis.XReadGroupArgs{Group: "fetch", Consumer: "w1",
		Streams: []string{name, ">"}, Count: 1, Block: -1}).Err(); err != nil {
		t.Fatal(err)
	}
	const dead = 500 * time.Millisecond
	time.Sleep(dead)
	code, out, errs := runFetch(t, "", "--queue-status", u.String(), "--worker", "w1")
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, out, errs)
	}
	p, err := rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: name, Group: "fetch", Start: "-", End: "+", Count: 10}).Result()
	if err != nil || len(p) != 1 {
		t.Fatalf("pending: %v %v", p, err)
	}
	if p[0].Idle < dead || p[0].RetryCount != 1 {
		t.Errorf("after --queue-status the dead worker's task is idle %v (was %v), delivered %d times", p[0].Idle, dead, p[0].RetryCount)
	}
}

// A worker that finishes (the queue drained, --idle-exit passed) leaves
// no consumer in the group: under its default name, new at every run,
// the group grew by one consumer per worker run for ever, and XINFO
// CONSUMERS listed every worker that had ever run.
func TestConsumerDeletedWhenWorkerExits(t *testing.T) {
	rdb, name, u := testQueue(t, "leave")
	ctx := context.Background()
	src := filepath.Join(t.TempDir(), "doc.txt")
	if err := os.WriteFile(src, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, out, errs := runFetch(t, "", "--enqueue", u.String(), "file://"+src); code != 0 {
		t.Fatalf("--enqueue: exit %d: %s%s", code, out, errs)
	}
	code, out, errs := runFetch(t, "", "--queue", u.String(), "--idle-exit", "0.3", "-q",
		"-O", "--output-dir", t.TempDir())
	if code != 0 {
		t.Fatalf("worker: exit %d: %s%s", code, out, errs)
	}
	if n, _ := rdb.Get(ctx, name+":done").Int(); n != 1 {
		t.Fatalf("the worker finished %d tasks, want 1", n)
	}
	cs, err := rdb.XInfoConsumers(ctx, name, "fetch").Result()
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 0 {
		t.Errorf("after the worker exited the group has consumers %v", cs)
	}
}
