package mock

import (
	"github.com/replymock/replymock/mock/internal/generate"
	"github.com/replymock/replymock/mock/internal/shop"
)

// Answer states of the reply engine besides the spec's: a semi_auto
// reply waits as a draft.
const (
	AnswerStateDraft = generate.AnswerStateDraft
	StateDraft       = generate.StateDraft
)

// ShopSnapshot is a session's living shop in a snapshot.
type ShopSnapshot = shop.Snapshot
