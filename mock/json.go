package mock

import "github.com/replymock/replymock/mock/internal/wire"

// MaxBodyBytes is the largest request body the API accepts.
const MaxBodyBytes = wire.MaxBodyBytes
