package model_test

import (
	"math"
	"strings"
	"testing"

	"capsim/model"
)

// Attributes drawn once per journey, and work times per unit of one.

// Trips of 30 photos (weight 1) or 150 (weight 3), each photo 1 s of work
// and a log per photo: a journey lasts exactly its photo count in seconds,
// logs as many photos, and three in four journeys are of 150.
func TestDrawnAttributeCountsAndScalesWork(t *testing.T) {
	src := scenarioSrc("photos", "4000s", "arrivals: even\n",
		"  cpu: {kind: cpu, cores: 100000}\n", `  trip:
    rate: 1/s
    attributes:
      photos: {choose: [{weight: 1, value: 30}, {weight: 3, value: 150}]}
    steps:
      - repeat: photos
        steps: [{log: photo}]
      - use: cpu
        work: 1s
        per: photos
`)
	_, events := runYAML(t, src, model.RunOptions{Seed: 5})
	logs := map[int64]float64{}
	big, n := 0.0, 0.0
	for _, e := range events {
		switch e.Event {
		case "photo":
			logs[e.JourneyID]++
		case model.EvJourneyEnd:
			n++
			if e.Duration != 30 && e.Duration != 150 {
				t.Fatalf("a trip took %gs, want 30 or 150", e.Duration)
			}
			if logs[e.JourneyID] != e.Duration {
				t.Fatalf("a trip of %gs logged %g photos", e.Duration, logs[e.JourneyID])
			}
			if e.Duration == 150 {
				big++
			}
		}
	}
	share, se := big/n, math.Sqrt(0.75*0.25/n)
	if n < 3900 || math.Abs(share-0.75) > 4*se {
		t.Errorf("%g trips, %.4f of them of 150 photos; want 0.75 ± %.4f", n, share, 4*se)
	}
}

func TestADrawnCountMustBeWhole(t *testing.T) {
	src := `name: bad
duration: 1s
journeys:
  trip:
    rate: 1/s
    attributes:
      photos: {choose: [{weight: 1, value: 30}, {weight: 1, value: 2.5}]}
    steps:
      - repeat: photos
        steps: [{delay: 1s}]
`
	l, err := model.LoadBytes(nil, "bad.yaml", []byte(src), model.LoadOptions{})
	if err == nil {
		_, err = l.Compile()
	}
	want := `bad.yaml:7:7: journeys.trip.attributes.photos: a step uses photos as a count: it must be a whole number between 0 and 2147483647, got 2.5`
	if err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
	_, err = model.LoadBytes(nil, "bad.yaml", []byte(strings.Replace(src, "weight: 1, value: 2.5", "weight: -1, value: 2", 1)), model.LoadOptions{})
	if err == nil || !strings.Contains(err.Error(), "journeys.trip.attributes.photos.choose[1].weight: a weight must be >= 0, got -1") {
		t.Errorf("negative weight: %v", err)
	}
}
