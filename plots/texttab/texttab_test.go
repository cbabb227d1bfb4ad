package texttab

import (
	"strings"
	"testing"

	_ "capsim/cmd/golden" // no goldens here: only so that go test ./... -update is accepted
)

func table() Table {
	t := Table{Indent: "  ", Cols: []Column{
		{Name: "name", Min: 6},
		{Name: "count", Align: Right, Drop: 1},
		{Name: "kind", Drop: 2},
		{Name: "p95", Align: Right},
	}}
	t.Row("heic_converter", "279", "pool", "25.62s")
	t.Row("app", "586", "pool", "0s")
	return t
}

// A table that fits is laid out whole; one that does not leaves out the
// column with the highest Drop first, then the next, and only then cuts
// the names, keeping their start.
func TestLinesLeaveOutThenCut(t *testing.T) {
	cases := []struct {
		width   int
		want    string
		dropped string
	}{
		{0, "  name            count  kind     p95\n  heic_converter    279  pool  25.62s\n  app               586  pool      0s", ""},
		{37, "  name            count  kind     p95\n  heic_converter    279  pool  25.62s\n  app               586  pool      0s", ""},
		{36, "  name            count     p95\n  heic_converter    279  25.62s\n  app               586      0s", "kind"},
		{24, "  name               p95\n  heic_converter  25.62s\n  app                 0s", "count, kind"},
		{20, "  name           p95\n  heic_conv…  25.62s\n  app             0s", "count, kind"},
		// Names are cut no shorter than Min, even past the width.
		{10, "  name       p95\n  heic_…  25.62s\n  app         0s", "count, kind"},
	}
	for _, c := range cases {
		tab := table()
		lines, dropped := tab.Lines(c.width)
		if got := strings.Join(lines, "\n"); got != c.want || strings.Join(dropped, ", ") != c.dropped {
			t.Errorf("width %d:\n%s\ndropped %q; want\n%s\ndropped %q", c.width, got, dropped, c.want, c.dropped)
		}
	}
}

// A row shorter than the header spans the rest, wrapped under itself; a
// CutFirst column gives up its room before any column is left out.
func TestSpanningRowAndCutFirst(t *testing.T) {
	tab := Table{Cols: []Column{{Name: "family"}, {Name: "mean"}, {Name: "note", CutFirst: true, Min: 5}}}
	tab.Row("gamma", "1.5s", "fitted by maximum likelihood")
	tab.Row("weibull", "not fitted: the values do not converge")
	lines, dropped := tab.Lines(30)
	want := "family   mean  note\ngamma    1.5s  fitted by maxi…\nweibull  not fitted: the\n         values do not\n         converge"
	if got := strings.Join(lines, "\n"); got != want || dropped != nil {
		t.Errorf("got\n%s\ndropped %q; want\n%s", got, dropped, want)
	}
}

func TestHangAndFill(t *testing.T) {
	got := strings.Join(Hang("  ok   ", "trip_view p95 <= 1s (measured 22.6ms)", "       ", 24), "|")
	if want := "  ok   trip_view p95 <=|       1s (measured|       22.6ms)"; got != want {
		t.Errorf("Hang: %q, want %q", got, want)
	}
	got = strings.Join(Fill("", "", []string{"seed: 1", "replications: 2", "delta: ±10%"}, "   ", 30), "|")
	if want := "seed: 1   replications: 2|delta: ±10%"; got != want {
		t.Errorf("Fill: %q, want %q", got, want)
	}
	if got := Hang("", "short   line", "", 0); len(got) != 1 || got[0] != "short   line" {
		t.Errorf("Hang without a width: %q", got)
	}
	if CutStart("trip_creation.batch_photos", 10) != "…ch_photos" {
		t.Errorf("CutStart: %q", CutStart("trip_creation.batch_photos", 10))
	}
}

// Tables laid out alike show the same columns at the same widths: the
// second table's long note crowds out its kind, so the first leaves its
// kind out too though it would fit; the name column is as wide in both.
func TestAlike(t *testing.T) {
	cols := func() []Column {
		return []Column{{Name: "name"}, {Name: "kind", Drop: 2}, {Name: "p95", Align: Right}, {Name: "note", Drop: 1}}
	}
	a := &Table{Cols: cols()[:3]}
	a.Row("app", "pool", "0s")
	b := &Table{Cols: cols()}
	b.Row("heic_converter", "pool", "25.62s", "a long note")
	Alike([]*Table{a, b}, 40)
	for _, c := range []struct {
		t    *Table
		want []string
	}{
		{a, []string{
			"name               p95",
			"app                 0s",
			"(kind left out to fit 40 columns)"}},
		{b, []string{
			"name               p95  note",
			"heic_converter  25.62s  a long note",
			"(kind left out to fit 40 columns)"}},
	} {
		var got strings.Builder
		c.t.Write(&got, 40, "")
		if g := strings.Split(strings.TrimSuffix(got.String(), "\n"), "\n"); strings.Join(g, "\n") != strings.Join(c.want, "\n") {
			t.Errorf("got\n%s\nwant\n%s", strings.Join(g, "\n"), strings.Join(c.want, "\n"))
		}
	}
	// Alone, the first table keeps its kind.
	alone := &Table{Cols: cols()[:3]}
	alone.Row("app", "pool", "0s")
	if lines, dropped := alone.Lines(40); len(dropped) != 0 || lines[0] != "name  kind  p95" {
		t.Errorf("alone: %q, dropped %q", lines, dropped)
	}
}
