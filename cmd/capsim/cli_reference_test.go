package main

import (
	"strings"
	"testing"

	"capsim/cmd/golden"
	"capsim/plots"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// cliDoc is the command-line reference. Its text above cliMarker is written
// by hand; everything below it is rendered from the commands themselves.
const (
	cliDoc    = "../../docs/cli.md"
	cliMarker = "<!-- Below: rendered from the commands by go test ./cmd/capsim -run CLIReference -update -->\n"
)

// The reference of every command (its use line, description, examples and
// flags) is what the commands say of themselves, byte for byte; -update
// rewrites the part below the marker.
func TestCLIReferenceIsCurrent(t *testing.T) {
	golden.CheckBelow(t, cliDoc, cliMarker, []byte(renderCLI(newRootCmd(&IOStreams{}))))
}

// renderCLI writes every available command, depth first in cobra's order,
// as a markdown section: what capsim --help and capsim CMD --help print,
// without what depends on the machine (the number of cores).
func renderCLI(root *cobra.Command) string {
	var b strings.Builder
	// Text is what the commands print; sh, command lines, which the
	// docs' tests parse.
	block := func(info, s string) {
		b.WriteString("```" + info + "\n" + strings.TrimRight(s, "\n") + "\n```\n\n")
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c != root && (!c.IsAvailableCommand() || c.Name() == "help") {
			return
		}
		b.WriteString("## " + c.CommandPath() + "\n\n")
		b.WriteString(c.Short + "\n\n")
		block("sh", c.UseLine())
		if c.Long != "" {
			block("text", c.Long)
		}
		if c.Example != "" {
			b.WriteString("Examples:\n\n")
			block("sh", c.Example)
		}
		switch {
		case c == root && c.HasAvailablePersistentFlags():
			b.WriteString("Every command takes:\n\n")
			block("text", flagUsages(c.PersistentFlags()))
		case c != root && c.HasAvailableLocalFlags():
			b.WriteString("Flags:\n\n")
			block("text", flagUsages(c.LocalFlags()))
		}
		if c.HasAvailableSubCommands() {
			b.WriteString("| command | what it does |\n| --- | --- |\n")
			for _, s := range c.Commands() {
				if s.IsAvailableCommand() && s.Name() != "help" {
					b.WriteString("| [`" + s.CommandPath() + "`](#" + plots.Anchor(s.CommandPath()) + ") | " + s.Short + " |\n")
				}
			}
			b.WriteString("\n")
		}
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	return "\n" + strings.TrimRight(b.String(), "\n") + "\n"
}

// flagUsages is pflag's listing of fs at 100 columns, with the defaults
// that depend on the machine named instead of given.
func flagUsages(fs *pflag.FlagSet) string {
	if f := fs.Lookup("workers"); f != nil {
		f.DefValue = "all cores"
	}
	return fs.FlagUsagesWrapped(100)
}
