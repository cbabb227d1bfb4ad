package model

import "strings"

// ParseSignalName takes a time-series signal's name apart into the
// component it samples and what it samples of it: journeys_in_flight is
// the run's own (component ""); <c>.busy (servers, permits, held locks,
// worker instances or active connections in use), <c>.queue (waiters),
// <c>.rate (a bucket's refill rate), <c>.sessions (a balancer's open
// sessions), <c>.open (a connections table's open connections, idle
// ones included) and <c>.running (an autoscaled worker's running
// instances) are a component's. A component's name may itself contain
// dots: the measure is after the last one.
func ParseSignalName(name string) (component, measure string) {
	i := strings.LastIndexByte(name, '.')
	if i < 0 {
		return "", name
	}
	return name[:i], name[i+1:]
}
