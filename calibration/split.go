package calibration

import (
	"errors"
	"fmt"
	"math"

	"capsim/sim"
)

// SplitFit splits durations that grow with the items they cover, such as a
// batch of photos, into a base and a time per item:
//
//	y = base + item₁ + … + itemₙ
//
// with the base and the items independent and the items alike. Then
// E[y | n] = β₀ + β₁ n and Var[y | n] = σ₀² + σ₁² n: least squares of y on n
// gives the means, and least squares of the squared residuals on n the
// variances (a method of moments; the second regression is the one behind
// the Breusch–Pagan test, 1979). Each part is a gamma with its mean and
// variance, or a constant when its variance comes out at most 0.
type SplitFit struct {
	N                      int
	Base, PerItem          sim.Dist
	BaseMean, ItemMean     float64 // β₀, β₁ in seconds
	BaseSD, ItemSD         float64
	BaseMeanSE, ItemMeanSE float64 // standard errors of β₀ and β₁
	BaseVarSE, ItemVarSE   float64 // standard errors of σ₀² and σ₁²
	Warnings               []Warning
}

// FitSplit fits y (seconds) against the item counts n.
func FitSplit(y, n []float64) (*SplitFit, error) {
	if len(y) != len(n) {
		panic("calibration: FitSplit needs one count per value")
	}
	b0, b1, se0, se1, resid, err := leastSquares(n, y)
	if err != nil {
		return nil, err
	}
	sq := make([]float64, len(resid))
	for i, r := range resid {
		sq[i] = r * r
	}
	v0, v1, sv0, sv1, _, err := leastSquares(n, sq)
	if err != nil {
		return nil, err
	}
	f := &SplitFit{N: len(y), BaseMean: b0, ItemMean: b1, BaseMeanSE: se0, ItemMeanSE: se1, BaseVarSE: sv0, ItemVarSE: sv1}
	if b1 <= 0 {
		return nil, fmt.Errorf("the time does not grow with the count (%ss per item by least squares): nothing to split", SecondsText(b1))
	}
	if b0 < 0 {
		f.Warnings = append(f.Warnings, warnf(WarnPoorFit, "the base comes out at %ss, below 0: the time is not a base plus a time per item; the base is taken as 0", SecondsText(b0)))
		b0 = 0
	}
	if len(y) < minSample {
		f.Warnings = append(f.Warnings, warnf(WarnSmallSample,
			"only %d values: the split is uncertain (want at least %d)", len(y), minSample))
	}
	f.BaseSD, f.ItemSD = math.Sqrt(max(v0, 0)), math.Sqrt(max(v1, 0))
	f.Base = momentDist(b0, max(v0, 0))
	f.PerItem = momentDist(b1, max(v1, 0))
	return f, nil
}

// momentDist is the gamma of a mean and variance, or the constant mean.
func momentDist(mean, variance float64) sim.Dist {
	if mean > 0 && variance > 0 {
		if d, err := sim.Gamma(round6(mean*mean/variance), round6(variance/mean)); err == nil {
			return d
		}
	}
	return sim.Constant(round6(mean))
}

// leastSquares fits y = b0 + b1 x and returns the coefficients, their
// standard errors and the residuals. The standard errors are White's
// (1980, HC0), which hold when the spread of y grows with x, as it does
// here by construction.
func leastSquares(x, y []float64) (b0, b1, se0, se1 float64, resid []float64, err error) {
	n := float64(len(x))
	if len(x) < 3 {
		return 0, 0, 0, 0, nil, errors.New("fewer than 3 values: nothing to split")
	}
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxx, sxy float64
	for i := range x {
		sxx += (x[i] - mx) * (x[i] - mx)
		sxy += (x[i] - mx) * (y[i] - my)
	}
	if sxx == 0 {
		return 0, 0, 0, 0, nil, fmt.Errorf("every value covers %g items: a base and a time per item cannot be told apart", x[0])
	}
	b1 = sxy / sxx
	b0 = my - b1*mx
	resid = make([]float64, len(x))
	var v0, v1 float64
	for i := range x {
		resid[i] = y[i] - b0 - b1*x[i]
		e2 := resid[i] * resid[i]
		d := x[i] - mx
		v1 += d * d * e2
		w0 := 1/n - mx*d/sxx
		v0 += w0 * w0 * e2
	}
	return b0, b1, math.Sqrt(v0), math.Sqrt(v1) / sxx, resid, nil
}

// entries are the two fragment entries of a split: NAME_base and
// NAME_per_item.
func (f *SplitFit) entries(name, per string, s *Sample, rerun string) []Entry {
	how := fmt.Sprintf("%s = base + per item × %s, by least squares over %d values", s.Source, per, f.N)
	var warns []string
	for _, w := range f.Warnings {
		warns = append(warns, w.Msg)
	}
	mk := func(suffix string, d sim.Dist) Entry {
		e := Entry{Name: name + suffix, Dist: d.String(), Rerun: rerun, Files: s.Files, Metric: how, Filter: s.FilterString(), N: f.N, Warnings: warns}
		if s.Resolution > 0 {
			e.Resolution, e.Clamped = s.ResolutionText, s.Clamped
		}
		return e
	}
	return []Entry{mk("_base", f.Base), mk("_per_item", f.PerItem)}
}
