//go:build !linux

package fetch

import "os"

// Only Linux splices; elsewhere bodies are read and written.
func spliceConn(*deadlineConn, *os.File, int64) (int64, error) { return 0, errNoSplice }
