package main

import (
	"fmt"
	"slices"
	"strings"

	"capsim/model"
	"capsim/plots/diagram"
	"capsim/plots/texttab"
	"capsim/scenarios"
	"github.com/spf13/cobra"
)

func newScenariosCmd(io *IOStreams) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "scenarios",
		Short: "List the embedded scenarios",
		Long:  "List the scenarios built into capsim, with their designs. Use 'capsim scenarios show NAME' to print one as a starting point for your own.",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			names := scenarios.List()
			width := 0
			for _, n := range names {
				width = max(width, len(n))
			}
			indent := strings.Repeat(" ", width+2)
			limit := io.width()
			for _, name := range names {
				l, err := model.Load(scenarios.FS(), scenarios.File(name), model.LoadOptions{})
				if err != nil {
					return err
				}
				sc := l.Scenario
				line := fmt.Sprintf("%-*s  %s", width, name, strings.Join(strings.Fields(sc.Description), " "))
				if limit > 0 {
					line = texttab.Cut(line, limit)
				}
				fmt.Fprintln(io.Out, line)
				if designs := sc.Designs.Names(); len(designs) > 0 {
					items := slices.Clone(designs)
					for i := range items[:len(items)-1] {
						items[i] += ","
					}
					texttab.WriteLines(io.Out, texttab.Fill(indent+"designs: ", indent+"         ", items, " ", limit))
				}
			}
			return nil
		},
	}
	var g graphOptions
	show := &cobra.Command{
		Use:               "show NAME",
		Short:             "Print an embedded scenario's YAML, or draw it as a diagram",
		Long:              "Print an embedded scenario's YAML. With --graph or --dot, draw it instead: journeys, routes and components in three columns, an edge style per relation (see docs/diagram.md).",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeScenarios,
		RunE: func(_ *cobra.Command, args []string) error {
			data, ok := scenarios.Get(args[0])
			if !ok {
				return usageErr("no embedded scenario %q%s (embedded: %s)", args[0], model.DidYouMean(args[0], scenarios.List()), strings.Join(scenarios.List(), ", "))
			}
			if g.svg != "" || g.dot != "" {
				return writeGraph(io, args[0], &g)
			}
			if g.design != "" || len(g.sets) > 0 {
				return usageErr("--design and --set choose what --graph or --dot draws; give one of them")
			}
			_, err := io.Out.Write(data)
			return err
		},
	}
	f := show.Flags()
	f.StringVar(&g.svg, "graph", "", "draw the scenario as an SVG diagram into `FILE`")
	f.StringVar(&g.dot, "dot", "", "write the diagram in Graphviz's language into `FILE` (- for the standard output)")
	f.StringVarP(&g.design, "design", "d", "", "design to overlay on the base scenario before drawing it")
	f.StringArrayVar(&g.sets, "set", nil, setUsage(" before drawing it"))
	show.RegisterFlagCompletionFunc("design", completeDesigns)
	cmd.AddCommand(show)
	return cmd
}

type graphOptions struct {
	svg, dot, design string
	sets             []string
}

// writeGraph draws the embedded scenario name, with its design and
// overrides, as --graph and --dot ask.
func writeGraph(io *IOStreams, name string, g *graphOptions) error {
	doc, overrides, err := openScenario(name, g.sets, nil, nil)
	if err != nil {
		return err
	}
	c, _, err := compileDesign(doc, model.LoadOptions{Design: g.design, Overrides: overrides})
	if err != nil {
		return err
	}
	graph := c.Graph()
	if g.svg != "" {
		if g.svg == "-" {
			return usageErr("--graph needs a file name; the standard output takes --dot -")
		}
		if err := writeAtomic(g.svg, diagram.SVG(graph, diagram.Options{})); err != nil {
			return err
		}
	}
	switch g.dot {
	case "":
	case "-":
		_, err = io.Out.Write(diagram.DOT(graph, diagram.Options{}))
		return err
	default:
		return writeAtomic(g.dot, diagram.DOT(graph, diagram.Options{}))
	}
	return nil
}
