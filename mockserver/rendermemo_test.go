package mockserver

// Every server the package's tests build checks the placement memo and the
// response cache on every interface-B read it answers (Server.selfCheck):
// the whole suite doubles as a check that they change no byte.
func init() { selfCheckDefault = true }
