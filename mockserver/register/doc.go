// Package register is interface B of the mock: the SS 12000 register API
// under /api/v1. Every resource is a description (resources.go)
// served by one generic engine (engine.go): lists with their
// pageToken walks, records by id, lookups, the writes SS 12000 has, the
// subscriptions and their callbacks (subscriptions.go, over package
// webhook), deletedEntities, and the log and statistics reports. It renders
// the records (render.go), keeps the placement memo and the response cache
// (rendermemo.go) and tracks the store's generations (views.go).
//
// An API builds on the surface.Core that the composition root (package
// mockserver) hands it, and gives the root its endpoints; the root
// authenticates, validates, routes and journals them. The package must not
// import package mockserver or the conformance runner.
package register
