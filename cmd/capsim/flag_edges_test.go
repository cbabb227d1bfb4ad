package main

import (
	"bytes"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestEveryNumericFlagAtItsEdges walks every numeric flag of every command
// (read from the command tree, so a new flag is walked without a line
// here) and gives it the values that break arithmetic: -1, 0, 2^31+3,
// 2^63, 1e308, NaN, ±Inf, 1e-308 and, for times, -1s and 0s. Each command
// runs on a small input it accepts as given. Whatever the value, the
// command must not panic or hang, must exit with a code of the README's
// table, and a refusal of the command line (exit 2) must name the flag.
// Values no flag can mean (a negative count, NaN, an infinity, a number
// past 2^63) must be refused.
func TestEveryNumericFlagAtItsEdges(t *testing.T) {
	slowTests(t)
	dir := t.TempDir()
	nginx, _, app := recordShop(t, dir, 7)
	small := []string{"--set", "duration=300s", "--set", "warmup=30s"}
	base := map[string][]string{
		"run":         append([]string{"run", checkoutExample, "--set", "components.threads.servers=5"}, small...),
		"sweep":       append([]string{"sweep", checkoutExample, "-q", "--multipliers", "1,2", "-r", "2", "--set", "components.threads.servers=5", "--out", filepath.Join(dir, "sweep")}, small...),
		"sensitivity": append([]string{"sensitivity", checkoutExample, "-q", "--multipliers", "1,2", "-r", "2", "--set", "components.threads.servers=5", "--out", filepath.Join(dir, "sens")}, small...),
		"hindcast":    append([]string{"hindcast", checkoutExample, "-q", "--set", "components.threads.servers=5"}, small...),
		"fit":         append([]string{"fit", checkoutExample, "-q", "--points", "3"}, small...),
		"check":       {"check", shop, "--access", nginx, "--app", app},
	}
	walked := 0
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		name := strings.TrimPrefix(c.CommandPath(), "capsim ")
		c.LocalFlags().VisitAll(func(f *pflag.Flag) {
			values, ok := edgeValues[f.Value.Type()]
			if !ok {
				return
			}
			args, ok := base[name]
			if !ok {
				t.Errorf("capsim %s --%s: the walk has no command line for %s", name, f.Name, name)
				return
			}
			for _, v := range values {
				walked++
				line := append(append(append([]string(nil), args...), companions[f.Name]...), "--"+f.Name+"="+v.text)
				for i := range line {
					if line[i] == "--out" { // each case its own folder: one case's shards are no other's
						line[i+1] = filepath.Join(dir, fmt.Sprint("out", walked))
					}
				}
				tryFlag(t, line, f.Name, v)
			}
		})
	}
	walk(newRootCmd(&IOStreams{}))
	if walked < 100 {
		t.Errorf("walked %d flag values; the commands have more numeric flags than that", walked)
	}
}

// companions are the flags a flag goes with, so that its value is read.
var companions = map[string][]string{
	"round":            {"--shard", "0/2"},
	"max-replications": {"--until-sure"},
}

// flagEdge is a value a flag is tried at, and whether every flag must
// refuse it.
type flagEdge struct {
	text    string
	refused bool
}

var (
	countEdges = []flagEdge{{"-1", true}, {"0", false}, {"1", false}, {"2147483651", false},
		{"9223372036854775808", true}, {"1e308", true}, {"NaN", true}}
	numberEdges = []flagEdge{{"-1", true}, {"0", false}, {"1e-308", false}, {"0.5", false}, {"1", false},
		{"2147483651", false}, {"9223372036854775808", false}, {"1e308", false}, {"NaN", true}, {"+Inf", true}, {"-Inf", true}}
	edgeValues = map[string][]flagEdge{
		"int":      countEdges,
		"int64":    countEdges,
		"uint64":   {{"-1", true}, {"0", false}, {"18446744073709551615", false}, {"18446744073709551616", true}},
		"float64":  numberEdges,
		"duration": {{"-1s", true}, {"0s", false}, {"1ns", false}, {"1e308s", true}, {"2562048h", true}},
	}
)

func tryFlag(t *testing.T, args []string, flag string, v flagEdge) {
	t.Helper()
	line := "capsim " + strings.Join(args, " ")
	type outcome struct {
		code           int
		stderr, panicd string
	}
	done := make(chan outcome, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- outcome{panicd: fmt.Sprint(r)}
			}
		}()
		var out, errOut bytes.Buffer
		code := Main(args, &IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut})
		done <- outcome{code: code, stderr: errOut.String()}
	}()
	var o outcome
	select {
	case o = <-done:
	case <-time.After(60 * time.Second):
		t.Errorf("%s: still running after 60 s", line)
		return
	}
	switch {
	case o.panicd != "":
		t.Errorf("%s: panic: %s", line, o.panicd)
	case o.code != exitOK && o.code != exitError && o.code != exitUsage && o.code != exitSLOFailed:
		t.Errorf("%s: exit %d, not a code of the table; stderr %q", line, o.code, o.stderr)
	case v.refused && o.code != exitUsage:
		t.Errorf("%s: exit %d, want %d: no flag can mean %s; stderr %q", line, o.code, exitUsage, v.text, o.stderr)
	case o.code == exitUsage && !strings.Contains(o.stderr, "--"+flag):
		t.Errorf("%s: refused without naming --%s: %q", line, flag, o.stderr)
	case o.code != exitUsage && strings.Contains(o.stderr, strings.ReplaceAll(flag, "-", "_")+" must"):
		// A flag's value refused deeper down, as an error of the run.
		t.Errorf("%s: exit %d for a value of --%s; want %d, naming the flag: %q", line, o.code, flag, exitUsage, o.stderr)
	}
}
