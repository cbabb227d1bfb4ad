package sweepreport

import (
	"math"
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

// One hinge per design and parameter, with the two sides' elasticity
// (parameter_elasticity, not a side's own); the section ranks by |elasticity|,
// leaves out those of 0 or none, and gives the moves of a power law: with
// elasticity 1 at 2x and grid step 1, +50 % and −50 %; with 0.5, a count
// of 4 times 1.5² = 9 and 0.5² → 1.
func TestHingesSection(t *testing.T) {
	hs, err := ReadSensitivityCSV(strings.NewReader(sensitivityCSV))
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 4 || hs[0].Parameter != "cores" || hs[0].Elasticity != 1 || hs[3].Design != "b" || !math.IsNaN(hs[3].Elasticity) {
		t.Fatalf("hinges %+v", hs)
	}
	res := &sweep.Result{Multipliers: []float64{1, 2, 3, 4}, FirstFailures: []sweep.FirstFailure{
		{Design: "a", Found: true, Multiplier: 2}, {Design: "b", Found: true, Multiplier: 3}}}
	sec := hingesSection(res, hs)
	got := [][]string{}
	for _, r := range sec.Table.Rows {
		got = append(got, r)
	}
	want := [][]string{
		{"a", "cores", "fitted", "2", "1.00", "+50% → 3x", "-50% → 1x"},
		{"", "servers", "assumption", "4", "0.50", "9 (from 4) → 3x", "1 (from 4) → 1x"},
	}
	if len(got) != len(want) {
		t.Fatalf("rows %q", got)
	}
	for i := range want {
		if strings.Join(got[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("row %d = %q, want %q", i, got[i], want[i])
		}
	}
	if !strings.Contains(sec.Text, "No parameter moved the first failure of b in the sensitivity run.") {
		t.Errorf("text does not name b: %s", sec.Text)
	}
	res.FirstFailures = append(res.FirstFailures, sweep.FirstFailure{Design: "c", Found: true, Multiplier: 2})
	if sec := hingesSection(res, hs); !strings.Contains(sec.Text, "The sensitivity run did not cover c (capsim sensitivity --design D for each).") {
		t.Errorf("text does not say c was not covered: %s", sec.Text)
	}
}

func TestReadSensitivityCSVErrors(t *testing.T) {
	if _, err := ReadSensitivityCSV(strings.NewReader("a,b\n1,2\n")); err == nil || err.Error() != `line 1: no column "design": not a sensitivity.csv of capsim sensitivity` {
		t.Errorf("got %v", err)
	}
	bad := strings.Replace(sensitivityCSV, ",-0.1,1.2,1,slo", ",-0.1,1.2,one,slo", 1)
	if _, err := ReadSensitivityCSV(strings.NewReader(bad)); err == nil || err.Error() != `line 2, column parameter_elasticity: expected a number, got "one"` {
		t.Errorf("got %v", err)
	}
}
