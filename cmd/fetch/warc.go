package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/fetch/filelock"
	"github.com/fetchproject/fetch/fetch/warc"
	"github.com/fetchproject/fetch/schemes/http"
)

// warcFlags are --warc FILE.warc.gz (or FILE.warc) and --warc-max-size N:
// record every fetch of the run in a WARC file (package fetch/warc). The
// name chooses the form, as wget's and the web-archive tools' readers
// expect: a name ending in ".warc" is written uncompressed, any other
// (".warc.gz" first) one gzip member a record. The writer is safe for
// concurrent transfers, so a batch run shares the one writer.
type warcFlags struct {
	path    string
	maxSize byteSize
	w       *warc.Writer
	// keepTail, set by a batch with a log, decides which of the records
	// a killed run left at the end of the file stay (warc.Options).
	keepTail func(types []string, task string) bool
}

func addWARCFlags(fs *flag.FlagSet, o *warcFlags) {
	fs.StringVar(&o.path, "warc", "", "")
	fs.Var(&o.maxSize, "warc-max-size", "")
}

// openWARC creates the WARC file when --warc was given, or appends to it
// when the run has a --log; args is the command line, recorded in
// warcinfo with passwords masked.
func openWARC(o *options, args []string) error {
	if o.warc.path == "" {
		return nil
	}
	if o.warc.maxSize > 0 && !strings.HasSuffix(o.warc.path, ".warc.gz") && !warc.PlainName(o.warc.path) {
		return &fetch.Error{Kind: fetch.KindUsage, Op: "--warc-max-size", Offset: -1,
			Err: errors.New("rotation needs a --warc name ending in .warc.gz or .warc (files become NAME-00000.warc.gz, … or NAME-00000.warc, …)")}
	}
	wo := warc.Options{
		MaxSize:      int64(o.warc.maxSize),
		Uncompressed: warc.PlainName(o.warc.path),
		Software:     "fetch/" + version,
		CommandLine:  maskedCommandLine(args),
		KeepTail:     o.warc.keepTail,
	}
	open := warc.Create
	if o.batch.log != "" {
		// A run with a log may be a rerun that resumes: it skips what
		// the log says is done, so the records of those must stay.
		open = warc.Append
		if o.batch.log != os.DevNull {
			wo.Log = warcLogID(o.batch.log)
		}
	}
	w, err := open(o.warc.path, wo)
	if errors.Is(err, filelock.ErrLocked) {
		return lockErr("--warc", o.warc.path, err)
	}
	if err != nil {
		return outputErr("--warc: create", o.warc.path, err)
	}
	o.warc.w = w
	return nil
}

// warcLogID names the log in the warcinfo records of a batch's WARC
// (warc.Options.Log): a rerun with the same log cuts from the WARC's end
// only records after a warcinfo naming it, never those of a run with
// another log that wrote the WARC since. A digest of the log's absolute
// path: the same for every run given the log (from any directory), and
// no path of the user's in the archive. A log reached by another path
// (a link) reads as another log, whose records all stay.
func warcLogID(log string) string {
	if abs, err := filepath.Abs(log); err == nil {
		log = abs
	}
	sum := sha256.Sum256([]byte(log))
	return "sha256:" + hex.EncodeToString(sum[:16])
}

// warcSeries is the stem and the ending of a rotating WARC's files:
// NAME-00000.warc.gz, NAME-00001.warc.gz, … from --warc NAME.warc.gz, or
// NAME-00000.warc, … from NAME.warc.
func warcSeries(path string) (stem, ext string) {
	ext = warc.Options{Uncompressed: warc.PlainName(path)}.Ext()
	return strings.TrimSuffix(path, ext) + "-", ext
}

// isSeriesPart reports whether name is one of the files warcSeries
// describes: stem, five or more digits, ext.
func isSeriesPart(name, stem, ext string) bool {
	rest, ok := strings.CutPrefix(name, stem)
	digits, isPart := strings.CutSuffix(rest, ext)
	return ok && isPart && len(digits) >= 5 && strings.Trim(digits, "0123456789") == ""
}

func closeWARC(o *options) error {
	if o.warc.w == nil {
		return nil
	}
	if err := o.warc.w.Close(); err != nil {
		return outputErr("--warc: write", o.warc.path, err)
	}
	return nil
}

// maskedCommandLine is the command line with the password of any URL in
// it (an argument, or a --flag=URL value), and the value of any -H header
// that may hold a credential (http.SecretHeader), replaced by ****.
func maskedCommandLine(args []string) string {
	out := []string{"fetch"}
	formValue := false // the argument after --form
	for _, a := range args {
		prefix, val := "", a
		if strings.HasPrefix(a, "-") {
			if k, v, ok := strings.Cut(a, "="); ok {
				prefix, val = k+"=", v
			}
		}
		// A --form answer may be a Gopher+ AskP password, which the
		// trace masks; which answers are secret only the server's form
		// says, so every value is masked here (the name stays).
		isForm := prefix == "--form=" || prefix == "-form="
		if formValue || isForm {
			formValue = false
			if name, _, ok := strings.Cut(val, "="); ok {
				out = append(out, prefix+name+"=****")
			} else {
				out = append(out, prefix+"****")
			}
			continue
		}
		formValue = a == "--form" || a == "-form"
		// A URL with a host and no password stays as written; any other
		// text may hold a password (a malformed URL too): redactArg's.
		if name, v, ok := strings.Cut(val, ":"); ok && http.SecretHeader(strings.TrimSpace(name)) {
			// -H "Authorization: Basic ..." keeps its scheme word, as the
			// request record does; a value of one word may be the
			// token itself, and any other header (-H "Cookie: ...",
			// -H "X-Api-Key: ...") is masked whole, as -v masks it.
			scheme, cred, two := strings.Cut(strings.TrimSpace(v), " ")
			if two && strings.TrimSpace(cred) != "" && http.AuthorizationHeader(strings.TrimSpace(name)) {
				val = name + ": " + scheme + " ****"
			} else {
				val = name + ": ****"
			}
		} else if u, err := fetch.Parse(val); err != nil || u.HasPassword || u.Host == "" {
			val = redactArg(val)
		}
		out = append(out, prefix+val)
	}
	return strings.Join(out, " ")
}

// warcRecord is the recording of one fetch of the command; its methods do
// nothing without --warc.
type warcRecord struct {
	t   *warc.Transfer
	reg *fetch.Registry
	u   *fetch.URL // the request's: the target when nothing was fetched
	res *fetch.Result
	eof *eofBody
}

// beginWARC makes req recorded: its Capture and Tracer are the transfer's
// (which passes trace lines on to the client's tracer).
func beginWARC(o *options, c *fetch.Client, req *fetch.Request) *warcRecord {
	if o.warc.w == nil {
		return nil
	}
	next := req.Tracer
	if next == nil {
		next = c.Options.Tracer
	}
	t := o.warc.w.Begin(req.URL.Scheme, maskSchemeless(req.URL.Redacted()), next)
	req.Capture, req.Tracer = t, t
	return &warcRecord{t: t, reg: c.Registry(), u: req.URL}
}

// warcTarget is the WARC-Target-URI of what was fetched: u's canonical
// form (RFC 1630's equivalence, as a crawl's seen set keys URLs: escapes
// of unreserved characters decoded, no default port, a gopher path "1"
// the empty one), without the fragment, which no server is sent, and
// without a password.
func warcTarget(reg *fetch.Registry, u *fetch.URL) string {
	c := u.Clone()
	c.Fragment, c.HasFragment = "", false
	// Without the password, not with it masked: the target is a URI a
	// replay tool looks up and may dereference, and "user:****@" would
	// log in as user with the password "****". The user stays: an FTP
	// user's files are that user's resource.
	c.Password, c.HasPassword = "", false
	k := reg.Key(c)
	if !c.Slashes {
		k = maskSchemeless(fetch.RedactedText(k))
	}
	return k
}

// result notes what the fetch produced; a document is complete in the
// archive only if its body is read to the end.
func (r *warcRecord) result(res *fetch.Result) {
	if r == nil {
		return
	}
	r.res = res
	if res.Document != nil && res.Document.Body != nil {
		r.eof = &eofBody{ReadCloser: res.Document.Body}
		res.Document.Body = r.eof
	}
}

// end writes the records; a WARC failure becomes the fetch's error when
// it had none.
func (r *warcRecord) end(o *options, errp *error) {
	if r == nil {
		return
	}
	failure := *errp
	final, ctype := warcTarget(r.reg, r.u), ""
	if res := r.res; res != nil {
		final = warcTarget(r.reg, res.URL)
		switch {
		case res.Document != nil:
			ctype = res.Document.MIMEType
			if failure == nil && r.eof != nil && !r.eof.done {
				failure = errors.New("the document was not read to its end")
			}
			if off := res.Document.Offset; failure == nil && off > 0 && res.URL.Scheme != "http" && res.URL.Scheme != "https" {
				// A resumed transfer (-C) hands the archive only the
				// bytes after the offset: a resource record of them
				// would pass for the whole document. (An HTTP 206
				// response says what it holds.)
				failure = fmt.Errorf("only the document from byte %d was transferred (resumed): a part is not recorded as the document", off)
			}
		case res.Listing != nil:
			ctype = listingType(res.URL.Scheme)
		default:
			failure = errors.New("a " + string(res.Kind) + " has no content to record")
		}
	}
	if err := r.t.End(final, ctype, failure); err != nil && *errp == nil {
		*errp = outputErr("--warc: write", filepath.Clean(o.warc.path), err)
	}
}

// discard drops the records unwritten (warc.Transfer.Discard).
func (r *warcRecord) discard() {
	if r != nil {
		r.t.Discard()
	}
}

// listingType is the Content-Type of a listing's raw bytes.
func listingType(scheme string) string {
	switch scheme {
	case "gopher":
		return "application/gopher-menu"
	case "wais":
		return "application/x-wais-message" // a WAIS header and a Z39.50 SearchResponse APDU
	}
	return "text/plain"
}

// eofBody notes that a body was read to its end.
type eofBody struct {
	io.ReadCloser
	done bool
}

func (b *eofBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF {
		b.done = true
	}
	return n, err
}
