//go:build integration

package integration

import (
	"bufio"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fetchproject/fetch/fetch/frontier/redisq/redistest"
)

// The shared-frontier tests (issue 19): three workers crawl the gopher
// holes and the FTP tree from one queue on the harness's Redis, one is
// killed with SIGKILL midway and restarted under its name, as a supervisor
// would; then every URL is logged ok exactly once across the workers' logs,
// every document is recorded once across their WARC files, and the queue
// has nothing pending.

// queueAddr is a new queue on the harness's Redis (no password in the URL:
// the workers get it from FETCH_REDIS_PASSWORD).
func queueAddr(t *testing.T) (string, *redis.Client) {
	t.Helper()
	var b [6]byte
	rand.Read(b[:])
	name := "crawl-" + hex.EncodeToString(b[:])
	rdb := redis.NewClient(&redis.Options{Addr: serverAddr(t, "FETCH_REDIS_ADDR"), DisableIdentity: true,
		Username: harnessEnv(t, "FETCH_REDIS_USER"), Password: harnessEnv(t, "FETCH_REDIS_PASSWORD")})
	t.Cleanup(func() {
		rdb.Del(context.Background(), name, name+":seen", name+":done", name+":failed")
		rdb.Close()
	})
	return fmt.Sprintf("redis://%s@%s/%s", harnessEnv(t, "FETCH_REDIS_USER"), serverAddr(t, "FETCH_REDIS_ADDR"), name), rdb
}

func queueEnv(t *testing.T) []string {
	return append(os.Environ(), "FETCH_CONFIG=/dev/null", "FETCH_REDIS_PASSWORD="+harnessEnv(t, "FETCH_REDIS_PASSWORD"))
}

type worker struct {
	name, dir string
	cmd       *exec.Cmd
	stderr    strings.Builder
}

// startWorker starts a crawl worker on queue; extra flags come last, so
// they override the defaults here.
func startWorker(t *testing.T, queue, name, dir string, extra ...string) *worker {
	t.Helper()
	w := &worker{name: name, dir: dir}
	args := append([]string{"--queue", queue, "--worker", name, "-r", "--depth", "20",
		"-j", "2", "--delay", "0.02", "-q", "--claim-timeout", "5", "--idle-exit", "3",
		"--output-dir", filepath.Join(dir, name), "--log", filepath.Join(dir, name+".log"),
		"--warc", filepath.Join(dir, name+".warc.gz")}, extra...)
	w.cmd = exec.Command(fetchBinary(t), args...)
	w.cmd.Env = queueEnv(t)
	w.cmd.Stderr = &w.stderr
	if err := w.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return w
}

func (w *worker) wait(t *testing.T) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- w.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("worker %s: %v\n%s", w.name, err, w.stderr.String())
		}
	case <-time.After(5 * time.Minute):
		w.cmd.Process.Kill()
		<-done // its output copied whole before anyone reads it
		t.Errorf("worker %s did not finish", w.name)
	}
}

func TestQueueWorkers(t *testing.T) {
	wantServer(t, "redis")
	wantServer(t, "pygopherd")
	wantServer(t, "gophernicus")
	wantServer(t, "vsftpd")
	queue, rdb := queueAddr(t)
	dir := t.TempDir()
	cmd := exec.Command(fetchBinary(t), append([]string{"--enqueue", queue}, crawlSeeds(t)...)...)
	cmd.Env = queueEnv(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("--enqueue: %v\n%s", err, out)
	} else if strings.Contains(string(out), harnessEnv(t, "FETCH_REDIS_PASSWORD")) {
		t.Errorf("--enqueue printed the password: %s", out)
	}

	// w3 starts alone and dies for good while it holds tasks: the others,
	// started then, take them over after the claim timeout. (Started with
	// the others on a busy machine, w3 could reach its fifth log line only
	// as they finished the crawl, and hold nothing from then on.)
	name := queue[strings.LastIndex(queue, "/")+1:]
	orphans := killHolding(t, startWorker(t, queue, "w3", dir), rdb, name, dir)
	workers := map[string]*worker{}
	for _, n := range []string{"w1", "w2"} {
		workers[n] = startWorker(t, queue, n, dir)
	}
	// Kill w1 once the crawl is under way and w1 has done some of it.
	deadline := time.Now().Add(2 * time.Minute)
	for countLines(filepath.Join(dir, "w1.log")) < 10 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	workers["w1"].cmd.Process.Signal(syscall.SIGKILL)
	workers["w1"].cmd.Wait()
	killedAt := countLines(filepath.Join(dir, "w1.log"))
	if killedAt < 10 {
		t.Fatalf("w1 logged %d lines in two minutes", killedAt)
	}
	// Its supervisor starts it again: it takes back what it held.
	workers["w1"] = startWorker(t, queue, "w1", dir)
	for _, w := range workers {
		w.wait(t)
	}

	var logs, warcs []string
	for _, n := range []string{"w1", "w2", "w3"} {
		logs = append(logs, filepath.Join(dir, n+".log"))
		warcs = append(warcs, filepath.Join(dir, n+".warc.gz"))
	}
	logged := checkCrawl(t, logs, warcs)
	busy := 0
	for _, n := range []string{"w2", "w3"} {
		if countLines(filepath.Join(dir, n+".log")) > 0 {
			busy++
		}
	}
	if busy != 2 {
		t.Errorf("only %d of the other workers did any work", busy)
	}
	for _, u := range orphans {
		if l, ok := logged[u]; !ok || l.Outcome != "ok" {
			t.Errorf("%s, held by w3 when it died, was not finished by another worker", u)
		}
	}
	ctx := context.Background()
	if p, err := rdb.XPending(ctx, name, "fetch").Result(); err != nil || p.Count != 0 {
		t.Errorf("pending after the crawl: %+v, %v", p, err)
	}

	// --queue-status agrees, and shows no password.
	st := exec.Command(fetchBinary(t), "--json", "--queue-status", queue)
	st.Env = queueEnv(t)
	out, err := st.Output()
	if err != nil {
		t.Fatalf("--queue-status: %v", err)
	}
	want := fmt.Sprintf(`"done":%d,`, len(logged))
	if !strings.Contains(string(out), want) || !strings.Contains(string(out), `"queued":0`) || !strings.Contains(string(out), `"pending":{}`) {
		t.Errorf("--queue-status: %s; want %s nothing queued or pending", out, want)
	}
	t.Logf("w3 killed holding %d tasks, w1 killed after %d lines and restarted; %d URLs in all", len(orphans), killedAt, len(logged))
}

// Redis restarted mid-crawl: the workers ride it out and finish the crawl,
// every URL once.
func TestQueueRedisRestart(t *testing.T) {
	wantServer(t, "pygopherd")
	wantServer(t, "gophernicus")
	wantServer(t, "vsftpd")
	r := redistest.Start(t, redistest.Config{})
	queue := "redis://" + r.Addr + "/restart"
	dir := t.TempDir()
	cmd := exec.Command(fetchBinary(t), append([]string{"--enqueue", queue}, crawlSeeds(t)...)...)
	cmd.Env = queueEnv(t)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("--enqueue: %v\n%s", err, out)
	}
	// No worker dies here, so no task should change hands: the claim
	// timeout is set well above the outage. With 5 s, a task whose last
	// heartbeat (every claim timeout / 3) came 1.7 s before the stop is
	// idle 5 s once the 2 s outage, a restart and the clients' reconnection
	// on a loaded machine add up to 3.3 s; the other worker may then take
	// it over and fetch it again. That is the likely cause of one CI
	// failure ("logged ok twice"), not reproduced in six runs by hand.
	w1 := startWorker(t, queue, "w1", dir, "--claim-timeout", "30")
	w2 := startWorker(t, queue, "w2", dir, "--claim-timeout", "30")
	deadline := time.Now().Add(2 * time.Minute)
	for countLines(filepath.Join(dir, "w1.log"))+countLines(filepath.Join(dir, "w2.log")) < 20 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	r.Stop()
	atStop := countLines(filepath.Join(dir, "w1.log")) + countLines(filepath.Join(dir, "w2.log"))
	time.Sleep(2 * time.Second) // the workers find it gone
	r.Start()
	w1.wait(t)
	w2.wait(t)
	logs := []string{filepath.Join(dir, "w1.log"), filepath.Join(dir, "w2.log")}
	logged := checkCrawl(t, logs, []string{filepath.Join(dir, "w1.warc.gz"), filepath.Join(dir, "w2.warc.gz")})
	if atStop >= len(logged) {
		t.Errorf("the crawl had ended (%d of %d URLs) when Redis stopped: nothing tested", atStop, len(logged))
	}
	t.Logf("Redis stopped after %d of %d URLs", atStop, len(logged))
}

// rediss:// with a password in the URL: the queue works over TLS, the
// server's certificate checked against the roots of SSL_CERT_FILE, and the
// password is printed nowhere.
func TestQueueTLS(t *testing.T) {
	dir := t.TempDir()
	cert, key := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	gen := exec.Command("openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
		"-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", cert)
	if out, err := gen.CombinedOutput(); err != nil {
		t.Fatalf("openssl: %v\n%s", err, out)
	}
	const pw = "tls-secret-pw"
	addr := redistest.Start(t, redistest.Config{Password: pw, TLSCert: cert, TLSKey: key}).Addr
	queue := "rediss://:" + pw + "@" + addr + "/tlsq"
	run := func(args ...string) (string, error) {
		cmd := exec.Command(fetchBinary(t), args...)
		cmd.Env = append(os.Environ(), "FETCH_CONFIG=/dev/null", "SSL_CERT_FILE="+cert)
		out, err := cmd.CombinedOutput()
		if strings.Contains(string(out), pw) {
			t.Errorf("fetch %v printed the password: %s", args, out)
		}
		return string(out), err
	}
	if out, err := run("--enqueue", queue, "gopher://127.0.0.1:70/0/a", "gopher://127.0.0.1:70/0/b"); err != nil {
		t.Fatalf("--enqueue over TLS: %v\n%s", err, out)
	}
	out, err := run("--queue-status", queue)
	if err != nil || !strings.Contains(out, "queued   2") {
		t.Errorf("--queue-status over TLS: %v\n%s", err, out)
	}
	// A wrong password is refused, and not echoed either.
	out, err = run("--queue-status", "rediss://:wrong-pw@"+addr+"/tlsq")
	if err == nil || strings.Contains(out, "wrong-pw") {
		t.Errorf("a wrong password: %v\n%s", err, out)
	}
}

// killHolding kills w with SIGKILL at a moment when it holds tasks and
// has none half-finished: stopped (SIGSTOP), none of the tasks pending for
// it is in its log or its WARC file. (A worker killed between writing a
// task's outcome and acknowledging it leaves that task to be fetched once
// more by another worker: the one case where a task can be done twice,
// see README, "Distributed crawls"; the test kills outside it.) It returns
// the URLs w held.
func killHolding(t *testing.T, w *worker, rdb *redis.Client, stream, dir string) []string {
	t.Helper()
	ctx := context.Background()
	deadline := time.Now().Add(2 * time.Minute)
	for tries := 0; time.Now().Before(deadline); tries++ {
		if countLines(filepath.Join(dir, w.name+".log")) < 5 {
			time.Sleep(10 * time.Millisecond)
			continue
		}
		w.cmd.Process.Signal(syscall.SIGSTOP)
		held, clean := heldTasks(t, ctx, rdb, stream, w, dir)
		if len(held) > 0 && clean {
			w.cmd.Process.Signal(syscall.SIGKILL)
			w.cmd.Wait()
			return held
		}
		w.cmd.Process.Signal(syscall.SIGCONT)
		time.Sleep(time.Duration(5+tries%20) * time.Millisecond)
	}
	t.Fatalf("%s never held a task outside the moment of finishing one", w.name)
	return nil
}

// heldTasks lists the URLs pending for w's consumer and reports whether
// none of them is in w's log or WARC file (which must read whole).
func heldTasks(t *testing.T, ctx context.Context, rdb *redis.Client, stream string, w *worker, dir string) ([]string, bool) {
	t.Helper()
	pend, err := rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: stream, Group: "fetch", Start: "-", End: "+", Count: 1000, Consumer: w.name}).Result()
	if err != nil {
		t.Fatal(err)
	}
	var held []string
	for _, p := range pend {
		msgs, err := rdb.XRange(ctx, stream, p.ID, p.ID).Result()
		if err != nil || len(msgs) != 1 {
			return nil, false
		}
		u, _ := msgs[0].Values["url"].(string)
		held = append(held, u)
	}
	done := map[string]bool{}
	for _, l := range readBatchLog(t, filepath.Join(dir, w.name+".log")) {
		done[canonical(t, l.URL)] = true
	}
	recorded, whole := warcTargets(filepath.Join(dir, w.name+".warc.gz"))
	if !whole {
		return held, false
	}
	for _, u := range recorded {
		done[canonical(t, u)] = true
	}
	for _, u := range held {
		if done[canonical(t, u)] {
			return held, false
		}
	}
	return held, true
}

// warcTargets lists the WARC-Target-URI of each record of a WARC file;
// whole is false when its last record is cut short (being written).
func warcTargets(name string) (uris []string, whole bool) {
	f, err := os.Open(name)
	if err != nil {
		return nil, os.IsNotExist(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	for {
		if _, err := br.Peek(1); err == io.EOF {
			return uris, true
		}
		z, err := gzip.NewReader(br)
		if err != nil {
			return uris, false
		}
		z.Multistream(false)
		rec, err := io.ReadAll(z)
		if err != nil {
			return uris, false
		}
		head, _, _ := strings.Cut(string(rec), "\r\n\r\n")
		for _, l := range strings.Split(head, "\r\n") {
			if v, ok := strings.CutPrefix(l, "WARC-Target-URI: "); ok {
				uris = append(uris, v)
			}
		}
	}
}

// TestQueueTakenOver: a worker whose task was taken over by another (it
// stalled past the claim timeout; here the test hands the task to "b" with
// XCLAIM) stops the transfer at its next keep-alive, warns, and neither
// logs nor acknowledges the task, which stays the other worker's.
func TestQueueTakenOver(t *testing.T) {
	wantServer(t, "redis")
	queue, rdb := queueAddr(t)
	stream := queue[strings.LastIndex(queue, "/")+1:]
	started := make(chan struct{}, 1)
	gone := make(chan struct{})
	var goneOnce sync.Once
	// A document that trickles, a byte every 100 ms, for at most 100 s:
	// fault injection, standing for a long transfer.
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer goneOnce.Do(func() { close(gone) })
		select {
		case started <- struct{}{}:
		default:
		}
		w.Header().Set("Content-Length", "1000")
		for i := 0; i < 1000; i++ {
			if _, err := w.Write([]byte("x")); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}))
	defer srv.Close()
	u := srv.URL + "/slow.txt"
	enq := exec.Command(fetchBinary(t), "--enqueue", queue, u)
	enq.Env = queueEnv(t)
	if out, err := enq.CombinedOutput(); err != nil {
		t.Fatalf("--enqueue: %v\n%s", err, out)
	}
	dir := t.TempDir()
	a := startWorker(t, queue, "a", dir, "--claim-timeout", "3", "--idle-exit", "2")
	select {
	case <-started:
	case <-time.After(2 * time.Minute):
		a.cmd.Process.Kill()
		t.Fatalf("worker a never asked for %s\n%s", u, a.stderr.String())
	}
	ctx := context.Background()
	pend, err := rdb.XPendingExt(ctx, &redis.XPendingExtArgs{Stream: stream, Group: "fetch", Start: "-", End: "+", Count: 10, Consumer: "a"}).Result()
	if err != nil || len(pend) != 1 {
		a.cmd.Process.Kill()
		t.Fatalf("a's pending tasks: %v, %v", pend, err)
	}
	// b takes the task over, as after a stall of a's, and finishes it.
	if err := rdb.XClaimJustID(ctx, &redis.XClaimArgs{Stream: stream, Group: "fetch", Consumer: "b", Messages: []string{pend[0].ID}}).Err(); err != nil {
		t.Fatal(err)
	}
	// a's keep-alive, every second here, finds the task b's.
	took := time.Now()
	select {
	case <-gone:
	case <-time.After(time.Minute):
		t.Errorf("a still fetched %s a minute after b took it over", u)
	}
	t.Logf("a stopped %v after the takeover", time.Since(took))
	// b finishes it as a worker's Done does: acknowledged and deleted
	// (a worker is drained once the stream is empty).
	if err := rdb.XAck(ctx, stream, "fetch", pend[0].ID).Err(); err != nil {
		t.Fatal(err)
	}
	if err := rdb.XDel(ctx, stream, pend[0].ID).Err(); err != nil {
		t.Fatal(err)
	}
	a.wait(t)
	t.Logf("a exited %v after the takeover", time.Since(took))
	if !strings.Contains(a.stderr.String(), "taken over by another worker") {
		t.Errorf("a's stderr has no warning of the takeover:\n%s", a.stderr.String())
	}
	if n := countLines(filepath.Join(dir, "a.log")); n != 0 {
		t.Errorf("a logged %d lines for a task it no longer held", n)
	}
	if _, err := os.Stat(filepath.Join(dir, "a", strings.TrimPrefix(srv.URL, "http://"), "slow.txt")); err == nil {
		t.Errorf("a saved the document it stopped")
	}
}
