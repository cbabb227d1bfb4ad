package diagram

import (
	"fmt"
	"strings"

	"capsim/model"
)

// DOT writes g in Graphviz's language, the same columns as SVG.
func DOT(g model.Graph, opts Options) []byte {
	lay := place(g, opts)
	var b strings.Builder
	f := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	q := func(s string) string { return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"` }
	id := func(r model.GraphRef) string {
		return q([]string{"journey:", "route:", "component:"}[r.Layer] + r.Name)
	}
	f("digraph %s {\n  rankdir=LR; node [shape=box, style=\"rounded,filled\", fontname=\"sans-serif\"];\n", q(title(g)))
	f("  label=%s; labelloc=t;\n", q(strings.TrimSpace(title(g)+"\n"+opts.Caption)))
	fills := [3]string{"#eef4fb", "#f3effa", "#fdf6ec"}
	for layer := model.LayerJourney; layer <= model.LayerComponent; layer++ {
		f("  { rank=same;\n")
		for _, n := range lay.nodes {
			if n.ref.Layer != layer {
				continue
			}
			label := strings.Join(append([]string{n.title}, n.lines...), `\n`)
			extra := ""
			if n.highlight {
				extra = `, color="#d62728", penwidth=3`
			}
			f("    %s [label=\"%s\", fillcolor=%q%s];\n", id(n.ref), strings.ReplaceAll(label, `"`, `\"`), fills[layer], extra)
		}
		f("  }\n")
	}
	for _, e := range lay.edges {
		st := styleOf(e.Rel)
		pen := 1.0
		if e.Fanout {
			pen = 2.5
		}
		f("  %s -> %s [color=%q, style=%s, penwidth=%g, label=%s, tooltip=%s];\n", id(e.From), id(e.To), st.colour, st.dot, pen, q(e.Label), q(string(e.Rel)))
	}
	f("  subgraph cluster_legend { label=\"edges\"; node [shape=plaintext, style=\"\"];\n")
	for i, st := range relStyles {
		f("    l%da [label=\"\"]; l%db [label=%s]; l%da -> l%db [color=%q, style=%s];\n", i, i, q(string(st.rel)), i, i, st.colour, st.dot)
	}
	f("  }\n}\n")
	return []byte(b.String())
}
