// Package scenarios is capsim's embedded scenario library: one YAML file per
// system, plus the calibration files they include. It knows file names and
// nothing else; the model package reads what is here.
package scenarios

import (
	"embed"
	"io/fs"
	"sort"
	"strings"
)

//go:embed *.yaml
var files embed.FS

// Default is the scenario capsim runs when given none.
const Default = "trip"

// FS is the library as a file system, for the model loader (includes are
// resolved inside it).
func FS() fs.FS { return files }

// File is the file name of scenario name inside FS.
func File(name string) string { return name + ".yaml" }

// List returns the names of the embedded scenarios, sorted. Calibration
// fragments (files ending in -calibration.yaml) are not scenarios.
func List() []string {
	entries, _ := fs.ReadDir(files, ".")
	var names []string
	for _, e := range entries {
		if n := e.Name(); !isFragment(n) {
			names = append(names, strings.TrimSuffix(n, ".yaml"))
		}
	}
	sort.Strings(names)
	return names
}

// isFragment reports whether the embedded file named n is one the
// scenarios include (a calibration fragment, or the figures it is made
// from) rather than a scenario.
func isFragment(n string) bool {
	return strings.HasSuffix(n, "-calibration.yaml") || strings.HasSuffix(n, "-figures.yaml")
}

// Get returns the YAML of scenario name; a fragment the scenarios include
// is none, so that a command given its name says what the scenarios are
// instead of the fragment's lack of a name, a duration and journeys.
func Get(name string) ([]byte, bool) {
	if isFragment(File(name)) {
		return nil, false
	}
	data, err := fs.ReadFile(files, File(name))
	return data, err == nil
}
