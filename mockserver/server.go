package mockserver

import (
	"cmp"
	"fmt"
	"github.com/skolkit/skolkit/fixtures"
	"log/slog"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/skolkit/skolkit/deviation"
	"github.com/skolkit/skolkit/mockserver/internal/admin"
	"github.com/skolkit/skolkit/mockserver/internal/directory"
	"github.com/skolkit/skolkit/mockserver/internal/register"
	"github.com/skolkit/skolkit/mockserver/internal/route"
	"github.com/skolkit/skolkit/mockserver/internal/store"
	"github.com/skolkit/skolkit/mockserver/internal/surface"
	"github.com/skolkit/skolkit/mockserver/internal/wire"
	"github.com/skolkit/skolkit/openapi"
	"github.com/skolkit/skolkit/scenarios"
)

// Path prefixes of the surfaces served on the one listener.
const (
	pathOpenAPIB = PrefixB + "/openapi.json"
)

// Limits, documented in docs/decisions.md.
const (
	// defaultPageSize is the placement page size when a request names no limit.
	defaultPageSize = 100
	// maxPageSize caps a placement page; a larger limit is served in pages of this size.
	maxPageSize = 1000
	// maxLookupIDs is the most ids one POST /groups/lookup may ask for.
	maxLookupIDs = register.MaxLookupIDs
	// maxBodyBytes is the largest request body accepted.
	maxBodyBytes = 1 << 20
)

// Options configure a Server. The zero value serves the built-in default
// scenario with the real clock.
type Options struct {
	// Scenario to load; nil means the built-in "default".
	Scenario *scenarios.Scenario
	// Seed, when set, replaces the scenario's seed.
	Seed *int64
	// ClientID and ClientSecret, when set, replace the first client's.
	ClientID, ClientSecret string
	// TokenTTL, when positive, replaces the scenario's token lifetime.
	TokenTTL time.Duration
	// Now is the base of the server's clock; nil means time.Now. A scenario
	// with a fixed clock stands still at its instant instead.
	Now func() time.Time
	// Deviations switches on named deviations in addition to the scenario's.
	Deviations []string
	// Variants switches on legal variants (variants.go) in addition to the
	// scenario's.
	Variants []string
	// Profile, when set, replaces every scenario's profile: what interface B
	// follows where the service's spec and the SS 12000 document differ
	// (ProfileService, the default, or ProfileSS12000; profile.go).
	Profile string
	// Logger receives one line per request at debug level and errors; nil
	// discards.
	Logger *slog.Logger
	// JournalSize is how many requests the journal (GET /__admin/requests)
	// keeps: 0 means DefaultJournalSize, a negative number keeps none.
	JournalSize int
	// AdminToken, when set, is required by the control plane (/__admin) as
	// "Authorization: Bearer <token>". Without it the control plane answers
	// only requests to a loopback address.
	AdminToken string
	// StateFile, when set, is loaded at start when it exists (its records
	// replace the scenario's data) and written by SaveState.
	StateFile string
	// SelfCheck makes every interface-B read check the placement memo and
	// the response cache against rendering anew, and panic when they differ
	// by a byte. It is for the mock's own tests (their whole suite doubles
	// as a check of the caches) and costs a second rendering per read.
	SelfCheck bool
	// Webhooks configure the callbacks of subscriptions (register/subscriptions.go).
	Webhooks WebhookOptions
}

// Server is one mock of the service. Create it with New; it is an
// http.Handler.
type Server struct {
	contract *openapi.Contract
	store    *store.Store
	clients  map[string]client
	first    client
	tokens   *tokenTable
	tokenTTL time.Duration
	now      func() time.Time
	router   *route.Router
	log      *slog.Logger
	scenario *scenarios.Scenario
	limiter  *rateLimiter
	// core is what the surfaces share: the store, the clock, the logger
	// and the deviations switched on (see deviations.go).
	core *surface.Core
	// variants switched on (see variants.go)
	variants map[string]bool
	// sparse is the state of the variant absent-optional-members (sparse.go)
	sparse *sparse
	// wireCount counts the answers deviation.RateLimitRemainingGrows saw
	// (wire_deviations.go).
	wireCount atomic.Int64
	clock     *Clock
	// profile is the profile interface B serves (profile.go), and
	// fixedProfile Options.Profile, which replaces every scenario's.
	profile, fixedProfile string
	// ctl is the control plane's hold on the server: the scenario lock and
	// the state file (admin.go); plane is the control plane itself: its
	// router, the journal and the fault rules (package admin).
	ctl   control
	plane *admin.Plane
	// reg is interface B (package register), dir interface A and the
	// export (package directory).
	reg *register.API
	dir *directory.API
	// state reads and writes the state documents of the store's schema
	// (state.go), built when first needed.
	state func() *stateCodec
	// scopes are every scope of the surfaces' operations: what a client's
	// "all" stands for.
	scopes []string
}

// New builds a server: it loads the contract (a contract that cannot be
// loaded is an error, reported before any other), generates the scenario's
// data and registers the routes.
//
// Three things run at once: loading the contract, building the data (which
// needs only the scenario) and, once the contract is loaded, the surfaces
// and their routes (which need only the contract). The data is put into the
// store when both are done, before the server is returned: a server answers
// nothing until all of it is ready.
func New(opts Options) (*Server, error) { return newWithKinds(opts, kinds{}) }

// kinds are record kinds served beside the built-in ones (the store's
// tables and interface B's resources): a table the store keeps, and the
// resources interface B serves it by.
type kinds struct {
	tables    []store.TableDecl
	resources []*register.Resource
}

// newWithKinds is New with record kinds beside the built-in ones.
func newWithKinds(opts Options, extra kinds) (*Server, error) {
	schema, err := store.NewSchema(extra.tables...)
	if err != nil {
		return nil, err
	}
	type loadedContract struct {
		c   *openapi.Contract
		err error
	}
	contract := make(chan loadedContract, 1)
	go func() {
		c, err := openapi.Shared()
		contract <- loadedContract{c, err}
	}()
	s, build, err := newServer(opts, schema)
	type builtData struct {
		st  *store.Store
		err error
	}
	data := make(chan builtData, 1)
	building := false
	startBuild := func() {
		building = true
		go func() {
			st, err := build()
			data <- builtData{st, err}
		}()
	}
	if err == nil && opts.StateFile == "" {
		startBuild()
	}
	if err == nil {
		var fromState bool
		if fromState, err = s.openStore(opts.StateFile, schema); err == nil && !fromState && !building {
			startBuild()
		}
	}
	lc := <-contract
	if lc.err != nil {
		return nil, fmt.Errorf("contract: %w", lc.err)
	}
	if err != nil {
		return nil, err
	}
	s.contract = lc.c
	s.dir = directory.New(s.core, s.contract)
	s.reg, err = register.New(s.core, register.Options{Scenario: s.scenario, SelfCheck: opts.SelfCheck, Webhooks: opts.Webhooks, Resources: extra.resources})
	if err == nil {
		s.scopes = append(s.reg.Scopes(), s.dir.Scopes()...)
		s.useScenario(s.scenario)
		if opts.TokenTTL > 0 {
			s.tokenTTL = opts.TokenTTL
		}
		err = s.routes()
	}
	if building {
		// The scenario's errors before the routes': they are the user's.
		d := <-data
		if d.err != nil {
			return nil, d.err
		}
		s.store.CopyFrom(d.st)
	}
	if err != nil {
		return nil, err
	}
	if err := s.initControl(opts); err != nil {
		return nil, err
	}
	return s, nil
}

// newServer is New without what needs the contract and without its store
// (openStore): the server, and the function that builds the scenario's data
// for it.
func newServer(opts Options, schema *store.Schema) (*Server, func() (*store.Store, error), error) {
	var err error
	sc := opts.Scenario
	if sc == nil {
		if sc, err = scenarios.Builtin("default"); err != nil {
			return nil, nil, err
		}
	}
	scCopy := *sc
	scCopy.Clients = slices.Clone(sc.Clients)
	sc = &scCopy
	if opts.Seed != nil {
		sc.Seed = *opts.Seed
	}
	if opts.ClientID != "" || opts.ClientSecret != "" {
		if len(sc.Clients) == 0 {
			sc.Clients = []scenarios.Client{{Scopes: []string{scenarios.ScopeAll}}}
		}
		if opts.ClientID != "" {
			sc.Clients[0].ID = opts.ClientID
		}
		if opts.ClientSecret != "" {
			sc.Clients[0].Secret = opts.ClientSecret
		}
	}
	clock := newClock(opts.Now, sc.Clock.Now)
	now := clock.Now
	s := &Server{
		clock:   clock,
		tokens:  newTokenTable(),
		now:     now,
		log:     opts.Logger,
		limiter: newRateLimiter(rateWindow),
		sparse:  newSparse(),
	}
	s.core = &surface.Core{Now: now, PageSize: s.pageSize, ClientOf: s.clientOf}
	s.scenario = sc // its clients are taken once the surfaces name their scopes (New)
	s.core.Deviations = map[string]bool{}
	for _, d := range append(slices.Clone(sc.Behaviours.Deviations), opts.Deviations...) {
		if !deviation.Known(d) {
			return nil, nil, fmt.Errorf("unknown deviation %q; known: %s", d, strings.Join(deviation.Names(), ", "))
		}
		s.core.Deviations[d] = true
	}
	if s.variants, err = checkVariants(append(slices.Clone(sc.Behaviours.Variants), opts.Variants...)); err != nil {
		return nil, nil, err
	}
	if opts.Profile != "" {
		if s.fixedProfile, err = checkProfile(opts.Profile); err != nil {
			return nil, nil, err
		}
	}
	if s.profile, err = s.profileOf(sc); err != nil {
		return nil, nil, err
	}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	s.core.Log = s.log
	at := now()
	return s, func() (*store.Store, error) { return buildData(sc, at, now, schema) }, nil
}

// openStore gives the server its empty store of the schema, and loads the
// state file into it when one is named and exists (it reports whether it
// did).
func (s *Server) openStore(stateFile string, schema *store.Schema) (bool, error) {
	s.store = store.New(s.now, store.WithSchema(schema))
	s.core.Store = s.store
	s.state = sync.OnceValue(func() *stateCodec { return newStateCodec(s.store.Schema()) })
	if stateFile == "" {
		return false, nil
	}
	return s.readStateFile(stateFile)
}

// buildData returns a store of the schema with the scenario's data at an
// instant (on the clock).
func buildData(sc *scenarios.Scenario, now time.Time, clock func() time.Time, schema *store.Schema) (*store.Store, error) {
	ds, err := sc.Build(now)
	if err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	d := store.Dataset(*ds)
	st := store.New(clock, store.WithSchema(schema))
	// The tables interface A's view leaves alone are loaded while it is
	// derived: it runs on one core, the load on the other.
	pre := st.Preload(&d, untouchedByDirectoryView...)
	prepareDirectory(sc, &d, now)
	if err := st.LoadPreloaded(&d, pre); err != nil {
		return nil, fmt.Errorf("scenario %s: %w", sc.Name, err)
	}
	return st, nil
}

// prepareDirectory gives the scenario's data its interface-A view
// (directory.PrepareGenerated) and, for a scenario with complete data, every
// optional member of that view (directory.Fill).
func prepareDirectory(sc *scenarios.Scenario, d *store.Dataset, now time.Time) {
	directory.PrepareGenerated(d)
	if sc.Generate.Complete {
		directory.Fill(d, directory.FillEnd(sc.Clock.At(now)))
	}
}

// untouchedByDirectoryView are the tables directory.PrepareGenerated neither
// changes nor replaces (it reads the calendar events): the ones buildData
// preloads.
var untouchedByDirectoryView = []string{
	store.TableCalendarEvents, store.TableAttendances, store.TableAbsences, store.TableActivities,
	store.TableAttendanceEvents, store.TableAttendanceSchedules, store.TableRooms, store.TableResources,
	store.TableProgrammes, store.TableStudyPlans, store.TableSchoolUnitOfferings,
}

// Clock returns the server's clock.
func (s *Server) Clock() *Clock { return s.clock }

// Export returns every record the server holds, table by table: what GET
// /__admin/state writes.
func (s *Server) Export() *fixtures.Dataset { return s.store.Export() }

// Contract returns the loaded contract.
func (s *Server) Contract() *openapi.Contract { return s.contract }

// Credentials returns the first client of the scenario: the one to print and
// to hand to tests.
func (s *Server) Credentials() (clientID, clientSecret string) {
	s.ctl.mu.RLock()
	defer s.ctl.mu.RUnlock()
	return s.first.ID, s.first.Secret
}

// ServeHTTP serves every surface. Requests outside the control plane are
// journalled, and latency and faults apply to them before they are served;
// each is served under one scenario (ctl.mu), and journalled under it.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Date is the mock's now (RFC 9110 §6.6.1: the origin server's clock),
	// which a scenario's clock may hold still: the times of its answers
	// (RateLimit-Reset, meta) are read against it
	// (docs/decisions.md#date-is-the-mocks-clock).
	w.Header().Set("Date", s.now().UTC().Format(http.TimeFormat))
	if admin.IsPath(r.URL.Path) {
		s.plane.ServeHTTP(w, r)
		return
	}
	// The wire hooks read the scenario's variants and deviations once,
	// under the scenario lock (a scenario load replaces them).
	s.ctl.mu.RLock()
	vars, devs := s.variants, s.core.Deviations
	s.ctl.mu.RUnlock()
	// The journal records the request as the client sent it; the wire
	// behaviours (variants.go, wire.go) change it after, and rewrite the
	// answer the handlers wrote before it is sent.
	start := time.Now()
	entry := s.plane.Begin(r)
	if rewrites := append(s.variantRewrites(r, vars), s.deviationRewrites(r, devs)...); len(rewrites) > 0 {
		held := wire.NewRecorder(w)
		defer held.Send(rewrites...)
		w = held
	}
	s.variantRequest(r, vars)
	rec := &admin.Recorder{ResponseWriter: w}
	locked := false
	defer func() {
		if !locked {
			s.ctl.mu.RLock()
		}
		s.plane.Finish(entry, rec, r, start)
		s.ctl.mu.RUnlock()
	}()
	defer func() {
		if v := recover(); v != nil {
			rec.Panicked = true
			if v == http.ErrAbortHandler {
				panic(v)
			}
			s.log.Error("panic serving request", "method", r.Method, "path", r.URL.Path, "panic", v)
			surface.WriteRegisterError(rec, http.StatusInternalServerError, surface.CodeInternal, "unexpected server error")
		}
	}()
	if !s.deviateOnTheWire(rec, r, devs) || !s.plane.Behave(rec, r) {
		return
	}
	s.ctl.mu.RLock()
	locked = true
	s.router.ServeHTTP(rec, r)
}

// routes registers every endpoint, one mux route per path so that a wrong
// method is answered with 405 and the Allow header.
func (s *Server) routes() error {
	// Non-canonical paths (//, /./, /../) are routed as they are, and so
	// answered 404 rather than redirected: a client that follows a 301
	// turns a POST into a GET.
	r := route.New(http.HandlerFunc(s.notFound))
	byPath := map[string][]surface.Endpoint{}
	var order []string
	all, err := s.endpoints()
	if err != nil {
		return err
	}
	for _, e := range all {
		if _, ok := byPath[e.Path]; !ok {
			order = append(order, e.Path)
		}
		byPath[e.Path] = append(byPath[e.Path], e)
	}
	// Literal paths first, so that /groups/lookup is not taken for /groups/{id}.
	// Interface B's paths before the others: the router tries the routes in
	// order, and B's reads are the requests that need to be fast. Every path
	// template starts with its surface's literal prefix, so no template of one
	// surface matches a path of another, and this order changes no match.
	surfaceRank := func(p string) int {
		if strings.HasPrefix(p, PrefixB+"/") {
			return 0
		}
		return 1
	}
	slices.SortStableFunc(order, func(a, b string) int {
		return cmp.Or(surfaceRank(a)-surfaceRank(b), strings.Count(a, "{")-strings.Count(b, "{"))
	})
	for _, path := range order {
		eps := byPath[path]
		handlers := map[string]http.Handler{}
		var allow []string
		for _, e := range eps {
			h, err := s.wrap(e)
			if err != nil {
				return err
			}
			handlers[e.Method] = h
			allow = append(allow, e.Method)
		}
		allowHeader := strings.Join(allow, ", ")
		surf := eps[0].Kind
		var h http.Handler = http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			if h, ok := handlers[req.Method]; ok {
				h.ServeHTTP(w, req)
				return
			}
			w.Header().Set(surface.HeaderAllow, allowHeader)
			// Name the path the client sent; when a template matched it
			// (POST /studyplans/lookup matches GET /studyplans/{id}), name
			// the template too, so that the answer says what "lookup" was
			// taken for.
			on := req.URL.Path
			if on != path {
				on += " (" + path + ")"
			}
			msg := fmt.Sprintf("method %s is not allowed on %s; allowed: %s", req.Method, on, allowHeader)
			switch {
			case path == PathToken:
				surface.WriteOAuthError(w, http.StatusMethodNotAllowed, surface.OAuthInvalidRequest, msg)
			case surf == surface.Directory:
				surface.WriteDirectoryError(w, req, http.StatusMethodNotAllowed, surface.CodeBadRequest, msg)
			default:
				surface.WriteRegisterError(w, http.StatusMethodNotAllowed, surface.CodeMethodNotAllowed, msg)
			}
		})
		if surf == surface.Directory {
			h = s.directoryGate(h, eps[0].Scope == "")
		}
		if err := r.Handle(path, h); err != nil {
			return err
		}
	}
	s.router = r
	return nil
}

func (s *Server) endpoints() ([]surface.Endpoint, error) {
	eps := []surface.Endpoint{
		{Method: http.MethodPost, Path: PathToken, Handle: s.handleToken},
		{Method: http.MethodGet, Path: pathOpenAPIB, Handle: s.serveDoc(openapi.NameRegister)},
		{Method: http.MethodGet, Path: PrefixA + "/openapi.json", Kind: surface.Directory, Handle: s.serveDoc(openapi.NameDirectory)},
		{Method: http.MethodGet, Path: PrefixExport + "/openapi.json", Kind: surface.Directory, Handle: s.serveDoc(openapi.NameExport)},
	}
	eps = append(eps, s.reg.Endpoints()...)
	dir, err := s.dir.Endpoints()
	if err != nil {
		return nil, err
	}
	return append(eps, dir...), nil
}

// wrap puts authentication, the body limit and contract validation in front
// of an endpoint's handler. Interface-A endpoints are authenticated and
// rate-limited by directoryGate before this runs; here they check the scope.
func (s *Server) wrap(e surface.Endpoint) (http.Handler, error) {
	var validate func(http.ResponseWriter, *http.Request) bool
	if e.Doc != "" {
		doc := s.contract.Doc(e.Doc)
		if e.Spec != nil {
			doc = e.Spec
		}
		v, err := newValidatorIn(doc, e.Doc, e.Method, e.Path)
		if err != nil {
			return nil, err
		}
		validate = v.validate
		if e.Kind == surface.Directory {
			validate = validateDirectory(v)
		}
	}
	validate, handle := s.profiled(e, validate, e.Handle)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case e.Kind == surface.Register && e.Scope != "":
			if _, ok := s.bearer(w, r, e.Scope); !ok {
				return
			}
		case e.Kind == surface.Directory && e.Scope != "":
			if !s.requireScope(w, r, e.Scope) {
				return
			}
		}
		if r.Body != nil && r.Body != http.NoBody {
			r.Body = http.MaxBytesReader(w, r.Body, maxBodyBytes)
		}
		if s.deviates(deviation.LimitZeroAccepted) && r.URL.Query().Get("limit") == "0" {
			q := r.URL.Query()
			q.Del("limit")
			r.URL.RawQuery = q.Encode()
		}
		if validate != nil && !validate(w, r) {
			return
		}
		handle(w, r)
	}), nil
}

func (s *Server) serveDoc(name openapi.Name) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", surface.ContentTypeJSON)
		if name == openapi.NameRegister && s.profile == ProfileSS12000 {
			_, js := openapi.RegisterSS12000()
			_, _ = w.Write(js)
			return
		}
		_, _ = w.Write(s.contract.JSON(name))
	}
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	msg := fmt.Sprintf("no operation at %s", r.URL.Path)
	if strings.HasPrefix(r.URL.Path, PrefixA+"/") || strings.HasPrefix(r.URL.Path, PrefixExport+"/") {
		s.directoryGate(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			surface.WriteDirectoryError(w, r, http.StatusNotFound, surface.CodeNotFound, msg)
		}), false).ServeHTTP(w, r)
		return
	}
	surface.WriteRegisterError(w, http.StatusNotFound, surface.CodeNotFound, msg)
}
