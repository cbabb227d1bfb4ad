package plots

import "testing"

func TestMarkdownToHTML(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, md, want string
	}{
		{"empty", "  \n\n", ""},
		{"paragraphs", "one\ntwo\n\nthree", "<p>one\ntwo</p>\n<p>three</p>"},
		{"escaping", `a < b & "c" > 'd'`, "<p>a &lt; b &amp; &#34;c&#34; &gt; &#39;d&#39;</p>"},
		{"script", "<script>alert(1)</script>", "<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>"},
		{"code", "run `capsim sweep <file>` now", "<p>run <code>capsim sweep &lt;file&gt;</code> now</p>"},
		{"unclosed code", "a `b", "<p>a `b</p>"},
		{"bold", "**p95** < 2s", "<p><strong>p95</strong> &lt; 2s</p>"},
		{"bold with code", "**use `x`**", "<p><strong>use <code>x</code></strong></p>"},
		{"lone stars", "2*3*4 and ** end", "<p>2*3*4 and ** end</p>"},
		{"escapes", `\*not bold\* \<b\> \z`, `<p>*not bold* &lt;b&gt; \z</p>`},
		{"bullets", "intro\n- a\n- b\n  continued\n\nafter", "<p>intro</p>\n<ul>\n<li>a</li>\n<li>b\ncontinued</li>\n</ul>\n<p>after</p>"},
		{"numbered", "1. first\n2) second", "<ol>\n<li>first</li>\n<li>second</li>\n</ol>"},
		{"list kinds", "- a\n1. b", "<ul>\n<li>a</li>\n</ul>\n<ol>\n<li>b</li>\n</ol>"},
		{"heading", "# Big\n### Notes ###\ntext", "<h3>Big</h3>\n<h3>Notes</h3>\n<p>text</p>"},
		{"crlf and controls", "a\r\nb\x00c", "<p>a\nbc</p>"},
		{"invalid utf8", "a\xffb", "<p>a\uFFFDb</p>"},
	}
	for _, c := range cases {
		if got := string(mdToHTML(c.md)); got != c.want {
			t.Errorf("%s: mdToHTML(%q) =\n%q\nwant\n%q", c.name, c.md, got, c.want)
		}
	}
}
