package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/fetchproject/fetch/fetch"
)

// helpRequest is "fetch --help SCHEME".
type helpRequest struct{ topic string }

func (h *helpRequest) Error() string { return "help requested for " + h.topic }

// helpWord is the word args[i] asks help on: the next argument after
// --help (or -h, -help), or what follows "=" in --help=WORD, lower-cased
// and without a trailing ":".
func helpWord(args []string, i int) (string, bool) {
	a := args[i]
	for _, h := range []string{"--help", "-help", "-h"} {
		if a == h && i+1 < len(args) {
			return strings.ToLower(strings.TrimSuffix(args[i+1], ":")), true
		}
		if w, ok := strings.CutPrefix(a, h+"="); ok {
			return strings.ToLower(strings.TrimSuffix(w, ":")), true
		}
	}
	return "", false
}

// helpTopic finds "--help SCHEME" (or -h, -help, --help=SCHEME) among args.
func helpTopic(args []string) (string, bool) {
	for i, a := range args {
		if a == "--" {
			return "", false
		}
		if t, ok := helpWord(args, i); ok {
			if _, ok := schemeHelp[t]; ok {
				return t, true
			}
		}
	}
	return "", false
}

// unknownHelpTopic is the word after --help (or -h, -help) when it is a
// bare word, neither a flag nor a URL, and no topic: "--help gophr".
func unknownHelpTopic(args []string) string {
	for i, a := range args {
		if a == "--" {
			return ""
		}
		if t, ok := helpWord(args, i); ok {
			if _, ok := schemeHelp[t]; ok || t == "" || strings.HasPrefix(t, "-") || strings.ContainsAny(t, ":/.@") {
				return ""
			}
			return t
		}
	}
	return ""
}

// helpTopics is the topics of --help SCHEME, sorted, and the nearest to
// topic when one is near.
func helpTopics(topic string) (list, near string) {
	var names []string
	for t := range schemeHelp {
		names = append(names, t)
	}
	sort.Strings(names)
	return strings.Join(names, ", "), fetch.Nearest(topic, names)
}

// printSchemeHelp writes one scheme's URL forms, flags and examples.
func printSchemeHelp(w io.Writer, topic string) {
	fmt.Fprint(w, schemeHelp[topic])
}

// schemeHelp is "fetch --help SCHEME": URL forms, the flags that scheme
// reads, and examples that run against the test harness.
var schemeHelp = map[string]string{
	"file": `file: URLs (RFC 1738 §3.10)

  file:///path             a local file; a directory lists as file: URLs
  file://localhost/path    the same
  file://otherhost/path    refused, unless --file-ftp fetches it as ftp://otherhost/path
  A FIFO, device or socket is refused, unless --file-special (the timeouts then apply).

Flags: -o, -O, -C, --max-size, --file-ftp, --file-special

  fetch file:///etc/hostname
  fetch -O file:///etc/hostname
`,
	"ftp": `ftp: URLs (RFC 1738 §3.2)

  ftp://[user[:password]@]host[:port]/path[;type=a|i|d]
  Each path segment is one CWD from the login directory; %2F starts at "/".
  ;type=a  ASCII, delivered with local line ends (LF) unless --raw; never
           resumed (servers count REST differently): -C fetches it whole
           into a file, and to standard output is refused (exit 6)
  ;type=i  binary
  ;type=d  a name listing (NLST); a path ending in "/" lists the directory

Flags: --ftp-method, --ftp-email, --ftp-port, --disable-epsv, -C, --raw, --allow-port

  fetch ftp://127.0.0.1:18021/pub/
  fetch 'ftp://127.0.0.1:18021/pub/README;type=a'
`,
	"gopher": `gopher: URLs (RFC 1738 §3.4)

  gopher://host[:port]/<type><selector>
  gopher://host[:port]/7<selector>%09<search>          a search (else --query, else asked)
  gopher://host[:port]/<type><selector>%09%09+          a Gopher+ item's default view
  gopher://host[:port]/<type><selector>%09%09+<view>    another view ("+text/plain En_US")
  gopher://host[:port]/<type><selector>%09%09!          the item's attributes
  gopher://host[:port]/1<selector>%09%09$               every item's attributes
  gopher://host[:port]/<type><selector>%09%09?          a +ASK form, answered by --form
  Text items (type 0) are delivered with local line ends (LF) unless --raw.
  Types 8 and T list as telnet: and tn3270: URLs.

Flags: --query, --form NAME=VALUE, --raw, --fail-empty, --max-size

  fetch gopher://127.0.0.1:18071/
  fetch gopher://127.0.0.1:18071/0/about.txt
  fetch 'gopher://127.0.0.1:18070/0/about.txt%09%09!+ABSTRACT'
`,
	"http": `http: and https: URLs (RFC 1738 §3.3)

  http://host[:port]/path[?search]
  Redirects are followed to http and https only, each hop checked by the port policy.

Flags: -H, --user-agent, --max-redirs, --insecure, -C, --proxy, --pipeline (batches)

  fetch http://127.0.0.1:18080/hello.txt
  fetch --info http://127.0.0.1:18080/hello.txt
`,
	"news": `news: URLs (RFC 1738 §3.6)

  news:<message-id>   an article ("news:abc@example.com" or with <...>)
  news:group          the newest articles of a group
  news:*              every group (news:comp.* those a wildmat matches, RFC 5538)
  The server is --nntp-server, else NNTPSERVER (and NNTPPORT), else the
  configuration file, else localhost:119; news://host[:port]/... (RFC 5538) names
  its own. Articles come with LF line ends unless --raw.

Flags: --nntp-server, --nntp-user, --raw

  NNTPSERVER=127.0.0.1:18119 fetch news:fetch.test.alpha
`,
	"nntp": `nntp: URLs (RFC 1738 §3.7)

  nntp://host[:port]/group/number   an article by number from that server
  nntp://host[:port]/group          the newest articles of the group
  nntp://host[:port]/               every group (an extension)
  nntp://user[:password]@host/...   AUTHINFO as that user (an extension; --nntp-user and
                                    the configured password go only to the news: server)
  --parse judges RFC 1738's grammar, which has neither extension, and refuses them.
  Articles come with LF line ends unless --raw.

Flags: --nntp-user, --raw

  fetch nntp://127.0.0.1:18119/fetch.test.alpha/1
`,
	"mailto": `mailto: URLs (RFC 1738 §3.5, RFC 6068 fields)

  mailto:addr[,addr...][?subject=...&cc=...&body=...]
  The body is --data, else standard input; with a terminal for input, the URL's body=,
  else one written in $VISUAL or $EDITOR (else vi), and the message is confirmed
  before it is sent. The server is never taken from the URL.

Flags: --smtp-server, --from, --data, --dry-run, --allow-bcc

  fetch --dry-run --data hi 'mailto:a@example.org?subject=Hi'
  fetch --smtp-server 127.0.0.1:18025 --data hi 'mailto:a@fetch.test?subject=Hi'
`,
	"telnet": `telnet: URLs (RFC 1738 §3.8)

  telnet://[user[:password]@]host[:port]/
  An interactive session; the user and password are advisory and typed at the
  login prompts unless --no-telnet-login. ^] closes the session.

Flags: --no-telnet-login, --telnet-login-wait, --telnet-linger

  echo exit | fetch telnet://telnetuser:telnetpass@127.0.0.1:18023/
`,
	"rlogin": `rlogin: URLs (RFC 1738 §3.8, Gopher type 8 tradition)

  rlogin://[user@]host[:port]/
  The session is handed to the rlogin program (--rlogin-program, default "rlogin"),
  run without a shell as: rlogin -l USER [-p PORT] HOST  (-p only for a port other than 513).
  The program has the terminal: -o, -O and --max-size are refused.

Flags: --rlogin-program, --allow-port

  fetch --rlogin-program /usr/bin/rlogin rlogin://guest@127.0.0.1:2513/
`,
	"tn3270": `tn3270: URLs (RFC 1738 §3.8, Gopher type T)

  tn3270://[user@]host[:port]/
  The session is handed to a 3270 emulator (--tn3270-program, default c3270, else
  x3270), run without a shell as: c3270 HOST:PORT. The user is advisory: 3270
  emulators take none, so it is not passed (-v shows it).
  A one-letter host is refused: the emulator would read "l:" as an option (TLS).
  The program has the terminal: -o, -O and --max-size are refused.

Flags: --tn3270-program, --allow-port

  fetch tn3270://127.0.0.1:2323/
`,
	"wais": `wais: URLs (RFC 1738 §3.9)

  wais://host[:port]/database?words         a keyword search: lists documents by score
  wais://host[:port]/database               the same, the words from --query (else asked)
  wais://host[:port]/database/wtype/wpath   a document, retrieved slice by slice; the
                                            wpath is the server's document id, as listed
  wais://host[:port]/database/wtype/length/type=value;...
                                            a document in Lynx's form (id field by field)
  -C resumes a document from a byte (a slice starts there); past its end is an error.
  --info on a document URL shows its headline, type and length; only the first slice is
  asked for (it tells whether the document exists), and none of it is shown;
  --json listings carry score, length, types and the document id.

Flags: --query, --info, --json, --max-size, -C, -o, -O

  fetch 'wais://127.0.0.1:18210/fetch-test?gopher'
  fetch --query gopher wais://127.0.0.1:18210/fetch-test
`,
	"prospero": `prospero: URLs (RFC 1738 §3.11)

  prospero://host[:port]//hsoname[;OBJECT-VERSION=n]   a Prospero object (hsonames start with "/")
  The server (ARDP over UDP) names the object's access methods (AFTP, FTP, GOPHER,
  WAIS, ...); the first usable one is fetched under its own scheme's port policy.
  A directory lists its links as prospero: URLs. The 1993 draft's %00 form is read too.

Flags: --info (every access method, the chosen one marked, nothing fetched), -o, -O, --timeout

  fetch prospero://127.0.0.1:18525//pub/README
  fetch --info prospero://127.0.0.1:18525//pub/README
`,
}

func init() {
	schemeHelp["https"] = schemeHelp["http"]
}

// flagSpelling is a flag's name as the help spells it: "-o" for a letter,
// "--timeout" for a word.
func flagSpelling(name string) string {
	name = strings.TrimLeft(name, "-")
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// The flag package's messages, as flagError reads them. The expressions
// are compiled on first use, as only a mistake needs them.
var (
	flagUndefined = lazyRegexp(`^flag provided but not defined: -+(.+)$`)
	flagNoArg     = lazyRegexp(`^flag needs an argument: -+(\S+)$`)
	flagBadValue  = lazyRegexp(`^invalid (boolean )?value ("[^"]*") for (?:flag )?-+([^:\s]+): (.*)$`)
)

// lazyRegexp returns expr, compiled the first time it is called for.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// flagError rewrites the flag package's messages to name each flag as
// the help spells it ("--timeout", not "-timeout").
func flagError(err error) error {
	msg := err.Error()
	if m := flagUndefined().FindStringSubmatch(msg); m != nil {
		fs := newFlagSet(&options{})
		if i := strings.IndexFunc(m[1], notInFlagName); i >= 0 {
			// A value run into its flag ("-HCookie: x"), which may be
			// a credential: not repeated.
			if f := valueFlag(fs, m[1]); f != nil {
				return ranInto(f)
			}
			return fmt.Errorf("unknown flag %s… (the rest of the argument is not repeated)", flagSpelling(m[1][:i]))
		}
		if split := splitShortFlags(fs, m[1]); split != "" {
			return fmt.Errorf("-%s: one-letter flags do not combine: give %s", m[1], split)
		}
		out := "unknown flag " + flagSpelling(m[1])
		if hint := habits[m[1]]; hint != "" {
			return errors.New(out + ": " + hint)
		}
		var names []string
		fs.VisitAll(func(f *flag.Flag) {
			// One letter is one edit from any other: -L is no
			// misspelling of -C, though -R may be of -r.
			if len(f.Name) > 1 || len(m[1]) > 1 || strings.EqualFold(f.Name, m[1]) {
				names = append(names, f.Name)
			}
		})
		near := fetch.Nearest(m[1], names)
		if f := valueFlag(fs, m[1]); f != nil && len(m[1]) > 1 && len(near) <= 1 {
			// "-ofile.txt", "-j2", "-C-": a value run into its one-letter
			// flag, as curl takes it, rather than a misspelt long flag
			// ("-outptu" is --output's). Not repeated: it may be a
			// credential.
			return ranInto(f)
		}
		if near != "" {
			out += " (did you mean " + flagSpelling(near) + "?)"
		}
		return errors.New(out)
	}
	if m := flagNoArg().FindStringSubmatch(msg); m != nil {
		return fmt.Errorf("%s needs a value", flagSpelling(m[1]))
	}
	if m := flagBadValue().FindStringSubmatch(msg); m != nil {
		why := m[4]
		if why == "parse error" { // strconv's, for a number or a boolean
			why = "not a whole number"
			if m[1] != "" {
				why = "want true or false"
			}
		}
		return fmt.Errorf("%s: invalid %svalue %s: %s", flagSpelling(m[3]), m[1], m[2], why)
	}
	return err
}

// habits says what fetch does for the flags of curl and wget that people
// type out of habit. Where the two give a letter different meanings
// (curl's -m is --max-time, wget's mirrors), the hint answers for both.
var habits = map[string]string{
	"L":                "fetch follows HTTP redirects without a flag (--max-redirs N sets how many)",
	"location":         "fetch follows HTTP redirects without a flag (--max-redirs N sets how many)",
	"s":                "fetch's is -q",
	"silent":           "fetch's is -q (--quiet)",
	"k":                "fetch's is --insecure for curl's; fetch converts no links (wget's)",
	"x":                "fetch's is --proxy URL for curl's, -o '{host}/{path}' for wget's",
	"Z":                "fetch's is -j N (N transfers at once)",
	"parallel":         "fetch's is -j N (N transfers at once)",
	"parallel-max":     "fetch's is -j N (N transfers at once)",
	"P":                "fetch's is --output-dir DIR for wget's, --ftp-port ADDR for curl's",
	"directory-prefix": "fetch's is --output-dir DIR",
	"c":                "fetch's is -C - for wget's (continue the existing output file); fetch keeps no cookie jar (curl's)",
	"l":                "fetch's is --depth N for wget's; for curl's, an FTP URL ending in / is listed",
	"level":            "fetch's is --depth N",
	"w":                "fetch's is --delay D for wget's, --json for curl's (results as JSON lines)",
	"wait":             "fetch's is --delay D",
	"t":                "fetch's is --retry N for wget's",
	"tries":            "fetch's is --retry N",
	"I":                "fetch's is --info for curl's (metadata only), --include REGEXP for wget's",
	"head":             "fetch's is --info (metadata only)",
	"m":                "fetch's is --max-time D for curl's, --recursive for wget's",
	"mirror":           "fetch's is --recursive",
	"b":                "send a cookie with -H 'Cookie: NAME=VALUE' (curl's); run fetch in the background with the shell's & (wget's)",
	"cookie":           "send a cookie with -H 'Cookie: NAME=VALUE'",
	"X":                "fetch sends what each scheme's access algorithm defines (an HTTP GET), no other method (curl's); --exclude REGEXP for wget's",
	"request":          "fetch sends what each scheme's access algorithm defines (an HTTP GET), no other method",
	"A":                "fetch's is --user-agent UA for curl's, --include REGEXP for wget's",
}

// valueFlag is the one-letter flag that takes a value with which name,
// an argument the flag package did not know, starts, or nil.
func valueFlag(fs *flag.FlagSet, name string) *flag.Flag {
	if name == "" {
		return nil
	}
	if f := fs.Lookup(name[:1]); f != nil && !isBoolFlag(f) {
		return f
	}
	return nil
}

// ranInto is the error for a value run into its one-letter flag f.
func ranInto(f *flag.Flag) error {
	return fmt.Errorf("-%s…: a value goes after a space or \"=\" (-%s VALUE, -%s=VALUE), not run into the flag", f.Name, f.Name, f.Name)
}

// notInFlagName tells the runes that no flag's name holds.
func notInFlagName(r rune) bool {
	return !(r == '-' || r == '_' || r == '.' || r < 0x80 && (unicode.IsLetter(r) || unicode.IsDigit(r)))
}

// splitShortFlags is "-v -O" for "vO" when each letter is a one-letter
// flag and all but the last take no value (as curl reads "-vO"), else "".
func splitShortFlags(fs *flag.FlagSet, name string) string {
	if len(name) < 2 || len(name) > 8 {
		return ""
	}
	var parts []string
	for i, c := range name {
		f := fs.Lookup(string(c))
		if f == nil || c > 0x7f {
			return ""
		}
		if i < len(name)-1 && !isBoolFlag(f) {
			return ""
		}
		parts = append(parts, "-"+string(c))
	}
	return strings.Join(parts, " ")
}

// suggestURL is a hint for an argument that is not a URL of a known
// scheme: a local path suggests file://, "host/path" or
// "host:port/path" suggests http://.
func suggestURL(raw string) string {
	if raw == "" || strings.Contains(raw, "://") {
		return ""
	}
	if strings.HasPrefix(raw, "/") || strings.HasPrefix(raw, "./") || strings.HasPrefix(raw, "../") || strings.HasPrefix(raw, "~") {
		return fileSuggestion(raw)
	}
	if _, err := os.Stat(raw); err == nil {
		return fileSuggestion(raw)
	}
	if hostPath().MatchString(raw) {
		return "http://" + raw
	}
	return ""
}

// hostPath is "host[:port][/path]" with a dotted name, an IP address or
// localhost as the host.
var hostPath = lazyRegexp(`^(localhost|[A-Za-z0-9-]+(\.[A-Za-z0-9-]+)+|\[[0-9A-Fa-f:.]+\])(:[0-9]{1,5})?([/?].*)?$`)

func fileSuggestion(raw string) string {
	p := raw
	if strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			p = filepath.Join(home, p[2:])
		}
	}
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	return "file://" + fetch.Escape(filepath.ToSlash(p), "/")
}

// settingFlags says each library setting an error or a warning names
// (fetch.Error.Setting) in the command's terms.
var settingFlags = map[string]string{
	"Options.MaxSize":          "--max-size",
	"Options.MaxTime":          "--max-time",
	"Options.IdleTimeout":      "--timeout",
	"Request.Body":             "--data or standard input",
	"PortPolicy.Allow":         "--allow-port",
	"file.Config.FTPFallback":  "--file-ftp",
	"mailto.Config.SMTPServer": "--smtp-server",
	"mailto.Config.From":       "--from",
	"mailto.Config.AllowBcc":   "--allow-bcc",
	"gopher.Config.FailEmpty":  "--fail-empty",
	"handoff.Config.Rlogin":    "--rlogin-program",
	"handoff.Config.TN3270":    "--tn3270-program",
}

// hint is the flag that would fix err, in a few words, or "".
func hint(err error) string {
	var fe *fetch.Error
	if !errors.As(err, &fe) {
		return ""
	}
	// The outermost error that names a setting decides.
	for e := fe; e != nil; {
		if e.Setting != "" {
			fe = e
			break
		}
		var inner *fetch.Error
		if !errors.As(e.Err, &inner) {
			break
		}
		e = inner
	}
	var pr *fetch.PortRefusal
	switch {
	case fe.Setting == "PortPolicy.Allow" && errors.As(err, &pr):
		return fmt.Sprintf("use --allow-port %d to permit it", pr.Port)
	case fe.Setting == "Options.MaxTime":
		return "--max-time"
	case fe.Setting == "Options.MaxSize":
		return "raise --max-size"
	case fe.Setting == "mailto.Config.SMTPServer":
		return "pass --smtp-server host:port or set smtp-server in the configuration file"
	case fe.Setting == "mailto.Config.From":
		return "pass --from or set EMAIL"
	case fe.Setting == "mailto.Config.StartTLS":
		return "set smtp-starttls = yes in the configuration file"
	case fe.Setting == "file.Config.FTPFallback":
		return "use --file-ftp to fetch it over FTP"
	case fe.Setting == "handoff.Config.Rlogin" || fe.Setting == "handoff.Config.TN3270":
		return "install it, or name another program with " + settingFlags[fe.Setting]
	case fe.Setting != "" && settingFlags[fe.Setting] != "":
		return "see " + settingFlags[fe.Setting]
	case errors.Is(err, fetch.ErrAuth) && isNewsURL(fe.URL) && !errors.Is(err, fetch.ErrNoAnswer):
		return "--nntp-user USER, and nntp-password in the configuration file"
	case errors.Is(err, fetch.ErrTimeout) && !errors.Is(err, fetch.ErrMaxTime) && strings.Contains(err.Error(), "idle timeout"):
		return "--timeout raises the idle timeout"
	case errors.Is(err, fetch.ErrUnknownScheme) || fetch.KindOf(err) == fetch.KindMalformed && fe.Part == "scheme":
		if s := suggestURL(fe.URL); s != "" {
			return "did you mean " + s + "?"
		}
	}
	return ""
}

func isNewsURL(u string) bool {
	return strings.HasPrefix(u, "news:") || strings.HasPrefix(u, "nntp:")
}

// settingsInWords rewrites the library's setting names in a warning into
// the flags that set them.
func settingsInWords(line string) string {
	for k, v := range settingFlags {
		line = strings.ReplaceAll(line, k, v)
	}
	return line
}
