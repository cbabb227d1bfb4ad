package model

import "sort"

// FailureStages lists, for each journey by name, every failure stage a
// run can count for it (journey.<j>.failed_at.<stage>_count), sorted as
// Metrics sorts them: the stage labels in its steps and in the routes it
// calls, directly or through other routes, those routes' names (the
// stage of a failure no label covers), "journey" (a failure outside any
// stage and route) and "unfinished". Some may never fail; a table that
// writes a zero for each of them lets a plain mean over runs count the
// runs where nothing failed there.
func (c *Compiled) FailureStages() map[string][]string {
	p := c.prog
	out := make(map[string][]string, len(p.journeys))
	for _, j := range p.journeys {
		set := map[string]bool{"journey": true, "unfinished": true}
		p.stagesOf(j.body, set, make(map[int32]bool))
		stages := make([]string, 0, len(set))
		for s := range set {
			stages = append(stages, s)
		}
		sort.Strings(stages)
		out[j.name] = stages
	}
	return out
}

// stagesOf adds the stages block b can fail in to set.
func (p *program) stagesOf(b int32, set map[string]bool, seen map[int32]bool) {
	if b < 0 || seen[b] {
		return
	}
	seen[b] = true
	for i := range p.blocks[b].ops {
		o := &p.blocks[b].ops[i]
		for _, br := range o.branches {
			p.stagesOf(br.body, set, seen)
		}
		switch o.code {
		case opStage:
			set[p.names[o.name]] = true
		case opScope, opRepeat, opFanout:
			p.stagesOf(o.body, set, seen)
		case opCall, opJob, opPoll, opPollWhile:
			set[p.routes[o.route].name] = true
			p.stagesOf(p.routes[o.route].body, set, seen)
		}
		if o.code == opCall && o.pollBlk >= 0 {
			p.stagesOf(o.pollBlk, set, seen)
		}
	}
}
