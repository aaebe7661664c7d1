// Package mailto is the mailto driver: it composes a message to the
// mailbox a URL names and sends it to the user's submission server, as
// Lynx and LWP do (RFC 1738 §3.5, RFC 6068).
//
// URL grammar (RFC 6068 §2):
//
//	mailto:[addr-spec *("," addr-spec)] ["?" hfield *("&" hfield)]
//	hfield = hfname "=" hfvalue
//
// The addresses and the to, cc and bcc fields are recipients; subject,
// body, in-reply-to and keywords fill those fields. Any other field is
// dropped with a warning (RFC 6068 §3 and §7: a URL must not be able to
// set From, Reply-To or anything else the user did not write), and bcc is
// dropped unless Config.AllowBcc is set. A decoded CR, LF or NUL in any
// address or header field is refused (KindPolicy, exit 4): it could add
// header fields or SMTP commands. Only body may hold line breaks.
//
// The message is composed with github.com/emersion/go-message: From,
// To, Cc, Subject (RFC 2047 encoded-words when not ASCII), Date,
// Message-ID (on the sender's domain), In-Reply-To, Keywords, MIME-Version
// and a text/plain UTF-8 body, 7bit or quoted-printable as needed. Bcc
// recipients appear only in the envelope.
//
// It is sent with github.com/emersion/go-smtp to Config.SMTPServer, never
// to a host or port taken from the URL, so a mailto URL cannot aim SMTP at
// anything the user did not configure; the port policy does not apply to
// that server for the same reason. The result is a fetch.Sent with the
// server's final reply (its queue id). With Config.DryRun the composed
// message is returned as a message/rfc822 document instead.
package mailto

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"os/user"
	"strconv"
	"strings"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// Config holds the driver's settings.
type Config struct {
	// SMTPServer is the submission server, "host:port" (--smtp-server or
	// the configuration file). Needed to send; never taken from the URL.
	SMTPServer string
	// From is the sender, "addr" or "Name <addr>" (--from). When empty:
	// the EMAIL environment variable, else user@hostname.
	From string
	// AllowBcc lets a URL's bcc field add hidden recipients (--allow-bcc).
	AllowBcc bool
	// DryRun returns the composed message as a message/rfc822 document
	// instead of sending it (--dry-run, or -o FILE).
	DryRun bool
	// StartTLS upgrades the SMTP connection with STARTTLS (RFC 3207)
	// before anything else is sent, and fails if the server cannot.
	StartTLS bool
	// TLSInsecure skips verification of the server's certificate. Tests only.
	TLSInsecure bool
	// User and Password, when User is set, log in with SMTP AUTH PLAIN
	// (RFC 4954). They are sent only over TLS or to a loopback server
	// dialed directly (not through fetch.Options.Dialer, a proxy).
	User, Password string
	// Edit, when set, is called with a draft (header fields, a blank line,
	// the body) when neither the request nor the URL gives a body, and
	// returns the edited text; the command opens $EDITOR in a terminal.
	Edit func(ctx context.Context, draft []byte) ([]byte, error)
	// Confirm asks the prompter (Question.Field "confirm", Choices yes and
	// no) before sending; the command sets it in a terminal.
	Confirm bool
}

// Driver fetches mailto URLs.
type Driver struct {
	cfg Config
	// now and newID make Date and Message-ID reproducible in tests.
	now   func() time.Time
	newID func() string
	// hostname, username and env stand in for the system's in tests.
	hostname func() (string, error)
	username func() string
	env      func(string) string
}

// username is the login name of the user running fetch.
func username() string {
	if u, err := user.Current(); err == nil && u.Username != "" {
		return u.Username
	}
	return os.Getenv("USER")
}

var _ fetch.Driver = (*Driver)(nil)

// New returns a driver with cfg.
func New(cfg Config) *Driver {
	return &Driver{cfg: cfg, now: time.Now, newID: randomID, hostname: os.Hostname, username: username, env: os.Getenv}
}

// randomID is the left part of a Message-ID: the time and 64 random bits
// in base 36, unique without a registry (RFC 5322 §3.6.4).
func randomID() string {
	var b [8]byte
	rand.Read(b[:])
	return strings.ToUpper(strconv.FormatInt(time.Now().UnixNano(), 36) + "." + strconv.FormatUint(binary.BigEndian.Uint64(b[:]), 36))
}

// Fetch composes the message the URL describes and sends it, or returns
// it as a document with DryRun.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Result, error) {
	if err := checkUnsafe(req.URL.Opaque); err != nil {
		return nil, err
	}
	view, err := ParseURL(req.URL)
	if err != nil {
		return nil, err
	}
	warn := func(s string) { req.Trace(fetch.DirInfo, "warning: "+s) }
	m := &draft{}
	if err := m.fromURL(view, d.cfg.AllowBcc, warn); err != nil {
		return nil, err
	}
	if !d.cfg.DryRun {
		// Checked before the editor runs, so no message is written in vain.
		if d.cfg.SMTPServer == "" {
			e := req.Errorf(fetch.KindUsage, "mailto", "no SMTP server to send through (a mailto URL never names one)")
			e.Setting = "mailto.Config.SMTPServer"
			return nil, e
		}
		if _, err := serverHost(req, d.cfg.SMTPServer); err != nil {
			return nil, err
		}
	}
	if m.From, err = d.sender(); err != nil {
		return nil, err
	}

	urlBodyIgnored := false
	switch {
	case req.Body != nil:
		if view.Body != "" {
			urlBodyIgnored = true
			warn("the URL's body field is ignored: the body comes from --data or standard input")
		}
		if m.Body, err = readBody(req.Body); err != nil {
			return nil, err
		}
	case view.Body != "":
		m.Body = []byte(view.Body)
	case d.cfg.Edit != nil:
		text, err := d.cfg.Edit(ctx, editorDraft(m, d.cfg.AllowBcc))
		if err != nil {
			return nil, fetch.Wrap(fetch.KindLocal, "edit", err)
		}
		if len(text) > maxBody {
			return nil, req.Errorf(fetch.KindPolicy, "edit", "%w: the message exceeds %d bytes", fetch.ErrTooLarge, maxBody)
		}
		if err := m.fromEditor(text, d.cfg.AllowBcc, warn); err != nil {
			return nil, err
		}
	}
	m.Body = normalizeBody(m.Body)
	switch {
	case len(m.Body) == 0 && urlBodyIgnored:
		// (not "no body= in the URL": there is one, and it was ignored)
		warn("the message body is empty: --data or standard input gave none")
	case len(m.Body) == 0:
		warn("the message body is empty (no --data, standard input or body= in the URL)")
	}

	id := d.newID() + "@" + m.From.Domain
	var msg bytes.Buffer
	if err := compose(&msg, m, d.now(), id); err != nil {
		return nil, fetch.Wrap(fetch.KindMalformed, "compose", err)
	}

	rcpts := make([]string, 0, len(m.recipients()))
	for _, a := range m.recipients() {
		rcpts = append(rcpts, a.Spec())
	}
	if d.cfg.DryRun {
		return &fetch.Result{Kind: fetch.KindDocument, Document: &fetch.Document{
			Body:     io.NopCloser(bytes.NewReader(msg.Bytes())),
			MIMEType: "message/rfc822",
			Size:     int64(msg.Len()),
			Meta:     map[string]string{fetch.MetaMessageID: id, fetch.MetaRecipients: strings.Join(rcpts, ", ")},
		}}, nil
	}
	if d.cfg.Confirm {
		if err := d.confirm(ctx, req, m, rcpts); err != nil {
			return nil, err
		}
	}
	reply, err := d.send(ctx, req, m, msg.Bytes())
	if err != nil {
		return nil, err
	}
	return &fetch.Result{Kind: fetch.KindSent, Sent: &fetch.Sent{
		Server: d.cfg.SMTPServer, Recipients: rcpts, MessageID: id, Reply: reply,
	}}, nil
}

// sender is the From mailbox: Config.From, else $EMAIL, else user@host.
func (d *Driver) sender() (address, error) {
	from, part := d.cfg.From, "from"
	if from == "" {
		from, part = d.env("EMAIL"), "EMAIL"
	}
	if from == "" {
		name := d.username()
		host, err := d.hostname()
		if err != nil || host == "" || name == "" {
			return address{}, &fetch.Error{Kind: fetch.KindUsage, Op: "mailto", Part: "from", Offset: -1, Setting: "mailto.Config.From",
				Err: fmt.Errorf("no sender address")}
		}
		from, part = name+"@"+host, "user@hostname"
	}
	if err := fetch.CheckLine(part, from); err != nil {
		return address{}, err
	}
	l, err := parseMailboxList(from)
	if err == nil && len(l) != 1 {
		err = fmt.Errorf("%q: the sender must be exactly one address", from)
	}
	if err != nil {
		return address{}, &fetch.Error{Kind: fetch.KindUsage, Op: "mailto", Part: part, Offset: -1, Setting: "mailto.Config.From",
			Err: fmt.Errorf("bad sender address: %w", err)}
	}
	return l[0], nil
}

// confirm asks the user whether to send.
func (d *Driver) confirm(ctx context.Context, req *fetch.Request, m *draft, rcpts []string) error {
	label := fmt.Sprintf("Send %q (%d bytes of text) from %s to %s via %s?",
		m.Subject, len(m.Body), m.From.Spec(), strings.Join(rcpts, ", "), d.cfg.SMTPServer)
	ans, err := req.Prompt(ctx, fetch.Question{Field: "confirm", Label: label, Choices: []string{"yes", "no"}, Default: "no"})
	if err != nil {
		return err
	}
	switch strings.ToLower(strings.TrimSpace(ans)) {
	case "yes", "y":
		return nil
	}
	return req.Errorf(fetch.KindUsage, "confirm", "not sent: the message was not confirmed")
}
