// Package outfile writes the files a command was told to write without
// destroying anything it did not create: a file that exists is replaced
// only when the user asked for it, a report or model appears whole or not
// at all (written beside its name and renamed into place), and a device
// or pipe (/dev/null, /dev/stdout, a FIFO) is written in place, never
// truncated, renamed over or removed.
package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrExists is the error for an existing file that was not to be
// replaced.
var ErrExists = errors.New("exists")

// Check reports whether path may be written: a missing file in an
// existing folder, an empty file (one made for `tpsbench watch` to
// follow holds nothing to lose), a device or pipe, or, with replace, an
// existing regular file. Commands call it for every output before they start, so
// that nothing is measured into a file that cannot be written.
func Check(path string, replace bool) error {
	_, err := check(path, replace)
	return err
}

// check returns the file at path, or nil when there is none.
func check(path string, replace bool) (fs.FileInfo, error) {
	if path == "" {
		return nil, errors.New("no file name given")
	}
	st, err := os.Stat(path)
	if err != nil {
		// a missing file in a folder that exists is one to make
		dir := filepath.Dir(path)
		if d, derr := os.Stat(dir); derr != nil {
			return nil, fmt.Errorf("%s: folder %s: %w", path, dir, derr)
		} else if !d.IsDir() {
			return nil, fmt.Errorf("%s: %s is not a folder", path, dir)
		}
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	switch {
	case st.IsDir():
		return nil, fmt.Errorf("%s is a folder", path)
	case st.Mode().IsRegular() && st.Size() > 0 && !replace:
		return nil, fmt.Errorf("%s %w (--force replaces it)", path, ErrExists)
	}
	return st, nil
}

// File is an output being written. Write to it, then Commit to put it in
// place, or Abort to leave things as they were; Abort after Commit does
// nothing, so `defer f.Abort()` is safe.
type File struct {
	*os.File
	path    string
	temp    string // "" when writing in place (a device or pipe)
	replace bool
	empty   fs.FileInfo // the empty file at path when Create began, if one was
	done    bool
}

// Create starts writing path (Check's rules): a regular file goes to a
// temporary file in the same folder until Commit renames it into place.
func Create(path string, replace bool) (*File, error) {
	st, err := check(path, replace)
	if err != nil {
		return nil, err
	}
	if st != nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, err
		}
		return &File{File: f, path: path, replace: replace}, nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, fmt.Errorf("creating %s: %w", path, err)
	}
	mode := fs.FileMode(0o644)
	if st != nil {
		mode = st.Mode().Perm()
	}
	if err := f.Chmod(mode); err != nil && !errors.Is(err, errors.ErrUnsupported) {
		f.Close()
		os.Remove(f.Name())
		return nil, fmt.Errorf("creating %s: %w", path, err)
	}
	out := &File{File: f, path: path, temp: f.Name(), replace: replace}
	if st != nil && st.Size() == 0 {
		out.empty = st
	}
	return out, nil
}

// Commit closes the file and puts it in place of path. Unless Create was
// told to replace, a file that appeared at path since Create is left
// alone and Commit fails.
func (f *File) Commit() error {
	if f.done {
		return errors.New("output already committed or aborted")
	}
	f.done = true
	if err := f.File.Close(); err != nil {
		f.removeTemp()
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	if f.temp == "" {
		return nil
	}
	if !f.replace && !f.stillEmpty() {
		// a hard link does not replace what is there, as rename would
		err := os.Link(f.temp, f.path)
		if err == nil || errors.Is(err, fs.ErrExist) {
			f.removeTemp()
			if err != nil {
				return fmt.Errorf("%s %w: it appeared while writing (--force replaces it)", f.path, ErrExists)
			}
			return nil
		}
		// no hard links here (some file systems): check, then rename
		if _, err := os.Lstat(f.path); err == nil {
			f.removeTemp()
			return fmt.Errorf("%s %w: it appeared while writing (--force replaces it)", f.path, ErrExists)
		}
	}
	if err := os.Rename(f.temp, f.path); err != nil {
		f.removeTemp()
		return fmt.Errorf("writing %s: %w", f.path, err)
	}
	return nil
}

// stillEmpty reports whether path is the empty file it was at Create.
func (f *File) stillEmpty() bool {
	if f.empty == nil {
		return false
	}
	st, err := os.Stat(f.path)
	return err == nil && st.Size() == 0 && os.SameFile(st, f.empty)
}

// Abort closes the file and removes what Create made; the file at path,
// if any, is untouched.
func (f *File) Abort() {
	if f.done {
		return
	}
	f.done = true
	f.File.Close()
	f.removeTemp()
}

func (f *File) removeTemp() {
	if f.temp != "" {
		os.Remove(f.temp)
	}
}

// CreateStream opens path for a stream of records that must survive the
// writer (a run killed halfway keeps what it measured): written in place
// from the start, not renamed at the end. A regular file is made anew
// (O_EXCL) unless replace, when an existing one is truncated as asked; a
// device or pipe is opened for writing as it is.
func CreateStream(path string, replace bool) (*os.File, error) {
	st, err := check(path, replace)
	if err != nil {
		return nil, err
	}
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	switch {
	case st != nil && !st.Mode().IsRegular():
		flags = os.O_WRONLY
	case st != nil:
		flags = os.O_WRONLY | os.O_TRUNC
	}
	f, err := os.OpenFile(path, flags, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("%s %w (--force replaces it)", path, ErrExists)
	}
	return f, err
}
