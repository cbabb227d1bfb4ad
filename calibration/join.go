package calibration

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// sample computes the values of a measured plan entry from the rows of its
// sources (files[i] holds the rows of e.From[i]).
func (p *Plan) sample(e *PlanEntry, files []*rowFile) (*Sample, error) {
	srcs := make([]*PlanSource, len(e.From))
	for i, name := range e.From {
		srcs[i] = p.source(name)
	}
	// The source a field reference reads: a pair's from and to are both
	// records of its one source.
	srcOf := func(alias int) int {
		if alias < 0 || e.Pairs != nil || e.Difference != nil {
			return 0
		}
		return alias
	}
	// A field that no record holds is a name mistyped or a wrong file:
	// said once, rather than as every record skipped or as a unit the
	// name does not tell.
	refs := slices.Clone(e.Expr.Refs())
	if e.Per != "" {
		refs = append(refs, e.Per)
	}
	for _, ref := range refs {
		alias, field, _ := e.resolveRef(ref)
		rf := files[srcOf(alias)]
		if strings.Contains(field, arraySuffix) || len(rf.rows) == 0 || rf.hasField(field) {
			continue
		}
		if field == "time" {
			return nil, fmt.Errorf("time: no record of %s has a timestamp", rf.stats.File)
		}
		if len(rf.fields) == 0 {
			return nil, fmt.Errorf("no field %s in %s", field, rf.stats.File)
		}
		return nil, fmt.Errorf("no field %s in %s (fields: %s)", field, rf.stats.File, someColumns(rf.fields))
	}
	unit, err := e.unit(srcs, srcOf)
	if err != nil {
		return nil, err
	}
	s := &Sample{Source: e.describe(unit), FilterText: "none"}
	if len(e.Where) > 0 {
		texts := make([]string, len(e.Where))
		for i, c := range e.Where {
			texts[i] = c.Text
		}
		s.FilterText = strings.Join(texts, " and ")
	}
	// The value is on the lattice of its coarsest source. A field of a
	// source with a resolution is one rounding, or two for nginx's times,
	// each the difference of two millisecond clock readings.
	var why []string
	for _, ref := range e.Expr.Refs() {
		alias, field, _ := e.resolveRef(ref)
		src := srcs[srcOf(alias)]
		if src.Resolution > 0 {
			s.RoundedFields++
			s.Roundings++
			if field != "time" && (src.Format == FormatNginxJSON || src.Format == FormatNginxCombined) {
				s.Roundings++
			}
			if src.Resolution > s.Resolution {
				s.Resolution = src.Resolution
			}
			w := fmt.Sprintf("%s %s (%s)", src.Name, time.Duration(math.Round(src.Resolution*1e9)), src.ResolutionWhy)
			if !slices.Contains(why, w) {
				why = append(why, w)
			}
		}
	}
	s.ResolutionText = strings.Join(why, ", ")

	stats := make([]*FileStats, len(files))
	for i, rf := range files {
		if j := slices.IndexFunc(files[:i], func(o *rowFile) bool { return o == rf }); j >= 0 {
			stats[i] = stats[j]
			continue
		}
		fs := rf.stats
		s.Stats = append(s.Stats, fs)
		s.Files = append(s.Files, fs.File)
		s.LineErrors = append(s.LineErrors, rf.errs...)
		s.LineErrorCount += rf.nerrs
	}
	for i, rf := range files {
		for j := range s.Stats {
			if s.Stats[j].File == rf.stats.File {
				stats[i] = &s.Stats[j]
			}
		}
	}
	if len(s.LineErrors) > MaxReportedLineErrors {
		s.LineErrors = s.LineErrors[:MaxReportedLineErrors]
	}
	lineError := func(r *row, format string, args ...any) {
		s.LineErrorCount++
		if len(s.LineErrors) < MaxReportedLineErrors {
			s.LineErrors = append(s.LineErrors, LineError{File: r.file, Line: r.line, Msg: fmt.Sprintf(format, args...)})
		}
	}
	// The first reason a value was refused, for the message when none was
	// kept: the skipped lines themselves are not shown then.
	rejected, firstReject := 0, ""
	reject := func(r *row, reason string) {
		stats[0].Rejected++
		rejected++
		lineError(r, "%s: %s; skipped", e.Name, reason)
		if firstReject == "" {
			firstReject = fmt.Sprintf("%s:%d: %s", r.file, r.line, reason)
		}
	}

	// Conditions by the alias they read; unqualified ones apply to every
	// record read.
	// Conditions on an array's elements keep elements, once the records
	// are expanded into them.
	arr, err := e.array()
	if err != nil {
		return nil, err
	}
	conds := map[int][]fieldCond{}
	var elemConds []fieldCond
	for i := range e.Where {
		c := &e.Where[i]
		alias, field, _ := e.resolveRef(c.Ref)
		if _, _, ok := arrayOf(field); ok {
			elemConds = append(elemConds, fieldCond{c, field})
			continue
		}
		conds[alias] = append(conds[alias], fieldCond{c, field})
	}

	var tuples [][]*row
	switch {
	case e.Pairs != nil:
		tuples = e.pairs(files[0], stats[0], conds, s)
	case e.Difference != nil:
		tuples = e.consecutive(files[0], stats[0], conds, s)
	case len(e.From) > 1:
		tuples = e.join(files, stats, conds, s)
	default:
		for i := range files[0].rows {
			r := &files[0].rows[i]
			if !keep(r, conds[-1]) || !keep(r, conds[0]) {
				stats[0].Filtered++
				continue
			}
			tuples = append(tuples, []*row{r})
		}
	}

	records := tuples
	var origin []int // the index in records each expanded tuple comes from
	if arr != nil {
		if tuples, origin, err = e.expand(tuples, arr, elemConds, stats[srcOf(arr.alias)], s, lineError); err != nil {
			return nil, err
		}
	}
	// A record is used once, however many values it is part of: the
	// elements of its array, or two consecutive intervals.
	used := map[*row]bool{}

	// Each rounded field may be off by up to one quantum, so a value
	// computed from k of them may be off by k quanta: a negative value
	// within that is a small true value, not an error.
	tolerance := float64(s.RoundedFields) * s.Resolution
	clampBelow := -tolerance * (1 + 1e-9)
	for ti, t := range tuples {
		get := func(ref string) (float64, error) {
			alias, field, _ := e.resolveRef(ref)
			if alias < 0 {
				alias = 0
			}
			return fieldNumber(t[alias], field, srcs[srcOf(alias)].Format, ref, t[0])
		}
		v, err := e.Expr.Eval(get)
		if err == nil && !isFinite(v) {
			err = fmt.Errorf("the value is not finite")
		}
		if err != nil {
			reject(t[len(t)-1], err.Error())
			continue
		}
		count := math.NaN()
		if e.Per != "" {
			count, err = get(e.Per)
			if err == nil && (count < 0 || !isFinite(count)) {
				err = fmt.Errorf("%s = %g is not a count", e.Per, count)
			}
			if err != nil {
				reject(t[len(t)-1], err.Error())
				continue
			}
		}
		v *= float64(unit)
		raw := v
		if v < 0 {
			if v < clampBelow {
				reject(t[len(t)-1], fmt.Sprintf("value %ss is negative beyond the rounding of its fields (%ss)", SecondsText(v), SecondsText(tolerance)))
				continue
			}
			v = 0
			s.Clamped++
		}
		if err := withinClock(v); err != nil {
			reject(t[len(t)-1], err.Error())
			continue
		}
		tm := math.NaN()
		for _, r := range t {
			if !math.IsNaN(r.time) && (math.IsNaN(tm) || r.time > tm) {
				tm = r.time
			}
		}
		base := t
		if origin != nil {
			base = records[origin[ti]]
		}
		for i, r := range base {
			if !used[r] {
				used[r] = true
				stats[srcOf(i)].Used++
			}
		}
		status := 0
		for _, r := range t {
			if st, ok := r.field("status"); ok && status == 0 {
				status, _ = strconv.Atoi(st)
			}
		}
		s.Values = append(s.Values, v)
		s.Raw = append(s.Raw, raw)
		s.Times = append(s.Times, tm)
		s.Statuses = append(s.Statuses, status)
		if e.Per != "" {
			s.Counts = append(s.Counts, count)
		}
	}
	if s.Clamped > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d of %d values were negative within the rounding of their fields (%d × %ss) and were kept as 0", s.Clamped, len(s.Values), s.RoundedFields, SecondsText(s.Resolution)))
	}
	if len(s.Values) == 0 && rejected > 0 {
		return s, fmt.Errorf("no values: %d records read, filter %s; %d rejected, the first at %s", len(records), s.FilterText, rejected, firstReject)
	}
	if len(s.Values) == 0 {
		return s, fmt.Errorf("no values: %d records read, filter %s", len(records), s.FilterText)
	}
	return s, nil
}

// fieldCond is a condition on the field of one record.
type fieldCond struct {
	c     *Condition
	field string
}

// keep reports whether r passes every condition.
func keep(r *row, cs []fieldCond) bool {
	for _, fc := range cs {
		if !fc.c.match(r.field(fc.field)) {
			return false
		}
	}
	return true
}

// fieldNumber reads a field of a record as a number: nginx times (lists
// summed, as for --metric), or a plain number. "time" is the record's
// timestamp.
// A timestamp is given in seconds since the whole second of base, the
// first record of the tuple, so that differences keep their precision.
func fieldNumber(r *row, field string, format Format, ref string, base *row) (float64, error) {
	if field == "time" {
		if math.IsNaN(r.time) {
			return 0, fmt.Errorf("%s: the record has no timestamp", ref)
		}
		return float64(r.sec-base.sec) + r.frac, nil
	}
	v, ok := r.field(field)
	if !ok {
		return 0, fmt.Errorf("%s: no such field", ref)
	}
	if format == FormatNginxJSON || format == FormatNginxCombined {
		x, ok, err := parseNginxTimes(v)
		if err != nil {
			return 0, fmt.Errorf("%s: %v", ref, err)
		}
		if !ok {
			return 0, fmt.Errorf("%s holds no time (%q)", ref, v)
		}
		return x, nil
	}
	x, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	if err != nil {
		return 0, fmt.Errorf("%s: %q is not a number", ref, v)
	}
	return x, nil
}

// unit is the unit of the expression's value: as stated, or the unit its
// fields' names imply (handler_ms, nginx's times in seconds, "time" in
// seconds). A field without a unit in its name is a count where it only
// multiplies or divides (hold_ms / sleeps), but a term that adds to a time
// must say its unit.
func (e *PlanEntry) unit(srcs []*PlanSource, srcOf func(int) int) (Unit, error) {
	if e.Unit != 0 {
		return e.Unit, nil
	}
	unitOf := func(ref string) (Unit, bool) {
		alias, field, _ := e.resolveRef(ref)
		f := srcs[srcOf(alias)].Format
		switch {
		case field == "time":
			return 1, true
		case f == FormatNginxJSON || f == FormatNginxCombined:
			return 1, true
		case (f == FormatK6CSV || f == FormatK6JSON) && (field == "metric_value" || field == "value"):
			return k6Millisecond, true
		}
		return unitFromName(field)
	}
	give := e.word("unit:", "--unit")
	d, err := e.Expr.root.dim(unitOf, give)
	if err != nil {
		return 0, err
	}
	switch {
	case d.dim == 1:
		return d.unit, nil
	case d.unknown != "":
		return 0, fmt.Errorf("the unit of %s is not in its name: give %s", d.unknown, give)
	}
	return 0, fmt.Errorf("expr %q is not a duration (a count, a ratio or a product of times): give %s", e.Expr, give)
}

// dimInfo is what unit inference knows of a subexpression: its power of
// time (1 for a duration, 0 for a count) and the time unit, a field whose
// unit is unknown, and whether it is a bare number.
type dimInfo struct {
	dim      int
	unit     Unit
	unknown  string
	constant bool
}

// give names where the unit is stated, the plan's unit: or the --unit flag.
func (n *exprNode) dim(unitOf func(string) (Unit, bool), give string) (dimInfo, error) {
	if n.op == 0 {
		if n.ref == "" {
			return dimInfo{constant: true}, nil
		}
		if u, ok := unitOf(n.ref); ok {
			return dimInfo{dim: 1, unit: u}, nil
		}
		return dimInfo{unknown: n.ref}, nil
	}
	a, err := n.left.dim(unitOf, give)
	if err != nil || n.op == 'n' {
		return a, err
	}
	b, err := n.right.dim(unitOf, give)
	if err != nil {
		return a, err
	}
	unknown := cmp.Or(a.unknown, b.unknown)
	switch n.op {
	case '+', '-':
		if a.constant {
			return b, nil
		}
		if b.constant {
			return a, nil
		}
		for _, x := range []dimInfo{a, b} {
			if x.dim == 0 && x.unknown != "" && (a.dim != 0 || b.dim != 0) {
				return a, fmt.Errorf("the unit of %s is not in its name: give %s", x.unknown, give)
			}
		}
		if a.dim != b.dim {
			return a, fmt.Errorf("expr %q adds a duration to a count: give %s", n.text(), give)
		}
		if a.dim == 1 && a.unit != b.unit {
			return a, fmt.Errorf("expr %q adds durations in different units: give %s and convert in expr", n.text(), give)
		}
		return dimInfo{dim: a.dim, unit: a.unit, unknown: unknown}, nil
	case '*':
		if a.constant {
			return b, nil
		}
		if b.constant {
			return a, nil
		}
		return dimInfo{dim: a.dim + b.dim, unit: cmp.Or(a.unit, b.unit), unknown: unknown}, nil
	}
	if b.constant {
		return a, nil
	}
	d := dimInfo{dim: a.dim - b.dim, unknown: unknown}
	if d.dim == 1 {
		d.unit = a.unit
	}
	if a.dim == 1 && b.dim == 1 && a.unit != b.unit {
		return a, fmt.Errorf("expr %q divides durations in different units: give %s", n.text(), give)
	}
	return d, nil
}

// text renders a subexpression for messages, fully bracketed.
func (n *exprNode) text() string {
	switch {
	case n.op == 0 && n.ref != "":
		return n.ref
	case n.op == 0:
		return strconv.FormatFloat(n.num, 'g', -1, 64)
	case n.op == 'n':
		return "-" + n.left.text()
	}
	return "(" + n.left.text() + " " + string(n.op) + " " + n.right.text() + ")"
}

// describe says what the entry computes, for the provenance.
func (e *PlanEntry) describe(u Unit) string {
	d := fmt.Sprintf("%s (%s) from %s", e.Expr, unitName(u), strings.Join(e.From, " and "))
	switch {
	case e.Pairs != nil:
		d += fmt.Sprintf(", each %s paired with the latest earlier %s of its %s", orAny(e.Pairs.To), orAny(e.Pairs.From), e.Key)
	case e.Difference != nil:
		d += ", between consecutive records"
		if e.Key != "" {
			d += " of each " + e.Key
		}
	case len(e.From) > 1:
		d += " joined on " + e.Key
	}
	return d
}

// unitName is the short name of a unit, as ParseUnit reads it.
func unitName(u Unit) string {
	for _, n := range []string{"ns", "us", "ms", "s", "m", "h"} {
		if unitNames[n] == u {
			return n
		}
	}
	return strconv.FormatFloat(float64(u), 'g', -1, 64) + "s"
}

func orAny(event string) string {
	if event == "" {
		return "record"
	}
	return event
}

// join pairs the records of several sources that carry the same key: the
// first record per key of each source, for the keys present in all of them,
// in the order of the first source.
func (e *PlanEntry) join(files []*rowFile, stats []*FileStats, conds map[int][]fieldCond, s *Sample) [][]*row {
	index := make([]map[string]*row, len(files))
	var order []string
	for i, rf := range files {
		index[i] = map[string]*row{}
		noKey, repeated := 0, 0
		for j := range rf.rows {
			r := &rf.rows[j]
			if !keep(r, conds[i]) {
				stats[i].Filtered++
				continue
			}
			k, ok := r.field(e.Key)
			if !ok || k == "" {
				noKey++
				continue
			}
			if index[i][k] != nil {
				repeated++
				continue
			}
			index[i][k] = r
			if i == 0 {
				order = append(order, k)
			}
		}
		if noKey > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("%d %s records had no %s and could not be joined", noKey, e.From[i], e.Key))
		}
		if repeated > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("%d %s records repeated a %s already seen; the first was kept", repeated, e.From[i], e.Key))
		}
	}
	var tuples [][]*row
	unmatched := make([]int, len(files))
	matched := map[string]bool{}
	for _, k := range order {
		t := make([]*row, len(files))
		ok := true
		for i := range files {
			if t[i] = index[i][k]; t[i] == nil {
				ok = false
			}
		}
		if ok {
			tuples = append(tuples, t)
			matched[k] = true
		}
	}
	for i := range files {
		for k := range index[i] {
			if !matched[k] {
				unmatched[i]++
			}
		}
		if unmatched[i] > 0 {
			s.Notes = append(s.Notes, fmt.Sprintf("%d %s values of %s found no partner in the other sources", unmatched[i], e.Key, e.From[i]))
		}
	}
	return tuples
}

// groupInTime groups the records the entry keeps by its key (all in one
// group without a key), groups in the order their first record was read,
// each in time order (reading order among equal times). Records without
// the key are counted in a note: they could not be what (paired,
// compared).
func (e *PlanEntry) groupInTime(rf *rowFile, fs *FileStats, conds map[int][]fieldCond, s *Sample, what string) [][]*row {
	index := map[string]int{}
	var groups [][]*row
	noKey := 0
	for j := range rf.rows {
		r := &rf.rows[j]
		if !keep(r, conds[-1]) {
			fs.Filtered++
			continue
		}
		k := ""
		if e.Key != "" {
			var ok bool
			if k, ok = r.field(e.Key); !ok || k == "" {
				noKey++
				continue
			}
		}
		i, ok := index[k]
		if !ok {
			i = len(groups)
			index[k] = i
			groups = append(groups, nil)
		}
		groups[i] = append(groups[i], r)
	}
	if noKey > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d records had no %s and could not be %s", noKey, e.Key, what))
	}
	for _, g := range groups {
		slices.SortStableFunc(g, func(a, b *row) int {
			if math.IsNaN(a.time) || math.IsNaN(b.time) {
				return 0
			}
			return cmp.Compare(a.time, b.time)
		})
	}
	return groups
}

// pairs pairs each to event with the latest earlier from event of the same
// key, in time order (reading order among equal times), so that the gap
// between successive events of one request is a value.
func (e *PlanEntry) pairs(rf *rowFile, fs *FileStats, conds map[int][]fieldCond, s *Sample) [][]*row {
	groups := e.groupInTime(rf, fs, conds, s, "paired")
	is := func(r *row, event string) bool {
		if event == "" {
			return true
		}
		v, _ := r.field("event")
		return v == event
	}
	var tuples [][]*row
	for _, g := range groups {
		var last *row
		for _, r := range g {
			if last != nil && is(r, e.Pairs.To) {
				t := []*row{last, r}
				if keep(last, conds[0]) && keep(r, conds[1]) {
					tuples = append(tuples, t)
				} else {
					fs.Filtered++
				}
				last = nil
			}
			if is(r, e.Pairs.From) {
				last = r
			}
		}
	}
	return tuples
}

// consecutive pairs each record with the one before it of the same key
// (of the whole source without a key), in time order (reading order among
// equal times), for the growth of running totals between them. A counter
// that decreases was reset (the process restarted): that interval is
// skipped, as is one in which the count did not grow, whose cost per item
// is undefined.
func (e *PlanEntry) consecutive(rf *rowFile, fs *FileStats, conds map[int][]fieldCond, s *Sample) [][]*row {
	groups := e.groupInTime(rf, fs, conds, s, "compared")
	d := e.Difference
	// grew compares a counter across an interval; a value that is not a
	// number is left to the expression, which reports it on its line.
	grew := func(from, to *row, field string) (float64, bool) {
		a, errA := fieldNumber(from, field, fs.Format, field, from)
		b, errB := fieldNumber(to, field, fs.Format, field, from)
		return b - a, errA == nil && errB == nil
	}
	var tuples [][]*row
	resets, idle := 0, 0
	for _, g := range groups {
		for i := 1; i < len(g); i++ {
			from, to := g[i-1], g[i]
			dOf, okOf := grew(from, to, d.Of)
			dPer, okPer := grew(from, to, d.Per)
			switch {
			case okOf && dOf < 0 || okPer && dPer < 0:
				resets++
				continue
			case okPer && dPer == 0:
				idle++
				continue
			}
			if keep(from, conds[0]) && keep(to, conds[1]) {
				tuples = append(tuples, []*row{from, to})
			} else {
				fs.Filtered++
			}
		}
	}
	if resets > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d intervals between consecutive records were skipped: %s or %s decreased (a counter reset)", resets, d.Of, d.Per))
	}
	if idle > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d intervals between consecutive records were skipped: %s did not grow", idle, d.Per))
	}
	return tuples
}
