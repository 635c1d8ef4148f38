package cli

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/replymock/replymock/mock"
)

// validate checks the named files, or with none every scenario the
// server would serve. A snapshot is checked as restoring it here would
// be. Every problem is reported, one a line, each once.
func validate(opts mock.Options, files []string, stdout io.Writer) error {
	var errs []error
	checked := 0
	if len(files) == 0 {
		results, err := mock.ValidateScenarios(opts)
		if err != nil {
			return err
		}
		for _, r := range results {
			checked++
			errs = append(errs, r.Err)
		}
	}
	var sources []mock.SourceFile
	for _, f := range files {
		// A named pipe or device would block the read: only regular files.
		if fi, err := os.Stat(f); err == nil && !fi.Mode().IsRegular() {
			errs = append(errs, fmt.Errorf("%s: not a regular file (%s)", f, fi.Mode().Type()))
			continue
		}
		data, err := mock.ReadFile(f)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		checked++
		if mock.IsSnapshot(data) {
			notes, err := mock.ValidateSnapshot(opts, f, data)
			for _, n := range notes {
				fmt.Fprintf(stdout, "%s: note: %s\n", f, n)
			}
			errs = append(errs, err)
			continue
		}
		sources = append(sources, mock.SourceFile{Path: f, Data: data})
	}
	if len(sources) > 0 {
		errs = append(errs, mock.ValidateFiles(opts, sources))
	}
	if problems := mock.Problems(errors.Join(errs...)); len(problems) > 0 {
		return errors.Join(problems...)
	}
	noun := "files"
	if checked == 1 {
		noun = "file"
	}
	fmt.Fprintf(stdout, "ok: %d %s valid\n", checked, noun)
	return nil
}
