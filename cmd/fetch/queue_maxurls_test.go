//go:build integration

package main

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestQueueMaxURLsIsTheQueues: --max-urls bounds a shared queue's URLs,
// every worker's together and the seeds --enqueue added among them. Each
// worker counted only the links it had queued itself, so two workers with
// --max-urls 10 queued some 20 links besides the seeds.
func TestQueueMaxURLsIsTheQueues(t *testing.T) {
	rdb, name, qu := testQueue(t, "maxurls")
	ctx := context.Background()

	// Four directories of 40 files each: 164 URLs to find.
	const maxURLs = 10
	seeds := fileTree(t, 4, 40)
	u := qu.String()
	if code, out, errs := runFetch(t, "", append([]string{"--enqueue", u}, seeds...)...); code != 0 {
		t.Fatalf("--enqueue: exit %d: %s%s", code, out, errs)
	}

	// The workers run at once, in this process, as runFetch runs one
	// (--progress: the summary, which counts the links left out).
	t.Setenv("FETCH_CONFIG", "")
	t.Setenv("HOME", t.TempDir())
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	logs := []string{filepath.Join(t.TempDir(), "w1.log"), filepath.Join(t.TempDir(), "w2.log")}
	summaries := make([]string, len(logs))
	var wg sync.WaitGroup
	for i, logName := range logs {
		wg.Go(func() {
			var out, errb bytes.Buffer
			code := run(ctx, []string{"--queue", u, "--worker", fmt.Sprintf("w%d", i+1), "-r",
				"--max-urls", strconv.Itoa(maxURLs), "-j", "2", "--idle-exit", "0.5", "--progress",
				"--log", logName, "--output-dir", filepath.Dir(logName)},
				stdio{in: strings.NewReader(""), out: &out, err: &errb})
			if code != 0 {
				t.Errorf("worker %d: exit %d: %s%s", i+1, code, out.String(), errb.String())
			}
			summaries[i] = errb.String()
		})
	}
	wg.Wait()

	fetched := map[string]bool{}
	for _, logName := range logs {
		_, all := readLog(t, logName)
		for _, l := range all {
			if fetched[l.URL] {
				t.Errorf("%s fetched twice", l.URL)
			}
			fetched[l.URL] = true
		}
	}
	seen, err := rdb.SCard(ctx, name+":seen").Result()
	if err != nil {
		t.Fatal(err)
	}
	if seen != maxURLs || len(fetched) != maxURLs {
		t.Errorf("--max-urls %d with %d seeds enqueued: the queue saw %d URLs and the workers fetched %d",
			maxURLs, len(seeds), seen, len(fetched))
	}
	over := regexp.MustCompile(`(\d+) over --max-urls`)
	left := 0
	for _, s := range summaries {
		if m := over.FindStringSubmatch(s); m != nil {
			n, _ := strconv.Atoi(m[1])
			left += n
		}
	}
	if left == 0 {
		t.Errorf("no worker's summary counts links over --max-urls: %q", summaries)
	}
}
