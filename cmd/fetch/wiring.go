package main

import (
	"flag"
	"io"
	"os"
	"strings"

	"github.com/fetchproject/fetch/schemes"
	"github.com/fetchproject/fetch/schemes/file"
	"github.com/fetchproject/fetch/schemes/ftp"
	"github.com/fetchproject/fetch/schemes/gopher"
	"github.com/fetchproject/fetch/schemes/handoff"
	"github.com/fetchproject/fetch/schemes/http"
	"github.com/fetchproject/fetch/schemes/mailto"
	"github.com/fetchproject/fetch/schemes/nntp"
	"github.com/fetchproject/fetch/schemes/telnet"
)

// driverConfig maps the flags (and configuration file) onto each driver's
// settings.
func driverConfig(o *options, s stdio) schemes.Config {
	maxRedirs := o.maxRedirs
	if o.given("max-redirs") && maxRedirs == 0 {
		maxRedirs = -1 // --max-redirs 0 follows none; the driver's 0 is its default
	}
	cfg := schemes.Config{
		File: file.Config{FTPFallback: o.fileFTP, Special: o.fileSpec},
		HTTP: http.Config{UserAgent: o.userAgent, MaxRedirects: maxRedirs, Insecure: o.insecure, Header: o.headers, Pipeline: o.batch.pipeline},
		FTP: ftp.Config{
			AnonymousPassword: o.ftpEmail,
			Method:            o.ftpMethod,
			Active:            o.ftpActive != "",
			ActiveAddr:        o.ftpActive,
			DisableEPSV:       o.ftpNoEPSV,
		},
		NNTP: nntp.Config{
			Server:   o.nntpServer,
			User:     o.nntpUser,
			Password: o.secrets["nntp-password"],
		},
		Telnet:  telnet.Config{NoLogin: o.telnetNoLogin, LoginWait: o.telnetWait, Linger: o.telnetLinger},
		Gopher:  gopher.Config{FailEmpty: o.failEmpty},
		Handoff: handoff.Config{Rlogin: o.rloginProgram, TN3270: o.tn3270Program, Stderr: s.err},
		Mailto: mailto.Config{
			SMTPServer: o.smtpServer,
			From:       o.from,
			AllowBcc:   o.allowBcc,
			DryRun:     o.dryRun,
			StartTLS:   o.secrets["smtp-starttls"] == "true", // checked and normalised by applyConfig
			User:       o.secrets["smtp-user"],
			Password:   o.secrets["smtp-password"],
		},
	}
	// In a terminal, a message with no body from --data or standard input is
	// written in $EDITOR, and every message is confirmed before it is sent.
	if isTerminalReader(s.in) && !o.dryRun {
		if o.data == "" {
			cfg.Mailto.Edit = editDraft
		}
		cfg.Mailto.Confirm = true
	}
	return cfg
}

// given reports a flag set on the command line or by the configuration
// file ("max-redirs = 0" follows none, as the flag does).
func (o *options) given(name string) bool {
	if o.set[name] {
		return true
	}
	found := false
	if o.fs != nil {
		o.fs.Visit(func(f *flag.Flag) { found = found || f.Name == name })
	}
	return found
}

func cutKV(s string) (string, string, bool) { return strings.Cut(s, "=") }

func stringsReader(s string) io.Reader { return strings.NewReader(s) }

func isTerminalReader(r io.Reader) bool {
	f, ok := r.(*os.File)
	if !ok {
		return false
	}
	_, term := terminalFd(f)
	return term
}
