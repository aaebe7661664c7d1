//go:build !unix

package main

import "os"

// notifyResize does nothing here: there is no signal for a new terminal
// size, and the width read when a progress line starts is kept.
func notifyResize(c chan<- os.Signal) {}
