package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"capsim/cmd/golden"
	"capsim/scenarios"
)

// runWidth is run with the output laid out for a terminal of width
// columns.
func runWidth(t *testing.T, width int, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return runWith(t, IOStreams{Width: width, ErrWidth: width}, args...)
}

// checkWidth fails for each line of out wider than width or ending in
// a space.
func checkWidth(t *testing.T, what string, width int, out string) {
	t.Helper()
	for i, line := range strings.Split(out, "\n") {
		if n := utf8.RuneCountInString(line); n > width {
			t.Errorf("%s at %d columns: line %d is %d wide: %q", what, width, i+1, n, line)
		}
		if strings.TrimRight(line, " \t") != line {
			t.Errorf("%s at %d columns: line %d ends in spaces: %q", what, width, i+1, line)
		}
	}
}

// Every table capsim prints fits the width it is given, 100 columns
// (output to no terminal) and a narrow 60, without trailing spaces; at
// 100 the output is pinned by a golden file.
func TestTablesFitTheWidth(t *testing.T) {
	out := t.TempDir()
	sensitivity := []string{"sensitivity", "trip", "--design", "v1-improved", "-r", "2", "--refine", "1", "-m", "1,2,3",
		"--params", "heic_converter.servers,app_cpu.cores,derivative_create.choose.0.weight,trip_creation.batches_before_last,user_stats.wait_timeout", "-q"}
	cases := []struct {
		name   string
		args   []string
		stderr bool // the table is on standard error
	}{
		{"sweep", []string{"sweep", "trip", "--designs", "v1-original,v1-improved", "--multipliers", "1,2",
			"--replications", "2", "--refine", "1", "-q"}, false},
		{"sensitivity", sensitivity, false},
		{"sensitivity-list", []string{"sensitivity", "trip", "--list"}, false},
		{"calibrate-plan", []string{"calibrate", planData + "plan.yaml", "--out", "-"}, true},
		{"scenarios", []string{"scenarios"}, false},
	}
	for _, name := range scenarios.List() {
		cases = append(cases, struct {
			name   string
			args   []string
			stderr bool
		}{"run-" + name, []string{"run", name}, false})
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			for _, width := range []int{100, 60} {
				args := c.args
				if args[0] == "sweep" || args[0] == "sensitivity" {
					args = append(args, "--out", filepath.Join(out, c.name+strconv.Itoa(width)))
				}
				code, stdout, stderr := runWidth(t, width, args...)
				if code != 0 {
					t.Fatalf("exit %d: %s", code, stderr)
				}
				got := stdout
				if c.stderr {
					got = stderr
				}
				// The folder named in "wrote" differs from run to run.
				got = strings.ReplaceAll(got, out, "OUT")
				// A warning is a message, one line to grep, not a table.
				var tables []string
				for _, line := range strings.Split(got, "\n") {
					if !strings.HasPrefix(line, "warning: ") {
						tables = append(tables, line)
					}
				}
				checkWidth(t, c.name, width, strings.Join(tables, "\n"))
				if width == 100 && !strings.HasPrefix(c.name, "run-") { // the summaries have their goldens
					// The temporary folder's name, which "wrote" wraps
					// at a length that varies, is left out.
					if i := strings.LastIndex(got, "\nwrote OUT"); i >= 0 {
						got = got[:i+1]
					}
					golden.Check(t, goldenFile("width100_"+c.name), []byte(got))
				}
			}
		})
	}
}

// --wide shows every column, however wide the table is, and says so in
// no footnote; without it the footnote names the columns left out.
func TestWideShowsEveryColumn(t *testing.T) {
	_, narrow, _ := runWidth(t, 60, "run", "trip")
	if !strings.Contains(narrow, "(kind, mean queue, peak queue, mean wait, offered, timed\n   out left out to fit 60 columns; --wide shows them)") {
		t.Errorf("the narrow summary does not name the columns left out:\n%s", narrow)
	}
	_, wide, _ := runWidth(t, 60, "run", "trip", "--wide")
	if strings.Contains(wide, "left out") || !strings.Contains(wide, "component        kind    utilisation  mean queue  peak queue  mean wait  p95 wait  offered  rejected  timed out") {
		t.Errorf("--wide leaves columns out:\n%s", wide)
	}
	checkWidth(t, "run trip --wide", 120, wide)
}

// The width comes from COLUMNS when it is a number, else from the
// terminal, else it is 100; never below 40.
func TestOutputWidth(t *testing.T) {
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	for _, c := range []struct {
		columns string
		want    int
	}{{"", 100}, {"80", 80}, {" 132 ", 132}, {"wide", 100}, {"-3", 100}, {"12", 40}} {
		if got := outputWidth(file, c.columns); got != c.want {
			t.Errorf("COLUMNS=%q: width %d, want %d", c.columns, got, c.want)
		}
	}
}

// At 80 and 100 columns every design's table of a sweep shows the same
// columns, lined up, and says the same columns were left out: the
// comparison with the first design, which only the others have, no
// longer crowds out of theirs a column the first design's shows.
func TestSweepDesignsShowTheSameColumns(t *testing.T) {
	out := t.TempDir()
	want := map[int]struct{ header, footnote string }{
		80: {"multiplier  journey        journey success      verdict",
			"(journeys per run, HTTP failure rate, p95 left out to fit 80 columns; --wide\n shows them)"},
		100: {"multiplier  journey        journey success      p95           verdict",
			"(journeys per run, HTTP failure rate left out to fit 100 columns; --wide shows them)"},
	}
	for _, width := range []int{80, 100} {
		code, stdout, stderr := runWidth(t, width, "sweep", "trip", "--designs", "v1-original,v1-improved,queue-wait",
			"--multipliers", "2,5", "--replications", "2", "--refine", "0", "-q", "--out", filepath.Join(out, strconv.Itoa(width)))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		checkWidth(t, "sweep", width, stdout)
		for _, design := range []string{"v1-original", "v1-improved", "queue-wait"} {
			i := strings.Index(stdout, "\ndesign "+design+"\n")
			if i < 0 {
				t.Fatalf("at %d columns no table of %s:\n%s", width, design, stdout)
			}
			table := stdout[i+len("\ndesign "+design+"\n"):]
			table = table[:strings.Index(table, "\n\n")]
			header := want[width].header
			if design != "v1-original" {
				header += "  success vs v1-original"
			}
			if got := table[:strings.Index(table, "\n")]; got != header {
				t.Errorf("at %d columns %s's header is\n%q, want\n%q", width, design, got, header)
			}
			if !strings.HasSuffix(table, "\n"+want[width].footnote) {
				t.Errorf("at %d columns %s's table does not end in %q:\n%s", width, design, want[width].footnote, table)
			}
		}
	}
}
