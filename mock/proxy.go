package mock

import (
	"net/url"

	"github.com/replymock/replymock/mock/internal/proxy"
)

// ProxySpec sends the API requests replymock does not fake to the real
// service.
type ProxySpec = proxy.Spec

// Proxying to the real service.
const (
	// HeaderProxied marks an answer that came from the real service.
	HeaderProxied = proxy.HeaderProxied
	// DefaultProxyTimeout bounds the wait for the upstream's answer to
	// start; past it, the client gets a 504.
	DefaultProxyTimeout = proxy.DefaultTimeout
)

// ParseProxyURL checks an upstream's base URL: absolute http or https,
// with a host, and no query, fragment or user.
func ParseProxyURL(raw string) (*url.URL, error) { return proxy.ParseURL(raw) }
