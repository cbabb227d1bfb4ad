package sweep

import (
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"capsim/model"
)

// Shard is one part of a sweep split over machines, as a batch engine runs
// it (a Kubernetes Indexed Job, a Slurm job array): the grid runs whose
// index in runs.csv order, i, has i % Count == Index. Each shard writes the
// exact outcomes of its runs; a merge reads every shard back in that order,
// so the aggregates, and every byte of the outputs, are those a sweep on
// one machine writes. The bisection and time-series runs, a small part of
// the work, happen in the merge.
type Shard struct {
	Index, Count int
}

// ParseShard reads "I/N", 0 <= I < N.
func ParseShard(s string) (Shard, error) {
	i, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	idx, err1 := strconv.Atoi(i)
	cnt, err2 := strconv.Atoi(n)
	if !ok || err1 != nil || err2 != nil {
		return Shard{}, fmt.Errorf("expected INDEX/COUNT such as 0/8, got %q", s)
	}
	if cnt < 1 || cnt > MaxRuns || idx < 0 || idx >= cnt {
		return Shard{}, fmt.Errorf("the index must be between 0 and COUNT-1 and COUNT between 1 and %d, got %q", MaxRuns, s)
	}
	return Shard{Index: idx, Count: cnt}, nil
}

// shardFormat names the layout of a shard file; a change of layout
// changes it, so an old shard is refused instead of misread.
const shardFormat = "capsim-sweep-shard-1"

// shardHeader opens a shard file. Key identifies the experiment: shards
// of different experiments must never merge.
type shardHeader struct {
	Format       string
	Key          string
	Index, Count int
	Total        int // grid runs of the whole sweep
}

// shardRecord is one run's outcome. gob keeps every float64 bit, NaN and
// infinities included, which text would round.
type shardRecord struct {
	Index   int
	Metrics []model.Metric
	SLOs    []model.SLOResult // with their bounds, which JSON output leaves out
	Broken  *model.Broken
	Fails   []shardFail
}

type shardFail struct {
	Journey, Stage, Component string
	N                         int64
}

func (c *Config) gridRuns() int { return len(c.Designs) * len(c.Multipliers) * c.Replications }

// gridTask is grid run i, in the order runs.csv lists runs: multiplier by
// multiplier, replication by replication, design by design.
func (c *Config) gridTask(i int) task {
	nd, nr := len(c.Designs), c.Replications
	d, r, m := i%nd, (i/nd)%nr, i/(nd*nr)
	return task{design: d, mult: c.Multipliers[m], rep: r, grid: m}
}

// RunShard makes the grid runs shard sh owns and writes their outcomes to
// w. key identifies the experiment (the caller derives it from everything
// that decides the runs: scenario, designs, grid, replications, seed).
func RunShard(ctx context.Context, cfg Config, sh Shard, key string, w io.Writer) (runs int, err error) {
	if err := cfg.check(); err != nil {
		return 0, err
	}
	total := cfg.gridRuns()
	runs = (total - sh.Index + sh.Count - 1) / sh.Count
	if sh.Index >= total {
		runs = 0
	}
	cfg.Runs = nil
	s := &sweeper{cfg: cfg, workers: cfg.Workers, total: runs}
	if s.workers <= 0 {
		s.workers = 1
	}
	enc := gob.NewEncoder(w)
	if err := enc.Encode(shardHeader{Format: shardFormat, Key: key, Index: sh.Index, Count: sh.Count, Total: total}); err != nil {
		return 0, err
	}
	at := func(k int) task { return cfg.gridTask(sh.Index + k*sh.Count) }
	err = s.execute(ctx, "grid", runs, at, func(t task, out *outcome) error {
		return enc.Encode(recordOf(t, out, cfg))
	})
	return runs, err
}

func recordOf(t task, out *outcome, cfg Config) shardRecord {
	nd, nr := len(cfg.Designs), cfg.Replications
	rec := shardRecord{Index: t.grid*nd*nr + t.rep*nd + t.design, Metrics: out.metrics, SLOs: out.slos, Broken: out.broken}
	for _, f := range out.fails {
		rec.Fails = append(rec.Fails, shardFail{Journey: f.journey, Stage: f.stage, Component: f.component, N: f.n})
	}
	return rec
}

// Shards is a set of shard files being merged, read in lockstep: run i is
// the next record of shard i % Count, so memory stays flat.
type Shards struct {
	names []string
	decs  []*gob.Decoder
	count int
}

// OpenShards checks that the shard files are the Count shards of the
// experiment key, each once, and prepares to read them. names label the
// readers in errors.
func OpenShards(key string, names []string, readers []io.Reader) (*Shards, error) {
	if len(readers) == 0 {
		return nil, errors.New("no shard files to merge")
	}
	var count, total int
	byIndex := map[int]int{}
	decs := make([]*gob.Decoder, len(readers))
	for i, r := range readers {
		dec := gob.NewDecoder(r)
		var h shardHeader
		// A header out of bounds is not one RunShard wrote: it would
		// have the merge count to a number no sweep has.
		if err := dec.Decode(&h); err != nil || h.Format != shardFormat ||
			h.Count < 1 || h.Count > MaxRuns || h.Index < 0 || h.Index >= h.Count || h.Total < 0 || h.Total > MaxRuns {
			return nil, fmt.Errorf("%s is not a capsim sweep shard", names[i])
		}
		if h.Key != key {
			return nil, fmt.Errorf("%s was made by a different sweep (scenario, designs, multipliers, replications, seed, --set or capsim version differ); merge with the flags the shards ran with", names[i])
		}
		if i == 0 {
			count, total = h.Count, h.Total
		} else if h.Count != count || h.Total != total {
			return nil, fmt.Errorf("%s is shard %d of %d, but %s is of %d", names[i], h.Index, h.Count, names[0], count)
		}
		if j, dup := byIndex[h.Index]; dup {
			return nil, fmt.Errorf("%s and %s are both shard %d of %d", names[j], names[i], h.Index, count)
		}
		byIndex[h.Index] = i
		decs[i] = dec
	}
	if len(byIndex) != count {
		var missing []string
		for i := 0; i < count; i++ {
			if _, ok := byIndex[i]; !ok {
				missing = append(missing, strconv.Itoa(i))
			}
		}
		noun := "shard"
		if len(missing) > 1 {
			noun = "shards"
		}
		return nil, fmt.Errorf("missing %s %s of %d", noun, strings.Join(missing, ", "), count)
	}
	s := &Shards{count: count}
	for i := 0; i < count; i++ {
		s.decs = append(s.decs, decs[byIndex[i]])
		s.names = append(s.names, names[byIndex[i]])
	}
	return s, nil
}

// next returns the outcome of grid run i; runs must be asked for in order.
func (s *Shards) next(i int) (*outcome, error) {
	sh := i % s.count
	var rec shardRecord
	if err := s.decs[sh].Decode(&rec); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%s ends before run %d: the shard did not finish", s.names[sh], i)
		}
		return nil, fmt.Errorf("%s: %w", s.names[sh], err)
	}
	if rec.Index != i {
		return nil, fmt.Errorf("%s holds run %d where run %d belongs", s.names[sh], rec.Index, i)
	}
	out := &outcome{metrics: rec.Metrics, slos: rec.SLOs, broken: rec.Broken}
	for _, f := range rec.Fails {
		out.fails = append(out.fails, stageCount{journey: f.Journey, stage: f.Stage, component: f.Component, n: f.N})
	}
	return out, nil
}
