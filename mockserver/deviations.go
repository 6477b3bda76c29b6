package mockserver

// Named deviations (package deviation lists them): ways the mock departs
// from the spec on purpose, switched on by a scenario
// (behaviours.deviations) or Options.Deviations. Each handler asks
// s.deviates(deviation.X) where the deviation has its effect.

// deviates reports whether the named deviation is switched on.
func (s *Server) deviates(name string) bool { return s.core.Deviates(name) }
