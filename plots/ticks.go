package plots

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// niceTicks places labelled ticks at 1, 2 or 5 times a power of ten,
// about five to an axis, with unlabelled ticks between them. gonum/plot's
// default aims at three labels and pads labels to a fixed precision
// ("250.00"), which reads poorly for multipliers, seconds and queue lengths.
// With percent set, fractions are labelled as percentages: 0.5 is "50%".
type niceTicks struct {
	percent bool
}

// targetTicks is how many labelled ticks an axis aims for.
const targetTicks = 5

func (nt niceTicks) Ticks(lo, hi float64) []plot.Tick {
	if !finite(lo, hi) || hi <= lo {
		return nil
	}
	step := niceStep(hi-lo, targetTicks)
	first := math.Ceil(lo/step - 1e-9)
	var major []float64
	for k := first; k*step <= hi+step*1e-9; k++ {
		v := k * step
		if math.Abs(v) < step*1e-9 {
			v = 0 // avoid "-0"
		}
		major = append(major, v)
	}
	scale := 1.0
	if nt.percent {
		scale = 100
	}
	prec := decimals(step * scale)
	var ts []plot.Tick
	for i, v := range major {
		label := strconv.FormatFloat(v*scale, 'f', prec, 64)
		if nt.percent {
			label += "%"
		}
		ts = append(ts, plot.Tick{Value: v, Label: label})
		if i == 0 && v-step/2 >= lo {
			ts = append(ts, plot.Tick{Value: v - step/2})
		}
		if mid := v + step/2; mid <= hi {
			ts = append(ts, plot.Tick{Value: mid})
		}
	}
	return ts
}

// niceStep returns the step of the form 1, 2 or 5 times a power of ten
// that cuts span into the count of intervals closest to target.
func niceStep(span, target float64) float64 {
	p := math.Pow(10, math.Floor(math.Log10(span/target)))
	best := p
	for _, m := range []float64{2, 5, 10} {
		if math.Abs(span/(m*p)-target) < math.Abs(span/best-target) {
			best = m * p
		}
	}
	return best
}

// decimals is the number of decimal places that shows every multiple of
// step exactly: 0 for 5, 1 for 0.5, 2 for 0.25.
func decimals(step float64) int {
	for d := 0; d < 15; d++ {
		scaled := step * math.Pow(10, float64(d))
		if math.Abs(scaled-math.Round(scaled)) < 1e-6*scaled {
			return d
		}
	}
	return 15
}

// categoryTicks places one label under each bar group.
func categoryTicks(names []string) plot.ConstantTicks {
	ts := make(plot.ConstantTicks, len(names))
	for i, n := range names {
		ts[i] = plot.Tick{Value: float64(i), Label: lineClean(n)}
	}
	return ts
}
