package sweep

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"errors"
	"fmt"
	"hash"
	"io"
	"strconv"
	"strings"

	"capsim/model"
)

// Shard is one part of one round of a sweep split over machines, as a
// batch engine runs it (a Kubernetes Indexed Job, a Slurm job array): the
// runs of the round whose index i, in the round's fixed order, has
// i % Count == Index. Round 0 is the grid; round r > 0 is planned from the
// outcomes of rounds 0 to r-1, which the shard reads back from their
// shard files, so every shard of round r plans the same runs. Each shard
// writes the exact outcomes of its runs; a merge reads every round's
// shards back in order and runs nothing, so the aggregates, and every
// byte of the outputs, are those a sweep on one machine writes.
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

// ShardName is the file a shard writes: the name says which round and
// shard it holds, so that a missing one is named before any file is read.
func ShardName(round int, sh Shard) string {
	return fmt.Sprintf("round-%d-shard-%d-of-%d.gob", round, sh.Index, sh.Count)
}

// ShardGlob matches every shard file of a folder.
const ShardGlob = "round-*-shard-*-of-*.gob"

// shardFormat names the layout of a shard file; a change of layout
// changes it, so an old shard is refused instead of misread. 4: metrics
// and SLOs carry typed keys and a rate's counts, signals their component
// and measure.
const shardFormat = shardFormatFamily + "4"

// shardFormatFamily begins the format of every layout a shard has had.
const shardFormatFamily = "capsim-sweep-shard-"

// shardTrailer ends every shard file, followed by the SHA-256 of all the
// bytes before it: a file damaged in storage or in transfer is refused
// whole, before anything is computed from it.
const shardTrailer = "\ncapsim-shard-sha256\n"

const trailerLen = len(shardTrailer) + sha256.Size

// shardHeader opens a shard file. Key identifies the experiment: shards
// of different experiments must never merge.
type shardHeader struct {
	Format       string
	Key          string
	Round        int
	Index, Count int
	Total        int // runs of the whole round
}

func (h shardHeader) String() string {
	return fmt.Sprintf("shard %d/%d of round %d", h.Index, h.Count, h.Round)
}

// shardRecord is one run's outcome. gob keeps every float64 bit, NaN and
// infinities included, which text would round. A metric's key is written
// as its parts, its measure by subject and name (model.Measure's
// GobEncode), and with a counted rate's counts, so a merge reads back the
// keys and counts the run had. Refinement runs carry no metrics: only
// their verdict counts, and it needs the SLOs alone.
type shardRecord struct {
	Index   int
	Metrics []model.Metric
	SLOs    []model.SLOResult // with their bounds, which JSON output leaves out
	Broken  *model.Broken
	Fails   []shardFail
	Series  *model.TimeSeries
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

// hashWriter passes writes on and hashes them.
type hashWriter struct {
	w io.Writer
	h hash.Hash
}

func (hw *hashWriter) Write(p []byte) (int, error) {
	hw.h.Write(p)
	return hw.w.Write(p)
}

// RunShard makes the runs shard sh owns in round r and writes their
// outcomes to w. key identifies the experiment (the caller derives it from
// everything that decides the runs: scenario, designs, grid, replications,
// seed, refinement). For r > 0, cfg.From must hold rounds 0 to r-1.
func RunShard(ctx context.Context, cfg Config, sh Shard, r int, key string, w io.Writer) (runs int, err error) {
	if err := cfg.check(); err != nil {
		return 0, err
	}
	if r < 0 || r > cfg.Rounds() {
		return 0, fmt.Errorf("this sweep has rounds 0 to %d, not %d", cfg.Rounds(), r)
	}
	if r > 0 {
		if cfg.From == nil {
			return 0, fmt.Errorf("round %d needs the shards of rounds 0 to %d", r, r-1)
		}
		if err := cfg.From.Check(r - 1); err != nil {
			return 0, err
		}
	} else {
		cfg.From = nil
	}
	cfg.Runs = nil
	s := newSweeper(cfg)
	n := cfg.gridRuns()
	taskAt := cfg.gridTask
	if r > 0 {
		res, err := s.gridRound(ctx)
		if err != nil {
			return 0, err
		}
		search := cfg.SearchRounds()
		if err := s.refineRounds(ctx, min(r-1, search)); err != nil {
			return 0, err
		}
		if r <= search {
			p := s.plan(r)
			n = p.runs(cfg.Replications)
			taskAt = func(i int) task { return p.task(i, cfg.Replications) }
		} else {
			if sr := cfg.seriesRound(); sr > search {
				// The merge runs the series round of a sweep without
				// refinement; a look's shard needs only which points it
				// sampled, to leave them to it.
				for _, pt := range s.plan(sr).series {
					s.candidates[pt] = nil
				}
			}
			if n, taskAt, err = s.lookRound(ctx, res, r); err != nil {
				return 0, err
			}
		}
	}
	runs = max(0, (n-sh.Index+sh.Count-1)/sh.Count)
	s.done, s.total = 0, runs

	hw := &hashWriter{w: w, h: sha256.New()}
	enc := gob.NewEncoder(hw)
	if err := enc.Encode(shardHeader{Format: shardFormat, Key: key, Round: r, Index: sh.Index, Count: sh.Count, Total: n}); err != nil {
		return 0, err
	}
	k := 0
	phase := "grid"
	if r > 0 {
		phase = "refine"
	}
	err = s.execute(ctx, phase, runs, func(j int) task { return taskAt(sh.Index + j*sh.Count) }, func(t task, out *outcome) error {
		rec := recordOf(sh.Index+k*sh.Count, t, out)
		k++
		return enc.Encode(rec)
	})
	if err != nil {
		return 0, err
	}
	if _, err := io.WriteString(w, shardTrailer); err != nil {
		return 0, err
	}
	_, err = w.Write(hw.h.Sum(nil))
	return runs, err
}

func recordOf(i int, t task, out *outcome) shardRecord {
	rec := shardRecord{Index: i, SLOs: out.slos, Broken: out.broken, Series: out.series}
	if t.grid >= 0 {
		rec.Metrics = out.metrics
	}
	for _, f := range out.fails {
		rec.Fails = append(rec.Fails, shardFail{Journey: f.journey, Stage: f.stage, Component: f.component, N: f.n})
	}
	return rec
}

// ShardFile is a shard file to merge: its name, for messages, and how to
// open it; it is read twice, once to check it and once to use it.
type ShardFile struct {
	Name string
	Open func() (io.ReadCloser, error)
}

// Shards is the set of shard files of one sweep, by round.
type Shards struct {
	rounds map[int]*roundFiles
}

type roundFiles struct {
	count, total int
	byIndex      map[int]ShardFile
}

// OpenShards checks that every file is an undamaged shard of the
// experiment key, and each shard is given once. Whether a round is
// complete is asked later (Check), of the rounds a step needs.
func OpenShards(key string, files []ShardFile) (*Shards, error) {
	if len(files) == 0 {
		return nil, errors.New("no shard files to merge")
	}
	s := &Shards{rounds: map[int]*roundFiles{}}
	names := map[[3]int]string{}
	for _, f := range files {
		h, err := checkShard(f)
		if err != nil {
			return nil, err
		}
		if h.Key != key {
			return nil, fmt.Errorf("%s was made by a different sweep (scenario, designs, multipliers, replications, seed, --set, --refine, --section or capsim version differ); merge with the flags the shards ran with", f.Name)
		}
		rf := s.rounds[h.Round]
		if rf == nil {
			rf = &roundFiles{count: h.Count, total: h.Total, byIndex: map[int]ShardFile{}}
			s.rounds[h.Round] = rf
		}
		if h.Count != rf.count || h.Total != rf.total {
			var other ShardFile
			for _, o := range rf.byIndex {
				other = o
				break
			}
			return nil, fmt.Errorf("%s is %s, but %s is of %d: a round's shards must all be split the same way", f.Name, h, other.Name, rf.count)
		}
		id := [3]int{h.Round, h.Index, h.Count}
		if prev, dup := names[id]; dup {
			return nil, fmt.Errorf("%s and %s are both %s", prev, f.Name, h)
		}
		names[id] = f.Name
		rf.byIndex[h.Index] = f
	}
	return s, nil
}

// checkShard reads a whole shard file, checks its checksum and returns
// its header. The file streams through the hash, holding back what may be
// the trailer, so a shard of any size is checked in constant memory.
func checkShard(f ShardFile) (shardHeader, error) {
	rc, err := f.Open()
	if err != nil {
		return shardHeader{}, err
	}
	defer rc.Close()
	tail := &tailHasher{h: sha256.New()}
	var h shardHeader
	herr := gob.NewDecoder(io.TeeReader(rc, tail)).Decode(&h)
	if _, err := io.Copy(tail, rc); err != nil {
		return h, fmt.Errorf("%s: %w", f.Name, err)
	}
	trailed := len(tail.last) == trailerLen && string(tail.last[:len(shardTrailer)]) == shardTrailer
	if herr == nil && h.Format != shardFormat && strings.HasPrefix(h.Format, shardFormatFamily) {
		// A whole shard of another layout: rerunning it with this capsim
		// is the remedy, not repairing the file.
		return h, fmt.Errorf("%s was written by another version of capsim (%s, not %s): run its shard again with this one", f.Name, h.Format, shardFormat)
	}
	if herr != nil || h.Format != shardFormat {
		if trailed {
			return h, fmt.Errorf("%s is damaged (its header cannot be read): run its shard again", f.Name)
		}
		return h, fmt.Errorf("%s is not a capsim sweep shard of this version", f.Name)
	}
	// A header out of bounds is not one RunShard wrote: it would have the
	// merge count to a number no sweep has.
	if h.Count < 1 || h.Count > MaxRuns || h.Index < 0 || h.Index >= h.Count || h.Total < 0 || h.Total > MaxRuns || h.Round < 0 {
		return h, fmt.Errorf("%s is not a capsim sweep shard of this version", f.Name)
	}
	if !trailed {
		return h, fmt.Errorf("%s, %s, is cut short: the shard did not finish; run it again", f.Name, h)
	}
	if !bytes.Equal(tail.h.Sum(nil), tail.last[len(shardTrailer):]) {
		return h, fmt.Errorf("%s, %s, is damaged: its checksum does not match its contents; run it again", f.Name, h)
	}
	return h, nil
}

// tailHasher hashes everything written to it but the last trailerLen
// bytes, which it keeps.
type tailHasher struct {
	h    hash.Hash
	last []byte
}

func (t *tailHasher) Write(p []byte) (int, error) {
	n := len(p)
	t.last = append(t.last, p...)
	if over := len(t.last) - trailerLen; over > 0 {
		t.h.Write(t.last[:over])
		t.last = append(t.last[:0], t.last[over:]...)
	}
	return n, nil
}

// Check reports whether rounds 0 to last are complete, naming the first
// missing shard by index and round.
func (s *Shards) Check(last int) error {
	for r := 0; r <= last; r++ {
		rf := s.rounds[r]
		if rf == nil {
			return fmt.Errorf("no shard of round %d: run every shard of round %d (--round %d) before this step", r, r, r)
		}
		var missing []string
		for i := 0; i < rf.count; i++ {
			if _, ok := rf.byIndex[i]; !ok {
				missing = append(missing, strconv.Itoa(i))
			}
		}
		if len(missing) > 0 {
			noun := "shard"
			if len(missing) > 1 {
				noun = "shards"
			}
			return fmt.Errorf("missing %s %s of %d in round %d", noun, strings.Join(missing, ", "), rf.count, r)
		}
	}
	return nil
}

// roundReader reads one round's shards in lockstep: run i is the next
// record of shard i % count, so memory stays flat.
type roundReader struct {
	round   int
	names   []string
	decs    []*gob.Decoder
	closers []io.Closer
}

// round opens round r's shards, which must hold n runs.
func (s *Shards) round(r, n int) (*roundReader, error) {
	rf := s.rounds[r]
	if rf == nil {
		return nil, fmt.Errorf("no shard of round %d", r)
	}
	rr := &roundReader{round: r}
	if rf.total != n {
		return nil, fmt.Errorf("the shards of round %d hold %d runs where this sweep plans %d", r, rf.total, n)
	}
	for i := 0; i < rf.count; i++ {
		f := rf.byIndex[i]
		rc, err := f.Open()
		if err != nil {
			rr.close()
			return nil, err
		}
		rr.closers = append(rr.closers, rc)
		dec := gob.NewDecoder(rc)
		var h shardHeader
		if err := dec.Decode(&h); err != nil {
			rr.close()
			return nil, fmt.Errorf("%s: %w", f.Name, err)
		}
		rr.names = append(rr.names, f.Name)
		rr.decs = append(rr.decs, dec)
	}
	return rr, nil
}

func (rr *roundReader) close() {
	for _, c := range rr.closers {
		c.Close()
	}
}

// next returns the outcome of run i; runs must be asked for in order.
func (rr *roundReader) next(i int) (*outcome, error) {
	sh := i % len(rr.decs)
	var rec shardRecord
	if err := rr.decs[sh].Decode(&rec); err != nil {
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%s ends before run %d of round %d: the shard did not finish", rr.names[sh], i, rr.round)
		}
		return nil, fmt.Errorf("%s: %w", rr.names[sh], err)
	}
	if rec.Index != i {
		return nil, fmt.Errorf("%s holds run %d where run %d of round %d belongs", rr.names[sh], rec.Index, i, rr.round)
	}
	out := &outcome{metrics: rec.Metrics, slos: rec.SLOs, broken: rec.Broken, series: rec.Series}
	for _, f := range rec.Fails {
		out.fails = append(out.fails, stageCount{journey: f.Journey, stage: f.Stage, component: f.Component, n: f.N})
	}
	return out, nil
}
