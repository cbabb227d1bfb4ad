package sweepreport

import (
	"math"
	"slices"
	"strings"
	"testing"

	"capsim/model/sweep"
)

const sensitivityCSV = `scenario,design,parameter,path,kind,label,value,side,new_value,parameter_change,override,base_status,base_first_failure,base_ci_low,base_ci_high,status,first_failure_multiplier,ci_low,ci_high,first_failure_change,elasticity,parameter_elasticity,slo,component,failure_stage
s,a,cores,components.cpu.cores,number,fitted,2,-,x0.9,-0.1,--scale components.cpu.cores=0.9,failed,2,1.9,2.1,failed,1.8,,,-0.1,1.2,1,slo,cpu,x
s,a,cores,components.cpu.cores,number,fitted,2,+,x1.1,0.1,--scale components.cpu.cores=1.1,failed,2,1.9,2.1,failed,2.2,,,0.1,0.9,1,slo,cpu,x
s,a,servers,components.app.servers,count,assumption,4,-,3,-0.25,--set components.app.servers=3,failed,2,1.9,2.1,failed,1.5,,,-0.25,0.5,0.5,slo,app,x
s,a,timeout,components.app.wait_timeout,time,,30s,-,x0.9,-0.1,--scale components.app.wait_timeout=0.9,failed,2,1.9,2.1,failed,2,,,0,0,0,slo,app,x
s,b,cores,components.cpu.cores,number,fitted,2,-,x0.9,-0.1,--scale components.cpu.cores=0.9,failed,3,,,failed,3,,,0,,,slo,cpu,x
`

// The same parameters as sensitivityCSV in the order capsim sensitivity
// writes them, with the noise column and two more: a share the scenario
// gives a range, moved to its ends 0.2 and 0.8 (factors 0.5 and 2), and a
// cost moved from 0 (no parameter change, so no elasticity) that moved
// the first failure 7.5 %.
const rankedSensitivityCSV = `scenario,design,parameter,path,kind,label,value,side,new_value,parameter_change,override,base_status,base_first_failure,base_ci_low,base_ci_high,status,first_failure_multiplier,ci_low,ci_high,first_failure_change,elasticity,parameter_elasticity,slo,component,failure_stage,noise
s,a,servers,components.app.servers,count,assumption,4,-,3,-0.25,--set components.app.servers=3,failed,2,1.9,2,failed,1.5,1.4,1.5,-0.25,0.5,0.5,slo,app,x,beyond
s,a,cores,components.cpu.cores,number,fitted,2,-,x0.9,-0.1,--scale components.cpu.cores=0.9,failed,2,1.9,2,failed,1.8,1.7,1.8,-0.1,1.2,1,slo,cpu,x,beyond
s,a,cores,components.cpu.cores,number,fitted,2,+,x1.1,0.1,--scale components.cpu.cores=1.1,failed,2,1.9,2,failed,2.2,2.1,2.2,0.1,0.9,1,slo,cpu,x,beyond
s,a,switch_cost,components.cpu.switch_cost,number,assumption,0,+,0.05,,--set components.cpu.switch_cost=0.05,failed,2,1.9,2,failed,1.85,1.8,1.85,-0.075,,,slo,cpu,x,beyond
s,a,share,components.cpu.share,number,input,0.4,-,0.2,-0.5,--set components.cpu.share=0.2,failed,2,1.9,2,failed,1,,1,-0.5,1,1,slo,cpu,x,within
s,a,share,components.cpu.share,number,input,0.4,+,0.8,1,--set components.cpu.share=0.8,failed,2,1.9,2,failed,4,,,1,1,1,slo,cpu,x,within
s,a,timeout,components.app.wait_timeout,time,,30s,-,x0.9,-0.1,--scale components.app.wait_timeout=0.9,failed,2,1.9,2,failed,2,1.9,2,0,0,0,slo,app,x,within
s,b,cores,components.cpu.cores,number,fitted,2,-,x0.9,-0.1,--scale components.cpu.cores=0.9,failed,3,,,failed,3,,,0,,,slo,cpu,x,within
`

// One hinge per design and parameter, its sides gathered; the section
// ranks beyond the noise first, then by the larger change of the first
// failure (the cost without an elasticity is third, not left out), leaves
// out those that moved nothing, and gives the moves of a power law only
// inside the values tried: with elasticity 1 at 2x and grid step 1 a move
// needs +50 % and −50 %, past cores' ±10 % but inside the share's 0.2–0.8;
// with 0.5, servers' 4 × 1.5² = 9 and × 0.5² = 1 lie past the 3 tried.
func TestHingesSection(t *testing.T) {
	hs, err := ReadSensitivityCSV(strings.NewReader(rankedSensitivityCSV), "")
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 6 || hs[1].Parameter != "cores" || hs[1].Elasticity != 1 || !slices.Equal(hs[1].Tried, []string{"x0.9", "x1.1"}) ||
		hs[1].Swing != 0.1 || hs[1].Noise != "beyond" || hs[5].Design != "b" || !math.IsNaN(hs[5].Elasticity) {
		t.Fatalf("hinges %+v", hs)
	}
	res := &sweep.Result{Multipliers: []float64{1, 2, 3, 4}, FirstFailures: []sweep.FirstFailure{
		{Design: "a", Found: true, Multiplier: 2}, {Design: "b", Found: true, Multiplier: 3}}}
	sec := hingesSection(res, hs)
	want := [][]string{
		{"a", "servers", "assumption", "4", "25.0%", "beyond", "0.50", "beyond the range tried (3)", "beyond the range tried (3)"},
		{"", "cores", "fitted", "2", "10.0%", "beyond", "1.00", "beyond the range tried (x0.9–x1.1)", "beyond the range tried (x0.9–x1.1)"},
		{"", "switch_cost", "assumption", "0", "7.5%", "beyond", "—", "—", "—"},
		{"", "share", "input", "0.4", "100.0%", "within", "1.00", "+50% → 3x", "-50% → 1x"},
	}
	checkRows(t, sec.Table.Rows, want)
	if !strings.Contains(sec.Text, "No parameter moved the first failure of b in the sensitivity run.") {
		t.Errorf("text does not name b: %s", sec.Text)
	}
	res.FirstFailures = append(res.FirstFailures, sweep.FirstFailure{Design: "c", Found: true, Multiplier: 2})
	if sec := hingesSection(res, hs); !strings.Contains(sec.Text, "The sensitivity run did not cover c (capsim sensitivity --design D for each).") {
		t.Errorf("text does not say c was not covered: %s", sec.Text)
	}
}

// A sensitivity.csv written before the noise column still reads: the
// parameters rank by the change alone, their verdict "-".
func TestHingesFromAFileWithoutTheNoiseColumn(t *testing.T) {
	hs, err := ReadSensitivityCSV(strings.NewReader(sensitivityCSV), "")
	if err != nil {
		t.Fatal(err)
	}
	res := &sweep.Result{Multipliers: []float64{1, 2, 3, 4}, FirstFailures: []sweep.FirstFailure{{Design: "a", Found: true, Multiplier: 2}}}
	checkRows(t, hingesSection(res, hs).Table.Rows, [][]string{
		{"a", "servers", "assumption", "4", "25.0%", "-", "0.50", "beyond the range tried (3)", "beyond the range tried (3)"},
		{"", "cores", "fitted", "2", "10.0%", "-", "1.00", "beyond the range tried (x0.9–x1.1)", "beyond the range tried (x0.9–x1.1)"},
	})
}

func checkRows(t *testing.T, got, want [][]string) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("rows %q", got)
	}
	for i := range want {
		if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %q, want %q", i, got[i], want[i])
		}
	}
}

func TestReadSensitivityCSVErrors(t *testing.T) {
	if _, err := ReadSensitivityCSV(strings.NewReader("a,b\n1,2\n"), ""); err == nil || err.Error() != `line 1: no column "design": not a sensitivity.csv of capsim sensitivity` {
		t.Errorf("got %v", err)
	}
	bad := strings.Replace(sensitivityCSV, ",-0.1,1.2,1,slo", ",-0.1,1.2,one,slo", 1)
	if _, err := ReadSensitivityCSV(strings.NewReader(bad), ""); err == nil || err.Error() != `line 2, column parameter_elasticity: expected a number, got "one"` {
		t.Errorf("got %v", err)
	}
	bad = strings.Replace(rankedSensitivityCSV, ",x,within\ns,b", ",x,maybe\ns,b", 1)
	if _, err := ReadSensitivityCSV(strings.NewReader(bad), ""); err == nil || err.Error() != `line 8, column noise: expected beyond or within, got "maybe"` {
		t.Errorf("got %v", err)
	}
	// Another scenario's sensitivity says nothing about this one.
	if _, err := ReadSensitivityCSV(strings.NewReader(sensitivityCSV), "checkout"); err == nil || err.Error() != `line 2: the sensitivity of scenario "s", not of "checkout"` {
		t.Errorf("got %v", err)
	}
	if _, err := ReadSensitivityCSV(strings.NewReader(sensitivityCSV), "s"); err != nil {
		t.Errorf("its own scenario: %v", err)
	}
}
