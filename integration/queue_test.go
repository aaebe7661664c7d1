//go:build integration

package integration

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
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

func startWorker(t *testing.T, queue, name, dir string) *worker {
	t.Helper()
	w := &worker{name: name, dir: dir}
	w.cmd = exec.Command(fetchBinary(t), "--queue", queue, "--worker", name, "-r", "--depth", "20",
		"-j", "2", "--delay", "0.02", "-q", "--claim-timeout", "60", "--idle-exit", "3",
		"--output-dir", filepath.Join(dir, name), "--log", filepath.Join(dir, name+".log"),
		"--warc", filepath.Join(dir, name+".warc.gz"))
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

	workers := map[string]*worker{}
	for _, n := range []string{"w1", "w2", "w3"} {
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
	ctx := context.Background()
	name := queue[strings.LastIndex(queue, "/")+1:]
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
	t.Logf("w1 killed after %d lines; %d URLs in all", killedAt, len(logged))
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
	w1 := startWorker(t, queue, "w1", dir)
	w2 := startWorker(t, queue, "w2", dir)
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
