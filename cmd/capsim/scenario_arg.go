package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"capsim/model"
	"capsim/scenarios"
)

// loadScenario resolves a scenario argument — a file path, or the name of an
// embedded scenario — and loads it with a design and overrides.
func loadScenario(arg string, opts model.LoadOptions) (*model.Loaded, error) {
	if arg == "" {
		arg = scenarios.Default
	}
	if isPath(arg) {
		dir, file := filepath.Split(arg)
		if dir == "" {
			dir = "."
		}
		// Errors name the files under the path typed, not their names
		// inside the folder's file system.
		opts.DisplayName = arg
		return loadHinted(os.DirFS(dir), file, opts)
	}
	if _, ok := scenarios.Get(arg); !ok {
		return nil, usageErr("no scenario file or embedded scenario called %q%s (embedded: %s)", arg, didYouMean(arg, scenarios.List()), strings.Join(scenarios.List(), ", "))
	}
	return loadHinted(scenarios.FS(), scenarios.File(arg), opts)
}

// loadHinted is model.Load, with the design nearest an unknown one named
// in the error.
func loadHinted(fsys fs.FS, file string, opts model.LoadOptions) (*model.Loaded, error) {
	l, err := model.Load(fsys, file, opts)
	if err == nil || opts.Design == "" {
		return l, err
	}
	// Only now is the scenario loaded bare, to learn its designs: a
	// scenario that loads is not read twice.
	bare, berr := model.Load(fsys, file, model.LoadOptions{DisplayName: opts.DisplayName})
	if berr != nil {
		return nil, err
	}
	names := bare.Scenario.Designs.Names()
	for _, part := range strings.Split(opts.Design, "+") {
		if slices.Contains(names, part) {
			continue
		}
		unknown := fmt.Sprintf("unknown design %q", part)
		if hint := didYouMean(part, names); hint != "" && strings.Contains(err.Error(), unknown) {
			return nil, usageErr("%s", strings.Replace(err.Error(), unknown, unknown+hint, 1))
		}
		break
	}
	return nil, err
}

// isPath tells a scenario file from an embedded scenario's name.
func isPath(arg string) bool {
	if _, err := os.Stat(arg); err == nil {
		return true
	}
	return strings.ContainsAny(arg, "/\\") || strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml")
}

// compileScenario loads and compiles; every failure is a usage error (exit 2)
// because the fix is in the scenario or the flags.
func compileScenario(arg string, opts model.LoadOptions) (*model.Compiled, *model.Loaded, error) {
	l, err := loadScenario(arg, opts)
	if err != nil {
		return nil, nil, scenarioErr(err)
	}
	c, err := l.Compile()
	if err != nil {
		return nil, nil, scenarioErr(err)
	}
	return c, l, nil
}

func scenarioErr(err error) error {
	var ce *codedError
	if errors.As(err, &ce) {
		return err
	}
	var list model.ErrorList
	if errors.As(err, &list) && len(list) > 1 {
		return &codedError{code: exitUsage, err: fmt.Errorf("the scenario has %d problems:\n%w", len(list), err)}
	}
	if errors.Is(err, fs.ErrNotExist) {
		return &codedError{code: exitUsage, err: err}
	}
	return &codedError{code: exitUsage, err: err}
}
