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
package model
