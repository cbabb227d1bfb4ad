package plots

import "testing"

// Prose renders as CommonMark does, which is how report.md reads on a
// code host, and never lets caller text become markup.
func TestMarkdownToHTML(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, md, want string
	}{
		{"empty", "  \n\n", ""},
		{"paragraphs", "one\ntwo\n\nthree", "<p>one\ntwo</p>\n<p>three</p>"},
		{"escaping", `a < b & "c" > 'd'`, "<p>a &lt; b &amp; &quot;c&quot; &gt; 'd'</p>"},
		{"script", "<script>alert(1)</script>", "<!-- raw HTML omitted -->"},
		{"inline html", "a <b onclick=x>b</b>", "<p>a <!-- raw HTML omitted -->b<!-- raw HTML omitted --></p>"},
		{"javascript link", "[x](javascript:alert(1))", `<p><a href="">x</a></p>`},
		{"code", "run `capsim sweep <file>` now", "<p>run <code>capsim sweep &lt;file&gt;</code> now</p>"},
		{"unclosed code", "a `b", "<p>a `b</p>"},
		{"bold", "**p95** < 2s", "<p><strong>p95</strong> &lt; 2s</p>"},
		{"bold with code", "**use `x`**", "<p><strong>use <code>x</code></strong></p>"},
		{"lone stars", `2\*3\*4 and ** end`, "<p>2*3*4 and ** end</p>"},
		{"escapes", `\*not bold\* \<b\> \z`, `<p>*not bold* &lt;b&gt; \z</p>`},
		{"bullets", "intro\n- a\n- b\n  continued\n\nafter", "<p>intro</p>\n<ul>\n<li>a</li>\n<li>b\ncontinued</li>\n</ul>\n<p>after</p>"},
		{"numbered", "1. first\n2. second", "<ol>\n<li>first</li>\n<li>second</li>\n</ol>"},
		{"table", "| a | b |\n| --- | --- |\n| 1 | 2 |", "<table>\n<thead>\n<tr>\n<th>a</th>\n<th>b</th>\n</tr>\n</thead>\n<tbody>\n<tr>\n<td>1</td>\n<td>2</td>\n</tr>\n</tbody>\n</table>"},
		{"list kinds", "- a\n1. b", "<ul>\n<li>a</li>\n</ul>\n<ol>\n<li>b</li>\n</ol>"},
		{"heading", "# Big\n### Notes ###\ntext", "<h3>Big</h3>\n<h5>Notes</h5>\n<p>text</p>"},
		{"crlf and controls", "a\r\nb\x00c", "<p>a\nbc</p>"},
		{"invalid utf8", "a\xffb", "<p>a\uFFFDb</p>"},
	}
	for _, c := range cases {
		if got := string(mdToHTML(c.md)); got != c.want {
			t.Errorf("%s: mdToHTML(%q) =\n%q\nwant\n%q", c.name, c.md, got, c.want)
		}
	}
}
