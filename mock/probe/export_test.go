package probe

// RuleCount is how many rules a run checks, with writes or without.
func RuleCount(writes bool) int { return len(selected(writes)) }
