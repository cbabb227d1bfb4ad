package model

import (
	"bytes"
	"cmp"
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
	Name string // under the display name (see ParseOptions.DisplayName)
	Data []byte
}

// fileCache reads the files beside a Document's scenario, each once
// (checked, then read, or refused), so that every load and compile of the
// document sees the same bytes, or the same error. Compiles read through
// it from several goroutines.
type fileCache struct {
	fsys    fs.FS
	display func(string) string
	mu      sync.Mutex
	read    map[string]cachedFile // by name inside fsys
	files   []Source              // the scenario, then every file in the order first read
}

type cachedFile struct {
	data []byte
	err  error
}

func newFileCache(fsys fs.FS, display func(string) string) *fileCache {
	return &fileCache{fsys: fsys, display: display, read: map[string]cachedFile{}}
}

// addScenario records the scenario's own bytes, read by the caller: it is
// not a file named beside itself, so the rules for those do not apply.
func (c *fileCache) addScenario(name string, data []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files = addSource(c.files, Source{Name: name, Data: data})
}

// ReadFile makes fileCache an fs.ReadFileFS for spliceIncludes.
func (c *fileCache) ReadFile(name string) ([]byte, error) {
	data, _, err := c.readFile(name)
	return data, err
}

// readFile returns the file at name inside fsys, with its display name.
func (c *fileCache) readFile(name string) ([]byte, string, error) {
	shown := c.display(name)
	c.mu.Lock()
	defer c.mu.Unlock()
	if f, ok := c.read[name]; ok {
		return f.data, shown, f.err
	}
	err := checkLinks(c.fsys, name)
	var data []byte
	if err == nil {
		data, err = readRegular(c.fsys, name)
	}
	c.read[name] = cachedFile{data, err}
	if err == nil {
		c.files = addSource(c.files, Source{Name: shown, Data: data})
	}
	return data, shown, err
}

func (c *fileCache) sources() []Source {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Source(nil), c.files...)
}

// sorted is sources with every file but the scenario ordered by name: an
// order that does not depend on which load or compile read a file first.
func (c *fileCache) sorted() []Source {
	out := c.sources()
	if len(out) > 1 {
		slices.SortFunc(out[1:], func(a, b Source) int { return cmp.Compare(a.Name, b.Name) })
	}
	return out
}

// reads records the files one load of a Document read, through the
// document's cache. Compile reads empirical files through it too, perhaps
// from several goroutines.
type reads struct {
	cache *fileCache
	mu    sync.Mutex
	files []Source
}

func (r *reads) Open(name string) (fs.File, error) { return r.cache.fsys.Open(name) }

func (r *reads) ReadFile(name string) ([]byte, error) {
	data, shown, err := r.cache.readFile(name)
	if err == nil {
		r.mu.Lock()
		r.files = addSource(r.files, Source{Name: shown, Data: data})
		r.mu.Unlock()
	}
	return data, err
}

// addSource appends src to files unless it is there already.
func addSource(files []Source, src Source) []Source {
	for _, f := range files {
		if f.Name == src.Name && bytes.Equal(f.Data, src.Data) {
			return files
		}
	}
	return append(files, src)
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
