package model_test

import (
	"fmt"
	"testing"

	"capsim/model"
)

// The trip's journeys can fail at the stage labels of their steps and of
// the routes they call, at those routes' names, outside any stage, or be
// left unfinished: each is a row in runs.csv. A view session calls only
// trip_view.
func TestFailureStages(t *testing.T) {
	got := compileEmbedded(t, "trip", model.LoadOptions{}).FailureStages()
	want := map[string]string{
		"trip_creation": "[ai_analysis derivative_create journey photo_upload result_persist trip_analysis trip_finalize trip_status unfinished upload_batch upload_last]",
		"view_session":  "[journey trip_view unfinished]",
	}
	if len(got) != len(want) {
		t.Fatalf("journeys %v", got)
	}
	for j, w := range want {
		if s := fmt.Sprint(got[j]); s != w {
			t.Errorf("%s: %s, want %s", j, s, w)
		}
	}
}
