package mock

import "github.com/replymock/replymock/mock/internal/wire"

// Duration is a time.Duration written as a string such as "250ms".
type Duration = wire.Duration
