package http

import (
	"bytes"
	"strings"
	"testing"
)

// credentialMask masks the credentials of a request however its bytes
// are cut into writes, and passes every other byte as it came; a value of
// one word (a bare token) is masked whole, not kept as a scheme word.
func TestCredentialMask(t *testing.T) {
	head := "GET / HTTP/1.1\r\nHost: h\r\nauthorization: Bearer t0ken\r\nProxy-Authorization: Basic dXNlcjpwdw==\r\nX-Authorization-Hint: kept\r\nAuthorization: s3cret\r\nAuthorization:  \r\n\r\n"
	want := "GET / HTTP/1.1\r\nHost: h\r\nauthorization: Bearer ****\r\nProxy-Authorization: Basic ****\r\nX-Authorization-Hint: kept\r\nAuthorization: ****\r\nAuthorization: ****\r\n\r\n"
	for step := 1; step <= len(head); step++ {
		var got bytes.Buffer
		m := &credentialMask{w: &got}
		for i := 0; i < len(head); i += step {
			if n, err := m.Write([]byte(head[i:min(i+step, len(head))])); err != nil || n != min(step, len(head)-i) {
				t.Fatalf("Write: %d, %v", n, err)
			}
		}
		if got.String() != want {
			t.Fatalf("writes of %d bytes: %q", step, got.String())
		}
	}
}

// A credential line longer than credentialMask holds (a -H token of
// 70 KiB, written by net/http in 4 KiB pieces) is masked too: no byte of
// its value reaches the record, and the lines after it are as they came.
// A long line that is no credential passes whole.
func TestCredentialMaskLongLine(t *testing.T) {
	token := "SECRET" + strings.Repeat("x", 70<<10)
	long := strings.Repeat("y", 70<<10)
	head := "GET / HTTP/1.1\r\nAuthorization: Bearer " + token + "\r\nX-Long: " + long + "\r\nAccept: */*\r\n\r\n"
	want := "GET / HTTP/1.1\r\nAuthorization: Bearer ****\r\nX-Long: " + long + "\r\nAccept: */*\r\n\r\n"
	for _, step := range []int{4096, 1000, 1 << 20} {
		var got bytes.Buffer
		m := &credentialMask{w: &got}
		for i := 0; i < len(head); i += step {
			m.Write([]byte(head[i:min(i+step, len(head))]))
		}
		if strings.Contains(got.String(), "SECRET") || got.String() != want {
			i := max(0, strings.Index(got.String(), "SECRET")-40)
			t.Errorf("writes of %d bytes: %d bytes written, want %d; near the token: %q", step, got.Len(), len(want), got.String()[i:min(i+80, got.Len())])
		}
	}
}

// SecretHeader names the headers whose values may be credentials, by the
// words in their names; the challenges of a 401 or 407 and the headers
// every exchange has are shown.
func TestSecretHeader(t *testing.T) {
	for name, want := range map[string]bool{
		"Authorization": true, "proxy-authorization": true, "Cookie": true, "Cookie2": true,
		"Set-Cookie": true, "X-Api-Key": true, "X-API-KEY": true, "X-Auth-Token": true,
		"X-Csrf-Token": true, "X-Session-Id": true, "X-Client-Secret": true, "X-Password": true,
		"X-Credentials": true, "Authentication-Info": true,
		"WWW-Authenticate": false, "Proxy-Authenticate": false, "Content-Type": false,
		"Content-Length": false, "Accept": false, "User-Agent": false, "Keep-Alive": false,
		"Location": false, "Host": false, "Range": false, "Etag": false,
	} {
		if got := SecretHeader(name); got != want {
			t.Errorf("SecretHeader(%q) = %v, want %v", name, got, want)
		}
	}
}
