package main

import (
	"fmt"
	"slices"
	"strings"

	"capsim/model"
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
	show := &cobra.Command{
		Use:               "show NAME",
		Short:             "Print an embedded scenario's YAML",
		Args:              cobra.ExactArgs(1),
		ValidArgsFunction: completeScenarios,
		RunE: func(_ *cobra.Command, args []string) error {
			data, ok := scenarios.Get(args[0])
			if !ok {
				return usageErr("no embedded scenario %q%s (embedded: %s)", args[0], didYouMean(args[0], scenarios.List()), strings.Join(scenarios.List(), ", "))
			}
			_, err := io.Out.Write(data)
			return err
		},
	}
	cmd.AddCommand(show)
	return cmd
}
