package mailto

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// testServer is an in-process go-smtp server on 127.0.0.1 that records
// what each client sent, byte for byte, and what it accepted.
type testServer struct {
	addr string
	srv  *smtp.Server

	mu      sync.Mutex
	conns   int
	sent    []*bytes.Buffer // bytes each client sent
	mails   []receivedMail
	user    string // AUTH PLAIN credentials, when set
	pass    string
	authed  []string
	refuse  map[string]*smtp.SMTPError // RCPT refusals by address
	dataErr *smtp.SMTPError            // the reply to the final dot
}

// receivedMail is one accepted transaction.
type receivedMail struct {
	From string
	To   []string
	Data []byte
	TLS  bool
}

// newTestServer starts a server; setup may change it before it listens.
func newTestServer(t *testing.T, setup func(*testServer)) *testServer {
	t.Helper()
	ts := &testServer{refuse: map[string]*smtp.SMTPError{}}
	ts.srv = smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		_, isTLS := c.TLSConnectionState()
		return &testSession{ts: ts, c: c, tls: isTLS}, nil
	}))
	ts.srv.Domain = "mx.fetch.test"
	ts.srv.AllowInsecureAuth = true
	ts.srv.ReadTimeout = 10 * time.Second
	ts.srv.WriteTimeout = 10 * time.Second
	ts.srv.EnableSMTPUTF8 = true
	if setup != nil {
		setup(ts)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ts.addr = l.Addr().String()
	go ts.srv.Serve(&recordingListener{Listener: l, ts: ts})
	t.Cleanup(func() { ts.srv.Close() })
	return ts
}

func (ts *testServer) connections() int {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return ts.conns
}

// transcript is what the client of connection i sent.
func (ts *testServer) transcript(i int) []byte {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]byte(nil), ts.sent[i].Bytes()...)
}

func (ts *testServer) received() []receivedMail {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	return append([]receivedMail(nil), ts.mails...)
}

// recordingListener keeps a copy of the bytes each client sends.
type recordingListener struct {
	net.Listener
	ts *testServer
}

func (l *recordingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	l.ts.mu.Lock()
	defer l.ts.mu.Unlock()
	l.ts.conns++
	buf := &bytes.Buffer{}
	l.ts.sent = append(l.ts.sent, buf)
	return &recordingConn{Conn: c, mu: &l.ts.mu, buf: buf}, nil
}

type recordingConn struct {
	net.Conn
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.buf.Write(p[:n])
	c.mu.Unlock()
	return n, err
}

type testSession struct {
	ts   *testServer
	c    *smtp.Conn
	tls  bool
	from string
	to   []string
}

func (s *testSession) AuthMechanisms() []string {
	if s.ts.user == "" {
		return nil
	}
	return []string{sasl.Plain}
}

func (s *testSession) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, user, pass string) error {
		if user != s.ts.user || pass != s.ts.pass {
			return smtp.ErrAuthFailed
		}
		s.ts.mu.Lock()
		s.ts.authed = append(s.ts.authed, user)
		s.ts.mu.Unlock()
		return nil
	}), nil
}

func (s *testSession) Mail(from string, _ *smtp.MailOptions) error {
	s.from = from
	return nil
}

func (s *testSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	if e := s.ts.refuse[to]; e != nil {
		return e
	}
	s.to = append(s.to, to)
	return nil
}

func (s *testSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	_, isTLS := s.c.TLSConnectionState()
	s.ts.mu.Lock()
	s.ts.mails = append(s.ts.mails, receivedMail{From: s.from, To: s.to, Data: b, TLS: isTLS})
	dataErr := s.ts.dataErr
	s.ts.mu.Unlock()
	if dataErr != nil {
		return dataErr
	}
	// A 250 with a queue id, as real MTAs answer.
	return &smtp.SMTPError{Code: 250, EnhancedCode: smtp.EnhancedCode{2, 0, 0}, Message: "OK id=1fetch-TEST01-00"}
}

func (s *testSession) Reset()        { s.from, s.to = "", nil }
func (s *testSession) Logout() error { return nil }

// selfSigned is a certificate for 127.0.0.1, made once per test binary.
var selfSigned = sync.OnceValue(func() tls.Certificate {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		panic(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1),
		Subject:      pkix.Name{CommonName: "mx.fetch.test"},
		NotBefore:    time.Now().Add(-time.Hour),
		NotAfter:     time.Now().Add(time.Hour),
		IPAddresses:  []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		panic(err)
	}
	return tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key}
})

// withTLS offers STARTTLS with the self-signed certificate.
func withTLS(ts *testServer) {
	ts.srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{selfSigned()}}
}

// rawServer accepts one connection on 127.0.0.1 and runs handle on it.
func rawServer(t *testing.T, handle func(c net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		handle(c)
	}()
	t.Cleanup(func() {
		l.Close()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("raw server did not finish")
		}
	})
	return l.Addr().String()
}
