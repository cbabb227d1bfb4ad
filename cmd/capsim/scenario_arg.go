package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
		l, err := model.Load(os.DirFS(dir), file, opts)
		return l, relabel(err, file, arg)
	}
	if _, ok := scenarios.Get(arg); !ok {
		return nil, usageErr("no scenario file or embedded scenario called %q (embedded: %s)", arg, strings.Join(scenarios.List(), ", "))
	}
	return model.Load(scenarios.FS(), scenarios.File(arg), opts)
}

// isPath tells a scenario file from an embedded scenario's name.
func isPath(arg string) bool {
	if _, err := os.Stat(arg); err == nil {
		return true
	}
	return strings.ContainsAny(arg, "/\\") || strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml")
}

// relabel reports errors under the path the user typed, not the name inside
// the directory file system the loader was given.
func relabel(err error, inner, outer string) error {
	if err == nil || inner == outer {
		return err
	}
	fix := func(e *model.Error) {
		if e.File == inner {
			e.File = outer
		} else if !strings.HasPrefix(e.File, "--set") && !filepath.IsAbs(e.File) {
			e.File = filepath.Join(filepath.Dir(outer), e.File)
		}
	}
	var list model.ErrorList
	var one *model.Error
	switch {
	case errors.As(err, &list):
		for _, e := range list {
			fix(e)
		}
	case errors.As(err, &one):
		fix(one)
	}
	return err
}

// compileScenario loads and compiles; every failure is a usage error (exit 2)
// because the fix is in the scenario or the flags.
func compileScenario(arg string, opts model.LoadOptions) (*model.Compiled, *model.Loaded, error) {
	l, err := loadScenario(arg, opts)
	if err != nil {
		return nil, nil, scenarioErr(err)
	}
	c, err := compileLoaded(arg, l)
	if err != nil {
		return nil, nil, scenarioErr(err)
	}
	return c, l, nil
}

// compileLoaded compiles l, reporting problems under the path typed.
func compileLoaded(arg string, l *model.Loaded) (*model.Compiled, error) {
	c, err := l.Compile()
	if err != nil && isPath(arg) {
		return nil, relabel(err, filepath.Base(arg), arg)
	}
	return c, err
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
