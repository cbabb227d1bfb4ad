package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"capsim/calibration"
	"github.com/spf13/cobra"
)

func newCalibratePlanCmd(io *IOStreams) *cobra.Command {
	return readsOneFile(&cobra.Command{
		Use:   "plan FILE [--out FILE|-]",
		Short: "Build a whole fragment from a calibration plan",
		Long: `Read a calibration plan — every distribution of a fragment with the files it
comes from, the records kept, the arithmetic over their fields and the
family — and build the fragment from it, the same bytes on every run:

  sources:
    driver: {file: k6-out.csv}
    nginx:  {file: access.log}                  # times in whole ms: resolution 1ms
    app:    {file: app.jsonl, resolution: 1ms}
  measured:
    client_overhead:                             # joined on a key across files
      from: [driver, app]
      key: request_id
      where: ["driver.metric_name == http_req_duration", "app.event == request_done"]
      expr: driver.metric_value - app.handler_ms
      unit: ms
    per_photo:                                   # gaps between successive events
      from: app
      key: request_id
      pairs: {from: derivative_done, to: derivative_done}
      expr: (to.time - from.time) * 1000 - to.exec_ms
      unit: ms
    per_sleep: {from: app, where: event == result_persist, expr: hold_ms / sleeps}
    upload:                                      # base + time per photo
      from: app
      where: event == batch_saved
      expr: duration_ms
      per: photos
    thumbnail:                                   # one value per element of an array
      from: app
      where: [event == upload_done, "thumbs[].size == m"]
      expr: thumbs[].ms
    request_cpu:                                 # running totals: cost per request
      from: app
      key: pid
      where: event == process_stats
      difference: {of: proc_cpu_ms, per: requests_total}
  figures:                                       # as in a figures file
    s3_save: {mean: 0.56s, cv: 0.3, source: "FIGURES 000-30"}

Files are relative to the plan. where: compares a field with == != < <= > >=
(200, 2xx) or matches a route with ~; expr: is arithmetic (+ - * /, brackets)
over fields, "time" being a record's timestamp in seconds; unit: is the
expression's unit, needed when its fields' names do not agree on one; dist:
and rank: are as for calibrate. per: names a count of items and splits the
value into NAME_base and NAME_per_item, their means and variances by least
squares (the variance of the total growing with the count). thumbs[].ms
reads the field ms of every element of the array thumbs, one value per
element; a where: on thumbs[] keeps elements; an entry reads one array, in expr:.
difference: divides the growth of one running total by another's between
consecutive records (of each key:, in time order); a decrease of either
is a counter reset and an interval whose count did not grow has no cost
per item: both are skipped and counted. A value computed from times logged at a
resolution that comes out negative by less than that rounding is kept as 0,
and the fragment records the resolution assumed. A file whose top level has
sources:, measured: or figures: is a plan, so "capsim calibrate PLAN.yaml"
does the same.

The fit tables go to standard error, then the warnings of every entry,
those that change what to fit first and a timer's lattice folded into one
line for all the entries on it; the fragment is written to
--out FILE, which the plan's fragment replaces whole (an entry taken out of
the plan leaves the fragment), or to standard output with --out -.`,
		Example: `  capsim calibrate plan calibration-plan.yaml --out calibration.yaml
  capsim calibrate calibration-plan.yaml --out -`,
	}, "one plan file, e.g. capsim calibrate plan calibration-plan.yaml",
		"write the fragment to `FILE` (replaced whole), or to standard output with -",
		func(file, out, rerun string) error { return calibratePlanRun(io, file, out, rerun) })
}

// isPlanFile reports whether path names a YAML file holding a plan, so that
// "capsim calibrate PLAN.yaml" runs it. Logs are never YAML, so only files
// named .yaml or .yml are looked into.
func isPlanFile(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".yaml" && ext != ".yml" {
		return false
	}
	// Only a regular file can be a plan: reading a pipe to find out
	// would block, or take the lines it was given to fit.
	data, err := readRegular(path)
	return err == nil && calibration.IsPlan(data)
}

func calibratePlanRun(io *IOStreams, file, out, rerun string) error {
	f, err := os.Open(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usageErr("%s: no such file", file)
		}
		return fmt.Errorf("cannot read %s: %w", file, unwrapPath(err))
	}
	p, err := calibration.ReadPlan(file, f)
	f.Close()
	if err != nil {
		return usageErr("%v", err)
	}
	return runPlan(io, p, out, nil, true, rerun)
}

// calibrateExprRun fits a value computed by --expr: a plan of one entry,
// stated by flags. Files named ALIAS=FILE are joined on --join-key; a
// single file needs no alias.
func calibrateExprRun(io *IOStreams, o *calibrateOptions, other []string, keyGiven bool, rerun string) error {
	switch {
	case o.Expr == "":
		return usageErr("--where, --pairs and --per go with --expr, the value to fit")
	case len(other) > 0:
		return usageErr("--expr selects records with --where: %s do not apply", strings.Join(other, ", "))
	case o.Name == "":
		return usageErr("--expr needs --name, the entry's name in the fragment")
	case len(o.Remove) > 0 && (o.Out == "" || o.Out == "-"):
		return usageErr("--remove takes entries out of the fragment --out FILE names: give --out FILE")
	}
	if o.Dist != "" && !slices.Contains(calibration.Choosable, o.Dist) {
		return usageErr("--dist must be one of %s, got %q", calibration.ChoosableText(), o.Dist)
	}
	if o.Rank != string(calibration.RankAIC) && o.Rank != string(calibration.RankKS) {
		return usageErr("--rank must be aic or ks, got %q", o.Rank)
	}
	format, err := calibration.ParseFormat(o.Format)
	if err != nil {
		return usageErr("--format: %v", err)
	}
	if err := stdinTwice(o.Files); err != nil {
		return err
	}
	var sources []calibration.PlanSource
	for _, arg := range o.Files {
		alias, file, named := strings.Cut(arg, "=")
		if !named {
			if len(o.Files) > 1 {
				return usageErr("joining several files, name each: ALIAS=FILE (got %s)", arg)
			}
			alias, file = "data", arg
		}
		sources = append(sources, calibration.PlanSource{Name: alias, File: file, Format: format})
	}
	e := calibration.PlanEntry{Name: o.Name, Dist: o.Dist, Rank: calibration.RankBy(o.Rank), Per: o.Per}
	if len(o.Files) > 1 || o.Pairs != "" || keyGiven {
		e.Key = o.JoinKey
	}
	if e.Expr, err = calibration.ParseExpr(o.Expr); err != nil {
		return usageErr("--expr: %v", err)
	}
	for _, w := range o.Where {
		c, err := calibration.ParseCondition(w)
		if err != nil {
			return usageErr("--where: %v", err)
		}
		e.Where = append(e.Where, c)
	}
	if o.Pairs != "" {
		from, to, ok := strings.Cut(o.Pairs, ":")
		if !ok {
			return usageErr("--pairs must be FROM:TO, got %q", o.Pairs)
		}
		e.Pairs = &calibration.PairSpec{From: from, To: to}
	}
	if o.Unit != "" {
		if e.Unit, err = calibration.ParseUnit(o.Unit); err != nil {
			return usageErr("--unit: %v", err)
		}
	}
	p, err := calibration.NewPlan(sources, e)
	if err != nil {
		return usageErr("%v", err)
	}
	// The flags are checked first; then, as with a single file, a file
	// named on the command line that is not there is a usage mistake.
	for _, src := range sources {
		if _, err := os.Stat(src.File); src.File != "-" && errors.Is(err, fs.ErrNotExist) {
			return usageErr("%s: no such file", src.File)
		}
	}
	return runPlan(io, p, o.Out, o.Remove, false, rerun)
}

// runPlan runs a plan and writes its tables to standard error and its
// fragment where out says. With whole, the plan is the fragment's whole
// source: a fragment at out is replaced, not merged into, so that an entry
// taken out of the plan leaves the fragment too.
func runPlan(io *IOStreams, p *calibration.Plan, out string, remove []string, whole bool, rerun string) error {
	inputs := []string{p.File}
	for _, s := range p.Sources {
		inputs = append(inputs, filepath.Join(filepath.Dir(p.File), filepath.FromSlash(s.File)))
	}
	if out != "" && out != "-" {
		if err := refuseInput("--out", out, inputs); err != nil {
			return err
		}
	}
	fits, err := p.Run(planOpener(p.File), rerun)
	if err != nil {
		// What the sources hold, or a plan's entry, is what to change;
		// planOpener has marked a file that could not be opened.
		return inputErr(err)
	}
	var entries []calibration.Entry
	var warned []calibration.EntryWarning
	for i, fit := range fits {
		entries = append(entries, fit.Entry)
		if fit.Split != nil && i > 0 && fits[i-1].Split == fit.Split {
			// The second entry of a split, whose table is printed.
			continue
		}
		if i > 0 {
			fmt.Fprintln(io.ErrOut)
		}
		if fit.Split != nil {
			reportReading(io, fit.Sample)
			if err := writeSplitTable(io.ErrOut, strings.TrimSuffix(fit.Name, "_base"), fit.Sample, fit.Split, io.errWidth(), seeAll); err != nil {
				return err
			}
			warned = append(warned, entryWarnings(strings.TrimSuffix(fit.Name, "_base"), fit.Split.Warnings)...)
			continue
		}
		if fit.Figures != nil {
			if err := writeFiguresTable(io.ErrOut, fit.Name, fit.Figures, io.errWidth(), seeAll); err != nil {
				return err
			}
			warned = append(warned, entryWarnings(fit.Name, fit.Figures.Warnings)...)
		} else {
			reportReading(io, fit.Sample)
			if err := writeFitTable(io.ErrOut, fit.Name, fit.Sample, fit.Result, io.errWidth(), seeAll); err != nil {
				return err
			}
			warned = append(warned, entryWarnings(fit.Name, fit.Result.Warnings)...)
		}
	}
	// Ranked across the entries, after their tables: what changes a fit
	// first, the lattice's notes folded last.
	if len(warned) > 0 {
		fmt.Fprintln(io.ErrOut)
		printWarnings(io, warned)
	}
	if whole && out != "" && out != "-" {
		data, err := mergeFragment(nil, entries)
		if err != nil {
			return err
		}
		if err := writeAtomic(out, data); err != nil {
			return err
		}
		fmt.Fprintf(io.ErrOut, "wrote %s (%d entries of %s)\n", out, len(entries), p.File)
		return nil
	}
	return writeFragmentRemoving(io, out, entries, remove)
}

// printWarnings writes the warnings of a calibration's entries in the
// order calibration.RankWarnings gives them.
func printWarnings(io *IOStreams, ws []calibration.EntryWarning) {
	for _, line := range calibration.RankWarnings(ws) {
		fmt.Fprintf(io.ErrOut, "warning: %s\n", line)
	}
}

// entryWarnings tags an entry's warnings with its name.
func entryWarnings(name string, ws []calibration.Warning) []calibration.EntryWarning {
	out := make([]calibration.EntryWarning, len(ws))
	for i, w := range ws {
		out[i] = calibration.EntryWarning{Entry: name, Warning: w}
	}
	return out
}

// planOpener opens a plan's sources, named relative to the plan, as the
// calibration package would, except that a source that is not there is a
// usage mistake (exit 2), as a scenario's missing file is.
func planOpener(plan string) calibration.OpenFunc {
	return func(path string) (io.Reader, func() error, error) {
		if !filepath.IsAbs(path) {
			path = filepath.Join(filepath.Dir(plan), path)
		}
		if err := notAStream(path); err != nil {
			return nil, nil, err
		}
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil, usageErr("%s: no such file", path)
		}
		if err != nil {
			return nil, nil, withCode(exitError, err)
		}
		r, closeFn, err := calibration.DecompressFile(f, path)
		if err != nil && !errors.Is(err, calibration.ErrBadGzip) {
			return nil, nil, withCode(exitError, err)
		}
		return r, closeFn, err
	}
}
