package mock

import (
	"github.com/replymock/replymock/mock/internal/admin"
)

// Answers of the admin API under /__mock (package admin).
type (
	// Health is the data of GET /__mock/health.
	Health = admin.Health
	// DataSummary is the data of GET /__mock/data.
	DataSummary = admin.DataSummary
	// RatingCounts counts the reviews of one rating.
	RatingCounts = admin.RatingCounts
	// Clock is the data of /__mock/clock.
	Clock = admin.Clock
)
