package generate

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/replymock/replymock/mock/internal/wire"
	"github.com/replymock/replymock/mock/internal/yamlfile"
)

// Locales are the languages the generator writes reviews in.
var Locales = []string{"ru", "en"}

// Bank is a phrase bank fixture (kind: phrases): what the generator
// writes, in one locale.
type Bank struct {
	Kind      string         `yaml:"kind"`
	Locale    string         `yaml:"locale"`
	Anonymous string         `yaml:"anonymous"`
	Names     []string       `yaml:"names"`
	Brands    []string       `yaml:"brands"`
	Colors    []string       `yaml:"colors"`
	Variants  []string       `yaml:"variants"` // the versions (colours) of one product card
	Products  []ProductEntry `yaml:"products"`
	Reviews   struct {
		Positive SentimentBank `yaml:"positive"`
		Neutral  SentimentBank `yaml:"neutral"`
		Negative SentimentBank `yaml:"negative"`
	} `yaml:"reviews"`
	Nothing []string `yaml:"nothing"` // what a buyer writes for no pros or no cons ("нет")
	Tags    []string `yaml:"tags"`    // the buyer tags of every product, besides its own
	Answers struct {
		Greetings          []string `yaml:"greetings"`
		GreetingsAnonymous []string `yaml:"greetings_anonymous"`
		GreetingsFormal    []string `yaml:"greetings_formal"`
		Positive           []string `yaml:"positive"`
		Neutral            []string `yaml:"neutral"`
		Negative           []string `yaml:"negative"`
		RatingOnly         []string `yaml:"rating_only"`
	} `yaml:"answers"`
}

// ProductEntry is a kind of product of a bank.
type ProductEntry struct {
	Name string   `yaml:"name"`
	Code string   `yaml:"code"` // what its articles start with
	Tags []string `yaml:"tags"` // buyer tags of this product besides the bank's
}

// SentimentBank is what buyers of one mood write.
type SentimentBank struct {
	Sentences []string `yaml:"sentences"`
	Short     []string `yaml:"short"` // whole texts of a word or three
	Emoji     []string `yaml:"emoji"` // what some buyers end a text with
	Pros      []string `yaml:"pros"`
	Cons      []string `yaml:"cons"`
}

// DecodePhrases decodes a phrase bank, named display in problems.
func DecodePhrases(display string, data []byte) (*Bank, error) {
	var b Bank
	yf := yamlfile.Decode(display, data, &b)
	if !yf.Checkable() {
		return nil, yf.Err()
	}
	if b.Kind != "phrases" {
		yf.Problemf("kind", "must be \"phrases\" in a phrase bank, got %q", b.Kind)
	}
	if b.Anonymous == "" {
		yf.Problemf("anonymous", "required: the name shown for an anonymous reviewer")
	}
	nonEmpty := map[string][]string{
		"names": b.Names, "brands": b.Brands, "colors": b.Colors,
		"reviews.positive.sentences": b.Reviews.Positive.Sentences, "reviews.positive.pros": b.Reviews.Positive.Pros, "reviews.positive.cons": b.Reviews.Positive.Cons,
		"reviews.neutral.sentences": b.Reviews.Neutral.Sentences, "reviews.neutral.pros": b.Reviews.Neutral.Pros, "reviews.neutral.cons": b.Reviews.Neutral.Cons,
		"reviews.negative.sentences": b.Reviews.Negative.Sentences, "reviews.negative.pros": b.Reviews.Negative.Pros, "reviews.negative.cons": b.Reviews.Negative.Cons,
		"tags": b.Tags, "answers.greetings": b.Answers.Greetings, "answers.greetings_anonymous": b.Answers.GreetingsAnonymous,
		"answers.positive": b.Answers.Positive, "answers.neutral": b.Answers.Neutral, "answers.negative": b.Answers.Negative,
		"answers.rating_only": b.Answers.RatingOnly,
	}
	for _, field := range slices.Sorted(maps.Keys(nonEmpty)) {
		if len(nonEmpty[field]) == 0 {
			yf.Problemf(field, "must list at least one entry")
		}
	}
	if len(b.Products) == 0 {
		yf.Problemf("products", "must list at least one product")
	}
	var tagProbs []wire.FieldProblem
	for i, p := range b.Products {
		if p.Name == "" || p.Code == "" {
			yf.Problemf(fmt.Sprintf("products[%d]", i), "needs a name and a code")
		}
		tagProbs = append(tagProbs, TagProblems(fmt.Sprintf("products[%d].tags", i), p.Tags)...)
	}
	yf.Problems("", append(TagProblems("tags", b.Tags), tagProbs...))
	for i, g := range b.Answers.Greetings {
		if !strings.Contains(g, "{name}") {
			yf.Problemf(fmt.Sprintf("answers.greetings[%d]", i), "must contain {name}")
		}
	}
	if err := yf.Err(); err != nil {
		return nil, err
	}
	return &b, nil
}

// maxTag bounds a buyer tag's length, in characters.
const maxTag = 40

// TagProblems lists the tags at path that are not short lowercase
// phrases or repeat an earlier one.
func TagProblems(path string, tags []string) []wire.FieldProblem {
	var probs []wire.FieldProblem
	for i, t := range tags {
		at := fmt.Sprintf("%s[%d]", path, i)
		switch {
		case strings.TrimSpace(t) != t || t == "" || utf8.RuneCountInString(t) > maxTag || strings.ContainsFunc(t, unicode.IsControl):
			probs = append(probs, wire.FieldProblem{Field: at, Msg: fmt.Sprintf("must be a short phrase (1 to %d characters, no spaces at the ends), got %q", maxTag, t)})
		case strings.ToLower(t) != t:
			probs = append(probs, wire.FieldProblem{Field: at, Msg: fmt.Sprintf("must be lowercase, as buyer tags are (%q)", strings.ToLower(t))})
		case slices.Contains(tags[:i], t):
			probs = append(probs, wire.FieldProblem{Field: at, Msg: fmt.Sprintf("%q is listed twice", t)})
		}
	}
	return probs
}
