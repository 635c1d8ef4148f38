package wire

import "strings"

// Nearest is the one of names closest to name, for a "did you mean"
// hint: the same but for case, or at most two edits away (one for a name
// of up to four letters). It is "" when none is that close, or name is
// one of names.
func Nearest(name string, names []string) string {
	best, bestD := "", 3
	if len(name) <= 4 {
		bestD = 2
	}
	for _, n := range names {
		if n == name {
			return ""
		}
		d := EditDistance(strings.ToLower(name), strings.ToLower(n))
		if d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// EditDistance counts the single-byte insertions, deletions,
// substitutions and swaps of neighbours that turn a into b (optimal
// string alignment). Callers cut both short.
func EditDistance(a, b string) int {
	prev2 := make([]int, len(b)+1)
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(b)]
}
