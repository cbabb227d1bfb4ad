package calibration

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// MaxLineBytes is the longest input line that is parsed. A longer line is
// reported as malformed and skipped without being held in memory, so one
// runaway line (a binary file, a log without newlines) cannot exhaust memory.
const MaxLineBytes = 1 << 20

// MaxLines bounds the lines read of one file and MaxValues the values kept
// of all: a few kilobytes of gzip stand for gigabytes of repeated lines,
// and a fit needs far fewer values than this to settle.
const (
	MaxLines  = 50_000_000
	MaxValues = 2_000_000
)

// gzipMagic opens every gzip stream (RFC 1952, section 2.3.1). k6 writes its
// CSV and JSON outputs gzipped when the file name ends in .gz, and rotated
// logs are usually gzipped, so inputs are decompressed whatever their name.
var gzipMagic = []byte{0x1f, 0x8b}

// Decompress returns r itself, or a reader of its decompressed content when r
// holds a gzip stream.
func Decompress(r io.Reader) (io.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	head, err := br.Peek(len(gzipMagic))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	if bytes.Equal(head, gzipMagic) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, gzipFault(err)
		}
		zbr := bufio.NewReaderSize(gzipBody{zr}, 64<<10)
		return zbr, skipBOM(zbr)
	}
	return br, skipBOM(br)
}

// ErrBadGzip is what every error reading a gzip stream that is cut short
// or corrupt satisfies: what the file holds is wrong, not the reading of
// it, and the message says so instead of a bare "unexpected EOF".
var ErrBadGzip = errors.New("bad gzip stream")

type gzipError struct{ err error }

func (e *gzipError) Error() string {
	if errors.Is(e.err, io.ErrUnexpectedEOF) {
		return "the gzip stream ends early: the file is truncated"
	}
	return "the gzip stream is corrupt: " + e.err.Error()
}

func (e *gzipError) Is(target error) bool { return target == ErrBadGzip }
func (e *gzipError) Unwrap() error        { return e.err }

// gzipFault marks err as a fault of the gzip stream when it is one; an
// error of the file beneath it (a read that failed) stays as it is.
func gzipFault(err error) error {
	var corrupt flate.CorruptInputError
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, gzip.ErrHeader) || errors.Is(err, gzip.ErrChecksum) || errors.As(err, &corrupt) {
		return &gzipError{err}
	}
	return err
}

// gzipBody is a gzip stream's content, its faults told as gzipFault does.
type gzipBody struct{ zr *gzip.Reader }

func (g gzipBody) Read(p []byte) (int, error) {
	n, err := g.zr.Read(p)
	if err != nil && err != io.EOF {
		err = gzipFault(err)
	}
	return n, err
}

// utf8BOM is the byte order mark some Windows tools begin a text file with.
var utf8BOM = []byte{0xef, 0xbb, 0xbf}

// skipBOM drops a UTF-8 byte order mark at the start: left in, it would
// be the first character of the first field, and a format or a header
// would not be recognised.
func skipBOM(br *bufio.Reader) error {
	// A stream shorter than the mark ends before it: that is no error
	// here, but an input to tell apart by what it holds (nothing, or a
	// value too short to have a header).
	head, err := br.Peek(len(utf8BOM))
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if bytes.Equal(head, utf8BOM) {
		_, err := br.Discard(len(utf8BOM))
		return err
	}
	return nil
}

// OpenFile opens path for reading, decompressing it when it is gzipped.
func OpenFile(path string) (io.Reader, func() error, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	return DecompressFile(f, path)
}

// DecompressFile is Decompress of a file already open, for a caller that
// opens it its own way: it returns the reader and what closes the file,
// or closes the file itself and names it in the error.
func DecompressFile(f *os.File, name string) (io.Reader, func() error, error) {
	r, err := Decompress(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("%s: %w", name, err)
	}
	return r, f.Close, nil
}

// lineReader yields the lines of a stream, numbered from 1, without their
// line terminators ("\n" or "\r\n").
type lineReader struct {
	br   *bufio.Reader
	n    int
	buf  []byte
	done bool
}

func newLineReader(r io.Reader) *lineReader {
	br, ok := r.(*bufio.Reader)
	if !ok || br.Size() < 64<<10 {
		br = bufio.NewReaderSize(r, 64<<10)
	}
	return &lineReader{br: br}
}

// next returns the next line and its number. tooLong reports a line longer
// than MaxLineBytes, whose content is not returned. At the end of the input
// next returns io.EOF; a last line without a terminator is still a line.
// The returned slice is only valid until the next call.
func (lr *lineReader) next() (line []byte, num int, tooLong bool, err error) {
	if lr.done {
		return nil, lr.n, false, io.EOF
	}
	lr.buf = lr.buf[:0]
	for {
		chunk, err := lr.br.ReadSlice('\n')
		if !tooLong {
			if len(lr.buf)+len(chunk) > MaxLineBytes+2 {
				tooLong = true
				lr.buf = lr.buf[:0]
			} else {
				lr.buf = append(lr.buf, chunk...)
			}
		}
		switch {
		case err == nil:
			lr.n++
			return trimEOL(lr.buf), lr.n, tooLong, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case errors.Is(err, io.EOF):
			lr.done = true
			if len(lr.buf) == 0 && !tooLong {
				return nil, lr.n, false, io.EOF
			}
			lr.n++
			return trimEOL(lr.buf), lr.n, tooLong, nil
		default:
			return nil, lr.n, false, err
		}
	}
}

func trimEOL(b []byte) []byte {
	b = bytes.TrimSuffix(b, []byte("\n"))
	return bytes.TrimSuffix(b, []byte("\r"))
}

// NotRegular is the error refusing name, whose mode is m, when it is not a
// regular file (nil when it is): the one wording of every command that
// reads a file twice or whole, where a device never ends and a named pipe
// blocks the open.
func NotRegular(name string, m fs.FileMode) error {
	if m.IsRegular() {
		return nil
	}
	return fmt.Errorf("cannot read %s: %s, not a regular file", name, FileKind(m))
}

// FileKind says in words what a file that is not a regular one is, for
// the messages that refuse it.
func FileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "not a regular file"
}
