package calibration

import (
	"fmt"

	"capsim/sim"
)

// withinClock refuses a time of v seconds that no scenario could hold:
// one past the scenario's longest duration is a field in the wrong unit
// or a counter read as a time, and fitted it gives a family an infinite
// mean that the scenario including the fragment then refuses.
func withinClock(v float64) error {
	if v > sim.MaxDuration.Seconds() {
		return fmt.Errorf("value %gs passes %s, the longest time capsim simulates", v, sim.MaxDurationText)
	}
	return nil
}
