package mock

import (
	"github.com/replymock/replymock/mock/internal/admin"
)

// The admin API under /__mock (its resources, one file each, their route
// table, the token and read-only guard, streamed answers) is package
// admin's; here are its public names.

// Health is the data of GET /__mock/health.
type Health = admin.Health

// DataSummary is the data of GET /__mock/data: the reviews of a session's
// scenario by rating, and the newest few.
type DataSummary = admin.DataSummary

// RatingCounts counts the reviews of one rating.
type RatingCounts = admin.RatingCounts

// Clock is the data of /__mock/clock.
type Clock = admin.Clock
