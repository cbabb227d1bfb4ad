package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"capsim/model"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// Exit codes: scripts and CI pipelines rely on these.
const (
	exitOK        = 0   // the command did what was asked
	exitError     = 1   // something went wrong running it (I/O, internal)
	exitUsage     = 2   // bad flags, or a scenario that does not load
	exitSLOFailed = 3   // --fail-on-slo: the run or sweep broke an SLO
	exitInterrupt = 130 // interrupted (SIGINT/SIGTERM)
)

// exitError carries an exit code with an error.
type codedError struct {
	code int
	err  error
}

func (e *codedError) Error() string { return e.err.Error() }
func (e *codedError) Unwrap() error { return e.err }

func usageErr(format string, args ...any) error {
	return &codedError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// inputErr marks an error found in what a file holds (a line that does
// not parse, a column that is not there, too few values to fit) as bad
// input, exit 2 as a scenario with problems is, keeping a code the error
// already has (an unreadable file is I/O, 1).
func inputErr(err error) error {
	var ce *codedError
	if err == nil || errors.As(err, &ce) {
		return err
	}
	return &codedError{code: exitUsage, err: err}
}

// ioErr marks an error writing or reading the file system as I/O, exit 1,
// whatever flag named the path.
func ioErr(format string, args ...any) error {
	return &codedError{code: exitError, err: fmt.Errorf(format, args...)}
}

func withCode(code int, err error) error {
	if err == nil {
		return nil
	}
	var ce *codedError
	if errors.As(err, &ce) && ce.code == exitInterrupt {
		return err // an interrupt is an interrupt, whatever step it ended
	}
	return &codedError{code: code, err: err}
}

// Version is set at build time with -ldflags "-X main.Version=...".
var Version = "0.1.0-dev"

func newRootCmd(io *IOStreams) *cobra.Command {
	root := &cobra.Command{
		Use:   "capsim",
		Short: "Discrete-event capacity simulator for web back ends",
		Long: `capsim simulates a web back end described in a YAML scenario — traffic,
thread pools, locks, workers, token buckets — and answers: at which load
multiplier does this design first fail its SLOs, where, and is another design
better? With no scenario argument, commands use the embedded "trip" scenario.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		// Runnable, so that cobra checks its arguments: an unknown
		// command is then a usage error like any other.
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetFlagErrorFunc(flagError)
	root.PersistentPreRunE = refuseEmptyValues
	root.PersistentFlags().BoolVar(&io.Wide, "wide", false, "print tables as wide as they need, every column shown (else they fit COLUMNS, the terminal, or 100 columns)")
	// capsim --version is what capsim version prints: scripts try either.
	root.Version = versionLine()
	root.SetVersionTemplate("{{.Version}}\n")
	for _, newCmd := range commands {
		root.AddCommand(newCmd(io))
	}
	// Cobra adds these when it executes; added now, their argument
	// mistakes exit as every other command's do.
	root.InitDefaultHelpCmd()
	root.InitDefaultCompletionCmd()
	registerCompletions(root)
	usageArgs(root)
	if help, _, err := root.Find([]string{"help"}); err == nil && help != root {
		helpTopics(help)
	}
	return root
}

// usageArgs makes a wrong argument count or an unknown subcommand a usage
// error (exit 2) in c and every command under it: cobra's own argument
// errors carry no exit code. A command with subcommands that takes no
// arguments of its own names the unknown one and suggests the nearest.
func usageArgs(c *cobra.Command) {
	args := c.Args
	if args == nil && c.HasSubCommands() {
		args = cobra.NoArgs
	}
	if c.HasSubCommands() && !c.Runnable() {
		// Cobra shows a command that cannot run its help, exit 0, before
		// it checks the arguments: capsim completion zsh2 would succeed.
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
	}
	if args != nil {
		c.Args = func(cmd *cobra.Command, a []string) error {
			err := args(cmd, a)
			if err == nil {
				return nil
			}
			var ce *codedError
			if errors.As(err, &ce) {
				return err
			}
			// Cobra found no subcommand called a[0], or it would be
			// running that one.
			if cmd.HasSubCommands() && len(a) > 0 {
				var names []string
				for _, s := range cmd.Commands() {
					if s.IsAvailableCommand() {
						names = append(names, s.Name())
					}
				}
				return usageErr("unknown command %q for %q%s (see %s --help)", a[0], cmd.CommandPath(), model.DidYouMean(a[0], names), cmd.CommandPath())
			}
			// cobra.NoArgs calls a stray argument of a command without
			// subcommands an unknown command; it is an argument too many.
			if len(a) > 0 && args(cmd, nil) == nil && args(cmd, a[:1]) != nil {
				return usageErr("no arguments expected, got %q (see %s --help)", a[0], cmd.CommandPath())
			}
			return usageErr("%v (see %s --help)", err, cmd.CommandPath())
		}
	}
	for _, sub := range c.Commands() {
		usageArgs(sub)
	}
}

// refuseEmptyValues refuses, in every command, a flag given an empty text
// and an empty argument. No flag means by "" what its default means, and
// --trace "$FILE" with FILE unset, or capsim run "", must not quietly run
// without the trace or on the default scenario.
func refuseEmptyValues(cmd *cobra.Command, args []string) error {
	if cmd.Name() == cobra.ShellCompRequestCmd || cmd.Name() == cobra.ShellCompNoDescRequestCmd {
		return nil // the word being completed is empty at first
	}
	if empty := emptyFlag(cmd.Flags()); empty != nil {
		return usageErr("--%s needs a value, got an empty one (see %s --help)", empty.Name, cmd.CommandPath())
	}
	for i, a := range args {
		if strings.TrimSpace(a) == "" {
			return usageErr("argument %d is empty (see %s --help)", i+1, cmd.CommandPath())
		}
	}
	return nil
}

// emptyValue reports whether a text flag holds nothing: a blank string, or
// a list one of whose values is blank ("" parses as a list of none).
// emptyFlag is the first flag given in fs with an empty value, nil if
// none is.
func emptyFlag(fs *pflag.FlagSet) *pflag.Flag {
	var empty *pflag.Flag
	fs.Visit(func(f *pflag.Flag) {
		if empty == nil && emptyValue(f.Value) {
			empty = f
		}
	})
	return empty
}

func emptyValue(v pflag.Value) bool {
	switch v.Type() {
	case "string":
		return strings.TrimSpace(v.String()) == ""
	case "stringArray", "stringSlice":
		values := v.(pflag.SliceValue).GetSlice()
		if len(values) == 0 {
			return true
		}
		for _, s := range values {
			if strings.TrimSpace(s) == "" {
				return true
			}
		}
	}
	return false
}

// helpTopics makes capsim help NAME with no command called NAME a usage
// error, with the nearest command, instead of the root's help and exit 0.
func helpTopics(help *cobra.Command) {
	show := help.Run
	help.RunE = func(c *cobra.Command, args []string) error {
		cmd, rest, err := c.Root().Find(args)
		if err == nil && (len(rest) == 0 || !cmd.HasSubCommands()) {
			show(c, args)
			return nil
		}
		if cmd == nil || err != nil {
			cmd = c.Root()
		}
		var names []string
		for _, s := range cmd.Commands() {
			if s.IsAvailableCommand() {
				names = append(names, s.Name())
			}
		}
		return usageErr("no help topic %q for %q%s (see %s --help)", rest[0], cmd.CommandPath(), model.DidYouMean(rest[0], names), cmd.CommandPath())
	}
}

// flagError is every command's answer to a flag it cannot parse: a usage
// error naming the flag, with the nearest known flag for an unknown one
// and the kind of value expected for a bad value.
func flagError(c *cobra.Command, err error) error {
	var unknown *pflag.NotExistError
	var invalid *pflag.InvalidValueError
	switch {
	case errors.As(err, &invalid):
		f := invalid.GetFlag()
		return usageErr("--%s must be %s, got %q (see %s --help)", f.Name, valueKind(f.Value.Type()), invalid.GetValue(), c.CommandPath())
	case errors.As(err, &unknown) && strings.HasPrefix(err.Error(), "unknown flag: --"):
		var names []string
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if !f.Hidden {
				names = append(names, "--"+f.Name)
			}
		})
		return usageErr("%v%s (see %s --help)", err, model.DidYouMean("--"+unknown.GetSpecifiedName(), names), c.CommandPath())
	}
	return usageErr("%v (see %s --help)", err, c.CommandPath())
}

// valueKind says in words what a flag of a pflag type accepts, instead of
// the strconv error that parsing it gave.
func valueKind(typ string) string {
	switch typ {
	case "uint", "uint8", "uint16", "uint32", "uint64":
		return "a whole number >= 0"
	case "int", "int8", "int16", "int32", "int64", "count":
		return "a whole number"
	case "float32", "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "duration":
		return "a duration such as 90s or 5m"
	}
	return "a " + typ
}

// commands are the subcommands, each built from the process streams.
var commands = []func(*IOStreams) *cobra.Command{
	newRunCmd,
	newSweepCmd,
	newSensitivityCmd,
	newCalibrateCmd,
	newCheckCmd,
	newHindcastCmd,
	newFitCmd,
	newValidateCmd,
	newScenariosCmd,
	newServeCmd,
	newVersionCmd,
}

// Main runs capsim with args and returns the exit code.
func Main(args []string, io *IOStreams) int {
	return MainContext(context.Background(), args, io)
}

// MainContext is Main with a context that an interrupt cancels: a sweep
// stops its workers and writes nothing half-done.
func MainContext(ctx context.Context, args []string, io *IOStreams) int {
	root := newRootCmd(io)
	root.SetArgs(args)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	// A message may quote a scenario or a flag, bytes a terminal would
	// otherwise obey.
	fmt.Fprintf(io.ErrOut, "capsim: %s\n", printableLines(err.Error()))
	var ce *codedError
	if errors.As(err, &ce) {
		return ce.code
	}
	return exitError
}
