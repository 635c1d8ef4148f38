package mcp

import (
	"context"
	"strconv"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// prompt is one of the common jobs an agent is asked to do, told as the
// tool calls that do it.
type prompt struct {
	name, about string
	args        []*sdk.PromptArgument
	text        func(args map[string]string) string
}

var prompts = []prompt{
	{name: "flaky_feedbacks", about: "Make the feedback list fail the way a flaky network does.",
		text: func(map[string]string) string {
			return "Make GET /api/v1/feedbacks fail the way a flaky network does: call add_fault with " +
				`{"latency":{"min":"200ms","max":"2s"},"path":"/api/v1/feedbacks"}; then add_fault with ` +
				`{"error":{"status":503},"probability":0.2}; then add_fault with {"drop":true,"probability":0.05}. ` +
				"List them with list_faults, and remove them with remove_fault when done."
		}},
	{name: "seed_unanswered", about: "Seed a shop with N unanswered 1-star reviews.",
		args: []*sdk.PromptArgument{{Name: "n", Description: "how many reviews (default 10)"}},
		text: func(a map[string]string) string {
			n, err := strconv.Atoi(a["n"])
			if err != nil || n < 1 {
				n = 10
			}
			return "Call seed_reviews with " + strconv.Itoa(n) + ` reviews, each {"product_valuation":1} ` +
				"with a short Russian complaint as text and no answer_text; then count_reviews to check that rating 1 has " +
				strconv.Itoa(n) + " unanswered."
		}},
	{name: "check_retries", about: "Check that my client retries.",
		text: func(map[string]string) string {
			return `Call add_fault with {"error":{"status":503},"times":2,"path":"/api/v1/feedbacks"}. ` +
				"Run the client against this server with the header X-Mock-Session set to the session the tool " +
				"answered with. Then call verify with path /api/v1/feedbacks and min 3: the client retried if " +
				"three requests came (two failed, one answered)."
		}},
}

func addPrompts(s *sdk.Server) {
	for _, p := range prompts {
		s.AddPrompt(&sdk.Prompt{Name: p.name, Description: p.about, Arguments: p.args},
			func(_ context.Context, req *sdk.GetPromptRequest) (*sdk.GetPromptResult, error) {
				return &sdk.GetPromptResult{Description: p.about,
					Messages: []*sdk.PromptMessage{{Role: "user", Content: &sdk.TextContent{Text: p.text(req.Params.Arguments)}}}}, nil
			})
	}
}
