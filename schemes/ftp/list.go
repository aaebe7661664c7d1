package ftp

import (
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fetchproject/fetch/fetch"
)

// The listing parsers turn one line of a directory listing into an entry.
// LIST output has no standard (RFC 959 §4.1.3 leaves it to the server), so
// the common shapes are recognised: Unix "ls -l", MS-DOS/IIS and EPLF. A
// line none of them reads is kept as an EntryRaw, never dropped. ok is
// false only for the "." and ".." entries, which are left out.

// parseList reads one LIST line. now decides the year of Unix dates that
// omit it.
func parseList(line string, now time.Time) (e fetch.Entry, ok bool) {
	if e, ok, matched := parseEPLF(line); matched {
		return withTypeFact(e), ok
	}
	if e, ok, matched := parseUnix(line, now); matched {
		return withTypeFact(e), ok
	}
	if e, ok, matched := parseDOS(line); matched {
		return withTypeFact(e), ok
	}
	if t := strings.TrimSpace(line); strings.HasPrefix(t, "total ") || t == "" {
		return fetch.Entry{Name: line, Kind: fetch.EntryText, Size: -1, Raw: line}, true
	}
	return rawEntry(line), true
}

// Facts are an MLSD entry's facts (RFC 3659 §7), by lower-case name, as
// the server sent them; Entry.As(*ftp.Facts) gives them.
type Facts map[string]string

// withTypeFact gives a LIST entry the MLSD type fact its kind stands for
// (RFC 3659 §7.5.1), as Entry.Item: LIST has no facts of its own.
func withTypeFact(e fetch.Entry) fetch.Entry {
	switch e.Kind {
	case fetch.EntryDir:
		e.Item = "type=dir"
	case fetch.EntryFile:
		e.Item = "type=file"
	case fetch.EntryLink:
		e.Item = "type=os.unix=slink"
	}
	return e
}

func rawEntry(line string) fetch.Entry {
	return fetch.Entry{Name: line, Kind: fetch.EntryRaw, Size: -1, Raw: line}
}

func dotName(name string) bool { return name == "." || name == ".." }

// parseMLSD reads one MLSD line, "fact=value;...; name" (RFC 3659 §7.2).
func parseMLSD(line string) (e fetch.Entry, ok bool) {
	if strings.TrimSpace(line) == "" {
		return fetch.Entry{Name: line, Kind: fetch.EntryText, Size: -1, Raw: line}, true
	}
	facts, name, found := strings.Cut(line, " ")
	if !found || name == "" || !strings.Contains(facts, "=") {
		return rawEntry(line), true
	}
	e = fetch.Entry{Name: name, Kind: fetch.EntryOther, Size: -1, Raw: line}
	all := Facts{}
	e.Native = []any{all}
	for _, f := range strings.Split(facts, ";") {
		k, v, _ := strings.Cut(f, "=")
		if k != "" {
			all[strings.ToLower(k)] = v
		}
		switch strings.ToLower(k) {
		case "type":
			e.Item = "type=" + strings.ToLower(v)
			switch lv := strings.ToLower(v); {
			case lv == "file":
				e.Kind = fetch.EntryFile
			case lv == "dir":
				e.Kind = fetch.EntryDir
			case lv == "cdir", lv == "pdir":
				return e, false
			case strings.HasPrefix(lv, "os.unix=slink"), strings.HasPrefix(lv, "os.unix=symlink"):
				e.Kind = fetch.EntryLink
			}
		case "size":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
				e.Size = n
			}
		case "modify":
			if t, err := parseMDTM(v); err == nil {
				e.Date = t
			}
		}
	}
	if dotName(name) {
		return e, false
	}
	return e, true
}

// parseEPLF reads an Easily Parsed LIST Format line (D. J. Bernstein):
// "+fact,fact,...\tname", facts "/" (directory), "r" (retrievable), "s"
// size, "m" modification time in Unix seconds.
func parseEPLF(line string) (e fetch.Entry, ok, matched bool) {
	if !strings.HasPrefix(line, "+") {
		return e, false, false
	}
	facts, name, found := strings.Cut(line[1:], "\t")
	if !found || name == "" {
		return e, false, false
	}
	e = fetch.Entry{Name: name, Kind: fetch.EntryOther, Size: -1, Raw: line}
	for _, f := range strings.Split(facts, ",") {
		switch {
		case f == "/":
			e.Kind = fetch.EntryDir
		case f == "r":
			if e.Kind == fetch.EntryOther {
				e.Kind = fetch.EntryFile
			}
		case strings.HasPrefix(f, "s"):
			if n, err := strconv.ParseInt(f[1:], 10, 64); err == nil && n >= 0 {
				e.Size = n
			}
		case strings.HasPrefix(f, "m"):
			if n, err := strconv.ParseInt(f[1:], 10, 64); err == nil && n >= 0 && n < 1<<40 {
				e.Date = time.Unix(n, 0).UTC()
			}
		}
	}
	return e, !dotName(name), true
}

var months = map[string]time.Month{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6,
	"jul": 7, "aug": 8, "sep": 9, "oct": 10, "nov": 11, "dec": 12,
}

// field is a whitespace-separated word of a line and where it ends.
type field struct {
	s   string
	end int
}

func fieldsOf(line string, max int) []field {
	var out []field
	i := 0
	for i < len(line) && len(out) < max {
		for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
			i++
		}
		j := i
		for j < len(line) && line[j] != ' ' && line[j] != '\t' {
			j++
		}
		if j > i {
			out = append(out, field{line[i:j], j})
		}
		i = j
	}
	return out
}

// parseUnix reads an "ls -l" line: mode, links, owner, [group,] size,
// month, day, time or year, name (with " -> target" for links).
func parseUnix(line string, now time.Time) (e fetch.Entry, ok, matched bool) {
	f := fieldsOf(line, 10)
	if len(f) < 6 || len(f[0].s) < 10 || !strings.ContainsRune("-dlbcpsDn", rune(f[0].s[0])) {
		return e, false, false
	}
	for _, c := range f[0].s[1:10] {
		if !strings.ContainsRune("rwxsStTlL-", c) {
			return e, false, false
		}
	}
	// The date is the first month name followed by a day and a time or
	// year; the size is the field before it.
	for k := 2; k+3 <= len(f) && k <= 6; k++ {
		mon, okm := months[strings.ToLower(f[k].s)]
		if !okm || k+2 >= len(f) {
			continue
		}
		day, err := strconv.Atoi(f[k+1].s)
		if err != nil || day < 1 || day > 31 {
			continue
		}
		date, okd := unixDate(mon, day, f[k+2].s, now)
		if !okd {
			continue
		}
		start := f[k+2].end + 1
		if start > len(line) {
			return e, false, false
		}
		name := line[start:]
		if name == "" {
			return e, false, false
		}
		e = fetch.Entry{Name: name, Kind: fetch.EntryFile, Size: -1, Date: date, Raw: line}
		if n, err := strconv.ParseInt(f[k-1].s, 10, 64); err == nil && n >= 0 {
			e.Size = n
		}
		switch f[0].s[0] {
		case 'd':
			e.Kind = fetch.EntryDir
		case 'l':
			e.Kind = fetch.EntryLink
			if i := strings.Index(name, " -> "); i > 0 {
				e.Name = name[:i]
				e.Description = "-> " + name[i+4:]
			}
		case '-':
		case 'b', 'c':
			// "major, minor" stands where the size would: a device
			// has no size to report.
			e.Kind, e.Size = fetch.EntryOther, -1
		default:
			e.Kind = fetch.EntryOther
		}
		return e, !dotName(e.Name), true
	}
	return e, false, false
}

// unixDate reads "HH:MM" (within the last year: the year is now's, or the
// one before when that would put the date more than a day in the future)
// or "YYYY" after a month and day.
func unixDate(mon time.Month, day int, s string, now time.Time) (time.Time, bool) {
	if h, m, ok := strings.Cut(s, ":"); ok {
		hh, err1 := strconv.Atoi(h)
		mm, err2 := strconv.Atoi(m)
		if err1 != nil || err2 != nil || hh < 0 || hh > 23 || mm < 0 || mm > 59 || len(m) != 2 {
			return time.Time{}, false
		}
		y := now.Year()
		t := time.Date(y, mon, day, hh, mm, 0, 0, time.UTC)
		if t.After(now.Add(24 * time.Hour)) {
			t = time.Date(y-1, mon, day, hh, mm, 0, 0, time.UTC)
		}
		return t, true
	}
	if len(s) != 4 {
		return time.Time{}, false
	}
	y, err := strconv.Atoi(s)
	if err != nil || y < 1900 {
		return time.Time{}, false
	}
	return time.Date(y, mon, day, 0, 0, 0, 0, time.UTC), true
}

// dosLine is the MS-DOS/IIS listing: "MM-DD-YY  HH:MMAM  <DIR>|size  name".
// It is compiled on first use: every start of the command would pay for
// it otherwise.
var dosLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(\d{2})-(\d{2})-(\d{2}|\d{4})\s+(\d{1,2}):(\d{2})([AaPp][Mm])?\s+(<DIR>|\d+)\s+(.+)$`)
})

func parseDOS(line string) (e fetch.Entry, ok, matched bool) {
	m := dosLine().FindStringSubmatch(line)
	if m == nil {
		return e, false, false
	}
	mon, _ := strconv.Atoi(m[1])
	day, _ := strconv.Atoi(m[2])
	year, _ := strconv.Atoi(m[3])
	if len(m[3]) == 2 {
		if year < 70 {
			year += 2000
		} else {
			year += 1900
		}
	}
	hh, _ := strconv.Atoi(m[4])
	mm, _ := strconv.Atoi(m[5])
	if ampm := strings.ToUpper(m[6]); ampm != "" {
		if hh < 1 || hh > 12 {
			return e, false, false
		}
		hh %= 12
		if ampm == "PM" {
			hh += 12
		}
	}
	if mon < 1 || mon > 12 || day < 1 || day > 31 || hh > 23 || mm > 59 {
		return e, false, false
	}
	e = fetch.Entry{Name: m[8], Kind: fetch.EntryFile, Size: -1, Raw: line,
		Date: time.Date(year, time.Month(mon), day, hh, mm, 0, 0, time.UTC)}
	if m[7] == "<DIR>" {
		e.Kind = fetch.EntryDir
	} else if n, err := strconv.ParseInt(m[7], 10, 64); err == nil {
		e.Size = n
	}
	return e, !dotName(e.Name), true
}
