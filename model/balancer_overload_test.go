package model_test

import "testing"

// A pick is overloaded when the picked replica's load component has no free
// capacity at that moment; session_overloaded_rate counts the session picks
// among them over the session picks.
func TestBalancerSessionOverloadedRate(t *testing.T) {
	res := runYAMLNoTrace(t, `
name: overload
duration: 1m
arrivals: even
components:
  lb: {kind: balancer, replicas: 1, load: cpu}
  cpu: {kind: pool, servers: 1, behind: lb}
journeys:
  busy:                       # holds the only server from 0 s to 10 s
    {rate: 1/s, count: 1, start: 0s, steps: [{use: lb, steps: [{use: cpu, work: 10s}]}]}
  early:                      # a session picked at 1 s: overloaded
    {rate: 1/s, count: 1, start: 1s, steps: [{hold: lb, session: true}, {delay: 1s}]}
  request:                    # a plain pick at 2 s: overloaded
    {rate: 1/s, count: 1, start: 2s, steps: [{use: lb, steps: [{delay: 1s}]}]}
  late:                       # a session picked at 20 s: the server is free
    {rate: 1/s, count: 1, start: 20s, steps: [{hold: lb, session: true}, {delay: 1s}]}
`)
	c, ok := res.Component("lb")
	if !ok || c.Balancer == nil {
		t.Fatal("no balancer result for lb")
	}
	b := c.Balancer
	if b.Picks != 4 || b.Overloaded != 2 || b.Sessions != 2 || b.SessionOverloaded != 1 {
		t.Errorf("picks %d, overloaded %d, session picks %d, session overloaded %d; want 4, 2, 2, 1",
			b.Picks, b.Overloaded, b.Sessions, b.SessionOverloaded)
	}
	if float64(b.OverloadedRate) != 0.5 || float64(b.SessionOverloadedRate) != 0.5 {
		t.Errorf("overloaded rate %v, session overloaded rate %v; want 0.5 and 0.5", b.OverloadedRate, b.SessionOverloadedRate)
	}
}

// request_policy places the picks that are not sessions; policy places the
// sessions.
func TestBalancerRequestPolicyKey(t *testing.T) {
	src := `
name: split
duration: 1m
arrivals: even
components:
  lb: {kind: balancer, replicas: 2, policy: least_sessions, request_policy: round_robin}
journeys:
  session:
    {rate: 1/s, count: 1, start: 0s, steps: [{hold: lb, session: true}, {delay: 100s}]}
  request:
    {rate: 1/s, count: 4, start: 1s, steps: [{use: lb, steps: [{delay: 100ms}]}]}
`
	picks := func(src string) []int64 {
		c, ok := runYAMLNoTrace(t, src).Component("lb")
		if !ok || c.Balancer == nil {
			t.Fatal("no balancer result for lb")
		}
		return []int64{c.Balancer.Replicas[0].Picks, c.Balancer.Replicas[1].Picks}
	}
	if got := picks(src); got[0] != 3 || got[1] != 2 {
		t.Errorf("with request_policy round_robin: picks %v, want [3 2]", got)
	}
	if got := picks(replace(src, ", request_policy: round_robin", "")); got[0] != 1 || got[1] != 4 {
		t.Errorf("least_sessions for every pick: picks %v, want [1 4] (requests follow the fewest sessions)", got)
	}
}
