// Package register is interface B of the mock: the SS 12000 register API
// under /api/v1. Every resource is a description (Resource, in
// resources.go; Plain for a record served as stored) of a table of the
// store, served by one generic engine (engine.go): lists with their
// pageToken walks, records by id, lookups. The subscriptions and their
// callbacks (subscriptions.go, over package webhook), deletedEntities and
// the names of references derive what they need from the descriptions
// (kinds.go): a table's resource type, its member of deletedEntities, a
// record's display name. The package also serves the writes SS 12000 has
// and the log and statistics reports, renders the records (render.go), and
// keeps the placement memo and the response cache (rendermemo.go) by the
// store's generation (views.go).
//
// An API builds on the surface.Core that the composition root (package
// mockserver) hands it, and gives the root its endpoints; the root
// authenticates, validates, routes and journals them. The package must not
// import package mockserver or the conformance runner.
package register
