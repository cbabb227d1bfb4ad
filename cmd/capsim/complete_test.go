package main

import (
	"strings"
	"testing"
)

// Every flag and argument with a fixed set of values completes to
// exactly that set, as the shell scripts of capsim completion ask for it
// (cobra's __complete: one value a line, then :directive). 4 is "no
// file names", 0 "files too": a scenario may be a path.
func TestCompletion(t *testing.T) {
	embedded := "http-client-pool md1 mm1 mmc mmck places-fanout realtime-sessions tandem trip"
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"run", ""}, embedded + " :0"},
		{[]string{"sweep", "m"}, "md1 mm1 mmc mmck :0"},
		{[]string{"sensitivity", "t"}, "tandem trip :0"},
		{[]string{"validate", "trip", "mm"}, "mm1 mmc mmck :0"},
		{[]string{"run", "trip", ""}, ":4"},
		{[]string{"scenarios", "show", "t"}, "tandem trip :4"},
		{[]string{"run", "trip", "--design", "v1"}, "v1-original v1-improved :4"},
		{[]string{"run", "--design", "two"}, "two-workers :4"}, // the default scenario, trip
		{[]string{"run", "trip", "--design", "v1-original+l"}, "v1-original+lock-fix :4"},
		{[]string{"validate", "places-fanout", "--design", ""}, "fixed-refill test-003-03 threadpool coroutines test-003-22 unlimited limited :4"},
		{[]string{"sensitivity", "mmck", "--design", ""}, "base :4"},
		{[]string{"sweep", "places-fanout", "--designs", ""}, "all fixed-refill test-003-03 threadpool coroutines test-003-22 unlimited limited base :4"},
		{[]string{"sweep", "places-fanout", "--designs", "threadpool,"}, "threadpool,fixed-refill threadpool,test-003-03 threadpool,coroutines threadpool,test-003-22 threadpool,unlimited threadpool,limited threadpool,base :4"},
		{[]string{"sweep", "places-fanout", "--designs", "limited+c"}, "limited+coroutines :4"},
		{[]string{"sweep", "nothing-here", "--designs", ""}, ":4"},
		{[]string{"sensitivity", "mmck", "--params", ""}, "all server.servers server.queue customer.work :4"},
		{[]string{"sensitivity", "mmck", "--params", "server.servers,"}, "server.servers,server.queue server.servers,customer.work :4"},
		{[]string{"calibrate", "--format", ""}, "auto k6-csv k6-json k6-summary nginx-json nginx-combined applog csv :4"},
		{[]string{"calibrate", "--format", "nginx"}, "nginx-json nginx-combined :4"},
		{[]string{"calibrate", "--dist", ""}, "lognormal gamma weibull normal exponential lognormal+shift exponential+shift uniform empirical :4"},
		{[]string{"calibrate", "--rank", ""}, "aic ks :4"},
		{[]string{"calibrate", "--unit", "m"}, "ms m :4"},
	}
	for _, c := range cases {
		code, stdout, stderr := run(t, append([]string{"__complete"}, c.args...)...)
		if got := strings.Join(strings.Fields(stdout), " "); code != 0 || got != c.want {
			t.Errorf("capsim __complete %q: %q (exit %d, %s), want %q", c.args, got, code, stderr, c.want)
		}
	}
}
