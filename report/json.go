package report

import (
	"encoding/json"
	"io"
)

// The JSON report is the Report value itself (durations in nanoseconds,
// fields named as in the Go types' json tags); it is meant for tools.

func jsonEncoder(w io.Writer) *json.Encoder {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc
}

// ReadJSON reads a report written by WriteJSON.
func ReadJSON(r io.Reader) (*Report, error) {
	var rep Report
	if err := json.NewDecoder(r).Decode(&rep); err != nil {
		return nil, err
	}
	return &rep, nil
}
