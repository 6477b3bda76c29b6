package scenarios

// KnownDeviations is the catalogue of the deviations a scenario may switch
// on under behaviours.deviations: name → one-line description of how the
// mock then departs from the spec. Parse rejects any other name.
//
// Adding a deviation takes two things: a line here, and its implementation
// in the mock (which reads Scenario.Behaviours.Deviations). The conformance
// suite's own tests then prove that at least one check catches it.
var KnownDeviations = map[string]string{}
