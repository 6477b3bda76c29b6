package mockserver

import (
	"github.com/skolkit/skolkit/mockserver/internal/admin"
	"github.com/skolkit/skolkit/mockserver/internal/directory"
	"github.com/skolkit/skolkit/mockserver/internal/register"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/mockserver/webhook"
	"github.com/skolkit/skolkit/scenarios"
)

// The Go API of the surfaces: the names of what the surface packages
// define that a user of a Server meets (the paths, the journal, the fault
// rules, the reports clients post, the options of callbacks) and the
// methods that reach into the surfaces.

// Path prefixes of the surfaces served on the one listener.
const (
	PathToken    = "/oauth/token"
	PrefixA      = directory.PrefixA
	PrefixB      = register.PrefixB
	PrefixExport = directory.PrefixExport
	PrefixAdmin  = admin.PrefixAdmin
)

// CodeRateLimited is the code of interface A's error body when a client is
// over its quota (429).
const CodeRateLimited = surface.CodeRateLimited

// ClientUUID is the stable id interface A shows for an API client in
// meta.createdBy and meta.updatedBy: a name-based (SHA-1) uuid of the
// client's id, the same for every server and every run.
func ClientUUID(clientID string) string { return directory.ClientUUID(clientID) }

type (
	// WebhookOptions configure the callbacks of subscriptions
	// (Options.Webhooks). The zero value uses the webhook package's
	// defaults: a 50 ms coalescing window, retries after 1 s, 5 s and 30 s,
	// 5 s per attempt, subscriptions that live 30 days.
	WebhookOptions = register.WebhookOptions
	// Report is one log or statistics entry a client posted (Logs,
	// Statistics).
	Report = register.Report
)

// Close stops the deliveries of callbacks under way and waits for them.
// The server still serves requests, but sends no more callbacks.
func (s *Server) Close() { s.reg.Close() }

// Webhooks returns the subscription hub: subscriptions, delivery records
// (Attempts) and whether deliveries are under way (Idle).
func (s *Server) Webhooks() *webhook.Hub { return s.reg.Webhooks() }

// Logs returns the log entries clients posted (POST /log/), oldest first.
func (s *Server) Logs() []Report { return s.reg.Logs() }

// Statistics returns the statistics entries clients posted (POST
// /statistics/), oldest first.
func (s *Server) Statistics() []Report { return s.reg.Statistics() }

// DefaultJournalSize is how many requests the journal keeps when
// Options.JournalSize is 0.
const DefaultJournalSize = admin.DefaultJournalSize

type (
	// JournalEntry is one request in the journal.
	JournalEntry = admin.JournalEntry
	// RequestFilter selects journal entries; empty fields select every entry.
	RequestFilter = admin.RequestFilter
	// JournalPage is the answer of GET /__admin/requests.
	JournalPage = admin.JournalPage
	// Rules lists fault and latency rules in the order they are tried.
	Rules = admin.Rules
	// FaultState is a fault rule in force, as GET /__admin/faults shows it.
	FaultState = admin.FaultState
	// LatencyState is a latency rule in force.
	LatencyState = admin.LatencyState
)

// IsLoopbackListenAddr reports whether a listener bound to addr (as
// net.Listener.Addr().String() gives it) is reachable only from this
// machine. An unspecified address (0.0.0.0, [::]) is not.
func IsLoopbackListenAddr(addr string) bool { return admin.IsLoopbackListenAddr(addr) }

// Requests returns the journal entries that match the filter, oldest first:
// what GET /__admin/requests answers, for Go tests.
func (s *Server) Requests(f RequestFilter) []JournalEntry { return s.plane.Requests(f) }

// Rules returns the fault and latency rules in force, in the order they
// are tried: what GET /__admin/faults answers, for Go tests.
func (s *Server) Rules() Rules { return s.plane.Rules() }

// AddRules puts fault and latency rules before those in force and returns
// them with their ids: POST /__admin/faults for Go tests. The rules are
// taken as they are; scenarios.Parse checks rules read from a file.
func (s *Server) AddRules(b scenarios.Behaviours) Rules { return s.plane.AddRules(b) }

// RemoveRule removes the fault or latency rule with the id and reports
// whether there was one.
func (s *Server) RemoveRule(id string) bool { return s.plane.RemoveRule(id) }
