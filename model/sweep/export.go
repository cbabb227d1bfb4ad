package sweep

import (
	"io"
	"math"
	"slices"
	"strconv"
)

// WriteVerdictsCSV writes verdicts.csv: one row per design, multiplier
// tried (grid and refinement, ascending) and SLO, with what the verdict
// was reached from: the replications (n), the runs a guard stopped, the
// SLO's mean over the replications (value) and its interval at
// verdict_level (for a rate of counted events widened to the Wilson
// interval of the trials counted), whether the mean breaks the bound
// (broken) and whether the interval lies wholly on the mean's side
// (clear), and the cell's verdict: pass, pass~, fail~ or fail. From these
// rows alone every verdict, and every first failure with its interval,
// can be rebuilt (see docs/sweep.md).
func (r *Result) WriteVerdictsCSV(w io.Writer) error {
	t := newTable(w, verdictColumns...)
	level := fmtValue(r.VerdictLevel())
	for _, ff := range r.FirstFailures {
		for _, c := range ff.Tried {
			head := []string{r.Scenario, ff.Design, FormatMultiplier(c.Multiplier), strconv.FormatBool(slices.Contains(r.Multipliers, c.Multiplier)),
				strconv.Itoa(c.Runs), strconv.Itoa(c.Broken), c.Verdict.String()}
			if len(c.SLOs) == 0 {
				t.row(append(head, "", "", "", "", "", "", "", "", "", "", "", "", level)...)
			}
			for _, st := range c.SLOs {
				t.row(append(head, st.SLO, st.Key.Entity, st.Key.Name(), st.Key.Measure.Name(), st.Bound.Op, fmtValue(st.Bound.Value),
					fmtValue(st.Mean), fmtValue(st.Lo), fmtValue(st.Hi), trials(st.Summary),
					strconv.FormatBool(st.Broken), strconv.FormatBool(st.Clear), level)...)
			}
		}
	}
	return t.close()
}

var verdictColumns = []string{"scenario", "design", "multiplier", "on_grid", "n", "runs_stopped", "verdict",
	"slo", "slo_subject", "slo_metric", "slo_measure", "slo_op", "slo_bound", "value", "ci_low", "ci_high", "trials",
	"broken", "clear", "verdict_level"}

// Export is the sweep's answer in one document, for a pipeline to read:
// per design its first failure with its interval, its rank, the SLO
// broken, where the failed journeys ended, and every cell's verdict.
type Export struct {
	Scenario     string  `json:"scenario"`
	Seed         uint64  `json:"seed"`
	Replications int     `json:"replications"`
	VerdictLevel float64 `json:"verdict_level"`
	Runs         int     `json:"runs"`
	// UntilSure, with replications until sure: the cap, the looks, the
	// runs they added and the cells that stayed unsure.
	UntilSure *ExportPrecision `json:"until_sure,omitempty"`
	Designs   []ExportDesign   `json:"designs"`
	// Hindcast is the one-line agreement with the scenario's
	// observations, when it has any and it was run.
	Hindcast *ExportHindcast `json:"hindcast,omitempty"`
}

type ExportPrecision struct {
	MaxReplications int          `json:"max_replications"`
	Looks           int          `json:"looks"`
	LooksMade       int          `json:"looks_made"`
	RunsAdded       int          `json:"runs_added"`
	Unsure          []ExportCell `json:"unsure"`
}

type ExportHindcast struct {
	Summary      string   `json:"summary"`
	Agree        int      `json:"agree"`
	Counted      int      `json:"counted"`
	Disagreeing  []string `json:"disagreeing"`
	Replications int      `json:"replications"`
}

type ExportDesign struct {
	Design string `json:"design"`
	// Rank is 1 plus the designs surely ahead; RankText adds "=" when
	// it is shared.
	Rank     int    `json:"rank"`
	RankText string `json:"rank_text"`
	Status   string `json:"status"` // failed, below_range or held
	// FirstFailure is the multiplier, CILow and CIHigh its interval's
	// ends, null where no multiplier tried settles one.
	FirstFailure *float64     `json:"first_failure"`
	CILow        *float64     `json:"ci_low"`
	CIHigh       *float64     `json:"ci_high"`
	SLO          string       `json:"slo,omitempty"`
	Broken       *ExportSLO   `json:"slo_broken,omitempty"`
	Component    string       `json:"component,omitempty"`
	Stage        string       `json:"failure_stage,omitempty"`
	Short        *CountShort  `json:"too_few_counts,omitempty"`
	Cells        []ExportCell `json:"cells"`
}

type ExportSLO struct {
	SLO     string   `json:"slo"`
	Subject string   `json:"subject"`
	Metric  string   `json:"metric"`
	Measure string   `json:"measure"`
	Op      string   `json:"op"`
	Bound   float64  `json:"bound"`
	Value   *float64 `json:"value"`
	CILow   *float64 `json:"ci_low"`
	CIHigh  *float64 `json:"ci_high"`
	N       int      `json:"n"`
	Trials  int64    `json:"trials,omitempty"`
	Broken  bool     `json:"broken"`
	Clear   bool     `json:"clear"`
}

type ExportCell struct {
	Design      string  `json:"design,omitempty"`
	Multiplier  float64 `json:"multiplier"`
	N           int     `json:"n"`
	RunsStopped int     `json:"runs_stopped,omitempty"`
	// RunsOverloaded counts the grid cell's runs whose overload the
	// default drain hid (Cell.Overloaded); refinement cells keep no
	// metrics, so theirs is not known and left out.
	RunsOverloaded int         `json:"runs_overloaded,omitempty"`
	Verdict        string      `json:"verdict"`
	SLOs           []ExportSLO `json:"slos,omitempty"`
}

func num(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	// The CSVs' 10 significant digits, so that both say the same.
	x, _ := strconv.ParseFloat(fmtValue(v), 64)
	return &x
}

func exportSLO(st SLOStat) ExportSLO {
	return ExportSLO{SLO: st.SLO, Subject: st.Key.Entity, Metric: st.Key.Name(), Measure: st.Key.Measure.Name(),
		Op: st.Bound.Op, Bound: st.Bound.Value, Value: num(st.Mean), CILow: num(st.Lo), CIHigh: num(st.Hi),
		N: st.N, Trials: st.Trials, Broken: st.Broken, Clear: st.Clear}
}

// Export gathers the document (see Export).
func (r *Result) Export() *Export {
	e := &Export{Scenario: r.Scenario, Seed: r.Seed, Replications: r.Replications, VerdictLevel: r.VerdictLevel(), Runs: r.Runs,
		Designs: []ExportDesign{}}
	if p := r.Precision; p != nil {
		e.UntilSure = &ExportPrecision{MaxReplications: p.Until, Looks: p.Looks, LooksMade: p.LooksMade, RunsAdded: p.Extra, Unsure: []ExportCell{}}
		for _, u := range p.Unsure {
			e.UntilSure.Unsure = append(e.UntilSure.Unsure, ExportCell{Design: u.Design, Multiplier: u.Multiplier, N: u.Runs, Verdict: u.Verdict.String()})
		}
	}
	ranks := r.Ranks()
	overloaded := map[string]map[float64]int{}
	for i := range r.Cells {
		if c := r.Cells[i]; c.Overloaded() > 0 {
			if overloaded[c.Design] == nil {
				overloaded[c.Design] = map[float64]int{}
			}
			overloaded[c.Design][c.Multiplier] = c.Overloaded()
		}
	}
	for i, ff := range r.FirstFailures {
		d := ExportDesign{Design: ff.Design, Rank: ranks[i].N, RankText: ranks[i].String(), Status: ff.Status(), Cells: []ExportCell{}}
		if ff.Found {
			d.FirstFailure, d.CILow, d.CIHigh = num(ff.Multiplier), num(ff.Lo), num(ff.Hi)
			d.SLO, d.Component, d.Stage, d.Short = ff.SLO, ff.Component, ff.Stage, ff.Short
			if st, ok := ff.FirstBroken(); ok {
				x := exportSLO(st)
				d.Broken = &x
			}
		}
		for _, c := range ff.Tried {
			ec := ExportCell{Multiplier: c.Multiplier, N: c.Runs, RunsStopped: c.Broken, Verdict: c.Verdict.String(),
				RunsOverloaded: overloaded[ff.Design][c.Multiplier]}
			for _, st := range c.SLOs {
				ec.SLOs = append(ec.SLOs, exportSLO(st))
			}
			d.Cells = append(d.Cells, ec)
		}
		e.Designs = append(e.Designs, d)
	}
	return e
}
