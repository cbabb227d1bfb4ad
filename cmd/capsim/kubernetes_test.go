package main

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"capsim/model/sweep"
	"github.com/spf13/pflag"
	"go.yaml.in/yaml/v3"
)

// k8sJob is the part of a batch/v1 Job the sweep's manifests depend on.
type k8sJob struct {
	Kind     string `yaml:"kind"`
	Metadata struct {
		Name string `yaml:"name"`
	} `yaml:"metadata"`
	Spec struct {
		CompletionMode string `yaml:"completionMode"`
		Completions    int    `yaml:"completions"`
		Template       struct {
			Spec struct {
				Containers []struct {
					Command []string `yaml:"command"`
					Env     []struct {
						Name string `yaml:"name"`
					} `yaml:"env"`
				} `yaml:"containers"`
			} `yaml:"spec"`
		} `yaml:"template"`
	} `yaml:"spec"`
}

// k8sCommand is one Job's command line as the sweep command parses it.
type k8sCommand struct {
	job   k8sJob
	argv  []string // after "capsim sweep"
	flags *pflag.FlagSet
	sweep string // the flags that decide the results, in name order
}

func parseSweepArgs(t *testing.T, argv []string) (*pflag.FlagSet, string) {
	t.Helper()
	cmd := newSweepCmd(&IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
	if err := cmd.ParseFlags(argv); err != nil {
		t.Fatalf("%q: %v", argv, err)
	}
	var line []string
	line = append(line, cmd.Flags().Args()...)
	cmd.Flags().Visit(func(f *pflag.Flag) {
		switch f.Name {
		case "round", "shard", "out", "merge", "workers":
			return
		}
		line = append(line, "--"+f.Name+"="+f.Value.String())
	})
	return cmd.Flags(), strings.Join(line, " ")
}

func k8sCommands(t *testing.T) []k8sCommand {
	t.Helper()
	data, err := os.ReadFile("../../docs/kubernetes.md")
	if err != nil {
		t.Fatal(err)
	}
	_, block, ok := strings.Cut(string(data), "```yaml\n")
	if !ok {
		t.Fatal("docs/kubernetes.md has no yaml block")
	}
	block, _, _ = strings.Cut(block, "```")
	dec := yaml.NewDecoder(strings.NewReader(block))
	var out []k8sCommand
	for {
		var j k8sJob
		if err := dec.Decode(&j); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if j.Kind != "Job" || len(j.Spec.Template.Spec.Containers) != 1 {
			t.Fatalf("%s: a %s with %d containers, want one Job container", j.Metadata.Name, j.Kind, len(j.Spec.Template.Spec.Containers))
		}
		c := j.Spec.Template.Spec.Containers[0]
		if len(c.Command) < 2 || c.Command[0] != "capsim" || c.Command[1] != "sweep" {
			t.Fatalf("%s: command %q is not capsim sweep", j.Metadata.Name, c.Command)
		}
		// The index is filled in by Kubernetes; any value parses alike.
		argv := slices.Clone(c.Command[2:])
		flags, sweepLine := parseSweepArgs(t, substitute(argv, "0"))
		out = append(out, k8sCommand{job: j, argv: argv, flags: flags, sweep: sweepLine})
	}
	return out
}

func substitute(argv []string, index string) []string {
	out := make([]string, len(argv))
	for i, a := range argv {
		out[i] = strings.ReplaceAll(a, "$(JOB_COMPLETION_INDEX)", index)
	}
	return out
}

// The Kubernetes manifests in the docs are the CLI's command lines: one
// Indexed Job per round, 0 to --refine, each shard count its completions,
// every Job with the same sweep flags, the merge reading what the rounds
// wrote.
func TestKubernetesManifestsMatchTheCLI(t *testing.T) {
	cmds := k8sCommands(t)
	if len(cmds) < 2 {
		t.Fatalf("%d Jobs", len(cmds))
	}
	rounds, merge := cmds[:len(cmds)-1], cmds[len(cmds)-1]
	refine, _ := merge.flags.GetInt("refine")
	if len(rounds) != refine+1 {
		t.Errorf("%d round Jobs for --refine %d, want %d", len(rounds), refine, refine+1)
	}
	shardsOut, _ := rounds[0].flags.GetString("out")
	for r, c := range rounds {
		name := c.job.Metadata.Name
		if c.job.Spec.CompletionMode != "Indexed" {
			t.Errorf("%s: completionMode %q", name, c.job.Spec.CompletionMode)
		}
		if got, _ := c.flags.GetInt("round"); got != r || !c.flags.Changed("round") {
			t.Errorf("%s: --round %d, want %d", name, got, r)
		}
		if name != "capsim-round-"+strconv.Itoa(r) {
			t.Errorf("Job %d is called %s", r, name)
		}
		shard, _ := c.flags.GetString("shard")
		sh, err := sweep.ParseShard(shard)
		if err != nil || sh.Count != c.job.Spec.Completions || !slices.Contains(c.argv, "$(JOB_COMPLETION_INDEX)/"+strconv.Itoa(sh.Count)) {
			t.Errorf("%s: --shard %q (%v) for %d completions", name, shard, err, c.job.Spec.Completions)
		}
		// $(VAR) in a command is expanded only from the container's env.
		if env := c.job.Spec.Template.Spec.Containers[0].Env; len(env) == 0 || env[0].Name != "JOB_COMPLETION_INDEX" {
			t.Errorf("%s: JOB_COMPLETION_INDEX is not in the container's env", name)
		}
		if out, _ := c.flags.GetString("out"); out != shardsOut {
			t.Errorf("%s: --out %s, round 0 writes %s", name, out, shardsOut)
		}
		if c.sweep != merge.sweep {
			t.Errorf("%s runs %q, the merge %q", name, c.sweep, merge.sweep)
		}
	}
	if m, _ := merge.flags.GetStringArray("merge"); !slices.Equal(m, []string{shardsOut}) || merge.flags.Changed("shard") {
		t.Errorf("the merge reads %q, the rounds write %s", m, shardsOut)
	}
}

// The manifests' commands, run as Kubernetes would run them (every index of
// every round, then the merge) but with two designs, two replications and
// folders of the test's own, give the single-machine sweep's bytes.
func TestKubernetesManifestsRun(t *testing.T) {
	notInShort(t, "runs every shard of the manifests' rounds")
	slowTests(t)
	dir := t.TempDir()
	local := func(argv []string) []string {
		out := slices.Clone(argv)
		for i, a := range out {
			if strings.HasPrefix(a, "/results/") {
				out[i] = filepath.Join(dir, strings.TrimPrefix(a, "/results/"))
			}
			if i > 0 && (out[i-1] == "-r" || out[i-1] == "--replications") {
				out[i] = "2"
			}
		}
		// Two designs keep the 25 runs of capsim quick.
		return append(append([]string{"sweep"}, out...), "--designs", "v1-original,v1-improved")
	}
	cmds := k8sCommands(t)
	for _, c := range cmds[:len(cmds)-1] {
		for i := range c.job.Spec.Completions {
			if code, _, stderr := run(t, local(substitute(c.argv, strconv.Itoa(i)))...); code != 0 {
				t.Fatalf("%s index %d: exit %d: %s", c.job.Metadata.Name, i, code, stderr)
			}
		}
	}
	merge := local(cmds[len(cmds)-1].argv)
	if code, _, stderr := run(t, merge...); code != 0 {
		t.Fatalf("merge: exit %d: %s", code, stderr)
	}
	mergedOut, _ := cmds[len(cmds)-1].flags.GetString("out")
	single := filepath.Join(dir, "single")
	args := slices.Clone(merge)
	at := slices.Index(args, "--merge")
	args = append(args[:at], args[at+2:]...)
	at = slices.Index(args, "--out")
	args[at+1] = single
	if code, _, stderr := run(t, args...); code != 0 {
		t.Fatalf("single: exit %d: %s", code, stderr)
	}
	want, got := readTree(t, single), readTree(t, filepath.Join(dir, strings.TrimPrefix(mergedOut, "/results/")))
	if len(want) != len(got) {
		t.Fatalf("merged %d files, single %d", len(got), len(want))
	}
	for name, data := range want {
		if !bytes.Equal(got[name], data) {
			t.Errorf("%s differs", name)
		}
	}
}
