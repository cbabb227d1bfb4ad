package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// TestEmptyValuesAreRefused gives every flag of every command that takes
// text (read from the command tree, so a new flag is held to it without a
// line here) an empty value, and every command an empty argument. An empty
// value is never what a flag's default means: --trace "$FILE" with FILE
// unset must not run without a trace, nor capsim run "" the default
// scenario. Each is refused with exit 2 and a message naming the flag or
// the argument, before anything runs.
func TestEmptyValuesAreRefused(t *testing.T) {
	var walk func(c *cobra.Command)
	walked := 0
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		path := strings.Fields(c.CommandPath())[1:]
		c.Flags().VisitAll(func(f *pflag.Flag) {
			switch f.Value.Type() {
			case "string", "stringArray", "stringSlice":
			default:
				return
			}
			walked++
			args := append(append([]string{}, path...), "--"+f.Name, "")
			want := "capsim: --" + f.Name + " needs a value, got an empty one (see " + c.CommandPath() + " --help)\n"
			if c.Args != nil && c.Args(c, nil) != nil {
				args = append(args, "mm1") // the argument it needs, so that the flag is what is wrong
			}
			code, stdout, stderr := run(t, args...)
			if code != exitUsage || stdout != "" || stderr != want {
				t.Errorf("capsim %s: exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(args, " "), code, stdout, stderr, want)
			}
		})
		if c.Runnable() && !c.HasSubCommands() && c.Args != nil && c.Args(c, []string{""}) == nil {
			args := append(append([]string{}, path...), "")
			want := "capsim: argument 1 is empty (see " + c.CommandPath() + " --help)\n"
			code, stdout, stderr := run(t, args...)
			if code != exitUsage || stdout != "" || stderr != want {
				t.Errorf("capsim %s \"\": exit %d, stdout %q, stderr %q; want exit 2 and %q", strings.Join(path, " "), code, stdout, stderr, want)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRootCmd(&IOStreams{}))
	if walked < 40 {
		t.Errorf("walked %d text flags; the command tree has more", walked)
	}
}
