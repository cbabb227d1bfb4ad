package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

func newVersionCmd(io *IOStreams) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print capsim's version",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			rev := ""
			if info, ok := debug.ReadBuildInfo(); ok {
				for _, s := range info.Settings {
					if s.Key == "vcs.revision" && len(s.Value) >= 12 {
						rev = " (" + s.Value[:12] + ")"
					}
				}
			}
			fmt.Fprintf(io.Out, "capsim %s%s %s %s/%s\n", Version, rev, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return nil
		},
	}
}
