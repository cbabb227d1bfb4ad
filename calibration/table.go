package calibration

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"capsim/plots/texttab"
	"capsim/sim"
)

// The fit tables' columns, in the order a narrow terminal leaves them
// out (Drop: highest first): the ranking's figures before the fitted
// mean and p95 a reader compares with the observed ones.
var (
	fitColumns = []texttab.Column{
		{Name: "candidate"},
		{Name: "parameters", Min: 14},
		{Name: "KS", Drop: 2},
		{Name: "AIC", Drop: 3},
		{Name: "mean"},
		{Name: "p95", Drop: 1},
	}
	figuresColumns = []texttab.Column{
		{Name: "candidate"},
		{Name: "parameters", Min: 14},
		{Name: "from", Drop: 3},
		{Name: "mean"},
		{Name: "p50", Drop: 1},
		{Name: "p95", Drop: 2},
	}
	splitColumns = []texttab.Column{
		{Name: "part", Min: 12},
		{Name: "mean"},
		{Name: "± se", Drop: 2},
		{Name: "sd", Drop: 1},
		{Name: "distribution", Min: 14},
	}
)

// WriteFitTable prints the candidates of a fit as an aligned table: family,
// parameters, KS distance, AIC, and the fitted mean and p95 against the
// observed ones, within width columns (0: no limit; howToSee in the
// footnote says how to see the columns left out). The chosen candidate
// is marked with *.
func WriteFitTable(w io.Writer, name string, s *Sample, r *Result, width int, howToSee string) error {
	o := r.Observed
	texttab.WriteLines(w, texttab.Hang("", fmt.Sprintf("%s: %d values of %s from %s, filter %s", name, o.N, s.Source, strings.Join(s.Files, ", "), s.FilterString()), "  ", width))
	fmt.Fprintf(w, "ranked by %s; * chosen\n\n", strings.ToUpper(string(r.Rank)))
	t := texttab.Table{Cols: fitColumns}
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
		t.Row(c.Family+mark, params(c.Dist), ks, aic, fmtSeconds(c.Dist.Mean())+"s", fmtSeconds(c.Dist.Quantile(0.95))+"s")
	}
	inList := false
	for i := range r.Candidates {
		c := &r.Candidates[i]
		if c.Err != nil {
			t.Row(c.Family, fmt.Sprintf("not fitted: %v", c.Err))
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
	t.Row("observed", fmt.Sprintf("n=%d sd=%ss cv=%s", o.N, fmtSeconds(o.SD), fmtNum(o.CV, 3)), "", "", fmtSeconds(o.Mean)+"s", fmtSeconds(o.P95)+"s")
	t.Write(w, width, howToSee)
	return nil
}

// WriteFiguresTable prints the distributions built from summary figures:
// the chosen one (marked *) and the alternatives, with their mean, p50 and
// p95 against the figures given, within width columns as WriteFitTable.
func WriteFiguresTable(w io.Writer, name string, f *SummaryFit, width int, howToSee string) error {
	ref := ""
	if f.Figures.Ref != "" {
		ref = " (" + f.Figures.Ref + ")"
	}
	texttab.WriteLines(w, texttab.Hang("", fmt.Sprintf("%s: figures %s%s", name, f.Figures.String(), ref), "  ", width))
	t := texttab.Table{Cols: figuresColumns}
	for i := range f.Candidates {
		c := &f.Candidates[i]
		if c.Err != nil {
			t.Row("-", c.Uses, fmt.Sprintf("not possible: %v", c.Err))
			continue
		}
		mark := ""
		if c == f.Chosen {
			mark = " *"
		}
		t.Row(distFamily(c.Dist)+mark, params(c.Dist), c.Uses,
			fmtSeconds(c.Dist.Mean())+"s", fmtSeconds(c.Dist.Quantile(0.5))+"s", fmtSeconds(c.Dist.Quantile(0.95))+"s")
	}
	given := func(v float64) string {
		if has(v) {
			return fmtSeconds(v) + "s"
		}
		return "-"
	}
	t.Row("given", "", "", given(f.Figures.Mean), given(f.Figures.P50), given(f.Figures.P95))
	t.Write(w, width, howToSee)
	return nil
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
// distribution written, within width columns as WriteFitTable.
func WriteSplitTable(w io.Writer, name string, s *Sample, f *SplitFit, width int, howToSee string) error {
	texttab.WriteLines(w, texttab.Hang("", fmt.Sprintf("%s: %d values of %s from %s, filter %s, split into a base and a time per item", name, f.N, s.Source, strings.Join(s.Files, ", "), s.FilterString()), "  ", width))
	fmt.Fprintln(w)
	t := texttab.Table{Cols: splitColumns}
	t.Row(name+"_base", fmtSeconds(f.BaseMean)+"s", fmtSeconds(f.BaseMeanSE)+"s", fmtSeconds(f.BaseSD)+"s", f.Base.String())
	t.Row(name+"_per_item", fmtSeconds(f.ItemMean)+"s", fmtSeconds(f.ItemMeanSE)+"s", fmtSeconds(f.ItemSD)+"s", f.PerItem.String())
	t.Write(w, width, howToSee)
	return nil
}
