package model_test

import (
	"bytes"
	"sync"
	"testing"

	"capsim/model"
)

// A sweep runs one compiled program on several goroutines at once. Every
// run must own all the state it changes: runs made concurrently give the
// same bytes as the same runs made one after another. (go test -race on
// this test also reports any write to the shared program.)
func TestConcurrentRunsShareTheProgram(t *testing.T) {
	c := compileFile(t, "features.yaml", model.LoadOptions{Sets: []string{"duration=1h"}})
	const runs = 6
	want := make([][]byte, runs)
	for i := range want {
		want[i], _ = runBytes(t, c, model.RunOptions{Seed: uint64(i + 1), Multiplier: 2, SeriesStep: 60e9})
	}
	got := make([][]byte, runs)
	var wg sync.WaitGroup
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			res, err := c.Run(model.RunOptions{Seed: uint64(i + 1), Multiplier: 2, SeriesStep: 60e9})
			if err != nil {
				t.Error(err)
				return
			}
			got[i], _ = res.JSON()
		}()
	}
	wg.Wait()
	for i := range got {
		if !bytes.Equal(got[i], want[i]) {
			t.Fatalf("seed %d: a concurrent run differs from the same run made alone", i+1)
		}
	}
}
