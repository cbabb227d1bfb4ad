package model

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"strings"
)

// MaxFileSize bounds every file a scenario is made of: the scenario, its
// includes and its empirical data. The largest real one is a calibration
// fit of a few kilobytes; 64 MB is room for an empirical file of millions
// of samples, and a bound for a file that never ends (/dev/zero).
const MaxFileSize = 64 << 20

// fileError is a file that capsim refuses to read; its text completes
// "cannot read NAME: ".
type fileError struct{ msg string }

func (e *fileError) Error() string { return e.msg }

// readRegular reads a regular file of at most MaxFileSize bytes. Anything
// else is refused before it is opened: a device reads forever and a FIFO
// blocks the open until someone writes to it.
func readRegular(fsys fs.FS, name string) ([]byte, error) {
	st, err := fs.Stat(fsys, name)
	if err != nil {
		return nil, err
	}
	if err := regular(st); err != nil {
		return nil, err
	}
	f, err := fsys.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	// The file may have been replaced since the Stat: check what was
	// opened, and read no more than the bound in any case.
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if err := regular(st); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxFileSize {
		return nil, tooLarge()
	}
	return data, nil
}

func regular(st fs.FileInfo) error {
	m := st.Mode()
	if m.IsRegular() {
		if st.Size() > MaxFileSize {
			return tooLarge()
		}
		return nil
	}
	what := "not a regular file"
	switch {
	case m.IsDir():
		what = "a folder"
	case m&fs.ModeNamedPipe != 0:
		what = "a named pipe"
	case m&fs.ModeSocket != 0:
		what = "a socket"
	case m&fs.ModeDevice != 0:
		what = "a device"
	}
	return &fileError{what + ", not a regular file; capsim reads scenarios and the files they name only from regular files"}
}

func tooLarge() error {
	return &fileError{fmt.Sprintf("larger than %d MB, the most capsim reads of a scenario or a file it names", MaxFileSize>>20)}
}

// besideRule is the rule for the files a scenario names (includes and
// empirical data), said in every message about it.
const besideRule = "a scenario names its files by relative paths inside its folder, and a symlink among them must lead inside it too"

// checkBeside refuses a path written in a scenario that leaves the
// scenario's folder: the scenario may come from elsewhere, and must not be
// able to read (and copy into a sweep's manifest) any file on the machine.
func checkBeside(p string) error {
	switch {
	case p == "":
		return &fileError{"no file named; " + besideRule}
	case path.IsAbs(p) || strings.HasPrefix(p, `\`) || len(p) > 1 && p[1] == ':':
		return &fileError{fmt.Sprintf("%s is an absolute path; %s", p, besideRule)}
	case strings.Contains(p, `\`):
		return &fileError{fmt.Sprintf("%s uses \\; write paths with /, as %s", p, besideRule)}
	}
	if c := path.Clean(p); c == ".." || strings.HasPrefix(c, "../") {
		return &fileError{fmt.Sprintf("%s is outside the scenario's folder; %s", p, besideRule)}
	}
	return nil
}

// maxLinks bounds the symlinks followed to resolve one name, as a kernel
// does, so a cycle of links ends.
const maxLinks = 40

// checkLinks resolves the symlinks on the way to name in fsys and refuses
// one that leads out of it. A file system without symlinks (an embedded
// one) passes as it is.
func checkLinks(fsys fs.FS, name string) error {
	lfs, ok := fsys.(fs.ReadLinkFS)
	if !ok {
		return nil
	}
	rest := strings.Split(name, "/")
	done := "."
	for hops := 0; len(rest) > 0; {
		next := path.Join(done, rest[0])
		rest = rest[1:]
		st, err := lfs.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // reading it says so
			}
			return err
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			done = next
			continue
		}
		if hops++; hops > maxLinks {
			return &fileError{fmt.Sprintf("more than %d symlinks on the way to %s", maxLinks, name)}
		}
		target, err := lfs.ReadLink(next)
		if err != nil {
			return err
		}
		to := path.Join(done, target)
		if path.IsAbs(target) || to == ".." || strings.HasPrefix(to, "../") {
			return &fileError{fmt.Sprintf("the symlink %s leads to %s, outside the scenario's folder; %s", next, target, besideRule)}
		}
		rest = append(strings.Split(to, "/"), rest...)
		done = "."
	}
	return nil
}
