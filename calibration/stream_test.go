package calibration

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"testing"
)

// nginxStream generates an nginx combined log with $request_time appended,
// line by line, without ever holding more than one line: a stand-in for a
// large production log.
type nginxStream struct {
	size, written int64
	n             int
	line          []byte
}

func (s *nginxStream) Read(p []byte) (int, error) {
	if s.written >= s.size && len(s.line) == 0 {
		return 0, io.EOF
	}
	if len(s.line) == 0 {
		s.n++
		path := "/api/trips/42"
		if s.n%100 == 0 {
			path = "/api/trips/42/photos"
		}
		s.line = []byte(fmt.Sprintf("10.0.12.31 - - [29/Sep/2025:14:%02d:%02d +0900] \"POST %s HTTP/1.1\" 200 599 \"-\" \"k6/1.3.0\" %d.%03d %d.%03d 31178145c5a3e62ebb310c17c889c1c3\n",
			(s.n/60)%60, s.n%60, path, 1+s.n%7, s.n%1000, 1+s.n%7, s.n%997))
	}
	k := copy(p, s.line)
	s.line = s.line[k:]
	s.written += int64(k)
	return k, nil
}

// A 100 MB log streams through in bounded memory: the heap holds the
// values kept (here 1 line in 100 matches the route) and a line buffer,
// not the file.
func TestLargeLogStreamsInBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("reads 100 MB")
	}
	r, err := NewReader(Options{Format: FormatNginxCombined, Filter: Filter{Route: "/api/trips/*/photos"}})
	if err != nil {
		t.Fatal(err)
	}
	// A soft memory limit makes the collector keep up with the reader's
	// garbage however loaded the machine is; what the heap then takes is
	// what the reader keeps alive, which a reader that held the log could
	// not fit under the bound.
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(16 << 20))
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	src := &nginxStream{size: 100 << 20}
	if err := r.Read("big.log", src); err != nil {
		t.Fatal(err)
	}
	runtime.ReadMemStats(&after)
	s, err := r.Sample()
	if err != nil {
		t.Fatal(err)
	}
	lines := s.Stats[0].Lines
	if want := src.n / 100; len(s.Values) != want || lines != src.n {
		t.Fatalf("kept %d values of %d lines, want %d of %d", len(s.Values), lines, want, src.n)
	}
	// HeapSys is what the heap took from the system at its largest; the
	// log is 100 MB, the values kept about 0.1 MB. The second reading can
	// be the smaller (one run of the package's tests read less after than
	// before), so the difference is signed: unsigned, that shrink wrapped
	// round to 16 EB and failed the test.
	const bound = 32 << 20
	if grew := int64(after.HeapSys) - int64(before.HeapSys); grew > bound {
		t.Fatalf("reading 100 MB grew the heap by %d MB (from %d MB to %d MB), above %d MB",
			grew>>20, before.HeapSys>>20, after.HeapSys>>20, bound>>20)
	}
}
