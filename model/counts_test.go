package model_test

import (
	"strings"
	"testing"
)

// Every integer a scenario writes is kept in 32 bits by the interpreter:
// a larger one is refused where it is written, never cut (a repeat of
// 2^32+3 once ran 3 times, a fan-out of 2^32+2 offered 2).
func TestCountsPastThirtyTwoBitsAreRefused(t *testing.T) {
	src := scenarioSrc("c", "1s", "", "  a: {kind: pool, servers: SERVERS, queue: QUEUE}\n", `  j:
    rate: 1/s
    steps:
      - STEP
routes:
  r:
    steps: [{work: 1s}]
`)
	for _, c := range []struct{ servers, queue, step, want string }{
		{"2", "0", "{repeat: 4294967299, steps: [{work: 1s}]}", "journeys.j.steps[0].repeat: count 4294967299 is more than 2147483647"},
		{"2", "0", "{repeat: 1e12, steps: [{work: 1s}]}", "journeys.j.steps[0].repeat: count 1e12 is more than 2147483647"},
		{"2", "0", "{fanout: 4294967298, steps: [{work: 1s}]}", "journeys.j.steps[0].fanout: count 4294967298 is more than 2147483647"},
		{"2", "0", "{call: r, poll: {call: r, every: 1s, max: 4294967298}}", "journeys.j.steps[0].poll.max: must be at most 2147483647 in size"},
		{"2", "0", "{call: r, retry: {attempts: 2147483651}}", "journeys.j.steps[0].retry.attempts: attempts must be between 1 and 1000, got 2147483651"},
		{"2", "0", "{work: 1s, status: 9223372036854775807}", "journeys.j.steps[0].status: status must be between 400 and 599, got 9223372036854775807"},
		{"2147483651", "0", "{use: a, work: 1s}", "components.a.servers: must be at most 2147483647 in size"},
		{"2", "-2147483651", "{use: a, work: 1s}", "components.a.queue: must be at most 2147483647 in size"},
	} {
		y := strings.NewReplacer("SERVERS", c.servers, "QUEUE", c.queue, "STEP", c.step).Replace(src)
		checkRefusedWith(t, c.step, "c.yaml", y, c.want)
	}
}

// A hold: lasts until its frame ends. Written with stage: or optional:, the
// step would get a frame of its own and let go at once: a thread limit
// that silently vanished. It is refused where it is written.
func TestHoldWithAFrameOfItsOwnIsRefused(t *testing.T) {
	for _, key := range []string{"stage: serve", "optional: true"} {
		src := scenarioSrc("h", "1s", "", "  a: {kind: pool, servers: 1}\n",
			"  j:\n    rate: 1/s\n    steps:\n      - {hold: a, "+key+"}\n      - work: 1s\n")
		name, _, _ := strings.Cut(key, ":")
		checkRefusedWith(t, key, "h.yaml", src, "h.yaml:9:",
			"journeys.j.steps[0]."+name+": "+name+": on a hold: step would give the hold a frame of its own and release it at once")
	}
}

// Values that read as one thing and meant another are refused: a wait of
// 0 s (which meant "no limit"), a retry on no status (which meant the
// defaults), a backoff multiplier that overflows (which meant no backoff).
func TestValuesThatMeantTheirOppositeAreRefused(t *testing.T) {
	head := scenarioSrc("v", "1s", "arrivals: even\n", "  a: {kind: pool, servers: 1, WAIT}\n",
		"  j:\n    rate: 1/s\n    steps:\n      - STEP\nroutes:\n  r:\n    steps: [{use: a, work: 1s}]\n")
	for _, c := range []struct{ wait, step, want string }{
		{"wait_timeout: 0s", "{call: r}", "v.yaml:5:45: components.a.wait_timeout: wait_timeout 0 would mean no limit at all"},
		{"queue: 1", "{call: r, retry: {attempts: 3, on: []}}", "v.yaml:10:44: journeys.j.steps[0].retry.on: on: [] retries on no status"},
	} {
		src := strings.NewReplacer("WAIT", c.wait, "STEP", c.step).Replace(head)
		checkRefusedWith(t, c.wait+" "+c.step, "v.yaml", src, c.want)
	}
	// A multiplier of 1e308 makes the third try wait the longest time a
	// scenario may write, past the call's 10 s deadline, not 0 s: the
	// first journey holds the one server 10 s; the second is refused at
	// 0.5 s and at its retry 1 s later, and then gives up: 3 calls in all.
	src := strings.NewReplacer("WAIT", "queue: 0", "STEP", "{call: r, deadline: 10s, retry: {attempts: 5, backoff: 1s, multiplier: 1e308, on: [503]}}").Replace(head)
	src = strings.Replace(src, "rate: 1/s", "rate: 2/s\n    count: 2", 1)
	src = strings.Replace(src, "work: 1s}]", "work: 10s}]", 1)
	res := runYAMLNoTrace(t, src)
	r, _ := res.Route("r")
	if r.Calls != 3 {
		t.Errorf("route r called %d times; want 3", r.Calls)
	}
}

// A cpu shares its cores among all the work on it: a key or a session on
// a use: of it is refused (a priority, without priorities:, is refused in
// cpu_test.go).
func TestKeysACPUCannotHonourAreRefused(t *testing.T) {
	for _, key := range []string{"key: user", "session: true"} {
		src := scenarioSrc("c", "1s", "", "  cpu: {kind: cpu, cores: 1}\n",
			"  j:\n    rate: 1/s\n    steps:\n      - {use: cpu, work: 1s, "+key+"}\n")
		name, _, _ := strings.Cut(key, ":")
		checkRefusedWith(t, key, "c.yaml", src, "journeys.j.steps[0]."+name+": "+name+" does not apply to a cpu, which shares its cores")
	}
}

// Waits that sum past the furthest time a run reaches stop the run: four
// century-long jobs queued on one server once all "succeeded" at a
// saturated clock.
func TestTheClockDoesNotSaturate(t *testing.T) {
	src := scenarioSrc("clock", "1s", "arrivals: even\n", "  one: {kind: pool, servers: 1}\n",
		"  job:\n    rate: 4/s\n    count: 4\n    steps: [{use: one, work: 876000h}]\n")
	res := runYAMLNoTrace(t, src)
	j, _ := res.Journey("job")
	if res.Broken == nil || res.Broken.Guard != "clock" || j.Succeeded != 2 {
		t.Errorf("broken %v, %d of 4 jobs succeeded; want the clock guard after 2", res.Broken, j.Succeeded)
	}
}

// A cpu works out its own finish times from its rate, and those too stop
// the run at the clock's end: a job too long for the clock once finished
// at once, the sum wrapping round into the past, and a queue of jobs on
// fifo cores "succeeded" past the furthest time a run reaches.
func TestACPUDoesNotOutrunTheClock(t *testing.T) {
	for _, tc := range []struct {
		name, cpu, work string
		succeeded       int64
	}{
		{"a job longer than the clock", "{kind: cpu, cores: 1}", "90000h", 0},
		{"cores too slow for any job", "{kind: cpu, cores: 1e-300}", "1s", 0},
		{"slow cores", "{kind: cpu, cores: 1e-9}", "1s", 0},
		{"fifo cores", "{kind: cpu, cores: 1, discipline: fifo}", "800000h", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := scenarioSrc("clock", "30s", "arrivals: even\n", "  cpu: "+tc.cpu+"\n",
				"  job:\n    rate: 1/s\n    steps: [{use: cpu, work: "+tc.work+"}]\n")
			res := runYAMLNoTrace(t, src)
			j, _ := res.Journey("job")
			if res.Broken == nil || res.Broken.Guard != "clock" || j.Succeeded != tc.succeeded {
				t.Errorf("broken %v, %d of %d jobs succeeded; want the clock guard after %d",
					res.Broken, j.Succeeded, j.Started, tc.succeeded)
			}
		})
	}
}
