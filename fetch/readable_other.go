//go:build !unix || aix

package fetch

import "net"

// Readable reports whether something waits to be read on c without
// reading it; here it cannot tell, and reports false.
func Readable(c net.Conn) bool { return false }
