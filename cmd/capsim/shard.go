package main

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"

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
	// doc is the scenario the designs were loaded from: its Sources are
	// every file they were loaded and compiled from, as read.
	doc *model.Document
	// sets and scales are the command line's overrides; extra holds
	// whatever else decides the runs that config's design names do not
	// say (sensitivity: the delta and every perturbation's override).
	sets, scales, extra []string

	shard    string   // --shard I/N, "" for none
	round    int      // --round
	roundSet bool     // --round was given
	merge    []string // --merge
	out      string   // --out: where shards are written and read
	quiet    bool
}

// shardStep does the part of a command that --shard, --round and --merge
// decide. With --shard it runs the shard and done is true. With --merge
// it returns the complete shards the outputs are to be made from. Without
// either it returns nil, for the command to run on this machine.
func shardStep(ctx context.Context, io *IOStreams, job *shardJob) (from *sweep.Shards, done bool, err error) {
	if job.shard != "" {
		return nil, true, runShard(ctx, io, job)
	}
	if job.roundSet {
		return nil, false, usageErr("--round goes with --shard: a round is split into shards")
	}
	if len(job.merge) == 0 {
		return nil, false, nil
	}
	shards, err := openShards(job, job.merge)
	if err != nil {
		return nil, false, err
	}
	if err := shards.Check(job.config.Rounds()); err != nil {
		return nil, false, usageErr("--merge: %v", err)
	}
	return shards, false, nil
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
		return usageErr("--round: this %s has rounds 0 to %d (--refine %d), got %d", job.command, cfg.Rounds(), cfg.Refine, job.round)
	}
	if err := os.MkdirAll(job.out, 0o755); err != nil {
		return ioErr("--out %s: cannot create the output folder: %v", job.out, unwrapPath(err))
	}
	key := job.key()
	if job.round > 0 {
		// Only the earlier rounds: this round's own files, a damaged one
		// this run replaces included, are no input to it.
		var earlier []string
		for r := range job.round {
			found, _ := filepath.Glob(filepath.Join(job.out, fmt.Sprintf("round-%d-shard-*-of-*.gob", r)))
			earlier = append(earlier, found...)
		}
		from, err := openShards(job, earlier)
		if err != nil {
			return err
		}
		if err := from.Check(job.round - 1); err != nil {
			return usageErr("--round %d: %v", job.round, err)
		}
		cfg.From = from
	}
	name := filepath.Join(job.out, sweep.ShardName(job.round, sh))
	f, err := createAtomic(name)
	if err != nil {
		return withCode(exitError, err)
	}
	defer f.Abort()
	w := bufio.NewWriterSize(f, 1<<16)
	runs, err := watch(io, job.command, "shard", job.scenario, 0, job.quiet, &cfg.Progress,
		func() (int, error) { return sweep.RunShard(ctx, cfg, sh, job.round, key, w) })
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

// openShards finds the shard files in paths (files, or folders holding
// round-*-shard-*-of-*.gob), checks each is whole and of this job's sweep.
func openShards(job *shardJob, paths []string) (*sweep.Shards, error) {
	var names []string
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, usageErr("--merge %s: %v", p, unwrapPath(err))
		}
		if !st.IsDir() {
			names = append(names, p)
			continue
		}
		found, _ := filepath.Glob(filepath.Join(p, sweep.ShardGlob))
		if len(found) == 0 && job.shard == "" {
			return nil, usageErr("--merge %s: the folder holds no %s file", p, sweep.ShardGlob)
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
	key := job.key()
	flag := "--merge"
	if job.shard != "" {
		flag = fmt.Sprintf("--round %d", job.round)
	}
	if len(files) == 0 {
		return nil, usageErr("%s: %s holds no shard of the earlier rounds", flag, job.out)
	}
	shards, err := sweep.OpenShards(key, files)
	if err != nil {
		return nil, usageErr("%s: %v", flag, err)
	}
	return shards, nil
}

// key identifies what decides the runs: capsim's version, the bytes of
// every file the scenario was loaded from, the designs, the grid, the
// replications, the seed, the overrides, the refinement (which decides
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
	if len(job.extra) > 0 {
		fmt.Fprintf(h, "%s\n%q\n", job.command, job.extra)
	}
	for _, src := range job.doc.Sources() {
		h.Write(src.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}
