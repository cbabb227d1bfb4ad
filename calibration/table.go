package calibration

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"capsim/sim"
)

// WriteFitTable prints the candidates of a fit as an aligned table: family,
// parameters, KS distance, AIC, and the fitted mean and p95 against the
// observed ones. The chosen candidate is marked with *.
func WriteFitTable(w io.Writer, name string, s *Sample, r *Result) error {
	o := r.Observed
	fmt.Fprintf(w, "%s: %d values of %s from %s, filter %s\n", name, o.N, s.Source, strings.Join(s.Files, ", "), s.FilterString())
	fmt.Fprintf(w, "ranked by %s; * chosen\n\n", strings.ToUpper(string(r.Rank)))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "candidate\tparameters\tKS\tAIC\tmean\tp95")
	row := func(c *Candidate) {
		mark := ""
		if c == r.Chosen {
			mark = " *"
		}
		aic := "-"
		if c.model != nil && c.Family != FamilyEmpirical && !c.ByMoments {
			aic = strconv.FormatFloat(c.AIC, 'f', 1, 64)
		}
		ks := "-"
		if c.model != nil && c.Family != FamilyEmpirical && !c.ByMoments {
			ks = fmtNum(c.KS, 3)
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%s\t%ss\t%ss\n", c.Family, mark, params(c.Dist), ks, aic,
			fmtSeconds(c.Dist.Mean()), fmtSeconds(c.Dist.Quantile(0.95)))
	}
	inList := false
	for i := range r.Candidates {
		c := &r.Candidates[i]
		if c.Err != nil {
			fmt.Fprintf(tw, "%s\tnot fitted: %v\n", c.Family, c.Err)
			continue
		}
		if c == r.Chosen {
			inList = true
		}
		row(c)
	}
	if !inList && r.Chosen != nil {
		row(r.Chosen)
	}
	fmt.Fprintf(tw, "observed\tn=%d sd=%ss cv=%s\t\t\t%ss\t%ss\n", o.N, fmtSeconds(o.SD), fmtNum(o.CV, 3), fmtSeconds(o.Mean), fmtSeconds(o.P95))
	return tw.Flush()
}

// WriteFiguresTable prints the distributions built from summary figures:
// the chosen one (marked *) and the alternatives, with their mean, p50 and
// p95 against the figures given.
func WriteFiguresTable(w io.Writer, name string, f *SummaryFit) error {
	ref := ""
	if f.Figures.Ref != "" {
		ref = " (" + f.Figures.Ref + ")"
	}
	fmt.Fprintf(w, "%s: figures %s%s\n", name, f.Figures.String(), ref)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "candidate\tparameters\tfrom\tmean\tp50\tp95")
	for i := range f.Candidates {
		c := &f.Candidates[i]
		if c.Err != nil {
			fmt.Fprintf(tw, "-\t%s\tnot possible: %v\n", c.Uses, c.Err)
			continue
		}
		mark := ""
		if c == f.Chosen {
			mark = " *"
		}
		fmt.Fprintf(tw, "%s%s\t%s\t%s\t%ss\t%ss\t%ss\n", distFamily(c.Dist), mark, params(c.Dist), c.Uses,
			fmtSeconds(c.Dist.Mean()), fmtSeconds(c.Dist.Quantile(0.5)), fmtSeconds(c.Dist.Quantile(0.95)))
	}
	given := func(v float64) string {
		if has(v) {
			return fmtSeconds(v) + "s"
		}
		return "-"
	}
	fmt.Fprintf(tw, "given\t\t\t%s\t%s\t%s\n", given(f.Figures.Mean), given(f.Figures.P50), given(f.Figures.P95))
	return tw.Flush()
}

// params returns the part of a distribution's text inside the parentheses.
func params(d sim.Dist) string {
	s := d.String()
	if m := distText.FindStringSubmatch(s); m != nil {
		return m[2]
	}
	return s
}

func distFamily(d sim.Dist) string {
	if m := distText.FindStringSubmatch(d.String()); m != nil {
		return m[1]
	}
	return d.String()
}

// WriteSplitTable prints a split into a base and a time per item: each
// part's mean with its standard error, its standard deviation and the
// distribution written.
func WriteSplitTable(w io.Writer, name string, s *Sample, f *SplitFit) error {
	fmt.Fprintf(w, "%s: %d values of %s from %s, filter %s, split into a base and a time per item\n\n", name, f.N, s.Source, strings.Join(s.Files, ", "), s.FilterString())
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "part\tmean\t± se\tsd\tdistribution")
	fmt.Fprintf(tw, "%s_base\t%ss\t%ss\t%ss\t%s\n", name, fmtSeconds(f.BaseMean), fmtSeconds(f.BaseMeanSE), fmtSeconds(f.BaseSD), f.Base)
	fmt.Fprintf(tw, "%s_per_item\t%ss\t%ss\t%ss\t%s\n", name, fmtSeconds(f.ItemMean), fmtSeconds(f.ItemMeanSE), fmtSeconds(f.ItemSD), f.PerItem)
	return tw.Flush()
}
