package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"capsim/calibration"
	"github.com/spf13/cobra"
)

func newCalibratePlanCmd(io *IOStreams) *cobra.Command {
	var out string
	cmd := &cobra.Command{
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
  figures:                                       # as in a figures file
    s3_save: {mean: 0.56s, cv: 0.3, source: "FIGURES 000-30"}

Files are relative to the plan. where: compares a field with == != < <= > >=
(200, 2xx) or matches a route with ~; expr: is arithmetic (+ - * /, brackets)
over fields, "time" being a record's timestamp in seconds; unit: is the
expression's unit, needed when its fields' names do not agree on one; dist:
and rank: are as for calibrate. per: names a count of items and splits the
value into NAME_base and NAME_per_item, their means and variances by least
squares (the variance of the total growing with the count). A value computed from times logged at a
resolution that comes out negative by less than that rounding is kept as 0,
and the fragment records the resolution assumed. A file whose top level has
sources:, measured: or figures: is a plan, so "capsim calibrate PLAN.yaml"
does the same.

The fit tables and warnings go to standard error; the fragment is written to
--out FILE, or to standard output with --out -.`,
		Example: `  capsim calibrate plan calibration-plan.yaml --out calibration.yaml
  capsim calibrate calibration-plan.yaml --out -`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageErr("give one plan file, e.g. capsim calibrate plan calibration-plan.yaml (see %s --help)", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return calibratePlanRun(io, args[0], out, rerunLine(cmd, args))
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the fragment to `FILE` (created, or its entries updated in place), or to standard output with -")
	return cmd
}

// isPlanFile reports whether path names a YAML file holding a plan, so that
// "capsim calibrate PLAN.yaml" runs it. Logs are never YAML, so only files
// named .yaml or .yml are looked into.
func isPlanFile(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	if ext != ".yaml" && ext != ".yml" {
		return false
	}
	data, err := os.ReadFile(path)
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
	fits, err := p.Run(nil, rerun)
	if err != nil {
		return err
	}
	var entries []calibration.Entry
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
			reportReading(io.ErrOut, fit.Sample)
			if err := calibration.WriteSplitTable(io.ErrOut, strings.TrimSuffix(fit.Name, "_base"), fit.Sample, fit.Split); err != nil {
				return err
			}
			printWarnings(io, strings.TrimSuffix(fit.Name, "_base"), fit.Split.Warnings)
			continue
		}
		if fit.Figures != nil {
			if err := calibration.WriteFiguresTable(io.ErrOut, fit.Name, fit.Figures); err != nil {
				return err
			}
			printWarnings(io, fit.Name, fit.Figures.Warnings)
		} else {
			reportReading(io.ErrOut, fit.Sample)
			if err := calibration.WriteFitTable(io.ErrOut, fit.Name, fit.Sample, fit.Result); err != nil {
				return err
			}
			printWarnings(io, fit.Name, fit.Result.Warnings)
		}
	}
	return writeFragment(io, out, entries)
}

func printWarnings(io *IOStreams, name string, ws []calibration.Warning) {
	for _, w := range ws {
		fmt.Fprintf(io.ErrOut, "warning: %s: %s\n", name, w.Msg)
	}
}
