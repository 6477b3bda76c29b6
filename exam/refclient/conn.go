// Package refclient holds skolkit's reference clients of the service: a
// correct SS 12000 sync client (interface B) and a correct interface-A sync
// client, each of which can be given one defect. The client exam's tests
// run them through every scene to prove both ways that the exam judges
// right: the correct clients are clean in every scene of both tasks, and
// each broken one is caught by the finding named for its defect.
//
// A client keeps its sync state in a directory (the exam's working
// directory of a scene): its first run there reads everything, later runs
// read what changed since (meta.modified.after and deletedEntities on
// interface B; a _search on meta.updatedAt and the audit events on
// interface A). It runs as a Go function (Sync) or as a command (Main),
// and needs nothing but the standard library.
package refclient

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Defect is the one thing a broken reference client does wrong.
type Defect string

// The defects; the empty Defect is the correct client.
const (
	Correct Defect = ""
	// PageTokenWithFilters sends the first page's filters again with every
	// pageToken (SS 12000 forbids it: 400).
	PageTokenWithFilters Defect = "pagetoken-with-filters"
	// FirstPageOnly reads the first page of every list and stops.
	FirstPageOnly Defect = "first-page-only"
	// Ignores429 sends a request again at once after a 429.
	Ignores429 Defect = "ignores-429"
	// NeverRenewsToken keeps its first token for ever and gives up on a
	// 401.
	NeverRenewsToken Defect = "never-renews-token"
	// CrashesOnAbsentOptional reads a member the standard does not require
	// as if it were always there (interface B: a person reference's
	// securityMarking; interface A: a record's external, which a server may
	// leave out instead of writing null).
	CrashesOnAbsentOptional Defect = "crashes-on-absent-optional"
	// IgnoresDeletions never asks what was deleted.
	IgnoresDeletions Defect = "ignores-deletions"
	// RereadsEverything reads every list whole in every run.
	RereadsEverything Defect = "rereads-everything"
)

// Defects lists every defect.
var Defects = []Defect{PageTokenWithFilters, FirstPageOnly, Ignores429, NeverRenewsToken, CrashesOnAbsentOptional, IgnoresDeletions, RereadsEverything}

// Config is what a reference client is told.
type Config struct {
	// TokenURL is the token endpoint; RegisterURL interface B; BaseURL
	// interface A.
	TokenURL, RegisterURL, BaseURL string
	ClientID, ClientSecret         string
	// Dir keeps the sync state between runs.
	Dir string
	// HTTP is the client to send with; nil means one with a 30 s timeout.
	HTTP   *http.Client
	Defect Defect
}

// conn sends a client's requests: it holds the access token (asking for a
// new one when it expires or is refused), waits as a 429's Retry-After
// says, and backs off and retries reads after a 5xx.
type conn struct {
	cfg     Config
	http    *http.Client
	token   string
	expires time.Time
	// serverStart is the server's Date of the first answer of this run:
	// the run's start in the server's clock.
	serverStart time.Time
}

func newConn(cfg Config) *conn {
	h := cfg.HTTP
	if h == nil {
		h = &http.Client{Timeout: 30 * time.Second}
	}
	return &conn{cfg: cfg, http: h}
}

func (c *conn) defect(d Defect) bool { return c.cfg.Defect == d }

// Error is an answer the client could not use.
type Error struct {
	Method, URL string
	Status      int
	Body        string
}

func (e *Error) Error() string {
	return fmt.Sprintf("%s %s: %d %s", e.Method, e.URL, e.Status, e.Body)
}

// fetchToken asks the token endpoint for a token with the client
// credentials grant.
func (c *conn) fetchToken(ctx context.Context) error {
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {c.cfg.ClientID}, "client_secret": {c.cfg.ClientSecret}}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.TokenURL, strings.NewReader(form.Encode()))
		if err != nil {
			return err
		}
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		resp, err := c.http.Do(req)
		if err != nil {
			return err
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		c.noteDate(resp)
		if resp.StatusCode >= 500 && attempt < 5 {
			if err := c.backOff(ctx, resp, attempt); err != nil {
				return err
			}
			continue
		}
		if resp.StatusCode != http.StatusOK {
			return &Error{Method: http.MethodPost, URL: c.cfg.TokenURL, Status: resp.StatusCode, Body: string(body)}
		}
		var tok struct {
			AccessToken string `json:"access_token"`
			TokenType   string `json:"token_type"`
			ExpiresIn   int    `json:"expires_in"`
		}
		if err := json.Unmarshal(body, &tok); err != nil || tok.AccessToken == "" {
			return fmt.Errorf("the token endpoint answered no access_token: %s", body)
		}
		if !strings.EqualFold(tok.TokenType, "Bearer") {
			return fmt.Errorf("the token endpoint answered token_type %q, not Bearer", tok.TokenType)
		}
		c.token = tok.AccessToken
		// Renew a little early; a token without expires_in lives until the
		// server refuses it.
		c.expires = time.Time{}
		if tok.ExpiresIn > 0 {
			c.expires = time.Now().Add(time.Duration(tok.ExpiresIn)*time.Second - 5*time.Second)
		}
		return nil
	}
}

// noteDate keeps the first answer's Date as the run's start.
func (c *conn) noteDate(resp *http.Response) {
	if !c.serverStart.IsZero() {
		return
	}
	if t, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
		c.serverStart = t
	}
}

// backOff waits before the next attempt after a 5xx: as Retry-After says,
// else 100 ms doubling with each attempt.
func (c *conn) backOff(ctx context.Context, resp *http.Response, attempt int) error {
	d := time.Duration(100<<attempt) * time.Millisecond
	if ra, ok := retryAfter(resp); ok {
		d = ra
	}
	return sleep(ctx, d)
}

// retryAfter reads Retry-After (seconds or an HTTP date), else
// RateLimit-Reset (epoch milliseconds) against the answer's Date.
func retryAfter(resp *http.Response) (time.Duration, bool) {
	if v := resp.Header.Get("Retry-After"); v != "" {
		if n, err := strconv.Atoi(v); err == nil {
			return time.Duration(n) * time.Second, true
		}
		if t, err := http.ParseTime(v); err == nil {
			if date, err := http.ParseTime(resp.Header.Get("Date")); err == nil {
				return t.Sub(date), true
			}
			return time.Until(t), true
		}
	}
	if v := resp.Header.Get("RateLimit-Reset"); v != "" {
		if ms, err := strconv.ParseInt(v, 10, 64); err == nil {
			date, err := http.ParseTime(resp.Header.Get("Date"))
			if err != nil {
				date = time.Now()
			}
			// Date has whole seconds: wait up to a second more.
			return time.UnixMilli(ms).Sub(date) + time.Second, true
		}
	}
	return 0, false
}

func sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// do sends a request with the bearer token and decodes a 200 answer into
// out. It renews the token when it expires or is refused with 401, waits
// out 429s and retries after 5xx (a read, or a search, which writes
// nothing).
func (c *conn) do(ctx context.Context, method, u string, body any, out any) error {
	var payload []byte
	if body != nil {
		var err error
		if payload, err = json.Marshal(body); err != nil {
			return err
		}
	}
	renewed, refused, fiveXX := false, 0, 0
	for {
		expired := !c.expires.IsZero() && time.Now().After(c.expires)
		if c.token == "" || (expired && !c.defect(NeverRenewsToken)) {
			if err := c.fetchToken(ctx); err != nil {
				return err
			}
		}
		req, err := http.NewRequestWithContext(ctx, method, u, bytes.NewReader(payload))
		if err != nil {
			return err
		}
		req.Header.Set("Authorization", "Bearer "+c.token)
		req.Header.Set("Accept", "application/json")
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := c.http.Do(req)
		if err != nil {
			if fiveXX < 5 && ctx.Err() == nil {
				fiveXX++
				if err := sleep(ctx, time.Duration(100<<fiveXX)*time.Millisecond); err != nil {
					return err
				}
				continue
			}
			return err
		}
		data, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return err
		}
		c.noteDate(resp)
		switch {
		case resp.StatusCode == http.StatusOK || resp.StatusCode == http.StatusCreated:
			if out == nil {
				return nil
			}
			if err := json.Unmarshal(data, out); err != nil {
				return fmt.Errorf("%s %s: %w", method, u, err)
			}
			return nil
		case resp.StatusCode == http.StatusUnauthorized && c.defect(NeverRenewsToken):
			if refused++; refused <= 2 {
				continue
			}
			return errors.New("the server refuses the access token (401) and this client does not renew it")
		case resp.StatusCode == http.StatusUnauthorized && !renewed:
			renewed = true
			c.token = ""
			continue
		case resp.StatusCode == http.StatusTooManyRequests:
			if !c.defect(Ignores429) {
				d, ok := retryAfter(resp)
				if !ok {
					d = time.Second
				}
				if err := sleep(ctx, d); err != nil {
					return err
				}
			}
			continue
		case resp.StatusCode >= 500 && fiveXX < 6:
			if err := c.backOff(ctx, resp, fiveXX); err != nil {
				return err
			}
			fiveXX++
			continue
		}
		return &Error{Method: method, URL: u, Status: resp.StatusCode, Body: strings.TrimSpace(string(data))}
	}
}
