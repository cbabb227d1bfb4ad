package main

import (
	"errors"
	"fmt"

	"capsim/model"
	"github.com/spf13/cobra"
)

func newValidateCmd(io *IOStreams) *cobra.Command {
	var design string
	var sets []string
	cmd := &cobra.Command{
		Use:   "validate SCENARIO...",
		Short: "Check scenarios without running them",
		Long: `Load and compile each scenario (a file or an embedded name), with every design
it defines, and report every problem with file:line:column. Exits 2 if any
scenario has a problem.`,
		Example: "  capsim validate my-system.yaml\n  capsim validate trip mmc",
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			bad := 0
			for _, arg := range args {
				if err := validateOne(arg, design, sets); err != nil {
					bad++
					fmt.Fprintf(io.ErrOut, "%s\n", printableLines(err.Error()))
					continue
				}
				fmt.Fprintf(io.Out, "%s: ok\n", arg)
			}
			if bad > 0 {
				return usageErr("%d of %d scenarios have problems", bad, len(args))
			}
			return nil
		},
		ValidArgsFunction: completeScenarios,
	}
	cmd.Flags().StringVarP(&design, "design", "d", "", "validate only this design (default: the base and every design)")
	cmd.Flags().StringArrayVar(&sets, "set", nil, setUsage(""))
	cmd.RegisterFlagCompletionFunc("design", completeDesigns)
	return cmd
}

// validateOne checks the base and each design, so a design that breaks the
// scenario is caught before a sweep reaches it.
func validateOne(arg, design string, sets []string) error {
	doc, err := parseScenario(arg)
	if err != nil {
		return err
	}
	overrides, err := model.ParseOverrides(sets, nil)
	if err != nil {
		return err
	}
	l, err := loadDesign(doc, model.LoadOptions{Design: design, Overrides: overrides})
	if err != nil {
		return err
	}
	if _, err := l.Compile(); err != nil {
		return err
	}
	if design != "" {
		return nil
	}
	var errs []error
	for _, d := range l.Scenario.Designs.Names() {
		ld, err := loadDesign(doc, model.LoadOptions{Design: d, Overrides: overrides})
		if err == nil {
			_, err = ld.Compile()
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
