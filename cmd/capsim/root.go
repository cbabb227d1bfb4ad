package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/cobra"
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

func withCode(code int, err error) error {
	if err == nil {
		return nil
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
	}
	root.SetIn(io.In)
	root.SetOut(io.Out)
	root.SetErr(io.ErrOut)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr("%v (see %s --help)", err, c.CommandPath())
	})
	for _, newCmd := range commands {
		root.AddCommand(newCmd(io))
	}
	return root
}

// commands are the subcommands, each built from the process streams.
var commands = []func(*IOStreams) *cobra.Command{
	newRunCmd,
	newSweepCmd,
	newSensitivityCmd,
	newCalibrateCmd,
	newValidateCmd,
	newScenariosCmd,
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
