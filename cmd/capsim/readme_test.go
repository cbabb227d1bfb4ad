package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"capsim/cmd/golden"
	"capsim/plots"
)

// The README's and the docs' examples are executed, so they stay true: a
// command's printed output is capsim's output byte for byte, and the
// scenarios shown load, compile and run.

// repoRoot is the repository's root, seen from this package's folder.
const repoRoot = "../.."

// docBlock returns the body of the first ```fence block after the line
// starting with heading in file (a path from the repository's root).
func docBlock(t *testing.T, file, heading, fence string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil {
		t.Fatal(err)
	}
	s := "\n" + string(data)
	i := strings.Index(s, "\n"+heading)
	if i < 0 {
		t.Fatalf("%s has no %q", file, heading)
	}
	s = s[i:]
	start := strings.Index(s, "\n```"+fence+"\n")
	if start < 0 {
		t.Fatalf("%s has no ```%s block after %q", file, fence, heading)
	}
	s, _, ok := strings.Cut(s[start+len("\n```"+fence+"\n"):], "```")
	if !ok {
		t.Fatalf("%s: the ```%s block after %q does not end", file, fence, heading)
	}
	return s
}

func readmeBlock(t *testing.T, heading, fence string) string {
	t.Helper()
	return docBlock(t, "README.md", heading, fence)
}

// shownBlock returns the block of file whose first line starts with
// "$ capsim " and then prefix, split into the command's arguments and the
// output shown after it.
func shownBlock(t *testing.T, file, prefix string) (args []string, output string) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil {
		t.Fatal(err)
	}
	_, s, ok := strings.Cut(string(data), "```\n$ capsim "+prefix)
	if !ok {
		t.Fatalf("%s has no block starting with $ capsim %s", file, prefix)
	}
	s, _, ok = strings.Cut(prefix+s, "```")
	if !ok {
		t.Fatalf("%s: the block of $ capsim %s does not end", file, prefix)
	}
	line, output, _ := strings.Cut(s, "\n")
	return strings.Fields(line), output
}

// checkShown runs, in dir, the command of the block shownBlock finds and
// compares what it prints on standard output with the block.
func checkShown(t *testing.T, file, prefix, dir string, wantCode int) {
	t.Helper()
	args, want := shownBlock(t, file, prefix)
	t.Chdir(dir)
	code, got, stderr := run(t, args...)
	if code != wantCode || got != want {
		t.Errorf("%s: capsim %s exits %d (want %d)\n%s shows:\n%s\ncapsim prints:\n%s%s",
			file, strings.Join(args, " "), code, wantCode, file, want, got, stderr)
	}
}

func TestReadmeFirstRunIsWhatCapsimPrints(t *testing.T) {
	checkShown(t, "README.md", "run mmc\n", ".", 0)
}

func TestReadmeScenarioRuns(t *testing.T) {
	path := filepath.Join(t.TempDir(), "shop.yaml")
	if err := os.WriteFile(path, []byte(readmeBlock(t, "## A first scenario", "yaml")), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := run(t, "validate", path); code != 0 {
		t.Fatalf("validate: exit %d: %s", code, stderr)
	}
	code, stdout, stderr := run(t, "run", path, "--design", "bigger-db")
	if code != 0 || !strings.Contains(stdout, "checkout") {
		t.Fatalf("run: exit %d: %s%s", code, stdout, stderr)
	}
}

// The first sweep writes ./capsim-out, so it runs in a folder of its own.
func TestReadmeFirstSweepIsWhatCapsimPrints(t *testing.T) {
	checkShown(t, "README.md", "sweep mmc\n", t.TempDir(), 0)
}

// The observations example: the scenario shown is the example's file, and
// hindcast and fit print what the README shows, run from the root as the
// README runs them.
func TestReadmeObservationsExampleIsWhatCapsimPrints(t *testing.T) {
	const heading = "## Observations, hindcast and fit"
	file, err := os.ReadFile(checkoutExample)
	if err != nil {
		t.Fatal(err)
	}
	if got := readmeBlock(t, heading, "yaml"); got != string(file) {
		t.Errorf("the README's scenario is not docs/examples/checkout.yaml:\n%s", got)
	}
	t.Run("hindcast", func(t *testing.T) {
		checkShown(t, "README.md", "hindcast ", repoRoot, exitMismatch)
	})
	t.Run("fit", func(t *testing.T) {
		checkShown(t, "README.md", "fit ", repoRoot, 0)
	})
}

// docPages are every page of prose: the README and docs/*.md.
func docPages(t *testing.T) []string {
	t.Helper()
	pages, err := filepath.Glob(filepath.Join(repoRoot, "docs", "*.md"))
	if err != nil || len(pages) == 0 {
		t.Fatalf("docs/*.md: %v", err)
	}
	for i, p := range pages {
		pages[i], _ = filepath.Rel(repoRoot, p)
	}
	return append([]string{"README.md"}, pages...)
}

// proseLines calls f with every line of file outside code blocks, and
// whether it is a table row.
func proseLines(t *testing.T, file string, f func(n int, line string, table bool)) {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(repoRoot, file))
	if err != nil {
		t.Fatal(err)
	}
	fence := ""
	for i, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case fence != "":
			if strings.HasPrefix(trimmed, fence) {
				fence = ""
			}
		case strings.HasPrefix(trimmed, "```"):
			fence = "```"
		default:
			f(i+1, line, strings.HasPrefix(trimmed, "|"))
		}
	}
}

// Prose wraps at 100 columns; tables and code blocks are what they are.
func TestDocLinesFit(t *testing.T) {
	for _, page := range docPages(t) {
		proseLines(t, page, func(n int, line string, table bool) {
			if w := len([]rune(line)); !table && w > 100 {
				t.Errorf("%s:%d is %d characters long: %.60s…", page, n, w, line)
			}
		})
	}
}

var docLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// Every link between the pages leads to a file that exists and, with a
// #fragment, to a heading of it.
func TestDocLinksResolve(t *testing.T) {
	for _, page := range docPages(t) {
		proseLines(t, page, func(n int, line string, _ bool) {
			for _, m := range docLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				path, frag, _ := strings.Cut(target, "#")
				file := page
				if path != "" {
					file = filepath.Join(filepath.Dir(page), path)
				}
				if _, err := os.Stat(filepath.Join(repoRoot, file)); err != nil {
					t.Errorf("%s:%d links to %s, which does not exist", page, n, target)
					continue
				}
				if frag != "" && !slices.Contains(headingAnchors(t, file), frag) {
					t.Errorf("%s:%d links to %s, which has no heading #%s", page, n, file, frag)
				}
			}
		})
	}
}

// A source path the pages name, in prose or in a code block: a file of
// the repository's top-level folders, or one of those folders' folders
// (ending in a slash).
var docPath = regexp.MustCompile("(?:^|[\\s`(])((?:cmd|sim|model|plots|calibration|scenarios|testdata)/" +
	"(?:[\\w.*-]+/)*(?:[\\w*-]+\\.(?:go|yaml|sh|csv|log|json|jsonl)|))(?:[\\s`),:;.]|$)")

// Every source file or folder the pages name exists, so that a page
// describing where a feature lives follows the code when files move; a
// name with a * must match at least one file.
func TestDocPathsExist(t *testing.T) {
	for _, page := range docPages(t) {
		data, err := os.ReadFile(filepath.Join(repoRoot, page))
		if err != nil {
			t.Fatal(err)
		}
		for n, line := range strings.Split(string(data), "\n") {
			for _, m := range docPath.FindAllStringSubmatch(line, -1) {
				matches, err := filepath.Glob(filepath.Join(repoRoot, m[1]))
				if err != nil || len(matches) == 0 {
					t.Errorf("%s:%d names %s, which does not exist", page, n+1, m[1])
				}
			}
		}
	}
}

func headingAnchors(t *testing.T, file string) []string {
	var out []string
	if !strings.HasSuffix(file, ".md") {
		return nil
	}
	proseLines(t, file, func(_ int, line string, _ bool) {
		if h, ok := strings.CutPrefix(line, "#"); ok {
			out = append(out, plots.Anchor(strings.TrimSpace(strings.TrimLeft(h, "#"))))
		}
	})
	return out
}

// The README's short tables of component kinds and step verbs are held to
// the registry by the model's tests; the reference in docs/language.md
// lists the same, in the same order.
func TestLanguageReferenceListsTheREADMEsVocabulary(t *testing.T) {
	for _, header := range []string{"| kind | keys | behaviour |", "| verb | meaning | modifiers |"} {
		short := golden.TableKeys(t, filepath.Join(repoRoot, "README.md"), header)
		full := golden.TableKeys(t, filepath.Join(repoRoot, "docs/language.md"), header)
		if len(short) == 0 || !slices.Equal(short, full) {
			t.Errorf("%s\nREADME:           %v\ndocs/language.md: %v", header, short, full)
		}
	}
}

// shellWords splits a command line as a shell would, for the quoting the
// pages use: words separated by spaces, '…' and "…" kept whole.
func shellWords(line string) []string {
	var words []string
	var w strings.Builder
	inWord := false
	var quote rune
	for _, r := range line {
		switch {
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			w.WriteRune(r)
		case r == '\'' || r == '"':
			quote, inWord = r, true
		case r == ' ':
			if inWord {
				words = append(words, w.String())
				w.Reset()
			}
			inWord = false
		default:
			w.WriteRune(r)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words
}

// shownCommands returns, per page and line, every capsim command line the
// code blocks of the pages show (commands, examples, scripts), without
// those written with shell variables or as a synopsis. Blocks marked
// ```text hold what commands print, and are left out.
func shownCommands(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	comment := regexp.MustCompile(`\s+#.*$`)
	for _, page := range docPages(t) {
		data, err := os.ReadFile(filepath.Join(repoRoot, page))
		if err != nil {
			t.Fatal(err)
		}
		in, text := false, false
		lines := strings.Split(string(data), "\n")
		for n := 0; n < len(lines); n++ {
			at := n
			trimmed := strings.TrimSpace(lines[n])
			// A line ending in a backslash goes on on the next one.
			for strings.HasSuffix(trimmed, " \\") && n+1 < len(lines) {
				n++
				trimmed = strings.TrimSuffix(trimmed, "\\") + strings.TrimSpace(lines[n])
			}
			if info, ok := strings.CutPrefix(trimmed, "```"); ok {
				in, text = !in, info == "text"
				continue
			}
			if !in || text {
				continue // prose, or what a command prints
			}
			// Cut a shell redirection, and the columns of a diagram.
			trimmed, _, _ = strings.Cut(trimmed, " > ")
			trimmed, _, _ = strings.Cut(trimmed, "   ")
			for _, part := range strings.Split(trimmed, " && ") {
				part = strings.TrimPrefix(strings.TrimSpace(part), "$ ")
				part = strings.TrimPrefix(part, "go run ./cmd/")
				if !strings.HasPrefix(part, "capsim ") || strings.ContainsAny(part, "$[|…") {
					continue
				}
				part = strings.TrimSuffix(strings.TrimSpace(comment.ReplaceAllString(part, "")), " &")
				out[fmt.Sprintf("%s:%d", page, at+1)] = shellWords(part)[1:]
			}
		}
	}
	return out
}

// Every capsim command line the pages show names a command and flags
// capsim has, with values of the right kind and as many arguments as the
// command takes.
func TestDocCommandsParse(t *testing.T) {
	shown := shownCommands(t)
	if len(shown) < 20 {
		t.Fatalf("only %d command lines found", len(shown))
	}
	for where, args := range shown {
		root := newRootCmd(&IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard})
		cmd, rest, err := root.Find(args)
		if err == nil {
			err = cmd.ParseFlags(rest)
		}
		if err == nil && cmd.Args != nil {
			err = cmd.Args(cmd, cmd.Flags().Args())
		}
		if err != nil {
			t.Errorf("%s: capsim %s: %v", where, strings.Join(args, " "), err)
		}
	}
}

// The check example of docs/modelling.md runs on the shipped recording
// as shown, from the repository's root, and every line passes.
func TestModellingCheckExamplePasses(t *testing.T) {
	block := docBlock(t, "docs/modelling.md", "## Checking a model against a recorded run", "sh")
	args := enterCheckExample(t, block)
	code, stdout, stderr := run(t, args[1:]...)
	if code != exitOK || !strings.Contains(stdout, "The model matches the recording: no line failed.") {
		t.Errorf("capsim %s: exit %d\n%s%s", strings.Join(args[1:], " "), code, stdout, stderr)
	}
	if got := strings.Count(stdout, "\npass  "); got != 10 {
		t.Errorf("%d lines pass, want all 10:\n%s", got, stdout)
	}
}

// The driver's-log example of docs/modelling.md runs as shown and prints
// the report the page shows.
func TestModellingDriverLogExample(t *testing.T) {
	const heading = "### A load driver's own log"
	block := docBlock(t, "docs/modelling.md", heading, "sh")
	want := docBlock(t, "docs/modelling.md", heading, "text")
	args := enterCheckExample(t, block)
	code, stdout, stderr := run(t, args[1:]...)
	if code != exitOK || stdout != want {
		t.Errorf("capsim %s: exit %d, stderr %q\n%s\nthe page shows:\n%s", strings.Join(args[1:], " "), code, stderr, stdout, want)
	}
}
