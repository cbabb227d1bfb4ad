package naming

import (
	"testing"

	_ "capsim/cmd/golden" // no goldens here: only so that go test ./... -update is accepted
)

func TestCheck(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"api", ""},
		{"p99th", ""},
		{"a-b_c/d9", ""},
		{"Z", ""},
		{"", `name "" must start with an ASCII letter and use only ASCII letters, digits and _ - /`},
		{"_99th", `name "_99th" must start with an ASCII letter and use only ASCII letters, digits and _ - /`},
		{"9lives", `name "9lives" must start with an ASCII letter and use only ASCII letters, digits and _ - /`},
		{"-a", `name "-a" must start with an ASCII letter and use only ASCII letters, digits and _ - /`},
		{"sérveur", `name "sérveur" must start with an ASCII letter and use only ASCII letters, digits and _ - /`},
		{"a b", `name "a b" must start with an ASCII letter and use only ASCII letters, digits and _ - /`},
		{"api.p95", `name "api.p95" holds a dot, which separates the keys of a --set or --scale path; use _ or - instead`},
	} {
		got := ""
		if err := Check(c.in); err != nil {
			got = err.Error()
		}
		if got != c.want {
			t.Errorf("Check(%q) = %q, want %q", c.in, got, c.want)
		}
		if Valid(c.in) != (c.want == "") {
			t.Errorf("Valid(%q) = %v, disagreeing with Check", c.in, Valid(c.in))
		}
	}
}
