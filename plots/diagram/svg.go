package diagram

import (
	"fmt"
	"math"
	"strings"

	"capsim/model"
)

// SVG draws g as a standalone SVG document.
func SVG(g model.Graph, opts Options) []byte {
	lay := place(g, opts)
	legendW := 170.0
	w := lay.w + legendW
	h := math.Max(lay.h+margin, top+float64(len(relStyles)+2)*18+margin)
	var b strings.Builder
	f := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	f(`<svg xmlns="http://www.w3.org/2000/svg" width="%.0f" height="%.0f" viewBox="0 0 %.0f %.0f" font-family="sans-serif" font-size="12">`+"\n", w, h, w, h)
	f(`<rect width="100%%" height="100%%" fill="white"/>` + "\n")
	f(`<text x="%.0f" y="24" font-size="16" font-weight="bold">%s</text>`+"\n", margin, esc(title(g)))
	if opts.Caption != "" {
		f(`<text x="%.0f" y="42" fill="#444">%s</text>`+"\n", margin, esc(opts.Caption))
	}
	// Edges first, so boxes cover the lines that pass behind them.
	// One label for a run of a node's edges that would repeat it (a
	// fan-out's several uses).
	lastLabel := map[int]string{}
	for k, e := range lay.edges {
		fi := lay.index[e.From]
		from, to := lay.nodes[fi], lay.nodes[lay.index[e.To]]
		st := styleOf(e.Rel)
		y1, y2 := port(from, from.out, k), port(to, to.in, k)
		var d string
		var lx, ly float64
		if from.ref.Layer == to.ref.Layer {
			// Same column: an arc out to the right of it.
			x := from.x + from.w
			bulge := 30 + math.Min(60, math.Abs(y2-y1)/6)
			d = fmt.Sprintf("M%.1f %.1f C%.1f %.1f %.1f %.1f %.1f %.1f", x, y1, x+bulge, y1, x+bulge, y2, x+6, y2)
			lx, ly = x+bulge*0.8, (y1+y2)/2
		} else {
			x1, x2 := from.x+from.w, to.x
			mid := (x1 + x2) / 2
			d = fmt.Sprintf("M%.1f %.1f C%.1f %.1f %.1f %.1f %.1f %.1f", x1, y1, mid, y1, mid, y2, x2-6, y2)
			lx, ly = x1+6, y1-3
		}
		width := 1.4
		if e.Rel == model.RelHold {
			width = 2.2
		}
		if e.Fanout {
			width += 1.6
		}
		dash := ""
		if st.dash != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, st.dash)
		}
		f(`<path d="%s" fill="none" stroke="%s" stroke-width="%.1f"%s marker-end="url(#arrow)"/>`+"\n", d, st.colour, width, dash)
		if e.Label != "" && lastLabel[fi] != e.Label {
			lastLabel[fi] = e.Label
			f(`<text x="%.1f" y="%.1f" font-size="10" fill="%s">%s</text>`+"\n", lx, ly, st.colour, esc(e.Label))
		}
	}
	f(`<defs><marker id="arrow" viewBox="0 0 10 10" refX="1" refY="5" markerWidth="6" markerHeight="6" orient="auto"><path d="M0 0L10 5L0 10z" fill="#333"/></marker></defs>` + "\n")
	fills := [3]string{"#eef4fb", "#f3effa", "#fdf6ec"}
	for _, n := range lay.nodes {
		stroke, sw := "#777", 1.0
		if n.highlight {
			stroke, sw = "#d62728", 3.5
		}
		f(`<g><rect x="%.1f" y="%.1f" width="%.1f" height="%.1f" rx="6" fill="%s" stroke="%s" stroke-width="%.1f"/>`, n.x, n.y, n.w, n.h, fills[n.ref.Layer], stroke, sw)
		f(`<text x="%.1f" y="%.1f" font-weight="bold">%s</text>`, n.x+10, n.y+lineH+2, esc(n.title))
		for i, l := range n.lines {
			f(`<text x="%.1f" y="%.1f" font-size="11" fill="#333">%s</text>`, n.x+10, n.y+lineH*float64(i+2)+2, esc(l))
		}
		if !math.IsNaN(n.util) {
			bw := n.w - 20
			u := math.Max(0, math.Min(1, n.util))
			colour := "#2ca02c"
			switch {
			case n.util >= 0.9:
				colour = "#d62728"
			case n.util >= 0.7:
				colour = "#ff7f0e"
			}
			by := n.y + n.h - 10
			f(`<rect x="%.1f" y="%.1f" width="%.1f" height="5" fill="#ddd"/><rect x="%.1f" y="%.1f" width="%.1f" height="5" fill="%s"/>`, n.x+10, by, bw, n.x+10, by, bw*u, colour)
		}
		f("</g>\n")
	}
	// Legend.
	lx, ly := lay.w, top
	f(`<text x="%.0f" y="%.0f" font-weight="bold">edges</text>`+"\n", lx, ly)
	for i, st := range relStyles {
		y := ly + float64(i+1)*18
		dash := ""
		if st.dash != "" {
			dash = fmt.Sprintf(` stroke-dasharray="%s"`, st.dash)
		}
		f(`<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="%s" stroke-width="1.8"%s/><text x="%.0f" y="%.0f">%s</text>`+"\n",
			lx, y-4, lx+40, y-4, st.colour, dash, lx+48, y, esc(string(st.rel)))
	}
	y := ly + float64(len(relStyles)+1)*18
	f(`<line x1="%.0f" y1="%.0f" x2="%.0f" y2="%.0f" stroke="#555" stroke-width="3.6"/><text x="%.0f" y="%.0f">in a fan-out</text>`+"\n", lx, y-4, lx+40, y-4, lx+48, y)
	if opts.Highlight != "" {
		y += 18
		f(`<rect x="%.0f" y="%.0f" width="40" height="10" fill="none" stroke="#d62728" stroke-width="3"/><text x="%.0f" y="%.0f">fails first</text>`+"\n", lx, y-10, lx+48, y)
	}
	f("</svg>\n")
	return []byte(b.String())
}
