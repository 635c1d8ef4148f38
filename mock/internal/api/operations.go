package api

import (
	"net/http"
	"slices"
	"strings"

	"github.com/replymock/replymock/mock/internal/fault"
)

// operation is one API operation: its path below Prefix, its methods,
// the query parameters it takes (others are warned about) and its
// handler.
type operation struct {
	path    string
	methods []string
	params  []string
	handle  func(a *API, w http.ResponseWriter, r *http.Request, c call)
}

// operations is the one table of the API's operations: the router, the
// warnings and the metrics read it, and TestOpenAPIDocumentsListEveryRoute
// holds the OpenAPI documents to it.
var operations = []operation{
	{"/settings/ai", []string{http.MethodGet, http.MethodHead}, nil, (*API).handleSettingsGet},
	{"/settings/ai", []string{http.MethodPatch}, nil, (*API).handleSettingsPatch},
	{"/feedbacks", []string{http.MethodGet, http.MethodHead}, feedbackParams.Names, (*API).handleFeedbacksList},
}

// The fault package refuses a fault that can match none of them.
func init() {
	var ops []fault.Operation
	for _, op := range operations {
		ops = append(ops, fault.Operation{Path: op.path, Methods: op.methods})
	}
	fault.SetOperations(ops)
}

// Route is an operation as the router knows it.
type Route struct {
	Path    string
	Methods []string
}

// Routes lists the operations' routes; the methods are the caller's.
func Routes() []Route {
	out := make([]Route, len(operations))
	for i, op := range operations {
		out[i] = Route{Prefix + op.path, slices.Clone(op.methods)}
	}
	return out
}

// find is the operation of a request by its path as sent and method;
// nil for none.
func find(escapedPath, method string) *operation {
	p, ok := strings.CutPrefix(escapedPath, Prefix)
	if !ok {
		return nil
	}
	for i, op := range operations {
		if op.path == p && slices.Contains(op.methods, method) {
			return &operations[i]
		}
	}
	return nil
}
