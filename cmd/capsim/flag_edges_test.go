package main

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"capsim/cmd/golden"
	"capsim/model"

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
	rows := map[string]bool{}
	for k := range flagRanges {
		rows[k] = true
	}
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
			rng, ok := flagRanges[name+" --"+f.Name]
			if !ok {
				t.Errorf("capsim %s --%s: no row in flagRanges (flagranges.go)", name, f.Name)
			}
			delete(rows, name+" --"+f.Name)
			if b, err := model.ParseBound(rng); err == nil {
				values = append(append([]flagEdge(nil), values...), pastEnds(b, f.Value.Type())...)
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
	for k := range rows {
		t.Errorf("flagRanges has a row for %s, which no command has", k)
	}
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
	past    bool // just outside the flag's row of flagRanges
}

var (
	countEdges = []flagEdge{{text: "-1", refused: true}, {text: "0", refused: false}, {text: "1", refused: false}, {text: "2147483651", refused: false},
		{text: "9223372036854775808", refused: true}, {text: "1e308", refused: true}, {text: "NaN", refused: true}}
	numberEdges = []flagEdge{{text: "-1", refused: true}, {text: "0", refused: false}, {text: "1e-308", refused: false}, {text: "0.5", refused: false}, {text: "1", refused: false},
		{text: "2147483651", refused: false}, {text: "9223372036854775808", refused: false}, {text: "1e308", refused: false}, {text: "NaN", refused: true}, {text: "+Inf", refused: true}, {text: "-Inf", refused: true}}
	edgeValues = map[string][]flagEdge{
		"int":      countEdges,
		"int64":    countEdges,
		"uint64":   {{text: "-1", refused: true}, {text: "0", refused: false}, {text: "18446744073709551615", refused: false}, {text: "18446744073709551616", refused: true}},
		"float64":  numberEdges,
		"duration": {{text: "-1s", refused: true}, {text: "0s", refused: false}, {text: "1ns", refused: false}, {text: "1e308s", refused: true}, {text: "2562048h", refused: true}},
	}
)

// pastEnds are the values just outside a flag's range, which it must
// refuse: a whole step for a count, a nanosecond for a time (written in
// seconds), the next float for a number.
func pastEnds(b model.KeyBound, typ string) []flagEdge {
	var out []flagEdge
	text := func(x float64) string {
		if typ == "duration" {
			return strconv.FormatFloat(x, 'f', -1, 64) + "s"
		}
		return strconv.FormatFloat(x, 'f', -1, 64)
	}
	step := func(x, dir float64) float64 {
		switch typ {
		case "int", "int64", "uint64":
			return x + dir
		case "duration":
			return x + dir*1e-9
		}
		return math.Nextafter(x, dir*math.Inf(1))
	}
	if !math.IsInf(b.Lo, 0) {
		lo := b.Lo
		if !b.LoOpen {
			lo = step(lo, -1)
		}
		if lo >= 0 || typ != "uint64" {
			out = append(out, flagEdge{text: text(lo), refused: true, past: true})
		}
	}
	if !math.IsInf(b.Hi, 0) {
		hi := b.Hi
		if !b.HiOpen {
			hi = step(hi, 1)
		}
		out = append(out, flagEdge{text: text(hi), refused: true, past: true})
	}
	return out
}

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
	case v.past && o.code != exitUsage:
		t.Errorf("%s: exit %d, want %d: %s is outside the flag's row of flagRanges; stderr %q", line, o.code, exitUsage, v.text, o.stderr)
	case v.refused && o.code != exitUsage:
		t.Errorf("%s: exit %d, want %d: no flag can mean %s; stderr %q", line, o.code, exitUsage, v.text, o.stderr)
	case o.code == exitUsage && !strings.Contains(o.stderr, "--"+flag):
		t.Errorf("%s: refused without naming --%s: %q", line, flag, o.stderr)
	case o.code != exitUsage && strings.Contains(o.stderr, strings.ReplaceAll(flag, "-", "_")+" must"):
		// A flag's value refused deeper down, as an error of the run.
		t.Errorf("%s: exit %d for a value of --%s; want %d, naming the flag: %q", line, o.code, flag, exitUsage, o.stderr)
	}
}

// flagsMarker starts the part of docs/keys.md this package writes (the
// scenario keys above it are the model's).
const flagsMarker = "\n<!-- the flags' table below is generated by cmd/capsim's TestFlagRangesAreCurrent -->\n"

// TestFlagRangesAreCurrent keeps docs/keys.md's table of flags the rows
// of flagRanges, which TestEveryNumericFlagAtItsEdges holds to the code.
func TestFlagRangesAreCurrent(t *testing.T) {
	var b strings.Builder
	b.WriteString("\n## Flags\n\nThe numeric flags of the commands, and what each allows; a value outside is refused with\n" +
		"exit 2 and a message naming the flag. A seed is any whole number below 2^64.\n\n| flag | allowed |\n|---|---|\n")
	names := make([]string, 0, len(flagRanges))
	for k := range flagRanges {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		words := flagRanges[k]
		if bound, err := model.ParseBound(words); err == nil {
			unit := reflect.TypeOf(0.0)
			if strings.HasSuffix(k, "--resolution") {
				unit = reflect.TypeOf(model.Duration{})
			}
			words = bound.Words(unit)
		}
		b.WriteString("| `capsim " + k + "` | " + words + " |\n")
	}
	golden.CheckBelow(t, keysDoc, flagsMarker, []byte(b.String()))
}

const keysDoc = "../../docs/keys.md"
