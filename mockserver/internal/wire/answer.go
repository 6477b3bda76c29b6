package wire

import (
	"bytes"
	"mime"
	"net/http"
	"strconv"
)

// Answer is an answer as a handler wrote it, held back so that behaviours
// can change it before it is sent.
type Answer struct {
	Status int
	Header http.Header
	body   bytes.Buffer
	// tree is the decoded JSON body once JSON has been called; it is
	// encoded again when the answer is sent.
	tree    any
	decoded bool
	isJSON  bool
}

// JSON returns the decoded body when the answer is JSON, for a behaviour to
// change in place; the changed tree is what is sent. Replace the root with
// SetJSON.
func (a *Answer) JSON() (any, bool) {
	if !a.decoded {
		a.decoded = true
		if mt, _, err := mime.ParseMediaType(a.Header.Get("Content-Type")); err == nil && mt == "application/json" && a.body.Len() > 0 {
			if v, err := Decode(a.body.Bytes()); err == nil {
				a.tree, a.isJSON = v, true
			}
		}
	}
	return a.tree, a.isJSON
}

// Object returns the decoded body when it is a JSON object.
func (a *Answer) Object() (*Object, bool) {
	v, _ := a.JSON()
	o, ok := v.(*Object)
	return o, ok
}

// SetJSON replaces the JSON body.
func (a *Answer) SetJSON(v any) { a.JSON(); a.tree, a.isJSON = v, true }

// Drop removes the body (and its Content-Type).
func (a *Answer) Drop() {
	a.body.Reset()
	a.tree, a.decoded, a.isJSON = nil, true, false
	a.Header.Del("Content-Type")
}

// OK reports whether the status is a success.
func (a *Answer) OK() bool { return a.Status/100 == 2 }

// Rewrite is a behaviour that changes an answer.
type Rewrite func(*Answer)

// Recorder is an http.ResponseWriter that holds an answer back until Send.
type Recorder struct {
	w http.ResponseWriter
	Answer
}

// NewRecorder holds back the answer to be written to w.
func NewRecorder(w http.ResponseWriter) *Recorder {
	return &Recorder{w: w, Answer: Answer{Header: http.Header{}}}
}

// Header is the header of the held answer.
func (r *Recorder) Header() http.Header { return r.Answer.Header }

// WriteHeader holds the status; the first one counts.
func (r *Recorder) WriteHeader(status int) {
	if r.Status == 0 {
		r.Status = status
	}
}

// Write holds the body.
func (r *Recorder) Write(p []byte) (int, error) {
	if r.Status == 0 {
		r.Status = http.StatusOK
	}
	return r.body.Write(p)
}

// Send applies the rewrites in order and writes the answer.
func (r *Recorder) Send(rewrites ...Rewrite) {
	if r.Status == 0 {
		r.Status = http.StatusOK
	}
	for _, rw := range rewrites {
		rw(&r.Answer)
	}
	body := r.body.Bytes()
	if r.isJSON {
		body = Encode(r.tree)
	}
	for k, vs := range r.Answer.Header {
		r.w.Header()[k] = vs
	}
	if len(body) > 0 || r.Answer.Header.Get("Content-Length") != "" {
		r.w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	}
	r.w.WriteHeader(r.Status)
	if len(body) > 0 {
		_, _ = r.w.Write(body)
	}
}
