// Package plots draws capsim's charts and assembles them into a report.
//
// It draws plain data: numbers, names and labels handed over in the
// chart types of this package ([LineChart], [BarChart], [TimeSeriesChart],
// [Histogram], [QQ]). It knows nothing of the simulator, of scenarios or of
// files: every chart renders to bytes (SVG or PNG), and [Report.Build]
// returns the report's files as bytes for the caller to write, atomically,
// wherever it likes.
//
// Output is deterministic: the same input gives byte-identical SVG,
// markdown and HTML, so reports can be compared between runs. Series take
// their colour and marker from a fixed palette by position, so a design
// keeps its look across charts when it is passed at the same index.
//
// Bad data is drawn, not fatal. NaN and infinite values leave gaps;
// a [Point] flagged Saturated (its run broke a guard, or its queue grew
// without bound) is drawn with its own marker at the top of the axis and
// named in the legend, never as +Inf. A chart with nothing to draw is an
// error that matches [ErrNoData]. Every error starts with "plots: ".
package plots
