package model

// Journey attributes are numbers that steps refer to by name: a count
// (repeat: photos), a weight, a lock's key, or a factor of a work time
// (work: 300ms, per: photos). An attribute is fixed for its journey type,
// or drawn once per journey from a weighted choice, so that trips of 30
// and of 150 photos mix in one stream of arrivals.

// drawAttrs fills own with the attributes of a new journey of type j: the
// type's table with each draw made.
func (r *run) drawAttrs(j *journeyProg, own []float64) []float64 {
	own = append(own[:0], j.attrs...)
	for _, d := range j.draws {
		u := r.streams[d.stream].Float64() * d.weights[len(d.weights)-1]
		i := 0
		for i < len(d.weights)-1 && u >= d.weights[i] {
			i++
		}
		own[d.attr] = d.values[i]
	}
	return own
}

// attrFactor is the factor a work or delay step's time is multiplied by:
// the journey's attribute per-1, or 1 when per is 0.
func attrFactor(jr *jrec, per int32) float64 {
	if per == 0 {
		return 1
	}
	return jr.attrs[per-1]
}

// perAttr compiles a step's per: into an op's per (1 + attribute index).
func (c *compiler) perAttr(s *Step) int32 {
	if s.Per == "" {
		return 0
	}
	return c.attr(s.Per) + 1
}
