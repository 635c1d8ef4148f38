package wire

import (
	"encoding/json"
	"fmt"
	"time"

	"gopkg.in/yaml.v3"
)

// Duration is a time.Duration written as a Go duration string ("250ms",
// "2s", "1m30s") in scenario files and admin requests.
type Duration time.Duration

// DurationPattern is the JSON Schema pattern of a Duration's string,
// as the admin document gives it.
const DurationPattern = `^\+?(0|(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))+)$`

func (d Duration) D() time.Duration { return time.Duration(d) }

func (d Duration) String() string { return time.Duration(d).String() }

func (d Duration) MarshalJSON() ([]byte, error) { return json.Marshal(d.String()) }

func (d *Duration) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("must be a duration string such as \"250ms\"")
	}
	v, err := ParseDuration(s)
	if err != nil {
		return err
	}
	*d = v
	return nil
}

// UnmarshalYAML reads a duration string. Its error is a yaml.TypeError,
// so decoding goes on and the problem is placed at its line.
func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	v, err := ParseDuration(n.Value)
	if n.Kind != yaml.ScalarNode || err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: must be a duration such as \"250ms\" or \"2s\", got %q", n.Line, n.Value)}}
	}
	*d = v
	return nil
}

// ParseDuration reads a Go duration string that is not negative.
func ParseDuration(s string) (Duration, error) {
	v, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("must be a duration such as \"250ms\" or \"2s\", got %q", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("must not be negative, got %q", s)
	}
	return Duration(v), nil
}
