package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSignalEndsBlockedRun: one SIGINT (or SIGTERM, as timeout(1) and
// service managers send once) ends the command even when it is blocked
// where no context reaches: here opening a --config FIFO that nobody
// writes. It exits 130 after stopGrace; before, it waited for a writer
// (or a second signal) for ever.
func TestSignalEndsBlockedRun(t *testing.T) {
	fetchBin := filepath.Join(binaries(t), "fetch")
	fifo := filepath.Join(t.TempDir(), "config")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(fetchBin, "--config", fifo, "file:///etc/hostname")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// Signalled once it is in open(2) on the FIFO: its handler is set
	// by then (an earlier signal would kill it by default).
	for deadline := time.Now().Add(time.Minute); !inFIFOOpen(cmd.Process.Pid); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the command never waited in open(2) on the FIFO")
		}
	}
	cmd.Process.Signal(os.Interrupt)
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if !errors.As(err, &ee) || ee.ExitCode() != exitInterrupted {
			t.Errorf("exit %v, want %d: %s", err, exitInterrupted, stderr.String())
		}
		if !strings.Contains(stderr.String(), "still not stopped") {
			t.Errorf("stderr does not say why: %s", stderr.String())
		}
	case <-time.After(stopGrace + time.Minute):
		t.Fatalf("still running %v after SIGINT", stopGrace+time.Minute)
	}
}

// inFIFOOpen tells whether a thread of process pid waits in the kernel
// for a FIFO's other end.
func inFIFOOpen(pid int) bool {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "wchan"))
	for _, w := range tasks {
		if b, err := os.ReadFile(w); err == nil && string(b) == "wait_for_partner" {
			return true
		}
	}
	return false
}
