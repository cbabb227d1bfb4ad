// Package sweepreport lays out what a sweep found for a person to read: the
// tables `capsim sweep` prints, and report.md and report.html with their
// charts, the answer first (where each design breaks), then the evidence.
//
// It reads a [sweep.Result] and draws through package plots. It returns
// text and files as bytes, for the caller to print or write wherever and
// however it likes; it never opens a file, and knows nothing of flags or
// exit codes. It finds metrics by their keys ([model.MetricKey]: a
// measure of the model's vocabulary, of a journey, route or component)
// and reads a value's unit from its measure, and a time series' signals
// by the component and measure each carries, so the report follows what
// the model defines rather than re-deriving it from names.
//
// The same result gives the same bytes, whatever the number of workers
// drawing the charts.
package sweepreport
