package fault

import "net/http"

// dropKind closes the connection with no answer.
var dropKind = Kind{
	Name:  "drop",
	in:    func(f *Fault) bool { return f.Drop },
	label: func(*Fault) string { return "drop" },
	answer: func(http.ResponseWriter, *Fault) {
		panic(http.ErrAbortHandler) // net/http closes the connection without an answer
	},
}
