package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
)

// interrupted is set by the first interrupt: an output folder not yet
// committed then is not committed at all (outDir.Commit).
var interrupted atomic.Bool

// temporaries are the temporary files and folders of outputs not yet
// committed, so a hard exit (a second interrupt) can remove them.
var temporaries sync.Map

func removeTemporaries() {
	temporaries.Range(func(name, _ any) bool {
		os.RemoveAll(name.(string))
		return true
	})
}

// tempPattern is how every temporary of capsim's is named: hidden, beside
// its target, after it. Only names of this pattern are ever cleaned up.
func tempPattern(target string) string {
	return "." + filepath.Base(target) + ".tmp-"
}

// removeStale removes the temporaries beside target that no live capsim
// holds: those a killed one left. Each temporary file is locked by its
// writer for as long as it lives, so one that can be locked is orphaned.
func removeStale(target string) {
	if !locksWork {
		return
	}
	dir := filepath.Dir(target)
	found, _ := filepath.Glob(filepath.Join(dir, globEscape(tempPattern(target))+"*"))
	for _, name := range found {
		f, err := os.Open(name)
		if err != nil {
			continue
		}
		if tryLock(f) {
			// A folder set aside by a commit that was killed before the
			// new folder took its place is the only copy: it goes back.
			if _, err := os.Stat(target); strings.HasSuffix(name, ".old") && errors.Is(err, fs.ErrNotExist) {
				if os.Rename(name, target) == nil {
					f.Close()
					continue
				}
			}
			os.RemoveAll(name)
		}
		f.Close()
	}
}

// globEscape quotes the characters filepath.Glob treats specially.
func globEscape(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteRune('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// atomicFile is an output file that appears complete or not at all: it is
// written to a temporary file beside the target and renamed into place on
// Commit. A failed or interrupted command leaves no half-written output.
//
// A target that exists and is not a regular file (a device such as
// /dev/null, a named pipe) is written directly instead: renaming over it
// would replace the device or pipe with a file. A symlink is followed, and
// what it points to is replaced.
type atomicFile struct {
	*os.File
	target string
	direct bool
	done   bool
}

func createAtomic(target string) (*atomicFile, error) {
	if st, err := os.Lstat(target); err == nil && st.Mode()&os.ModeSymlink != 0 {
		if real, err := filepath.EvalSymlinks(target); err == nil {
			return createAtomic(real)
		}
	}
	if st, err := os.Stat(target); err == nil {
		switch {
		case st.IsDir():
			return nil, fmt.Errorf("cannot write %s: it is a folder; name a file", target)
		case !st.Mode().IsRegular():
			f, err := os.OpenFile(target, os.O_WRONLY, 0)
			if err != nil {
				return nil, fmt.Errorf("cannot write %s: %w", target, unwrapPath(err))
			}
			return &atomicFile{File: f, target: target, direct: true}, nil
		}
	}
	removeStale(target)
	f, err := os.CreateTemp(filepath.Dir(target), tempPattern(target)+"*")
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", target, unwrapPath(err))
	}
	tryLock(f) // new, so surely ours: it tells removeStale the file is alive
	temporaries.Store(f.Name(), true)
	return &atomicFile{File: f, target: target}, nil
}

// Commit flushes and renames the file into place.
func (a *atomicFile) Commit() error {
	if a.done {
		return nil
	}
	a.done = true
	if a.direct {
		if err := a.File.Close(); err != nil {
			return fmt.Errorf("cannot write %s: %w", a.target, unwrapPath(err))
		}
		return nil
	}
	defer temporaries.Delete(a.File.Name())
	fail := func(err error) error {
		a.File.Close()
		os.Remove(a.File.Name())
		return fmt.Errorf("cannot write %s: %w", a.target, unwrapPath(err))
	}
	// CreateTemp makes the file private; outputs are ordinary files.
	if err := a.File.Chmod(0o644); err != nil {
		return fail(err)
	}
	if err := a.File.Sync(); err != nil {
		return fail(err)
	}
	// Renamed before it is closed, so the lock that marks it alive is held
	// until it has its final name.
	if err := os.Rename(a.File.Name(), a.target); err != nil {
		return fail(err)
	}
	if err := a.File.Close(); err != nil {
		return fmt.Errorf("cannot write %s: %w", a.target, unwrapPath(err))
	}
	return nil
}

// Abort discards the file; it is a no-op after Commit, so it can be
// deferred. A target written directly keeps what was written.
func (a *atomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.File.Close()
	if !a.direct {
		temporaries.Delete(a.File.Name())
		os.Remove(a.File.Name())
	}
}

// writeAtomic writes data to target atomically.
func writeAtomic(target string, data []byte) error {
	f, err := createAtomic(target)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("cannot write %s: %w", target, unwrapPath(err))
	}
	return f.Commit()
}

// refuseInput refuses an output that is one of the files a command reads:
// writing it would destroy the input, and with it the means to repeat the
// command. Inputs that are not files on disk (embedded scenarios) pass.
func refuseInput(flag, target string, inputs []string) error {
	out, err := os.Stat(target)
	if err != nil {
		return nil
	}
	for _, in := range inputs {
		if st, err := os.Stat(in); err == nil && os.SameFile(out, st) {
			return usageErr("%s %s: it is %s, an input of this command; name another file", flag, target, in)
		}
	}
	return nil
}

// sameOutput reports whether the output names a and b are one file,
// however spelled: by identity when both exist, else by their absolute
// paths with the symlinks of what exists resolved.
func sameOutput(a, b string) bool {
	sa, aerr := os.Stat(a)
	sb, berr := os.Stat(b)
	if aerr == nil && berr == nil {
		return os.SameFile(sa, sb)
	}
	return resolvedPath(a) == resolvedPath(b)
}

// within reports whether name is the folder dir or inside it, however
// either is spelled.
func within(name, dir string) bool {
	rel, err := filepath.Rel(resolvedPath(dir), resolvedPath(name))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// resolvedPath is name made absolute with the symlinks of its longest
// existing prefix resolved: what it will name once created.
func resolvedPath(name string) string {
	abs, err := filepath.Abs(name)
	if err != nil {
		return filepath.Clean(name)
	}
	return resolveExisting(abs)
}

func resolveExisting(abs string) string {
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	parent := filepath.Dir(abs)
	if parent == abs {
		return abs
	}
	return filepath.Join(resolveExisting(parent), filepath.Base(abs))
}

// refuseSameOutputs refuses two outputs that are one file: the one
// written last would replace the other. Unset outputs ("") pass.
func refuseSameOutputs(outs ...[2]string) error {
	for i, o := range outs {
		if o[1] == "" {
			continue
		}
		for _, earlier := range outs[:i] {
			if earlier[1] != "" && sameOutput(earlier[1], o[1]) {
				return usageErr("%s %s: it is the %s file too; name another file", o[0], o[1], earlier[0])
			}
		}
	}
	return nil
}

func unwrapPath(err error) error {
	switch e := err.(type) {
	case *os.PathError:
		return e.Err
	case *os.LinkError:
		return e.Err
	}
	return err
}
