package human

import (
	"math"
	"testing"

	_ "capsim/cmd/golden" // no goldens here: only so that go test ./... -update is accepted
)

func TestNumberSecondsPercent(t *testing.T) {
	cases := []struct{ got, want string }{
		{Number(math.NaN()), "-"},
		{Number(math.Inf(1)), "-"},
		{Number(1234.5678), "1235"},
		{Number(0.000123456), "0.0001235"},
		{Seconds(math.NaN()), "-"},
		{Seconds(0), "0s"},
		{Seconds(0.0004), "400µs"},
		{Seconds(0.25), "250.0ms"},
		{Seconds(2.5), "2.50s"},
		{Seconds(150), "2.5m"},
		{Seconds(300), "5.0m"},
		{Seconds(6 * 24 * 3600), "8640.0m"},
		{Seconds(7 * 24 * 3600), "168.0h"},
		{Seconds(2*365.25*24*3600 - 3600), "17531.0h"},
		{Seconds(2 * 365.25 * 24 * 3600), "2.0 years"},
		{Seconds(200 * 365.25 * 24 * 3600), "200.0 years"},
		{Percent(0.875), "87.5%"},
		{Percent(0.99), "99%"},
		{Percent(math.NaN()), "-"},
		{Significant(0.000123456, 3), "0.000123"},
		{Significant(123456, 3), "123000"},
	}
	for i, c := range cases {
		if c.got != c.want {
			t.Errorf("case %d: got %q, want %q", i, c.got, c.want)
		}
	}
}
