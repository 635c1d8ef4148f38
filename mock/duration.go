package mock

import "github.com/replymock/replymock/mock/internal/wire"

// Duration is a time.Duration written as a Go duration string ("250ms",
// "2s", "1m30s") in scenario files and admin requests.
type Duration = wire.Duration
