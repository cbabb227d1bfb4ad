package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"capsim/model"
	"capsim/model/sweep"
)

// shardJob is a command whose work is one sweep, as splitting it over
// machines sees it: capsim sweep, and capsim sensitivity, whose sweep runs
// every design's base and perturbations. Both run their shards, read the
// earlier rounds and merge through the same code.
type shardJob struct {
	command  string       // "sweep" or "sensitivity", for progress
	scenario string       // the scenario's name, for progress
	config   sweep.Config // the runs, as a single machine makes them
	// drawn is sweep --uncertainty's second sweep (every replication
	// drawing its own uncertain values), nil without: a shard makes its
	// share of both, written to round-… and uncertainty-round-… files.
	drawn *sweep.Config
	// hindcast, when set, judges the scenario's observations beside the
	// sweep: round 0's shard 0 runs it and writes hindcastFile, which
	// the merge reads instead of running anything.
	hindcast func(context.Context, *IOStreams) (*hindcastVerdict, error)
	// doc is the scenario the designs were loaded from: its Sources are
	// every file they were loaded and compiled from, as read.
	doc *model.Document
	// sets and scales are the command line's overrides; extra holds
	// whatever else decides the runs that config's design names do not
	// say (sensitivity: the delta and every perturbation's override).
	sets, scales, extra []string
	baseSets            []string // --base-set, which decides the runs as --set does

	shard    string   // --shard I/N, "" for none
	round    int      // --round
	roundSet bool     // --round was given
	merge    []string // --merge
	out      string   // --out: where shards are written and read
	quiet    bool
}

// drawnPrefix starts the names of the shard files of sweep --uncertainty's
// second sweep, which sit beside the first sweep's in the same folder.
const drawnPrefix = "uncertainty-"

// merged are the complete shards a merge makes its outputs from: the
// sweep's, the second sweep's with --uncertainty (nil without), and the
// hindcast's verdict (nil when none was judged).
type merged struct {
	main, drawn *sweep.Shards
	hindcast    *hindcastVerdict
}

// hindcastFile is the hindcast's verdict beside a sweep's shards.
const hindcastFile = "hindcast.json"

// hindcastShard is hindcastFile's content: the verdict, nil when the
// hindcast could not run, and the key of the sweep it belongs to.
type hindcastShard struct {
	Key     string           `json:"key"`
	Verdict *hindcastVerdict `json:"verdict"`
}

// shardStep does the part of a command that --shard, --round and --merge
// decide. With --shard it runs the shard and done is true. With --merge
// it returns the complete shards the outputs are to be made from. Without
// either it returns nil, for the command to run on this machine.
func shardStep(ctx context.Context, io *IOStreams, job *shardJob) (from *merged, done bool, err error) {
	if job.shard != "" {
		return nil, true, runShard(ctx, io, job)
	}
	if job.roundSet {
		return nil, false, usageErr("--round goes with --shard: a round is split into shards")
	}
	if len(job.merge) == 0 {
		return nil, false, nil
	}
	from = &merged{}
	for _, ph := range job.phases() {
		shards, err := openShards(job, ph, job.merge)
		if err != nil {
			return nil, false, err
		}
		if err := shards.Check(ph.config.Rounds()); err != nil {
			return nil, false, usageErr("--merge: %s%v", ph.what, err)
		}
		if ph.prefix == "" {
			from.main = shards
		} else {
			from.drawn = shards
		}
	}
	if job.hindcast != nil {
		if from.hindcast, err = readHindcastShard(job); err != nil {
			return nil, false, err
		}
	}
	return from, false, nil
}

// readHindcastShard finds hindcastFile in the first folder of --merge
// (or the folder of its first file) and checks it is of this sweep.
func readHindcastShard(job *shardJob) (*hindcastVerdict, error) {
	dir := job.merge[0]
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		dir = filepath.Dir(dir)
	}
	name := filepath.Join(dir, hindcastFile)
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, usageErr("--merge: %s: %v; round 0's shard 0 writes it (the scenario's observations, judged beside the sweep): run it again, or merge with --hindcast-replications 0", name, unwrapPath(err))
	}
	var hs hindcastShard
	if err := json.Unmarshal(data, &hs); err != nil {
		return nil, usageErr("--merge: %s: %v", name, err)
	}
	if hs.Key != job.key() {
		return nil, usageErr("--merge: %s was made by a different sweep; merge with the flags the shards ran with", name)
	}
	return hs.Verdict, nil
}

// writeHindcastShard judges the observations and writes hindcastFile.
func writeHindcastShard(ctx context.Context, io *IOStreams, job *shardJob) error {
	v, err := job.hindcast(ctx, io)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(hindcastShard{Key: job.key(), Verdict: v}, "", "  ")
	if err != nil {
		return withCode(exitError, err)
	}
	name := filepath.Join(job.out, hindcastFile)
	if err := writeAtomic(name, append(data, '\n')); err != nil {
		return withCode(exitError, err)
	}
	fmt.Fprintf(io.Out, "wrote %s\n", name)
	return nil
}

// phase is one of the sweeps a job's shards make: the job's own, and with
// --uncertainty the second one, whose files carry drawnPrefix.
type phase struct {
	config sweep.Config
	prefix string // of its shard files' names
	key    string // what its shards must have been made by
	what   string // prefixed to its messages: "" or "the --uncertainty sweep: "
}

func (job *shardJob) phases() []phase {
	key := job.key()
	ps := []phase{{config: job.config, key: key}}
	if job.drawn != nil {
		ps = append(ps, phase{config: *job.drawn, prefix: drawnPrefix, key: key + "+" + drawnPrefix, what: "the --uncertainty sweep: "})
	}
	return ps
}

// runShard makes one shard's runs of one round and writes
// round-R-shard-I-of-N.gob; a round after the grid first reads the earlier
// rounds' shards from the same folder.
func runShard(ctx context.Context, io *IOStreams, job *shardJob) error {
	sh, err := sweep.ParseShard(job.shard)
	if err != nil {
		return usageErr("--shard: %v", err)
	}
	if len(job.merge) > 0 {
		return usageErr("--shard and --merge go to different steps: run the shards, then merge them")
	}
	cfg := job.config
	if job.round < 0 || job.round > cfg.Rounds() {
		return usageErr("--round: this %s has rounds 0 to %d (%s), got %d", job.command, cfg.Rounds(), roundsWhy(cfg), job.round)
	}
	if err := os.MkdirAll(job.out, 0o755); err != nil {
		return ioErr("--out %s: cannot create the output folder: %v", job.out, unwrapPath(err))
	}
	for _, ph := range job.phases() {
		if err := runPhaseShard(ctx, io, job, ph, sh); err != nil {
			return err
		}
	}
	if job.hindcast != nil && job.round == 0 && sh.Index == 0 {
		return writeHindcastShard(ctx, io, job)
	}
	return nil
}

// roundsWhy says what makes a sweep's rounds: --refine, and the looks of
// --until-sure with the round of their time series.
func roundsWhy(cfg sweep.Config) string {
	why := fmt.Sprintf("--refine %d", cfg.Refine)
	if looks := cfg.Looks(); looks > 1 {
		why += fmt.Sprintf(", then %d looks of --until-sure", looks-1)
		if cfg.SeriesStep > 0 {
			why += " and their time series"
		}
	}
	return why
}

// runPhaseShard makes one sweep's share of the round and writes its file.
func runPhaseShard(ctx context.Context, io *IOStreams, job *shardJob, ph phase, sh sweep.Shard) error {
	cfg := ph.config
	if job.round > 0 {
		// Only the earlier rounds: this round's own files, a damaged one
		// this run replaces included, are no input to it.
		var earlier []string
		for r := range job.round {
			found, _ := filepath.Glob(filepath.Join(job.out, ph.prefix+fmt.Sprintf("round-%d-shard-*-of-*.gob", r)))
			earlier = append(earlier, found...)
		}
		from, err := openShards(job, ph, earlier)
		if err != nil {
			return err
		}
		if err := from.Check(job.round - 1); err != nil {
			return usageErr("--round %d: %s%v", job.round, ph.what, err)
		}
		cfg.From = from
	}
	name := filepath.Join(job.out, ph.prefix+sweep.ShardName(job.round, sh))
	f, err := createAtomic(name)
	if err != nil {
		return withCode(exitError, err)
	}
	defer f.Abort()
	w := bufio.NewWriterSize(f, 1<<16)
	runs, err := watch(io, job.command, "shard", job.scenario, 0, job.quiet, &cfg.Progress,
		func() (int, error) { return sweep.RunShard(ctx, cfg, sh, job.round, ph.key, w) })
	if err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return withCode(exitError, fmt.Errorf("cannot write %s: %w", name, err))
	}
	if err := f.Commit(); err != nil {
		return withCode(exitError, err)
	}
	fmt.Fprintf(io.Out, "wrote %s: %d runs of round %d of %d\n", name, runs, job.round, cfg.Rounds())
	return nil
}

// openShards finds the shard files of phase ph in paths (files, or
// folders holding round-*-shard-*-of-*.gob, prefixed as the phase's are),
// checks each is whole and of this job's sweep.
func openShards(job *shardJob, ph phase, paths []string) (*sweep.Shards, error) {
	var names []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, usageErr("--merge %s: %v", p, unwrapPath(err))
		}
		if !st.IsDir() {
			// A file named on the command line belongs to the phase its
			// name's prefix says.
			if strings.HasPrefix(filepath.Base(p), drawnPrefix) == (ph.prefix != "") {
				names = append(names, p)
			}
			continue
		}
		found, _ := filepath.Glob(filepath.Join(p, ph.prefix+sweep.ShardGlob))
		if len(found) == 0 && job.shard == "" {
			return nil, usageErr("--merge %s: the folder holds no %s file", p, ph.prefix+sweep.ShardGlob)
		}
		names = append(names, found...)
	}
	var files []sweep.ShardFile
	for _, n := range names {
		files = append(files, sweep.ShardFile{Name: n, Open: func() (io.ReadCloser, error) {
			f, err := openRegular(n)
			if err != nil {
				return nil, err
			}
			return struct {
				io.Reader
				io.Closer
			}{bufio.NewReaderSize(f, 1<<16), f}, nil
		}})
	}
	flag := "--merge"
	if job.shard != "" {
		flag = fmt.Sprintf("--round %d", job.round)
	}
	if len(files) == 0 {
		if job.shard == "" {
			return nil, usageErr("%s: %sno %s file among %s", flag, ph.what, ph.prefix+sweep.ShardGlob, strings.Join(paths, ", "))
		}
		return nil, usageErr("%s: %s%s holds no shard of the earlier rounds", flag, ph.what, job.out)
	}
	shards, err := sweep.OpenShards(ph.key, files)
	if err != nil {
		return nil, usageErr("%s: %s%v", flag, ph.what, err)
	}
	return shards, nil
}

// key identifies what decides the runs: capsim's version, the bytes of
// every file the scenario was loaded from, the designs, the grid, the
// replications and --until-sure's cap, the seed, the overrides, the refinement (which decides
// what the later rounds run) and the job's extra lines, which set a
// sensitivity's shards apart from a sweep's. Shards merge only with the
// same key.
func (job *shardJob) key() string {
	cfg := job.config
	h := sha256.New()
	var designs []string
	for _, d := range cfg.Designs {
		designs = append(designs, d.Name)
	}
	fmt.Fprintf(h, "%s\n%q\n%v\n%d\n%d\n%q\nrefine %d section %d\n", Version, designs, cfg.Multipliers, cfg.Replications, cfg.Seed, job.sets, cfg.Refine, cfg.Section)
	if len(job.scales) > 0 {
		fmt.Fprintf(h, "%q\n", job.scales)
	}
	if cfg.Until > 0 {
		fmt.Fprintf(h, "until %d\n", cfg.Until)
	}
	if len(job.baseSets) > 0 {
		fmt.Fprintf(h, "base %q\n", job.baseSets)
	}
	if len(job.extra) > 0 {
		fmt.Fprintf(h, "%s\n%q\n", job.command, job.extra)
	}
	for _, src := range job.doc.Sources() {
		h.Write(src.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}
