package admin

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Route is one of the admin API's routes: a mux template, its methods
// and its handler, guarded.
type Route struct {
	Path    string
	Methods []string
	Handler http.Handler
}

// Routes are the admin API's resources, in the router's order.
func (a *Admin) Routes() []Route {
	get, h := []string{http.MethodGet, http.MethodHead}, a.Handler
	return []Route{
		{Prefix + "/health", get, h(a.handleHealth)},
		{Prefix + "/scenarios", get, h(a.handleScenariosList)},
		{Prefix + "/scenario", []string{http.MethodPut}, h(a.handleScenarioPut)},
		{Prefix + "/reset", []string{http.MethodPost}, h(a.handleReset)},
		{Prefix + "/faults", get, h(a.handleFaultsList)},
		{Prefix + "/faults", []string{http.MethodPost, http.MethodPut}, h(a.handleFaultsPut)},
		{Prefix + "/faults", []string{http.MethodDelete}, h(a.handleFaultsDelete)},
		{Prefix + "/faults/{id}", []string{http.MethodDelete}, h(a.handleFaultsDelete)},
		{Prefix + "/requests", get, h(a.handleRequestsList)},
		{Prefix + "/requests", []string{http.MethodDelete}, h(a.handleRequestsDelete)},
		{Prefix + "/verify", get, h(a.handleVerify)},
		{Prefix + "/overrides", get, h(a.handleOverridesGet)},
		{Prefix + "/overrides", []string{http.MethodPut}, h(a.handleOverridesPut)},
		{Prefix + "/settings", get, h(a.handleSettingsView)},
		{Prefix + "/data", get, h(a.handleData)},
		{Prefix + "/data", []string{http.MethodPut}, h(a.handleDataPut)},
		{Prefix + "/data", []string{http.MethodDelete}, h(a.handleDataDelete)},
		{Prefix + "/clock", []string{http.MethodGet, http.MethodHead, http.MethodPost}, h(a.handleClock)},
		{Prefix + "/metrics", get, a.Guard(promhttp.HandlerFor(a.Metrics, promhttp.HandlerOpts{}))},
		{Prefix + "/snapshot", get, a.Guard(http.HandlerFunc(a.handleSnapshotGet))},
		{Prefix + "/snapshot", []string{http.MethodPost}, h(a.handleSnapshotPost)},
	}
}
