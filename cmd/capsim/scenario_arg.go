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

// parseScenario resolves a scenario argument — a file path, or the name of
// an embedded scenario — and parses it: once per command, every design,
// perturbation and draw then loads from the document.
func parseScenario(arg string) (*model.Document, error) {
	name, embedded, err := resolveScenario(arg)
	if err != nil {
		return nil, err
	}
	if embedded {
		return model.Parse(scenarios.FS(), scenarios.File(name), model.ParseOptions{})
	}
	dir, file := filepath.Split(name)
	if dir == "" {
		dir = "."
	}
	// Errors name the files under the path typed, not their names inside
	// the folder's file system.
	return model.Parse(os.DirFS(dir), file, model.ParseOptions{DisplayName: name})
}

// resolveScenario says what a scenario argument names: a file (its path)
// or an embedded scenario (its name). No argument is the embedded default,
// whatever the folder holds. A bare name that is both an embedded scenario
// and a file here is refused rather than guessed: either reading would
// run a model the user may not have meant, and nothing in the output
// would show it (a copy edited under the same name keeps its name:).
func resolveScenario(arg string) (name string, embedded bool, err error) {
	if arg == "" {
		return scenarios.Default, true, nil
	}
	if writtenAsPath(arg) {
		return arg, false, nil
	}
	_, isEmbedded := scenarios.Get(arg)
	info, statErr := os.Stat(arg)
	isFile := statErr == nil && !info.IsDir()
	switch {
	case isEmbedded && isFile:
		return "", false, usageErr("%q is both an embedded scenario and a file here: write ./%s for the file, "+
			"or run from another folder for the embedded one", arg, arg)
	case isEmbedded:
		return arg, true, nil
	case statErr == nil:
		return arg, false, nil // a folder, refused as such when read
	}
	return "", false, usageErr("no scenario file or embedded scenario called %q%s (embedded: %s)", arg,
		model.DidYouMean(arg, scenarios.List()), strings.Join(scenarios.List(), ", "))
}

// openScenario parses the scenario argument and the command line's
// overrides, each once; every failure is a usage error (exit 2).
func openScenario(arg string, sets, scales, baseSets []string) (*model.Document, []model.Override, error) {
	doc, err := parseScenario(arg)
	if err != nil {
		return nil, nil, scenarioErr(err)
	}
	overrides, err := parseOverrides(baseSets, sets, scales)
	if err != nil {
		return nil, nil, err
	}
	return doc, overrides, nil
}

// parseOverrides parses --base-set values, then --set and --scale ones, in
// the order they apply; every failure is a usage error (exit 2).
func parseOverrides(baseSets, sets, scales []string) ([]model.Override, error) {
	base, err := model.ParseBaseSets(baseSets)
	if err != nil {
		return nil, scenarioErr(err)
	}
	overrides, err := model.ParseOverrides(sets, scales)
	if err != nil {
		return nil, scenarioErr(err)
	}
	return append(base, overrides...), nil
}

// loadScenario parses the scenario argument and loads it once, with a
// design and overrides.
func loadScenario(arg string, opts model.LoadOptions) (*model.Loaded, error) {
	doc, err := parseScenario(arg)
	if err != nil {
		return nil, err
	}
	return loadDesign(doc, opts)
}

// loadDesign is Document.Load, with the design nearest an unknown one
// named in the error.
func loadDesign(doc *model.Document, opts model.LoadOptions) (*model.Loaded, error) {
	l, err := doc.Load(opts)
	if err == nil || opts.Design == "" {
		return l, err
	}
	// Only now is the scenario loaded bare, to learn its designs: from the
	// document, as parsed.
	bare, berr := doc.Load(model.LoadOptions{})
	if berr != nil {
		return nil, err
	}
	names := bare.Scenario.Designs.Names()
	for _, part := range strings.Split(opts.Design, "+") {
		if slices.Contains(names, part) {
			continue
		}
		unknown := fmt.Sprintf("unknown design %q", part)
		if hint := model.DidYouMean(part, names); hint != "" && strings.Contains(err.Error(), unknown) {
			return nil, usageErr("%s", strings.Replace(err.Error(), unknown, unknown+hint, 1))
		}
		break
	}
	return nil, err
}

// writtenAsPath says whether a scenario argument can only be a file:
// it has a folder in it or a YAML file's extension.
func writtenAsPath(arg string) bool {
	return strings.ContainsAny(arg, "/\\") || strings.HasSuffix(arg, ".yaml") || strings.HasSuffix(arg, ".yml")
}

// compileDesign loads a design from doc and compiles it; every failure is
// a usage error (exit 2) because the fix is in the scenario or the flags.
func compileDesign(doc *model.Document, opts model.LoadOptions) (*model.Compiled, *model.Loaded, error) {
	l, err := loadDesign(doc, opts)
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
