package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/sync/errgroup"
)

// sweepNames are the entries a sweep writes in its folder. A folder
// holding anything else is not replaced: it is not an earlier sweep's.
var sweepNames = []string{"runs.csv", "summary.csv", "compare.csv", "first_failure.csv", "verdicts.csv", "manifest.json",
	"report.md", "report.html", "charts", "diagram.svg"}

// sensitivityNames are the entries capsim sensitivity writes in its folder.
var sensitivityNames = []string{"sensitivity.csv", "charts"}

// outputMarker is the file every output folder capsim writes carries,
// naming the command that wrote it. Only a folder that has it (or an
// empty one) is ever replaced: names that merely look like capsim's
// (a user's own runs.csv) are not a sign the folder is capsim's to delete.
const outputMarker = ".capsim-output"

// outDir is a sweep's output folder as it is written: every file goes into
// a staging folder beside it, which replaces the folder in one step on
// Commit. A sweep that fails, is killed or runs out of disk leaves the
// earlier folder as it was, never a mix of old and new files, and a file
// an earlier sweep wrote but this one does not (compare.csv, a chart) goes
// with the old folder.
type outDir struct {
	flag   string // the folder as given, for messages
	target string // the folder, symlinks resolved
	stage  string
	lock   *os.File // beside the folder, held for the whole sweep
	held   *os.File // the staging folder, locked while it is alive
}

func createOutDir(dir string) (*outDir, error) { return createOutDirOf(dir, sweepNames, "a sweep") }

// createOutDirOf is createOutDir for a command that writes the entries
// names; who names it in messages ("a sweep").
func createOutDirOf(dir string, names []string, who string) (*outDir, error) {
	o := &outDir{flag: dir}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, usageErr("--out %s: %v", dir, err)
	}
	if err := refuseBrokenLink(dir, abs); err != nil {
		return nil, err
	}
	// A symlink to a folder is followed: the folder it names is replaced
	// and the symlink is left as it was, still naming the new folder.
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	parent, base := filepath.Dir(abs), filepath.Base(abs)
	if parent == abs {
		return nil, usageErr("--out %s: %s replaces its folder whole; name a folder of its own", dir, who)
	}
	o.target = abs
	if wd, err := os.Getwd(); err == nil {
		if real, err := filepath.EvalSymlinks(wd); err == nil {
			wd = real
		}
		if rel, err := filepath.Rel(abs, wd); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
			// Replacing it would leave the shell that ran capsim in a
			// folder that no longer exists.
			return nil, usageErr("--out %s is the folder capsim runs in, or holds it; %s replaces its folder whole, so name a folder of its own", dir, who)
		}
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, ioErr("--out %s: cannot create the output folder: %v", dir, unwrapPath(err))
	}
	if err := checkOurs(dir, abs, names, who); err != nil {
		return nil, err
	}
	lockName := filepath.Join(parent, "."+base+".lock")
	lock, ok, err := lockBeside(lockName)
	if err != nil {
		return nil, ioErr("--out %s: cannot write in %s: %v", dir, parent, unwrapPath(err))
	}
	if !ok {
		return nil, usageErr("--out %s: another sweep is writing this folder (it holds %s); wait for it, or choose another --out", dir, lockName)
	}
	o.lock = lock
	// Under the lock no other sweep stages here: every staging folder
	// beside this one was left by a sweep that was killed.
	removeStale(abs)
	if o.stage, err = os.MkdirTemp(parent, tempPattern(abs)); err != nil {
		o.release()
		return nil, ioErr("--out %s: cannot write in %s: %v", dir, parent, unwrapPath(err))
	}
	temporaries.Store(o.stage, true)
	os.Chmod(o.stage, 0o755) // MkdirTemp makes it private; the output is an ordinary folder
	if o.held, err = os.Open(o.stage); err == nil {
		tryLock(o.held)
	}
	if err := os.Mkdir(filepath.Join(o.stage, "charts"), 0o755); err != nil {
		o.Abort()
		return nil, ioErr("--out %s: cannot write in %s: %v", dir, parent, unwrapPath(err))
	}
	if err := os.WriteFile(filepath.Join(o.stage, outputMarker), []byte("written by capsim: "+who+"\n"), 0o644); err != nil {
		o.Abort()
		return nil, ioErr("--out %s: cannot write in %s: %v", dir, parent, unwrapPath(err))
	}
	return o, nil
}

// refuseBrokenLink refuses an --out whose path goes through a symlink that
// leads nowhere (or round in a loop). The folder would be staged beside
// the symlink and could not be renamed over it: the command would do all
// its work and then fail. It is checked before any of that work.
func refuseBrokenLink(flag, abs string) error {
	p := abs
	for {
		st, err := os.Lstat(p)
		if err == nil {
			if st.Mode()&os.ModeSymlink == 0 {
				return nil
			}
			break
		}
		if filepath.Dir(p) == p {
			return nil
		}
		p = filepath.Dir(p)
	}
	_, err := os.Stat(p)
	if err == nil {
		// It leads somewhere; what is missing below it is created.
		return nil
	}
	link := flag
	if p != abs {
		link = p
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return usageErr("--out %s: the symlink %s leads nowhere: %v; name a folder, or a symlink to one", flag, printable(link), unwrapPath(err))
	}
	// Follow the chain of symlinks to the name that is missing, which is
	// the folder to create.
	dest := p
	for range 40 {
		d, err := os.Readlink(dest)
		if err != nil {
			break
		}
		if !filepath.IsAbs(d) {
			d = filepath.Join(filepath.Dir(dest), d)
		}
		dest = d
	}
	return usageErr("--out %s: the symlink %s leads to %s, which does not exist; create that folder, or name another --out",
		flag, printable(link), printable(dest))
}

// checkOurs refuses to replace a folder that holds files no sweep writes:
// replacing it would delete them.
func checkOurs(flag, dir string, names []string, who string) error {
	st, err := os.Stat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return ioErr("--out %s: %v", flag, unwrapPath(err))
	}
	if !st.IsDir() {
		return usageErr("--out %s: cannot create the output folder: it is a file", flag)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ioErr("--out %s: %v", flag, unwrapPath(err))
	}
	if len(entries) > 0 {
		if st, err := os.Lstat(filepath.Join(dir, outputMarker)); err != nil || !st.Mode().IsRegular() {
			return usageErr("--out %s is a folder capsim did not write (it has no %s); %s replaces its folder whole, so name a new or empty folder, or one %s wrote",
				flag, outputMarker, who, who)
		}
	}
	var foreign []string
	for _, e := range entries {
		if !slices.Contains(names, e.Name()) && e.Name() != outputMarker && !ourTemporary(e.Name(), names) {
			foreign = append(foreign, e.Name())
		}
	}
	if len(foreign) > 0 {
		if len(foreign) > 3 {
			foreign = append(foreign[:3], "...")
		}
		return usageErr("--out %s holds files %s does not write (%s); %s replaces its folder whole, so name a new or empty folder, or one %s wrote",
			flag, who, quoteNames(foreign), who, who)
	}
	return nil
}

// ourTemporary reports whether name is a temporary file a sweep wrote
// into its folder and was killed before it renamed: it goes with the old
// folder.
func ourTemporary(name string, names []string) bool {
	for _, n := range names {
		if strings.HasPrefix(name, tempPattern(n)) {
			return true
		}
	}
	return strings.HasPrefix(name, tempPattern("probe"))
}

func quoteNames(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = printable(n)
	}
	return strings.Join(out, ", ")
}

// path is where the file called name (slash-separated) is staged.
func (o *outDir) path(name string) string { return filepath.Join(o.stage, filepath.FromSlash(name)) }

// create opens a staged file for writing.
func (o *outDir) create(name string) (*os.File, error) {
	f, err := os.Create(o.path(name))
	if err != nil {
		return nil, o.writeErr(name, err)
	}
	return f, nil
}

func (o *outDir) writeErr(name string, err error) error {
	return fmt.Errorf("cannot write %s: %w", filepath.Join(o.flag, filepath.FromSlash(name)), unwrapPath(err))
}

// write stages one whole file, synced to disk.
func (o *outDir) write(name string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(o.path(name)), 0o755); err != nil {
		return o.writeErr(name, err)
	}
	f, err := o.create(name)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	if _, err := w.Write(data); err != nil {
		f.Close()
		return o.writeErr(name, err)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return o.writeErr(name, err)
	}
	return closeSynced(f, func(err error) error { return o.writeErr(name, err) })
}

// writeAll stages every one of files, then commits the folder. The files
// are written a few at a time: each waits for the disk (its Sync), and a
// sweep's report has dozens. An error names the first file in files'
// order that failed, whatever order they were written in.
func (o *outDir) writeAll(files []outFile) error {
	errs := make([]error, len(files))
	var g errgroup.Group
	g.SetLimit(8)
	for i, f := range files {
		g.Go(func() error {
			errs[i] = o.write(f.name, f.data)
			return nil
		})
	}
	g.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return o.Commit()
}

func closeSynced(f *os.File, wrap func(error) error) error {
	if err := f.Sync(); err != nil {
		f.Close()
		return wrap(err)
	}
	if err := f.Close(); err != nil {
		return wrap(err)
	}
	return nil
}

// Commit puts the staged folder in place of the old one: the old one is
// renamed aside, the new one renamed in, and the old one removed. Until
// the second rename the old folder is whole; after it the new one is.
func (o *outDir) Commit() error {
	if interrupted.Load() {
		// Interrupted while the files were written: the user asked to
		// stop, so the earlier folder stays as it was.
		o.Abort()
		return withCode(exitInterrupt, fmt.Errorf("interrupted; %s left as it was", o.flag))
	}
	defer o.release()
	aside := o.stage + ".old"
	_, err := os.Stat(o.target)
	exists := err == nil
	if exists {
		if err := os.Rename(o.target, aside); err != nil {
			o.Abort()
			return fmt.Errorf("cannot replace %s: %w", o.flag, unwrapPath(err))
		}
	}
	if err := os.Rename(o.stage, o.target); err != nil {
		if exists {
			os.Rename(aside, o.target)
		}
		o.Abort()
		return fmt.Errorf("cannot replace %s: %w", o.flag, unwrapPath(err))
	}
	temporaries.Delete(o.stage)
	if d, err := os.Open(filepath.Dir(o.target)); err == nil {
		d.Sync() // the renames themselves reach the disk
		d.Close()
	}
	if exists {
		os.RemoveAll(aside)
	}
	return nil
}

// Abort removes the staged folder; the old one stays as it was. It is a
// no-op after Commit, so it can be deferred.
func (o *outDir) Abort() {
	if o.stage == "" {
		return
	}
	if _, ok := temporaries.Load(o.stage); ok {
		temporaries.Delete(o.stage)
		os.RemoveAll(o.stage)
	}
	o.release()
}

func (o *outDir) release() {
	if o.held != nil {
		o.held.Close()
		o.held = nil
	}
	if o.lock != nil {
		// Removed while still held: a command that opened it meanwhile
		// finds, once it holds it, that the name now means another file
		// or none, and opens it again (lockBeside).
		os.Remove(o.lock.Name())
		o.lock.Close()
		o.lock = nil
	}
}

// lockBeside takes the lock file at name, created if need be, and reports
// false when another command holds it. A lock file is removed by the
// command that held it, so one taken after its holder removed it is
// stale: the name is opened again until the file held is the one named.
func lockBeside(name string) (*os.File, bool, error) {
	for {
		f, err := os.OpenFile(name, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, false, err
		}
		if !tryLock(f) {
			f.Close()
			return nil, false, nil
		}
		held, herr := f.Stat()
		named, nerr := os.Stat(name)
		if herr == nil && nerr == nil && os.SameFile(held, named) {
			return f, true, nil
		}
		f.Close()
	}
}
