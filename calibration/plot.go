package calibration

import (
	"bytes"
	"fmt"
	"math"
	"path/filepath"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// maxQQPoints bounds the points of a QQ plot; beyond it, evenly spaced
// ranks are drawn, which keeps the shape and the file small.
const maxQQPoints = 1000

// WritePlots writes two SVG charts of a fit into dir: NAME-hist.svg, the
// histogram of the values as a density with the chosen distribution's
// density over it, and NAME-qq.svg, the observed quantiles against the
// fitted ones (points on the diagonal mean a good fit). A chosen
// distribution without a density (empirical, constant) gets the histogram
// alone. It returns the files written.
func WritePlots(dir, name string, r *Result) ([]string, error) {
	x := r.Sorted
	if len(x) == 0 {
		return nil, fmt.Errorf("no values to plot")
	}
	c := r.Chosen
	withModel := c != nil && c.model != nil && c.Family != FamilyEmpirical

	h := plot.New()
	h.Title.Text = name
	h.X.Label.Text = "seconds"
	h.Y.Label.Text = "density"
	bins := int(math.Ceil(math.Sqrt(float64(len(x)))))
	bins = min(max(bins, 10), 60)
	hist, err := plotter.NewHist(plotter.Values(x), bins)
	if err != nil {
		return nil, fmt.Errorf("histogram: %v", err)
	}
	hist.Normalize(1)
	h.Add(hist)
	if withModel {
		m := c.model
		f := plotter.NewFunction(func(v float64) float64 {
			if v <= 0 {
				return 0
			}
			p := math.Exp(m.LogProb(v))
			if math.IsNaN(p) || math.IsInf(p, 0) {
				return 0
			}
			return p
		})
		f.Samples = 300
		f.Width = vg.Points(1.5)
		h.Add(f)
		h.Legend.Add(c.Dist.String(), f)
		h.Legend.Top = true
	}
	h.X.Min = 0
	files := []string{filepath.Join(dir, name+"-hist.svg")}
	if err := savePlot(h, files[0]); err != nil {
		return nil, err
	}
	if !withModel {
		return files, nil
	}

	q := plot.New()
	q.Title.Text = name + ": QQ against " + c.Dist.String()
	q.X.Label.Text = "fitted quantile (s)"
	q.Y.Label.Text = "observed quantile (s)"
	n := len(x)
	step := max(1, n/maxQQPoints)
	var pts plotter.XYs
	for i := 0; i < n; i += step {
		fq := c.model.Quantile((float64(i) + 0.5) / float64(n))
		if math.IsNaN(fq) || math.IsInf(fq, 0) {
			continue
		}
		pts = append(pts, plotter.XY{X: fq, Y: x[i]})
	}
	if len(pts) == 0 {
		return files, fmt.Errorf("QQ plot: %s has no finite quantiles", c.Dist.String())
	}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return nil, fmt.Errorf("QQ plot: %v", err)
	}
	sc.GlyphStyle.Radius = vg.Points(1.5)
	lo, hi := math.Min(pts[0].X, x[0]), math.Max(pts[len(pts)-1].X, x[n-1])
	diag, err := plotter.NewLine(plotter.XYs{{X: lo, Y: lo}, {X: hi, Y: hi}})
	if err != nil {
		return nil, fmt.Errorf("QQ plot: %v", err)
	}
	q.Add(diag, sc)
	files = append(files, filepath.Join(dir, name+"-qq.svg"))
	if err := savePlot(q, files[1]); err != nil {
		return nil, err
	}
	return files, nil
}

func savePlot(p *plot.Plot, path string) error {
	wt, err := p.WriterTo(6*vg.Inch, 4*vg.Inch, "svg")
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if _, err := wt.WriteTo(&buf); err != nil {
		return err
	}
	return WriteFileAtomic(path, buf.Bytes())
}
