package model

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"strconv"

	"capsim/sim"
)

// signalUnits is the unit of each sampled signal's measure (see Signal):
// its CSV measure name is the signal's with the unit's suffix.
var signalUnits = map[string]Unit{
	"journeys_in_flight": UnitCount,
	"busy":               UnitCount,
	"queue":              UnitCount,
	"sessions":           UnitCount,
	"open":               UnitCount,
	"running":            UnitCount,
	"rate":               UnitPerSecond, // a bucket's refill, tokens per second
}

// SeriesCSVHeader is the first line of WriteCSV's table.
var SeriesCSVHeader = []string{"time_s", "kind", "name", "measure", "value"}

// WriteCSV writes the series as a tidy table, one row per sample of each
// signal, in time order: time_s, kind (run for journeys_in_flight,
// component otherwise), name (empty for the run), measure, value. A
// component that counts what is in use also has busy_s, its busy-seconds
// from the start (or the warmup's end) to the sample: the mean in use
// over any window is the difference of two rows over the window's length,
// exactly, where the instant's busy_count aliases with work shorter than
// the step. Numbers are written in full (shortest round-trip form), so a
// reader recomputes the run's own figures to the last bit.
func (ts *TimeSeries) WriteCSV(w io.Writer) error {
	type column struct {
		kind, name, measure string
		values              []float64
	}
	var cols []column
	n := 0
	for _, s := range ts.Signals {
		u, ok := signalUnits[s.Measure]
		if !ok {
			return fmt.Errorf("series %s: no unit known for measure %q", s.Name, s.Measure)
		}
		kind := SubjectComponent.Kind()
		if s.Component == "" {
			kind = SubjectRun.Kind()
		}
		cols = append(cols, column{kind, s.Component, s.Measure + u.Suffix(), s.Values})
		n = max(n, len(s.Values))
	}
	for _, s := range ts.BusyTime {
		cols = append(cols, column{SubjectComponent.Kind(), s.Component, s.Measure, s.Values})
		n = max(n, len(s.Values))
	}
	bw := bufio.NewWriter(w)
	cw := csv.NewWriter(bw)
	if err := cw.Write(SeriesCSVHeader); err != nil {
		return err
	}
	step := sim.Seconds(ts.Step)
	row := make([]string, 5)
	for i := range n {
		row[0] = strconv.FormatFloat((sim.Time(i) * step).Seconds(), 'g', -1, 64)
		for _, c := range cols {
			if i >= len(c.values) {
				continue
			}
			row[1], row[2], row[3] = c.kind, c.name, c.measure
			row[4] = ""
			if v := c.values[i]; !math.IsNaN(v) && !math.IsInf(v, 0) {
				row[4] = strconv.FormatFloat(v, 'g', -1, 64)
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}
