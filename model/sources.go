package model

import (
	"bytes"
	"cmp"
	"fmt"
	"io/fs"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// Source is one file a scenario was made of, as it was read: the scenario
// itself, a file it includes or an empirical distribution's data.
type Source struct {
	Name string // under the display name (see LoadOptions.DisplayName)
	Data []byte
}

// Sources lists every file read to load the scenario and, once compiled,
// to compile it: the scenario first, then the others in the order they were
// first read, each once. Hashing these bytes identifies exactly what was
// simulated, even if the files change on disk afterwards.
func (l *Loaded) Sources() []Source {
	l.read.mu.Lock()
	defer l.read.mu.Unlock()
	return append([]Source(nil), l.read.files...)
}

// reads records the files read through a Loaded's file system. Compile
// reads empirical files through it too, perhaps from several goroutines.
type reads struct {
	fsys    fs.FS
	display func(string) string
	mu      sync.Mutex
	files   []Source
}

func (r *reads) Open(name string) (fs.File, error) { return r.fsys.Open(name) }

func (r *reads) ReadFile(name string) ([]byte, error) {
	if err := checkLinks(r.fsys, name); err != nil {
		return nil, err
	}
	data, err := readRegular(r.fsys, name)
	if err == nil {
		r.add(r.display(name), data)
	}
	return data, err
}

func (r *reads) add(name string, data []byte) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.files {
		if f.Name == name && bytes.Equal(f.Data, data) {
			return
		}
	}
	r.files = append(r.files, Source{Name: name, Data: data})
}

// displayNames returns the name errors give each file of fsys read beside
// the scenario at name: the scenario under display, and the files beside it
// relative to display's folder, joined as the caller's paths are.
func displayNames(name, display string) func(string) string {
	if display == "" || display == name {
		return func(n string) string { return n }
	}
	dir := path.Dir(name)
	return func(n string) string {
		if n == name {
			return display
		}
		rel := n
		if dir != "." {
			rel = strings.TrimPrefix(n, dir+"/")
		}
		return filepath.Join(filepath.Dir(display), filepath.FromSlash(rel))
	}
}

// MergeSources lists the files several loads of one scenario read (the
// base and each design, say): the scenario first, then the others by
// name, each once. Each load reads the files anew, so a file edited in
// between would have the loads simulate different bytes; that is an
// error, naming the file.
func MergeSources(loads ...*Loaded) ([]Source, error) {
	var out []Source
	seen := map[string][]byte{}
	for _, l := range loads {
		for _, src := range l.Sources() {
			data, ok := seen[src.Name]
			switch {
			case !ok:
				seen[src.Name] = src.Data
				out = append(out, src)
			case !bytes.Equal(data, src.Data):
				return nil, fmt.Errorf("%s changed while it was being read", src.Name)
			}
		}
	}
	if len(out) > 1 {
		slices.SortFunc(out[1:], func(a, b Source) int { return cmp.Compare(a.Name, b.Name) })
	}
	return out, nil
}
