package mock

import "github.com/replymock/replymock/mock/internal/wire"

// MaxBodyBytes is the largest request body the API accepts (413 above it).
const MaxBodyBytes = wire.MaxBodyBytes
