package main

import (
	"fmt"
	"io"
	"os"

	"capsim/calibration"
	"capsim/model"
)

// openRegular opens a file capsim reads back, refusing anything but a
// regular file before opening it: a device never ends and a named pipe
// blocks the open until something writes to it.
func openRegular(name string) (*os.File, error) {
	st, err := os.Stat(name)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", name, unwrapPath(err))
	}
	if err := calibration.NotRegular(name, st.Mode()); err != nil {
		return nil, err
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", name, unwrapPath(err))
	}
	return f, nil
}

// readRegular reads a regular file of at most model.MaxFileSize bytes; a
// missing one reads as nothing, with an error satisfying fs.ErrNotExist.
func readRegular(name string) ([]byte, error) {
	f, err := openRegular(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, model.MaxFileSize+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read %s: %w", name, unwrapPath(err))
	}
	if len(data) > model.MaxFileSize {
		return nil, fmt.Errorf("cannot read %s: larger than %d MB", name, model.MaxFileSize>>20)
	}
	return data, nil
}

// isRegular reports whether name is a regular file, which can be read
// more than once (a pipe cannot).
func isRegular(name string) bool {
	st, err := os.Stat(name)
	return err == nil && st.Mode().IsRegular()
}

// checkRegular refuses, before anything opens it, a file that is not a
// regular one of at most model.MaxFileSize bytes.
func checkRegular(name string) error {
	st, err := os.Stat(name)
	switch {
	case err != nil:
		return nil // opening it says why
	case !st.Mode().IsRegular():
		return calibration.NotRegular(name, st.Mode())
	case st.Size() > model.MaxFileSize:
		return fmt.Errorf("cannot read %s: larger than %d MB", name, model.MaxFileSize>>20)
	}
	return nil
}

// sameFileTwice refuses an input file given twice, by any path: its lines
// would count twice, and every rate, time and fit judged on twice the
// evidence.
func sameFileTwice(files []string) error {
	seen := make([]os.FileInfo, len(files))
	for i, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			continue // reported where the file is read
		}
		for j := range i {
			if seen[j] != nil && os.SameFile(seen[j], st) {
				return usageErr("%s and %s are the same file: its records would count twice; give each file once", files[j], f)
			}
		}
		seen[i] = st
	}
	return nil
}
