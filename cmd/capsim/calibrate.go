package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"capsim/calibration"
	"capsim/model"
	"capsim/plots"
	"capsim/sim/naming"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

type calibrateOptions struct {
	Files     []string
	Format    string
	Route     string
	Status    []string
	Tags      []string
	Since     string
	Until     string
	Metric    string
	Column    string
	Unit      string
	FromEvent string
	ToEvent   string
	JoinKey   string
	Name      string
	Out       string
	PlotDir   string
	Dist      string
	Rank      string
	Remove    []string
	Expr      string
	Where     []string
	Pairs     string
	Per       string
}

func newCalibrateCmd(io *IOStreams) *cobra.Command {
	opts := &calibrateOptions{}
	cmd := &cobra.Command{
		Use:   "calibrate FILE... [flags]",
		Short: "Fit distributions to measured timings, for scenarios to include",
		Long: `Read timings measured on the real system, fit candidate distributions by
maximum likelihood, rank them, and write the best as a YAML fragment that a
scenario includes (include: [FRAGMENT]) and refers to by name.

Inputs (told apart by content unless --format says):
  k6-csv          k6 run --out csv=FILE        values in ms, metric --metric
  k6-json         k6 run --out json=FILE       values in ms, metric --metric
  k6-summary      an end-of-test summary (--summary-export, handleSummary data,
                  or the v1 machine-readable summary): fitted from its figures
  nginx-json      access log with a JSON log_format; --metric names the field
  nginx-combined  combined format + $request_time [$upstream_response_time]
                  [$request_id]; --metric request_time-upstream_response_time
                  gives the time spent in nginx itself
  applog          JSON-lines application log: the time from --from-event to
                  --to-event joined by --join-key, or a field (--column)
  csv             a CSV with a header; --column names the value column
Gzipped files are read as they are; FILE "-" reads standard input.

Candidates are lognormal, gamma, Weibull, normal (truncated at 0) and
exponential, and, when the values pile up above a clear floor far from 0
and trail off above it, a floor plus a lognormal or an exponential
(lognormal+shift, exponential+shift, written with shift=); --dist uniform
fits the observed range, and --dist empirical
keeps the values themselves, written inline in the fragment. The table
comparing the candidates, warnings about the data and the fit, and every
malformed line skipped go to standard error. The fragment is written only
where --out says: a FILE (created, or its entry updated in place; --remove
NAME takes an entry out), or standard output with --out -.

--expr fits a value computed from the records' fields instead, such as
'hold_ms / sleeps', keeping records by --where; files named ALIAS=FILE are
joined on --join-key ('driver.duration_ms - app.handler_ms'), --pairs
FROM:TO times the gap between successive events of one key, and --per
FIELD splits the value into a base and a time per item. A single YAML file
whose top level has sources:, measured: or figures: is a calibration plan,
which states any number of such fits in one file and builds the whole
fragment: see capsim calibrate plan. To turn summary figures into
distributions, see capsim calibrate figures.`,
		Example: `  capsim calibrate k6-out.csv --route '/api/trips/*/photos' --status 200 --name upload_batch
  capsim calibrate access.log --metric request_time-upstream_response_time --name nginx_overhead --out calibration.yaml
  capsim calibrate app.jsonl --from-event photo_originals_saved --to-event request_completed --name post_save --plot plots/
  capsim calibrate summary.json --tag expected_response=true --out -
  capsim calibrate driver=k6-out.csv app=app.jsonl --expr 'driver.metric_value - app.handler_ms' --unit ms \
      --where 'driver.metric_name == http_req_duration' --name client_overhead --out calibration.yaml
  capsim calibrate calibration-plan.yaml --out calibration.yaml
  capsim calibrate --out calibration.yaml --remove nginx_overhead`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && !cmd.Flags().Changed("remove") {
				return usageErr("give the files to read, e.g. capsim calibrate k6-out.csv (see %s --help)", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.Files = args
			for i, name := range opts.Remove {
				if slices.Contains(opts.Remove[:i], name) {
					return usageErr("--remove %s is given twice", name)
				}
			}
			if len(args) == 0 {
				return calibrateRemove(io, opts)
			}
			if len(args) == 1 && isPlanFile(args[0]) {
				var other []string
				cmd.Flags().Visit(func(f *pflag.Flag) {
					if f.Name != "out" {
						other = append(other, "--"+f.Name)
					}
				})
				if len(other) > 0 {
					return usageErr("%s is a calibration plan, which states its own sources, filters and families: %s do not apply (only --out)", args[0], strings.Join(other, ", "))
				}
				return calibratePlanRun(io, args[0], opts.Out, rerunLine(cmd, args))
			}
			if opts.Expr != "" || len(opts.Where) > 0 || opts.Pairs != "" || opts.Per != "" {
				var other []string
				cmd.Flags().Visit(func(f *pflag.Flag) {
					switch f.Name {
					case "expr", "where", "pairs", "per", "join-key", "unit", "name", "out", "remove", "dist", "rank", "format":
					default:
						other = append(other, "--"+f.Name)
					}
				})
				return calibrateExprRun(io, opts, other, cmd.Flags().Changed("join-key"), rerunLine(cmd, args))
			}
			return calibrateRun(io, opts, rerunLine(cmd, args))
		},
	}
	f := cmd.Flags()
	f.StringVar(&opts.Format, "format", "auto", "input `FORMAT`: auto, k6-csv, k6-json, k6-summary, nginx-json, nginx-combined, applog or csv")
	f.StringVar(&opts.Route, "route", "", "keep requests whose path matches `PATTERN` (* within a segment, ** across; ~ starts a regexp)")
	f.StringSliceVar(&opts.Status, "status", nil, "keep these HTTP statuses (`CODE`s or classes, e.g. 200 or 2xx; repeatable)")
	f.StringArrayVar(&opts.Tags, "tag", nil, "keep records whose tag or field `KEY=VALUE` matches (repeatable)")
	f.StringVar(&opts.Since, "since", "", "keep records at or after `TIME` (RFC 3339, or a Unix time: seconds, or ms, µs or ns told apart by size as in the logs)")
	f.StringVar(&opts.Until, "until", "", "keep records before `TIME` (RFC 3339, or a Unix time, read as --since is)")
	f.StringVar(&opts.Metric, "metric", "", "k6 metric `NAME` (default http_req_duration) or nginx variable (default request_time), or A-B of two nginx variables")
	f.StringVar(&opts.Column, "column", "", "CSV column, or application-log field, `NAME` holding the duration")
	f.StringVar(&opts.Unit, "unit", "", "`UNIT` of plain numbers in --column: ns, us, ms, s, m or h (default: from the column's name, else s)")
	f.StringVar(&opts.FromEvent, "from-event", "", "application-log `EVENT` that starts the stage (with --to-event), or whose --column is read")
	f.StringVar(&opts.ToEvent, "to-event", "", "application-log `EVENT` that ends the stage")
	f.StringVar(&opts.JoinKey, "join-key", calibration.DefaultJoinKey, "application-log `FIELD` that ties a stage's events together (e.g. trip_id, job_id)")
	f.StringVar(&opts.Name, "name", "", "`NAME` of the distribution in the fragment (default: from the metric or column, with a p before a leading digit: column 99th gives p99th)")
	f.StringVar(&opts.Out, "out", "", "add the distribution to fragment `FILE` (created, or updated in place), or print the fragment with -; default: write no fragment")
	f.StringVar(&opts.Expr, "expr", "", "fit `EXPR`, arithmetic over the fields of the records (+ - * /, brackets; time is a record's timestamp), of several files joined on --join-key when named ALIAS=FILE")
	f.StringArrayVar(&opts.Where, "where", nil, "with --expr, keep records whose field compares so: `COND` such as 'status == 2xx' or 'app.event == request_done' (repeatable)")
	f.StringVar(&opts.Pairs, "pairs", "", "with --expr, pair each TO event with the latest earlier FROM event of the same --join-key: `FROM:TO` (either may be empty: any record)")
	f.StringVar(&opts.Per, "per", "", "with --expr, split the value into NAME_base and NAME_per_item by the count in `FIELD` (photos)")
	f.StringArrayVar(&opts.Remove, "remove", nil, "remove the entry `NAME` from the --out fragment (repeatable; alone, or with files to fit)")
	f.StringVar(&opts.PlotDir, "plot", "", "write a histogram with the fitted density and a QQ plot (SVG) into `DIR`")
	f.StringVar(&opts.Dist, "dist", "", "use this `FAMILY` instead of the best ranked: lognormal, gamma, weibull, normal, exponential, lognormal+shift, exponential+shift, uniform or empirical (values inline)")
	f.StringVar(&opts.Rank, "rank", string(calibration.RankAIC), "rank candidates by `aic|ks`")
	cmd.AddCommand(newCalibrateFiguresCmd(io), newCalibratePlanCmd(io))
	return cmd
}

func newCalibrateFiguresCmd(io *IOStreams) *cobra.Command {
	return readsOneFile(&cobra.Command{
		Use:   "figures FILE",
		Short: "Turn named summary figures into distributions",
		Long: `Read a figures file — named summary figures, each with its source — and turn
each entry into a distribution through the closed forms for lognormal,
gamma and uniform distributions:

  figures:
    s3_save_10_photos: {mean: 0.56s, source: "FIGURES 000-30"}
    post_save_batch:   {mean: 39s, cv: 0.3, source: "FIGURES 000-31"}
    worker_cold_start: {min: 36s, max: 40s, source: "FIGURES 000-37"}

Keys: mean, p50 (or median), p90, p95, p99, min, max, sd, cv, value, dist
(lognormal, gamma, exponential, normal, constant or uniform) and source.
Durations need a unit. mean+p95, p50+p95 and mean+cv give a lognormal (or a
gamma when a lognormal cannot match), min+max a uniform, a mean alone a
constant (with a warning). The fragment records each entry's figures and
source.`,
		Example: `  capsim calibrate figures trip-figures.yaml --out trip-calibration.yaml`,
	}, "one figures file, e.g. capsim calibrate figures figures.yaml",
		"add the distributions to fragment `FILE` (created, or updated in place), or print the fragment with -; default: write no fragment",
		func(file, out, rerun string) error { return calibrateFiguresRun(io, file, out, rerun) })
}

// readsOneFile makes cmd a calibrate subcommand that reads the one file
// want describes and writes a fragment where --out (outUsage) says.
func readsOneFile(cmd *cobra.Command, want, outUsage string, run func(file, out, rerun string) error) *cobra.Command {
	var out string
	cmd.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) != 1 {
			return usageErr("give %s (see %s --help)", want, cmd.CommandPath())
		}
		return nil
	}
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		return run(args[0], out, rerunLine(cmd, args))
	}
	cmd.Flags().StringVar(&out, "out", "", outUsage)
	return cmd
}

func calibrateRun(io *IOStreams, o *calibrateOptions, rerun string) error {
	if err := refuseInput("--out", o.Out, o.Files); err != nil {
		return err
	}
	if err := stdinTwice(o.Files); err != nil {
		return err
	}
	if err := sameFileTwice(o.Files); err != nil {
		return err
	}
	opts, err := o.readOptions()
	if err != nil {
		return err
	}
	rank := calibration.RankBy(o.Rank)
	if rank != calibration.RankAIC && rank != calibration.RankKS {
		return usageErr("--rank must be aic or ks, got %q", o.Rank)
	}
	if o.Dist != "" && !slices.Contains(calibration.Choosable, o.Dist) {
		return usageErr("--dist must be one of %s, got %q", calibration.ChoosableText(), o.Dist)
	}
	if len(o.Remove) > 0 && (o.Out == "" || o.Out == "-") {
		return usageErr("--remove takes entries out of the fragment --out FILE names: give --out FILE")
	}
	if o.Name != "" {
		if err := checkEntryName(o.Name); err != nil {
			return usageErr("--name: %v", err)
		}
	}

	isSummary, err := isK6Summary(io, o.Files, opts.Format)
	if err != nil {
		return err
	}
	if isSummary {
		return calibrateSummary(io, o, opts, rerun)
	}

	r, err := calibration.NewReader(opts)
	if err != nil {
		return usageErr("%v", err)
	}
	for _, name := range o.Files {
		if err := readInput(io, r, name); err != nil {
			return err
		}
	}
	s, err := r.Sample()
	reportReading(io, s)
	if err != nil {
		return inputErr(err)
	}
	res, err := calibration.Fit(s.Values, s.Times, calibration.FitOptions{Rank: rank, Choose: o.Dist, Statuses: s.Statuses, Resolution: s.Resolution, Raw: s.Raw, Roundings: s.Roundings})
	if err != nil {
		return usageErr("%s: %v", strings.Join(o.Files, ", "), err)
	}
	name := o.Name
	if name == "" {
		name = defaultEntryName(s.Source)
	}
	if err := writeFitTable(io.ErrOut, name, s, res, io.errWidth(), seeAll); err != nil {
		return err
	}
	printWarnings(io, entryWarnings(name, res.Warnings))
	entry := calibration.EntryFromFit(name, s, res, rerun)
	if o.PlotDir != "" {
		if err := os.MkdirAll(o.PlotDir, 0o755); err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
		files, err := writeFitPlots(o.PlotDir, name, res)
		if err != nil {
			return fmt.Errorf("--plot: %w", err)
		}
		fmt.Fprintf(io.ErrOut, "wrote %s\n", strings.Join(files, ", "))
	}
	return writeFragmentRemoving(io, o.Out, []calibration.Entry{entry}, o.Remove)
}

// calibrateRemove takes entries out of a fragment without fitting anything.
func calibrateRemove(io *IOStreams, o *calibrateOptions) error {
	if o.Out == "" || o.Out == "-" {
		return usageErr("--remove takes entries out of the fragment --out FILE names: give --out FILE")
	}
	return writeFragmentRemoving(io, o.Out, nil, o.Remove)
}

// readOptions turns the flags into reading options, refusing bad values
// before any file is opened.
func (o *calibrateOptions) readOptions() (calibration.Options, error) {
	var opts calibration.Options
	format, err := calibration.ParseFormat(o.Format)
	if err != nil {
		return opts, usageErr("--format: %v", err)
	}
	opts.Format = format
	opts.Filter.Route = o.Route
	opts.Filter.Status = o.Status
	for _, t := range o.Tags {
		tag, err := calibration.ParseTag(t)
		if err != nil {
			return opts, usageErr("--tag: %v", err)
		}
		opts.Filter.Tags = append(opts.Filter.Tags, tag)
	}
	if o.Since != "" {
		if opts.Filter.Since, err = calibration.ParseTime(o.Since); err != nil {
			return opts, usageErr("--since: %v", err)
		}
	}
	if o.Until != "" {
		if opts.Filter.Until, err = calibration.ParseTime(o.Until); err != nil {
			return opts, usageErr("--until: %v", err)
		}
	}
	if o.Unit != "" {
		if opts.Unit, err = calibration.ParseUnit(o.Unit); err != nil {
			return opts, usageErr("--unit: %v", err)
		}
	}
	if err := opts.Filter.Validate(); err != nil {
		return opts, usageErr("%v", err)
	}
	opts.Metric, opts.Column = o.Metric, o.Column
	opts.FromEvent, opts.ToEvent, opts.JoinKey = o.FromEvent, o.ToEvent, o.JoinKey
	return opts, nil
}

// isK6Summary reports whether the input is an end-of-test summary, which is
// fitted from its figures rather than from values.
func isK6Summary(io *IOStreams, files []string, format calibration.Format) (bool, error) {
	switch format {
	case calibration.FormatK6Summary:
		if len(files) != 1 {
			return false, usageErr("an end-of-test summary is calibrated on its own: give one file, got %d", len(files))
		}
		return true, nil
	case calibration.FormatAuto:
	default:
		return false, nil
	}
	if len(files) != 1 || files[0] == "-" || !isRegular(files[0]) {
		// Several files are read as values; a summary among them is
		// reported by the reader. Standard input and a pipe cannot be
		// read twice.
		return false, nil
	}
	in, closeFn, err := openInput(io, files[0])
	if err != nil {
		return false, err
	}
	defer closeFn()
	got, err := calibration.Detect(bufio.NewReaderSize(in, 64<<10))
	if err != nil {
		return false, inputErr(fmt.Errorf("%s: %w", files[0], err))
	}
	return got == calibration.FormatK6Summary, nil
}

func calibrateSummary(io *IOStreams, o *calibrateOptions, opts calibration.Options, rerun string) error {
	switch {
	case o.Column != "" || o.FromEvent != "" || o.ToEvent != "":
		return usageErr("%s is a k6 end-of-test summary: --column, --from-event and --to-event do not apply", o.Files[0])
	case o.PlotDir != "":
		return usageErr("%s is a k6 end-of-test summary: it holds figures, not values, so there is nothing to plot", o.Files[0])
	case o.Dist == calibration.FamilyEmpirical || o.Dist == calibration.FamilyWeibull || slices.Contains(calibration.ShiftedFamilies, o.Dist):
		return usageErr("%s is a k6 end-of-test summary: figures cannot give a %s distribution", o.Files[0], o.Dist)
	}
	in, closeFn, err := openInput(io, o.Files[0])
	if err != nil {
		return err
	}
	defer closeFn()
	fig, err := calibration.ReadK6Summary(o.Files[0], in, o.Metric, opts.Filter)
	if err != nil {
		return inputErr(err)
	}
	fig.Family = o.Dist
	fit, err := calibration.FitFigures(fig)
	if err != nil {
		return usageErr("%s: %v", o.Files[0], err)
	}
	name := o.Name
	if name == "" {
		name = defaultEntryName(o.Metric)
		if o.Metric == "" {
			name = calibration.DefaultK6Metric
		}
	}
	if err := writeFiguresTable(io.ErrOut, name, fit, io.errWidth(), seeAll); err != nil {
		return err
	}
	printWarnings(io, entryWarnings(name, fit.Warnings))
	return writeFragmentRemoving(io, o.Out, []calibration.Entry{calibration.EntryFromFigures(name, o.Files, fit, rerun)}, o.Remove)
}

func calibrateFiguresRun(io *IOStreams, file, out, rerun string) error {
	if err := checkRegular(file); err != nil {
		return usageErr("%v", err)
	}
	if err := refuseInput("--out", out, []string{file}); err != nil {
		return err
	}
	nfs, err := calibration.ReadFiguresFile(file)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return usageErr("%s: no such file", file)
		}
		return usageErr("%v", err)
	}
	var entries []calibration.Entry
	var warned []calibration.EntryWarning
	for i, nf := range nfs {
		fit, err := calibration.FitFigures(nf.Figures)
		if err != nil {
			return usageErr("%s:%d: %s: %v", file, nf.Line, nf.Name, err)
		}
		if i > 0 {
			fmt.Fprintln(io.ErrOut)
		}
		if err := writeFiguresTable(io.ErrOut, nf.Name, fit, io.errWidth(), seeAll); err != nil {
			return err
		}
		warned = append(warned, entryWarnings(nf.Name, fit.Warnings)...)
		entries = append(entries, calibration.EntryFromFigures(nf.Name, []string{file}, fit, rerun))
	}
	if len(warned) > 0 {
		fmt.Fprintln(io.ErrOut)
		printWarnings(io, warned)
	}
	return writeFragment(io, out, entries)
}

// openInput opens a named file, or standard input for "-", decompressing
// gzip.
func openInput(streams *IOStreams, name string) (io.Reader, func() error, error) {
	if name == "-" {
		r, err := calibration.Decompress(streams.In)
		if err != nil {
			return nil, nil, badGzipInput(fmt.Errorf("standard input: %w", err))
		}
		return r, func() error { return nil }, nil
	}
	// A pipe is a stream of lines as a file is; a device or a folder is
	// not, and naming one is a mistake in the command, as with check.
	if err := notAStream(name); err != nil {
		return nil, nil, err
	}
	f, err := os.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		// A file named on the command line that is not there is a
		// mistake in the command, as a missing scenario is.
		return nil, nil, usageErr("%s: no such file", name)
	}
	if err != nil {
		return nil, nil, fmt.Errorf("cannot read %s: %w", name, unwrapPath(err))
	}
	r, closeFn, err := calibration.DecompressFile(f, name)
	return r, closeFn, badGzipInput(err)
}

// stdinTwice refuses standard input named more than once (as FILE or
// ALIAS=FILE): the second reading would find it empty.
func stdinTwice(files []string) error {
	n := 0
	for _, f := range files {
		if _, path, named := strings.Cut(f, "="); f == "-" || named && path == "-" {
			n++
		}
	}
	if n > 1 {
		return usageErr("- is given twice: standard input can be read once")
	}
	return nil
}

// notAStream refuses a path that is a folder or a device (exit 2).
func notAStream(path string) error {
	if st, err := os.Stat(path); err == nil && (st.IsDir() || st.Mode()&os.ModeDevice != 0) {
		return usageErr("cannot read %s: %s, not a file or a pipe", path, calibration.FileKind(st.Mode()))
	}
	return nil
}

// badGzipInput makes a gzip stream cut short or corrupt bad input (exit 2),
// as a line that does not parse is, leaving a failed read as I/O.
func badGzipInput(err error) error {
	if errors.Is(err, calibration.ErrBadGzip) {
		return inputErr(err)
	}
	return err
}

func readInput(streams *IOStreams, r *calibration.Reader, name string) error {
	in, closeFn, err := openInput(streams, name)
	if err != nil {
		return err
	}
	defer closeFn()
	return inputErr(r.Read(name, in))
}

// reportReading tells on standard error what became of every line read.
func reportReading(streams *IOStreams, s *calibration.Sample) {
	if s == nil {
		return
	}
	for _, fs := range s.Stats {
		parts := []string{fmt.Sprintf("%d used", fs.Used)}
		for _, p := range []struct {
			n    int
			what string
		}{{fs.Filtered, "excluded by the filter"}, {fs.NoValue, "without a value"}, {fs.Rejected, "rejected"}} {
			if p.n > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", p.n, p.what))
			}
		}
		line := fmt.Sprintf("%s (%s): %d lines, %d records of %s: %s", fs.File, fs.Format, fs.Lines, fs.Records, s.Source, strings.Join(parts, ", "))
		if fs.Malformed > 0 {
			line += fmt.Sprintf("; %d malformed lines skipped", fs.Malformed)
		}
		streams.noteErr(line)
	}
	for _, e := range s.LineErrors {
		fmt.Fprintln(streams.ErrOut, e.Error())
	}
	if more := s.LineErrorCount - len(s.LineErrors); more > 0 {
		fmt.Fprintf(streams.ErrOut, "... and %d more line problems\n", more)
	}
	for _, n := range s.Notes {
		fmt.Fprintf(streams.ErrOut, "note: %s\n", n)
	}
}

// writeFragment adds entries to the fragment at path. With path "-" it
// prints them as a new fragment on standard output, which then holds the
// fragment alone, so that "> frag.yaml" gives valid YAML; with path "" no
// fragment is written and standard error says how to get one.
func writeFragment(streams *IOStreams, path string, entries []calibration.Entry) error {
	return writeFragmentRemoving(streams, path, entries, nil)
}

// mergeFragment is calibration.MergeFragment of entries that a scenario
// including the fragment would load: one it would refuse (a mean past
// the clock, from figures far apart or values spread over many orders of
// magnitude) is bad input (exit 2), the data or figures it came from being
// what to fix, and no fragment is written. Every fragment capsim writes
// is made here.
func mergeFragment(existing []byte, entries []calibration.Entry) ([]byte, error) {
	for _, e := range entries {
		if err := model.CheckDistribution(e.Dist); err != nil {
			return nil, inputErr(fmt.Errorf("%s: %s is a distribution no scenario could load: %v", e.Name, e.Dist, err))
		}
	}
	return calibration.MergeFragment(existing, entries)
}

// fragmentErr names the fragment at path in err, with the line when err
// has one. What the fragment holds is input to correct, exit 2, as an
// input file that does not read is.
func fragmentErr(path string, err error) error {
	var sd *calibration.SecondDocumentError
	if errors.As(err, &sd) {
		return inputErr(errors.New(sd.In(path)))
	}
	return inputErr(fmt.Errorf("%s: %v", path, err))
}

// writeFragmentRemoving is writeFragment that first takes the entries named
// remove out of the fragment at path.
func writeFragmentRemoving(streams *IOStreams, path string, entries []calibration.Entry, remove []string) error {
	switch path {
	case "":
		fmt.Fprintln(streams.ErrOut, "no fragment written: give --out FILE, or --out - for standard output")
		return nil
	case "-":
		data, err := mergeFragment(nil, entries)
		if err != nil {
			return err
		}
		_, err = streams.Out.Write(data)
		return err
	}
	existing, err := readRegular(path)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if len(remove) > 0 {
		if existing, err = calibration.RemoveFromFragment(existing, remove); err != nil {
			var me *calibration.MissingEntryError
			if errors.As(err, &me) {
				return usageErr("--remove %s: %s has no such entry (it has: %s)", me.Name, path, strings.Join(me.Have, ", "))
			}
			return fragmentErr(path, err)
		}
	}
	// An entry of the same name is replaced whole, with what it was
	// noted on; the file says so, since hand-written notes go with it.
	replaced := map[string]bool{}
	var notes []string
	for _, old := range calibration.FragmentEntries(existing) {
		if !slices.ContainsFunc(entries, func(e calibration.Entry) bool { return e.Name == old.Name }) {
			continue
		}
		replaced[old.Name] = true
		if old.Commented {
			notes = append(notes, fmt.Sprintf("note: %s:%d: %s replaces the entry of that name, whose comments are not kept", path, old.Line, old.Name))
		}
	}
	data, err := mergeFragment(existing, entries)
	var ce *codedError
	if errors.As(err, &ce) {
		return err
	}
	if err != nil {
		return fragmentErr(path, err)
	}
	if err := writeAtomic(path, data); err != nil {
		return err
	}
	var what []string
	if len(entries) > 0 {
		names := make([]string, len(entries))
		for i, e := range entries {
			names[i] = e.Name
			if replaced[e.Name] {
				names[i] += " replaced"
			}
		}
		what = append(what, strings.Join(names, ", "))
	}
	if len(remove) > 0 {
		what = append(what, "removed "+strings.Join(remove, ", "))
	}
	for _, n := range notes {
		streams.noteErr(n)
	}
	fmt.Fprintf(streams.ErrOut, "wrote %s (%s)\n", path, strings.Join(what, "; "))
	return nil
}

// writeFitPlots writes NAME-hist.svg, the values' histogram with the chosen
// distribution's density over it, and, for a fitted family, NAME-qq.svg,
// its quantiles against the observed ones (on the diagonal: a good fit).
// A name may hold a /, which in a file name would mean a folder: the files
// take a - in its place (api/upload: api-upload-hist.svg).
func writeFitPlots(dir, name string, res *calibration.Result) ([]string, error) {
	file := strings.ReplaceAll(name, "/", "-")
	c := res.Chosen
	hist := plots.Histogram{Title: name, XLabel: "seconds", Values: res.Sorted}
	if c != nil && c.HasDensity() {
		hist.Density, hist.DensityName = c.Density, c.Dist.String()
	}
	charts := []struct {
		file  string
		chart plots.Renderer
	}{{file + "-hist.svg", hist}}
	if c != nil && c.HasDensity() {
		charts = append(charts, struct {
			file  string
			chart plots.Renderer
		}{file + "-qq.svg", plots.QQ{Title: name + ": QQ against " + c.Dist.String(), Observed: res.Sorted, Quantile: c.Quantile}})
	}
	var files []string
	for _, ch := range charts {
		svg, err := ch.chart.Render(plots.SVG, 16, 10)
		if err != nil {
			return files, err
		}
		path := filepath.Join(dir, ch.file)
		if err := writeAtomic(path, svg); err != nil {
			return files, err
		}
		files = append(files, path)
	}
	return files, nil
}

// defaultEntryName derives a name from what was read: the metric, column or
// events, reduced to letters, digits and underscores. A name must start
// with a letter, so one that would start with a digit, such as a column
// 99th, gets a p before it (p99th): such columns are mostly percentiles.
func defaultEntryName(source string) string {
	for _, prefix := range []string{"k6 metric ", "nginx ", "column ", "field "} {
		if rest, ok := strings.CutPrefix(source, prefix); ok {
			source = rest
			break
		}
	}
	if rest, ok := strings.CutPrefix(source, "time from "); ok {
		from, to, _ := strings.Cut(rest, " to ")
		to, _, _ = strings.Cut(to, " by ")
		source = from + "_to_" + to
	}
	source, _, _ = strings.Cut(source, " of ")
	var b strings.Builder
	for _, c := range strings.ToLower(source) {
		switch {
		case c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_':
			b.WriteRune(c)
		case b.Len() > 0 && !strings.HasSuffix(b.String(), "_"):
			b.WriteByte('_')
		}
	}
	name := strings.Trim(b.String(), "_")
	if name == "" {
		return "measured"
	}
	if name[0] >= '0' && name[0] <= '9' {
		name = "p" + name
	}
	return name
}

// checkEntryName refuses a name no scenario could refer to: the fragment
// is read by scenarios, so it follows their rule for names.
func checkEntryName(name string) error { return naming.Check(name) }

// rerunLine is the command that reproduces this one, for the fragment's
// provenance: the arguments and every flag given, in a fixed order.
func rerunLine(cmd *cobra.Command, args []string) string {
	path := cmd.CommandPath()
	if !strings.HasPrefix(path, "capsim ") {
		// The command is being run on its own (in tests); the rerun line is
		// still for the capsim binary.
		path = "capsim " + path
	}
	parts := []string{path}
	for _, a := range args {
		parts = append(parts, shellQuote(a))
	}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		switch v := f.Value.(type) {
		case pflag.SliceValue:
			for _, s := range v.GetSlice() {
				parts = append(parts, "--"+f.Name, shellQuote(s))
			}
		default:
			parts = append(parts, "--"+f.Name, shellQuote(f.Value.String()))
		}
	})
	return strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it holds anything but plain
// characters.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,@+") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
