package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"capsim/cmd/golden"
)

// claimsBlock is a table a page keeps of a hindcast's output, between
//
//	<!-- hindcast: SCENARIO [FLAGS] -->
//	...
//	<!-- end hindcast -->
//
// so that what a page says the model reproduces is what it does.
//
// or, for its summary paragraph alone, <!-- hindcast-summary: ... -->.
var claimsBlock = regexp.MustCompile(`(?s)(<!-- hindcast(-summary)?: ([^>]*?) -->\n)(.*?)(<!-- end hindcast -->)`)

// TestClaimsTablesAreHindcastOutput runs every claims block's hindcast
// and compares the table with the page; -update rewrites them.
func TestClaimsTablesAreHindcastOutput(t *testing.T) {
	slowTests(t)
	pages, _ := filepath.Glob("../../scenarios/*.md")
	docs, _ := filepath.Glob("../../docs/*.md")
	pages = append(append(pages, docs...), "../../README.md")
	for _, page := range pages {
		data, err := os.ReadFile(page)
		if err != nil {
			t.Fatal(err)
		}
		changed := false
		out := claimsBlock.ReplaceAllStringFunc(string(data), func(block string) string {
			m := claimsBlock.FindStringSubmatch(block)
			summary, flags, have, end := m[2] != "", m[3], m[4], m[5]
			args := append([]string{"hindcast"}, strings.Fields(flags)...)
			args = append(args, "--markdown", "-q")
			code, stdout, stderr := sweepCLI(t, false, args...)
			if code != 0 && code != exitMismatch {
				t.Errorf("%s: capsim %s: exit %d: %s", page, strings.Join(args, " "), code, stderr)
				return block
			}
			if summary {
				stdout, _, _ = strings.Cut(stdout, "\n\n") // the summary paragraph
				stdout += "\n"
			}
			if stdout != have {
				changed = true
				if !golden.Updating() {
					t.Errorf("%s: the claims of `capsim %s` differ from its output (go test ./cmd/capsim -run Claims -update rewrites them):\n%s",
						page, flags, stdout)
				}
			}
			return m[1] + stdout + end
		})
		if changed && golden.Updating() {
			if err := os.WriteFile(page, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
