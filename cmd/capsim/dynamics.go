package main

import (
	"fmt"
	"io"

	"capsim/model"
)

// writeDynamics prints what a run says about load over time: requests
// that balked at a queue, and the verdict on recovery after a spike. Kept
// apart from the summary's tables, which it follows.
func writeDynamics(w io.Writer, r *model.Result) {
	for _, c := range r.Components {
		if c.Balked > 0 {
			fmt.Fprintf(w, "  %s: %d balked at the queue they saw\n", c.Name, c.Balked)
		}
	}
	if r.Recovery != nil {
		fmt.Fprintf(w, "\nRecovery: %s\n", r.Recovery)
	}
}
