package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWARCResumeKeepsOtherLogsRecords: a batch rerun with its --log cuts
// from the WARC's end only its own killed run's unlogged transfers, never
// those of a run with another log that wrote the WARC since. The rerun
// asked of every transfer after the WARC's last warcinfo whether its own
// log held it; a run with another log (another list into the same
// archive) had written the last warcinfo and those transfers, so up to
// 64 of them were cut, and their log, which holds them as done, never
// fetches them again.
func TestWARCResumeKeepsOtherLogsRecords(t *testing.T) {
	dir := t.TempDir()
	doc := func(i int) string { return docURL(t, dir, i) }
	out := filepath.Join(dir, "site.warc.gz")
	resources := func() int {
		n := 0
		for _, r := range members(t, out) {
			if strings.Contains(r, "WARC-Type: resource\r\n") {
				n++
			}
		}
		return n
	}
	run := func(log string, urls ...string) {
		t.Helper()
		args := []string{"-q", "-O", "--output-dir", filepath.Join(dir, "out-"+log), "--log", filepath.Join(dir, log), "--warc", out}
		if code, _, stderr := runFetch(t, "", append(args, urls...)...); code != 0 {
			t.Fatalf("run with %s: exit %d: %s", log, code, stderr)
		}
	}
	run("a.log", doc(0), doc(1))
	run("b.log", doc(2), doc(3))
	before, _ := os.ReadFile(out)
	run("a.log", doc(0), doc(1)) // a rerun, say to retry what failed
	if after, _ := os.ReadFile(out); !bytes.HasPrefix(after, before) {
		t.Errorf("the rerun with a.log cut b.log's run's records: %d bytes before it, %d after", len(before), len(after))
	}
	if n := resources(); n != 4 {
		t.Errorf("%d resource records, want the 4 of both logs", n)
	}

	// Its own killed run's are cut still: c.log's last line goes, as a
	// kill between the records and the line leaves it, and the rerun
	// records that document once more in their place.
	run("c.log", doc(4), doc(5))
	log, err := os.ReadFile(filepath.Join(dir, "c.log"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.SplitAfter(log, []byte("\n"))
	if len(lines) < 3 { // two lines and the empty rest
		t.Fatalf("c.log: %q", log)
	}
	if err := os.WriteFile(filepath.Join(dir, "c.log"), lines[0], 0o666); err != nil {
		t.Fatal(err)
	}
	run("c.log", doc(4), doc(5))
	if n := resources(); n != 6 {
		t.Errorf("%d resource records after c.log's rerun, want 6 (its unlogged one cut and recorded again)", n)
	}
}

// TestWARCDevNullLogResumesNothing: a batch given --log /dev/null keeps
// no line, so its next run with /dev/null is no rerun: the WARC keeps the
// earlier run's records. Taken for a rerun with nothing done, it cut
// them from the WARC's end, and no log held them to fetch them again.
func TestWARCDevNullLogResumesNothing(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "site.warc.gz")
	run := func(urls ...string) {
		t.Helper()
		args := []string{"-q", "-O", "--output-dir", filepath.Join(dir, "out"), "--log", os.DevNull, "--warc", out}
		if code, _, stderr := runFetch(t, "", append(args, urls...)...); code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
	}
	run(docURL(t, dir, 0), docURL(t, dir, 1))
	before, _ := os.ReadFile(out)
	run(docURL(t, dir, 2))
	if after, _ := os.ReadFile(out); !bytes.HasPrefix(after, before) {
		t.Errorf("the second run cut the first one's records: %d bytes before it, %d after", len(before), len(after))
	}
}
