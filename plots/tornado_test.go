package plots

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

// A tornado with a one-sided row and a row whose raised side is missing
// renders as well-formed SVG naming every row; one with nothing to draw
// says so with ErrNoData, and a base that is not a number is refused.
func TestTornadoRenders(t *testing.T) {
	tc := Tornado{Title: "trip <v1>: first failure", XLabel: "multiplier", Base: 3.25, LowName: "lowered", HighName: "raised",
		Rows: []TornadoRow{{Name: "heic_converter.servers", Low: 1.95, High: 4.27}, {Name: "weight", Low: 3.55, High: math.NaN()}}}
	svg, err := tc.Render(SVG, 16, 6)
	if err != nil {
		t.Fatal(err)
	}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	for {
		if _, err := dec.Token(); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("invalid SVG: %v", err)
		}
	}
	for _, want := range []string{"heic_converter.servers", "weight", "base 3.25", "trip &lt;v1&gt;"} {
		if !strings.Contains(string(svg), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
	if _, err := tc.Render(PNG, 16, 6); err != nil {
		t.Fatal(err)
	}
	empty := Tornado{Title: "none", Base: 1, Rows: []TornadoRow{{Name: "a", Low: math.NaN(), High: math.NaN()}}}
	if _, err := empty.Render(SVG, 10, 5); !errors.Is(err, ErrNoData) {
		t.Errorf("empty tornado: %v, want ErrNoData", err)
	}
	bad := Tornado{Title: "bad", Base: math.NaN()}
	if _, err := bad.Render(SVG, 10, 5); err == nil || err.Error() != `plots: tornado chart "bad": the base value must be finite, got NaN` {
		t.Errorf("NaN base: %v", err)
	}
}
