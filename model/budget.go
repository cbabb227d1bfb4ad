package model

import (
	"fmt"
	"math"
	"unsafe"

	"go.yaml.in/yaml/v3"
)

// # One memory budget
//
// Some of a scenario's numbers size memory before the first event: a
// balancer's replicas copy the components behind it, a connection pool
// keeps a slot per connection it may open, a worker pool an entry per
// instance and its autoscaler one per period of its longest window, and a
// windowed SLO one count per window of the run. Every such allocation is
// estimated here first, at compile time, where the number is written: a
// scenario whose estimates pass MemoryBudget is refused with the key, the
// size and the budget, instead of dying out of memory (or paging for
// minutes) once it runs. Memory that grows with what is in flight is not
// sized by a number and is bounded by the run's guards instead.

// MemoryBudget is the most a compiled scenario may set aside for what its
// numbers size, per run (a sweep's workers each hold one run).
const MemoryBudget = 1e9

// reserve sets aside bytes for what key of the mapping at node (path)
// sizes, and refuses with a positioned error when the scenario's total
// would pass MemoryBudget. bytes is a float64 so that a product of
// user's numbers cannot wrap; NaN or +Inf is refused too.
func (c *compiler) reserve(node *yaml.Node, key, path, what string, bytes float64) bool {
	if total := c.reserved + bytes; !(total <= MemoryBudget) {
		c.failKey(node, key, path, "%s would need %s of memory, more than the %s a run may set aside", what, byteSize(bytes), byteSize(MemoryBudget))
		return false
	}
	c.reserved += bytes
	return true
}

// byteSize writes a size in bytes the way a person reads it: 512 B,
// 3.2 MB, 40 GB (powers of 1000, two significant digits at least).
func byteSize(b float64) string {
	if math.IsNaN(b) || math.IsInf(b, 0) {
		return "more bytes than there are"
	}
	units := []string{"B", "kB", "MB", "GB", "TB", "PB", "EB"}
	i := 0
	for b >= 1000 && i < len(units)-1 {
		b /= 1000
		i++
	}
	if b >= 1000 {
		return fmt.Sprintf("%.3g %s", b, units[i])
	}
	if b < 10 && i > 0 {
		return fmt.Sprintf("%.1f %s", b, units[i])
	}
	return fmt.Sprintf("%.0f %s", b, units[i])
}

// Estimates of what one thing costs, for the sites reserve is called from.
var (
	windowBytes  = float64(unsafe.Sizeof(journeyWindow{}))
	replicaBytes = float64(unsafe.Sizeof(compProg{}) + unsafe.Sizeof(compRT{}))
)
