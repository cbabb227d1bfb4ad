package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The layers' rules, checked on the source: dependencies point one way
// (cmd -> model, calibration, plots, scenarios -> sim, whose sim/human writes numbers for people,
// sim/yamldoc reads single-document YAML and sim/naming holds the rule for names), the
// kernel does no I/O and reads no clock, and only main touches the
// process's streams.
// plots draws plain data; its sweepreport reads a sweep's result but, like
// the rest of plots, never touches files. A folder's rule covers its
// sub-folders unless they have their own, and a forbidden import path
// forbids the packages below it too: "capsim/plots" forbids
// "capsim/plots/texttab".
func TestLayersKeepTheirDistance(t *testing.T) {
	forbidden := map[string][]string{
		"sim":               {"capsim/model", "capsim/calibration", "capsim/plots", "capsim/scenarios", "os", "io", "io/fs", "log", "net/http", "gonum.org/v1/plot"},
		"model":             {"capsim/calibration", "capsim/plots", "capsim/scenarios", "os", "log", "github.com/spf13/cobra", "gonum.org/v1/plot"},
		"calibration":       {"capsim/model", "capsim/plots", "capsim/scenarios", "github.com/spf13/cobra", "gonum.org/v1/plot"},
		"plots":             {"capsim/sim", "capsim/model", "capsim/model/sweep", "capsim/calibration", "capsim/scenarios", "os"},
		"plots/sweepreport": {"capsim/sim", "capsim/calibration", "capsim/scenarios", "os", "io/fs"},
		// The scenario diagram draws the model's plain graph and loads.
		"plots/diagram": {"capsim/sim", "capsim/model/sweep", "capsim/calibration", "capsim/scenarios", "capsim/plots/sweepreport", "os", "io/fs"},
		"scenarios":     {"capsim/sim", "capsim/model", "capsim/calibration", "capsim/plots"},
		"cmd":           nil,
		// The table layout every command shares knows nothing of what
		// it lays out.
		"plots/texttab": {"capsim/sim", "capsim/model", "capsim/calibration", "capsim/plots", "capsim/scenarios", "os"},
		// How numbers and times are written for a person, on the ground
		// floor so that model's messages and plots' tables agree.
		"sim/human": {"capsim/model", "capsim/calibration", "capsim/plots", "capsim/scenarios", "capsim/cmd", "os", "io", "fmt"},
		// The one reader of single-document YAML files, beneath model and
		// calibration alike: it reads bytes it is given, never files.
		"sim/yamldoc": {"capsim/model", "capsim/calibration", "capsim/plots", "capsim/scenarios", "capsim/cmd", "os"},
		// The rule for names, beneath model and calibration alike, so that
		// a fragment calibrate writes holds only names a scenario accepts.
		"sim/naming": {"capsim/model", "capsim/calibration", "capsim/plots", "capsim/scenarios", "capsim/cmd", "os", "io"},
	}
	for dir := range forbidden {
		// The golden-file helper is for tests; a program using it would
		// carry a test flag and write into testdata.
		forbidden[dir] = append(forbidden[dir], "capsim/cmd/golden")
	}
	for dir, bad := range forbidden {
		root := filepath.Join("..", "..", dir)
		err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err == nil && d.IsDir() && path != root {
				if rel, _ := filepath.Rel(filepath.Join("..", ".."), path); forbidden[filepath.ToSlash(rel)] != nil {
					return filepath.SkipDir
				}
			}
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
				return err
			}
			f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
			if err != nil {
				return err
			}
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				if p == "capsim/sim/human" && dir != "sim/human" {
					continue // the ground floor's way of writing numbers, for every layer
				}
				for _, b := range bad {
					if under(p, b) {
						t.Errorf("%s imports %s, which %s/ must not", path, p, dir)
					}
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// under reports whether import path p is b or a package below it:
// "capsim/plots/texttab" is under "capsim/plots", "capsim/plotsx" is not.
func under(p, b string) bool { return p == b || strings.HasPrefix(p, b+"/") }

func TestUnderMatchesWholeElements(t *testing.T) {
	for _, c := range []struct {
		p, b string
		want bool
	}{
		{"capsim/plots", "capsim/plots", true},
		{"capsim/plots/texttab", "capsim/plots", true},
		{"capsim/plotsx", "capsim/plots", false},
		{"io/fs", "io", true},
		{"iox", "io", false},
		{"capsim/model", "capsim/model/sweep", false},
	} {
		if got := under(c.p, c.b); got != c.want {
			t.Errorf("under(%q, %q) = %v, want %v", c.p, c.b, got, c.want)
		}
	}
}

// Only main.go touches os.Stdin/Stdout/Stderr, and nothing outside tests
// reads the wall clock into a result: commands write to the streams they
// are given, so tests drive them over buffers.
func TestOnlyMainTouchesTheProcess(t *testing.T) {
	for _, dir := range []string{"sim", "model", "calibration", "plots", "scenarios", "cmd"} {
		filepath.WalkDir(filepath.Join("..", "..", dir), func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") || strings.HasSuffix(path, "main.go") {
				return err
			}
			src, err := os.ReadFile(path)
			if err != nil {
				return err
			}
			for _, banned := range []string{"os.Stdout", "os.Stderr", "os.Stdin", "fmt.Print", "os.Exit(", "time.Now(", "time.Since("} {
				for i, line := range strings.Split(string(src), "\n") {
					code, _, _ := strings.Cut(line, "//")
					if strings.Contains(code, banned) {
						t.Errorf("%s:%d uses %s outside main", path, i+1, banned)
					}
				}
			}
			return nil
		})
	}
}

// go test ./... -update must be accepted by every package: each one with
// tests imports the golden helper, which defines the flag, even when it
// has no goldens of its own.
func TestEveryTestedPackageAcceptsUpdate(t *testing.T) {
	imports := map[string]bool{} // package folder -> imports capsim/cmd/golden
	err := filepath.WalkDir(filepath.Join("..", ".."), func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, "_test.go") || strings.Contains(path, "testdata") {
			return err
		}
		dir := filepath.Dir(path)
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		has := imports[dir]
		for _, im := range f.Imports {
			if p, _ := strconv.Unquote(im.Path.Value); p == "capsim/cmd/golden" {
				has = true
			}
		}
		imports[dir] = has || filepath.Base(dir) == "golden"
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for dir, ok := range imports {
		if !ok {
			t.Errorf("%s has tests but no import of capsim/cmd/golden: go test ./... -update would fail there", dir)
		}
	}
}
