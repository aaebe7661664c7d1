// Command rsswrap runs a command and reports its maximum resident set.
// The memory tests start the fetch command through it: a process started
// directly by the test binary inherits the test binary's resident
// high-water mark across exec (Linux keeps the larger in ru_maxrss), and a
// -race test binary is itself tens of MiB. This program is small, so the
// figure it reports is the child's own.
//
// Usage: rsswrap COMMAND [ARG...]; the last line of standard error is
// "rsswrap: maxrss BYTES", and the exit status is the command's.
package main

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

func main() {
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		fmt.Fprintln(os.Stderr, "rsswrap:", err)
		os.Exit(125)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	fmt.Fprintf(os.Stderr, "rsswrap: maxrss %d\n", ru.Maxrss*1024) // KiB on Linux
	os.Exit(cmd.ProcessState.ExitCode())
}
