// Package model is the modelled system: the scenario language (schema,
// strict decoding with positions, designs as overlays, --set overrides), the
// compiler from a scenario to components and step programs on the sim
// kernel, one run's execution and its results, SLOs and the metrics that
// sweeps aggregate.
//
// It never touches the command line, the terminal or the wall clock; files
// are read only through the fs.FS a caller hands to Parse (or Load), each
// once: a Document keeps the bytes it read (Document.Sources,
// Loaded.Sources), and every design, override and draw loads from it in
// memory. Results are returned as values for the caller to print or write.
//
// # Layers
//
// Dependencies point one way: cmd → model, calibration, plots, scenarios →
// sim (and sim/human). Each package is for one thing and must never know another's:
//
//   - sim is the kernel: an event queue, random streams and one primitive
//     per component kind. It knows no domain word, does no I/O and reads
//     no clock.
//   - sim/human writes numbers and times for a person (human.Seconds: 150 s is
//     "2.5m"), so that the model's messages and the tables agree. It knows
//     nothing of what it formats.
//   - model (this package, with model/sweep, model/sensitivity and
//     model/hindcast) is the modelled system and its analyses. It returns
//     results as plain data and lays nothing out: it never imports plots,
//     calibration, scenarios or cmd, nor the terminal's tables
//     (plots/texttab). Its messages name times with package sim/human and
//     suggest names with Nearest.
//   - calibration turns measured timings into distributions. It knows sim's
//     distributions and nothing of scenarios: it never imports model or
//     plots, and returns fits as values for cmd to show.
//   - plots draws charts and reports from plain data handed to it, to bytes;
//     plots/texttab lays out aligned terminal tables knowing nothing of what
//     they hold; plots/sweepreport reads a sweep's result. None touches
//     files.
//   - scenarios holds the bundled scenarios as files, knowing no package
//     that reads them.
//   - cmd/capsim is the command line: flags, files, streams, and the tables
//     of each command (sensitivity_table.go, calibrate_table.go), built
//     from the values the layers below return.
//
// cmd/capsim/layers_test.go checks these rules on the source.
//
// Inside model the files lean the same way: data below, behaviour above.
// The ground is vocabulary (errors.go, text.go, suggest.go, bounds.go,
// files.go, sources.go, decode.go, values.go, dist.go); on it stands the
// state everything shares: compile.go's program with every feature's
// compiled form, run.go's run, procs and the interfaces a component's
// runtime offers, kind.go's registry and stats.go's tallies. The language
// (schema.go, with the YAML forms of attributes, waves, stages and the
// recovery verdict) and the results (result.go, every result type) come
// next; then loading (load.go, and above it the overlays, params and
// document.go's Parse and Load) beside each feature's file (profile, wave,
// attributes, deadline, recovery, trace, series, observe, slo, the
// kind_*.go) with its compile and run methods; on top, the behaviour that
// ties features together: the compiler's passes (compile_steps.go,
// verbs.go), the interpreter (exec.go, waits.go, guards.go, calls.go) and
// a run's life (lifecycle.go). What still runs back up: the registry
// names each kind, the run names each feature's record (tracer, recovery,
// a proc's wait state), and the wait table hands each state's end to the
// interpreter's handlers.
package model
