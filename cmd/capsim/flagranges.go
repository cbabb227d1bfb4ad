package main

// flagRanges are the ranges of the commands' numeric flags, in the bound
// syntax of the scenario's numeric keys (model.ParseBound): each command
// refuses a value outside its row with exit 2 and a message naming the
// flag. TestEveryNumericFlagHasARange holds every numeric flag of the
// command tree to a row and every row's ends to the command's checks;
// docs/keys.md lists them. A range whose end depends on another flag
// says so in words and is walked only at the values no flag can mean.
var flagRanges = map[string]string{
	"check --alpha":        "(0,1)",
	"check --multiplier":   "(0,multiplier]",
	"check --replications": "[1,replications]",
	"check --resolution":   "(0,1]",
	"check --seed":         "[0,inf)",

	"fit --points":       "[2,10000]",
	"fit --replications": "[2,replications]",
	"fit --seed":         "[0,inf)",
	"fit --waves":        "[0,10]",

	"hindcast --max-replications": "at least --replications, at most 10000; with --until-sure",
	"hindcast --replications":     "[2,replications]",
	"hindcast --seed":             "[0,inf)",
	"hindcast --workers":          "[1,4096]",

	"run --multiplier": "(0,multiplier]",
	"run --seed":       "[0,inf)",

	"sensitivity --max-replications": "at least --replications, at most 10000; with --until-sure",
	"sensitivity --refine":           "[0,50]",
	"sensitivity --replications":     "[1,replications]",
	"sensitivity --round":            "one of the rounds the flags make; with --shard",
	"sensitivity --seed":             "[0,inf)",
	"sensitivity --workers":          "[1,4096]",

	"sweep --hindcast-replications": "0 (none), or 2 to 10000",
	"sweep --max-replications":      "at least --replications, at most 10000; with --until-sure",
	"sweep --refine":                "[0,50]",
	"sweep --replications":          "[1,replications]",
	"sweep --round":                 "one of the rounds the flags make; with --shard",
	"sweep --section":               "[1,64]",
	"sweep --seed":                  "[0,inf)",
	"sweep --workers":               "[1,4096]",
}
