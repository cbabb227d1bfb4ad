package main

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// temporaries are the temporary files of outputs not yet committed, so a
// hard exit (a second interrupt) can remove them.
var temporaries sync.Map

func removeTemporaries() {
	temporaries.Range(func(name, _ any) bool {
		os.Remove(name.(string))
		return true
	})
}

// atomicFile is an output file that appears complete or not at all: it is
// written to a temporary file beside the target and renamed into place on
// Commit. A failed or interrupted command leaves no half-written output.
type atomicFile struct {
	*os.File
	target string
	done   bool
}

func createAtomic(target string) (*atomicFile, error) {
	dir := filepath.Dir(target)
	f, err := os.CreateTemp(dir, "."+filepath.Base(target)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("cannot write %s: %w", target, unwrapPath(err))
	}
	temporaries.Store(f.Name(), true)
	return &atomicFile{File: f, target: target}, nil
}

// Commit flushes and renames the file into place.
func (a *atomicFile) Commit() error {
	if a.done {
		return nil
	}
	a.done = true
	defer temporaries.Delete(a.File.Name())
	// CreateTemp makes the file private; outputs are ordinary files.
	if err := a.File.Chmod(0o644); err != nil {
		a.File.Close()
		os.Remove(a.File.Name())
		return fmt.Errorf("cannot write %s: %w", a.target, err)
	}
	if err := a.File.Sync(); err != nil {
		a.File.Close()
		os.Remove(a.File.Name())
		return fmt.Errorf("cannot write %s: %w", a.target, err)
	}
	if err := a.File.Close(); err != nil {
		os.Remove(a.File.Name())
		return fmt.Errorf("cannot write %s: %w", a.target, err)
	}
	if err := os.Rename(a.File.Name(), a.target); err != nil {
		os.Remove(a.File.Name())
		return fmt.Errorf("cannot write %s: %w", a.target, err)
	}
	return nil
}

// Abort discards the file; it is a no-op after Commit, so it can be deferred.
func (a *atomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	defer temporaries.Delete(a.File.Name())
	a.File.Close()
	os.Remove(a.File.Name())
}

// writeAtomic writes data to target atomically.
func writeAtomic(target string, data []byte) error {
	f, err := createAtomic(target)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return fmt.Errorf("cannot write %s: %w", target, err)
	}
	return f.Commit()
}

func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
