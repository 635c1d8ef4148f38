package generate

import (
	"io/fs"
	"testing"

	"github.com/replymock/replymock/fixtures"
	"github.com/replymock/replymock/mock/internal/settings"
)

// shippedBank is the shipped phrase bank of locale.
func shippedBank(t testing.TB, locale string) *Bank {
	t.Helper()
	name := "phrases/" + locale + ".yaml"
	data, err := fs.ReadFile(fixtures.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	b, err := DecodePhrases(name, data)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// shippedSettings is the shipped settings fixture name (settings/NAME.yaml).
func shippedSettings(t testing.TB, name string) settings.Settings {
	t.Helper()
	name = "settings/" + name + ".yaml"
	data, err := fs.ReadFile(fixtures.FS, name)
	if err != nil {
		t.Fatal(err)
	}
	st, err := settings.DecodeFixture(name, data, settings.Rules{})
	if err != nil {
		t.Fatal(err)
	}
	return st
}
