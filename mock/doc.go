// Package mock is an in-memory fake of the auto-reply service's API.
// It serves a shop's auto-reply settings and its customer reviews.
//
// A [Server] is an [net/http.Handler] built by [New] from a scenario: a
// YAML file naming a seed, a settings fixture, hand-written review
// fixtures and generator parameters. The same seed gives byte-identical
// data on every machine. It serves the API under /api/v1 (GET and PATCH
// /settings/ai, GET /feedbacks), and its own admin API, control panel and
// media files under /__mock/; [OpenAPIDocument] and
// [AdminOpenAPIDocument] list the routes.
//
// API requests run through the scenario first: faults (latency, errors,
// dropped or truncated answers), bearer auth and a rate limit, each
// counted per session (header X-Mock-Session). Client mistakes the API
// lets through (unknown parameters, the upstream's names) come back as
// warnings in X-Mock-Warning and the journal, or as 400s in strict mode
// (Options.Strict, a scenario's strict key, [Server.SetOverridesFor]).
// Test code can drive the same controls in-process with
// [Server.SetScenario], [Server.AddFault], [Server.Requests],
// [Server.Verify], [Server.WaitRequests], [Server.Reset] and
// [Server.SeedReviews], or through mock/mocktest.
//
// Every answer uses the envelope {"success":true,"data":...}; errors are
// {"success":false,"data":null,"error":{"code","message","field"}}. The
// contract decisions behind each rule are in the repository's
// mock/API.md, and the scenario format in scenarios/README.md.
//
// In a Go test:
//
//	srv, err := mock.New(mock.Options{})
//	if err != nil {
//		t.Fatal(err)
//	}
//	ts := httptest.NewServer(srv)
//	defer ts.Close()
package mock
