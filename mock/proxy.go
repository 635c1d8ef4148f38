package mock

import (
	"net/url"

	"github.com/replymock/replymock/mock/internal/proxy"
)

// ProxySpec sends API requests replymock does not fake to the real
// service (scenario key proxy, or Options.Proxy for every scenario):
// the paths it has no operation for, and the listed ones too.
type ProxySpec = proxy.Spec

// HeaderProxied marks an answer that came from the real service, not
// from replymock's fake.
const HeaderProxied = proxy.HeaderProxied

// DefaultProxyTimeout bounds how long a proxied request waits for the
// upstream's answer to start; past it, the client gets a 504.
const DefaultProxyTimeout = proxy.DefaultTimeout

// ParseProxyURL checks an upstream's base URL: absolute http or https,
// with a host, and no query, fragment or user.
func ParseProxyURL(raw string) (*url.URL, error) { return proxy.ParseURL(raw) }
