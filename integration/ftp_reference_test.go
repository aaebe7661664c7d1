//go:build integration

package integration

import (
	"context"
	"testing"
	"time"

	jftp "github.com/jlaffaye/ftp"

	"github.com/fetchproject/fetch/fetch"
	"github.com/fetchproject/fetch/schemes/ftp"
)

// TestFTPAgainstReferenceClient reads every directory of each real server
// twice: with this project's driver and with github.com/jlaffaye/ftp, an
// independent FTP client. Every entry jlaffaye/ftp parses must appear in
// our listing with the same name, kind and size, and the files it
// retrieves must match ours byte for byte.
//
// The driver itself speaks FTP through fetch/wire rather than jlaffaye/ftp
// (see the schemes/ftp package comment: no raw LIST lines, no active mode,
// no prompt between USER and PASS, no bound on reply lines); here the
// library serves as the reference a second implementation is checked
// against.
func TestFTPAgainstReferenceClient(t *testing.T) {
	eachFTPNamed(t, func(t *testing.T, server, addr string) {
		ref, err := jftp.Dial(addr, jftp.DialWithTimeout(10*time.Second))
		if err != nil {
			t.Fatalf("jlaffaye/ftp dial: %v", err)
		}
		defer ref.Quit()
		if err := ref.Login("anonymous", "reference@fetch.test"); err != nil {
			t.Fatalf("jlaffaye/ftp login: %v", err)
		}
		c := ftpClient(ftp.Config{}, fetch.Options{})
		compared := 0
		for dir, files := range contentDirs(t) {
			want, err := ref.List("/" + dir)
			if err != nil {
				t.Errorf("jlaffaye/ftp LIST /%s: %v", dir, err)
				continue
			}
			u := "ftp://" + addr + "/"
			if dir != "" {
				u += escapePath(dir) + "/"
			}
			res, err := c.Fetch(context.Background(), u)
			if err == nil {
				err = res.Listing.ReadAll() // it streams
			}
			if err != nil {
				t.Errorf("%s: %v", u, err)
				continue
			}
			ours := map[string]fetch.Entry{}
			for _, e := range res.Listing.Entries {
				ours[e.Name] = e
			}
			for _, w := range want {
				if w.Name == "." || w.Name == ".." {
					continue
				}
				e, ok := ours[w.Name]
				if !ok {
					t.Errorf("%s: jlaffaye/ftp lists %q, we do not", u, w.Name)
					continue
				}
				compared++
				switch w.Type {
				case jftp.EntryTypeFolder:
					if e.Kind != fetch.EntryDir {
						t.Errorf("%s: %q is a folder to jlaffaye/ftp, a %s to us", u, w.Name, e.Kind)
					}
				case jftp.EntryTypeFile:
					if e.Kind != fetch.EntryFile || e.Size != int64(w.Size) {
						t.Errorf("%s: %q is a %d-byte file to jlaffaye/ftp, a %s of %d bytes to us", u, w.Name, w.Size, e.Kind, e.Size)
					}
					// Only names the content tree has: pyftpdlib lists a
					// Latin-1 name as "?" and cannot serve it (see unservable).
					if sum, ok := files[w.Name]; ok && w.Size > 0 && w.Size <= 1<<20 {
						r, err := ref.Retr("/" + joinPath(dir, w.Name))
						if err != nil {
							t.Errorf("jlaffaye/ftp RETR %s: %v", w.Name, err)
							continue
						}
						refSum, _, err := sha256Of(r)
						r.Close()
						if err != nil {
							t.Errorf("jlaffaye/ftp RETR %s: %v", w.Name, err)
							continue
						}
						if got := fetchSHA(t, c, e.URL); got != refSum || got != sum {
							t.Errorf("%s: sha256 ours %s, jlaffaye/ftp's %s, manifest %s", e.URL, got, refSum, sum)
						}
					}
				}
			}
		}
		if compared < 20 {
			t.Fatalf("only %d entries compared on %s", compared, server)
		}
	})
}

func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
