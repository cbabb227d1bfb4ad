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
var claimsBlock = regexp.MustCompile(`(?s)(<!-- hindcast: ([^>]*?) -->\n)(.*?)(<!-- end hindcast -->)`)

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
			args := append([]string{"hindcast"}, strings.Fields(m[2])...)
			args = append(args, "--markdown", "-q")
			code, stdout, stderr := sweepCLI(t, false, args...)
			if code != 0 && code != exitMismatch {
				t.Errorf("%s: capsim %s: exit %d: %s", page, strings.Join(args, " "), code, stderr)
				return block
			}
			if stdout != m[3] {
				changed = true
				if !golden.Updating() {
					t.Errorf("%s: the claims of `capsim %s` differ from its output (go test ./cmd/capsim -run Claims -update rewrites them):\n%s",
						page, m[2], stdout)
				}
			}
			return m[1] + stdout + m[4]
		})
		if changed && golden.Updating() {
			if err := os.WriteFile(page, []byte(out), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
