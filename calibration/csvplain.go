package calibration

import (
	"bytes"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Columns of a plain CSV recognised by name, besides the value column.
var (
	csvTimeCols   = []string{"timestamp", "time", "ts", "@timestamp", "start_time"}
	csvPathCols   = []string{"route", "path", "url", "uri", "name"}
	csvStatusCols = []string{"status", "status_code"}
)

// plainCSVSeparator is a plain CSV's separator as its header line shows
// it: a comma, or a semicolon or tab when the header has those and no comma
// (the usual spreadsheet exports).
func plainCSVSeparator(header []byte) rune {
	switch {
	case bytes.ContainsRune(header, ','):
		return ','
	case bytes.ContainsRune(header, ';'):
		return ';'
	case bytes.ContainsRune(header, '\t'):
		return '\t'
	}
	return ','
}

// splitCSVHeader splits a CSV header line into its names and the column of
// each name, spaces around it trimmed.
func splitCSVHeader(name string, num int, line []byte, sep rune) ([]string, map[string]int, error) {
	names, err := splitCSVLine(line, sep)
	if err != nil {
		return nil, nil, fmt.Errorf("%s:%d: header: %v", name, num, err)
	}
	cols := make(map[string]int, len(names))
	for i, c := range names {
		cols[strings.TrimSpace(c)] = i
	}
	return names, cols, nil
}

// readCSV reads a plain CSV file with a header line. The separator is a
// comma, or a semicolon or tab when the header has those and no comma (the
// usual spreadsheet exports). Values are numbers in the column's unit or
// durations with their own unit ("40s").
func (r *Reader) readCSV(name string, lr *lineReader, fs *FileStats) error {
	var (
		cols                 map[string]int
		header               []string
		iVal, iTime, iStatus int
		iPath                int
		sep                  rune = ','
		unit                 Unit
	)
	for {
		line, num, ok, err := r.nextLine(name, lr, fs)
		if !ok {
			return err
		}
		if line[0] == '#' {
			continue
		}
		if cols == nil {
			sep = plainCSVSeparator(line)
			if header, cols, err = splitCSVHeader(name, num, line, sep); err != nil {
				return err
			}
			if iVal, err = r.csvValueColumn(name, num, header, cols); err != nil {
				return err
			}
			iTime, iPath, iStatus = firstCol(cols, csvTimeCols), firstCol(cols, csvPathCols), firstCol(cols, csvStatusCols)
			col := strings.TrimSpace(header[iVal])
			switch u, ok := unitFromName(col); {
			case r.opts.Unit != 0:
				unit = r.opts.Unit
			case ok:
				unit = u
			default:
				unit = 1
				r.note("column %s has no unit in its name; its numbers were read as seconds (pass a unit to override)", col)
			}
			continue
		}
		fields, err := splitCSVLine(line, sep)
		if err != nil {
			r.malformed(name, fs, num, "%v", err)
			continue
		}
		if len(fields) != len(header) {
			r.malformed(name, fs, num, "%d fields where the header has %d", len(fields), len(header))
			continue
		}
		rec := record{time: math.NaN()}
		if s := strings.TrimSpace(fields[iVal]); s != "" && s != "-" && !strings.EqualFold(s, "NA") {
			v, err := parseDurationValue(s, unit)
			if err != nil {
				r.malformed(name, fs, num, "%s: %v", header[iVal], err)
				continue
			}
			rec.value, rec.hasValue = v, true
		}
		if iTime >= 0 && strings.TrimSpace(fields[iTime]) != "" {
			t, err := parseTimestamp(fields[iTime])
			if err != nil {
				r.malformed(name, fs, num, "%s: %v", header[iTime], err)
				continue
			}
			rec.time = t
		}
		if iPath >= 0 {
			rec.path = urlPath(fields[iPath])
		}
		if iStatus >= 0 {
			rec.status, _ = strconv.Atoi(strings.TrimSpace(fields[iStatus]))
		}
		rec.tag = func(key string) (string, bool) {
			i, ok := cols[key]
			if !ok {
				return "", false
			}
			return fields[i], true
		}
		r.add(name, fs, num, &rec)
	}
}

// csvValueColumn finds the column to read: the one named by Options.Column,
// or the only column there is.
func (r *Reader) csvValueColumn(name string, line int, header []string, cols map[string]int) (int, error) {
	col := r.opts.Column
	if col == "" {
		if len(header) == 1 {
			r.opts.Column = strings.TrimSpace(header[0])
			return 0, nil
		}
		return 0, fmt.Errorf("%s:%d: the CSV has columns %s: name the one to read with %s", name, line, someColumns(header), calibrateFlags.Column)
	}
	i, ok := cols[col]
	if !ok {
		return 0, fmt.Errorf("%s:%d: no column %q; the header has %s", name, line, col, someColumns(header))
	}
	return i, nil
}

// listedColumns is how many of a header's names a message lists: a wide
// export (thousands of columns) once made a message of tens of kilobytes.
const listedColumns = 20

// someColumns lists a header's names for a message, the first
// listedColumns of a longer one with how many there are in all.
func someColumns(header []string) string {
	if len(header) <= listedColumns {
		return strings.Join(header, ", ")
	}
	return strings.Join(header[:listedColumns], ", ") + fmt.Sprintf(", … (%d in all)", len(header))
}

func firstCol(cols map[string]int, names []string) int {
	for _, n := range names {
		if i, ok := cols[n]; ok {
			return i
		}
	}
	return -1
}
