package calibration

import (
	"errors"
	"fmt"

	scenario "capsim/model"
)

// withinClock refuses a time of v seconds that no scenario could hold:
// one past the scenario's longest duration is a field in the wrong unit
// or a counter read as a time, and fitted it gives a family an infinite
// mean that the scenario including the fragment then refuses.
func withinClock(v float64) error {
	if v > scenario.MaxDuration.Seconds() {
		return fmt.Errorf("value %gs passes %s, the longest time capsim simulates", v, scenario.MaxDurationText)
	}
	return nil
}

// ErrUnloadable is what the error satisfies when an entry's distribution
// is one no scenario could load: the data or the figures give it, so the
// fix is in them, and no fragment is written.
var ErrUnloadable = errors.New("a distribution no scenario could load")

type unloadableError struct {
	entry Entry
	err   error
}

func (e *unloadableError) Error() string {
	return fmt.Sprintf("%s: %s is a distribution no scenario could load: %v", e.entry.Name, e.entry.Dist, e.err)
}

func (e *unloadableError) Is(target error) bool { return target == ErrUnloadable }

// checkLoadable refuses an entry whose distribution a scenario including
// the fragment would refuse (a mean past the clock, from figures far
// apart or values spread over many orders of magnitude).
func checkLoadable(e Entry) error {
	if err := scenario.CheckDistribution(e.Dist); err != nil {
		return &unloadableError{e, err}
	}
	return nil
}
