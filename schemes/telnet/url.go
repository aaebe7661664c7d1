package telnet

import (
	"encoding/json"

	"github.com/fetchproject/fetch/fetch"
)

// Schemes is telnet's registration record (RFC 1738 §3.8): port 23, a
// host required, the view ParseURL, and a driver configured by cfg.
func Schemes(cfg Config) []fetch.Scheme {
	return []fetch.Scheme{{Name: "telnet", DefaultPort: DefaultPort, Grammar: fetch.Grammar{HostRequired: true},
		View: fetch.ViewOf(ParseURL), Driver: New(cfg), Direct: true}}
}

// URL is a telnet URL's advisory login (RFC 1738 §3.8).
type URL struct {
	User        string `json:"user"`
	Password    string `json:"-"`
	HasUser     bool   `json:"has_user"`
	HasPassword bool   `json:"has_password"`
}

// MarshalJSON masks the password.
func (t *URL) MarshalJSON() ([]byte, error) {
	type plain URL
	p := struct {
		*plain
		Password string `json:"password,omitempty"`
	}{plain: (*plain)(t)}
	if t.HasPassword && t.Password != "" {
		p.Password = "****"
	}
	return json.Marshal(p)
}

// ParseURL returns u's user and password. The path must be empty or "/".
func ParseURL(u *fetch.URL) (*URL, error) {
	if err := u.NeedHost(true); err != nil {
		return nil, err
	}
	if u.Path != "" {
		return nil, u.ViewError("path", u.PathOffset(), "a telnet URL has no path beyond the final \"/\"")
	}
	return &URL{User: u.User, Password: u.Password, HasUser: u.HasUser, HasPassword: u.HasPassword}, nil
}
