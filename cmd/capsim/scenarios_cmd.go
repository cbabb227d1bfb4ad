package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"capsim/model"
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
			tw := tabwriter.NewWriter(io.Out, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tDESIGNS\tDESCRIPTION")
			for _, name := range scenarios.List() {
				l, err := model.Load(scenarios.FS(), scenarios.File(name), model.LoadOptions{})
				if err != nil {
					return err
				}
				sc := l.Scenario
				designs := strings.Join(sc.Designs.Names(), ",")
				if designs == "" {
					designs = "-"
				}
				desc := strings.Join(strings.Fields(sc.Description), " ")
				if len(desc) > 70 {
					desc = desc[:67] + "..."
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\n", name, designs, desc)
			}
			return tw.Flush()
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
				return usageErr("no embedded scenario %q (embedded: %s)", args[0], strings.Join(scenarios.List(), ", "))
			}
			_, err := io.Out.Write(data)
			return err
		},
	}
	cmd.AddCommand(show)
	return cmd
}

func completeScenarios(_ *cobra.Command, args []string, _ string) ([]string, cobra.ShellCompDirective) {
	if len(args) > 0 {
		return nil, cobra.ShellCompDirectiveNoFileComp
	}
	return scenarios.List(), cobra.ShellCompDirectiveDefault
}
