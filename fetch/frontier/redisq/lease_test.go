package redisq

import (
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// TestKeepAliveEndsWithQueue: a lease never Done (its worker stopped
// with the queue) keeps its task fresh only while the queue is open; its
// goroutine ended with the process, not with Close, trying a closed
// client every tick. No server is needed: the client is never reached.
func TestKeepAliveEndsWithQueue(t *testing.T) {
	const claim = 30 * time.Millisecond
	q := &Queue{rdb: redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1}),
		opt: Options{ClaimTimeout: claim}, closing: make(chan struct{})}
	q.keys.stream = "test"
	q.lease(redis.XMessage{ID: "1-0", Values: map[string]any{"url": "gopher://h/"}})
	time.Sleep(2 * claim) // a few ticks
	q.Close()
	// A tick's attempt ends within claim/3; the bound is far above it.
	for deadline := time.Now().Add(10 * time.Second); keepAliveRunning(); {
		if time.Now().After(deadline) {
			t.Fatal("the lease's keep-alive still runs 10 s after the queue closed")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func keepAliveRunning() bool {
	buf := make([]byte, 1<<20)
	return strings.Contains(string(buf[:runtime.Stack(buf, true)]), "(*Lease).keepAlive")
}
