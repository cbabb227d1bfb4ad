// Package calibration turns measured timings into the distributions a
// scenario uses.
//
// It reads what load tests and servers leave behind — k6 CSV and JSON-lines
// output and its end-of-test summaries, nginx access logs (a JSON log_format
// or the combined format with $request_time appended), application JSON-lines
// logs whose events are joined by request id into stage durations, and plain
// CSV columns — and keeps only the values that pass a filter (route, status,
// tags, time window). It then fits candidate families by maximum likelihood,
// ranks them by AIC or by the one-sample Kolmogorov–Smirnov distance, and
// renders the winner, with its provenance, as a YAML fragment that scenarios
// include by reference. When all there is are summary figures (a mean and a
// p95 from a dashboard, a range from a report), it turns those into
// distributions through the closed forms of package sim.
//
// A Plan names every distribution of a fragment with where it comes from,
// so that the fragment is rebuilt identically: it joins the records of
// several files on a key, pairs successive events of one request, computes
// values by arithmetic over any fields (Expr) and splits a time into a base
// and a time per item. Times logged at a resolution (nginx's milliseconds)
// are taken as such: a difference below 0 within the rounding is kept as 0,
// and values within a few quanta of 0 are fitted by their moments.
//
// Input is streamed line by line: memory grows with the values kept, not with
// the size of the log (a plan, which joins, holds the records of its
// sources). Problems with the data are never silent. A malformed
// line is skipped, counted and reported with its file and line number;
// doubts about a fit (few values, a heavy tail, latency that climbs over the
// recording as under saturation, failed responses among the values, a
// cluster at a timeout, two groups, a timer's quantum, no family fitting
// well) are returned as Warnings alongside the result, for the caller to
// show, not logged.
//
// The package knows nothing of what the distributions will be used for: it
// does not know scenarios, components or the simulation, only values in
// seconds and the text syntax in which sim.Dist prints itself. It reads the
// files it is given and writes none: fragments are returned as bytes, and
// the fitted density and quantiles are there for the caller to draw.
//
// Nor does it lay anything out for a person: the candidates, their scores
// and the observed figures are returned as values (Result, SummaryFit,
// SplitFit, Candidate.Scored, SplitDist), and the aligned tables capsim
// calibrate prints are built from them in cmd/capsim. Below cmd there is
// only package sim: calibration imports neither model nor plots.
package calibration
