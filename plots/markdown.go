package plots

import (
	"fmt"
	"html"
	"html/template"
	"regexp"
	"strings"
)

// mdToHTML renders the small markdown subset that report prose uses, so
// the HTML page needs no markdown library: paragraphs, bullet and numbered
// lists, "#" headings, `code`, **bold** and backslash escapes. Everything
// else is shown as written. Every piece of caller text is escaped.
func mdToHTML(md string) template.HTML {
	md = clean(strings.ReplaceAll(md, "\r\n", "\n"))
	var b strings.Builder
	var para []string
	list := "" // "ul", "ol" or "" when no list is open
	var items []string

	flushPara := func() {
		if len(para) > 0 {
			fmt.Fprintf(&b, "<p>%s</p>\n", inline(strings.Join(para, "\n")))
			para = nil
		}
	}
	flushList := func() {
		if list == "" {
			return
		}
		fmt.Fprintf(&b, "<%s>\n", list)
		for _, it := range items {
			fmt.Fprintf(&b, "<li>%s</li>\n", inline(it))
		}
		fmt.Fprintf(&b, "</%s>\n", list)
		list, items = "", nil
	}

	for _, line := range strings.Split(md, "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			flushPara()
			flushList()
			continue
		}
		if m := mdHeading.FindStringSubmatch(trimmed); m != nil {
			flushPara()
			flushList()
			// Sections are <h2>; headings inside their prose rank below.
			level := max(len(m[1]), 3)
			fmt.Fprintf(&b, "<h%d>%s</h%d>\n", level, inline(m[2]), level)
			continue
		}
		kind, text := listItem(trimmed)
		switch {
		case kind != "":
			flushPara()
			if kind != list {
				flushList()
				list = kind
			}
			items = append(items, text)
		case list != "" && line != trimmed:
			// An indented line continues the list item above it.
			items[len(items)-1] += "\n" + trimmed
		default:
			flushList()
			para = append(para, trimmed)
		}
	}
	flushPara()
	flushList()
	return template.HTML(strings.TrimSpace(b.String()))
}

var (
	mdHeading = regexp.MustCompile(`^(#{1,6})\s+(.*?)\s*#*$`)
	mdOrdered = regexp.MustCompile(`^\d{1,9}[.)]\s+`)
)

func listItem(line string) (kind, text string) {
	for _, bullet := range []string{"- ", "* ", "+ "} {
		if strings.HasPrefix(line, bullet) {
			return "ul", strings.TrimSpace(line[len(bullet):])
		}
	}
	if loc := mdOrdered.FindStringIndex(line); loc != nil {
		return "ol", line[loc[1]:]
	}
	return "", ""
}

// inline renders code spans, bold and backslash escapes, escaping all
// other text for HTML.
func inline(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		switch {
		case s[i] == '\\' && i+1 < len(s) && isASCIIPunct(s[i+1]):
			b.WriteString(html.EscapeString(s[i+1 : i+2]))
			i += 2
		case s[i] == '`':
			if j := strings.IndexByte(s[i+1:], '`'); j >= 0 {
				b.WriteString("<code>" + html.EscapeString(s[i+1:i+1+j]) + "</code>")
				i += j + 2
				continue
			}
			b.WriteString("`")
			i++
		case strings.HasPrefix(s[i:], "**"):
			if j := strings.Index(s[i+2:], "**"); j > 0 {
				b.WriteString("<strong>" + inline(s[i+2:i+2+j]) + "</strong>")
				i += j + 4
				continue
			}
			b.WriteString("**")
			i += 2
		default:
			j := i + 1
			for j < len(s) && s[j] != '\\' && s[j] != '`' && s[j] != '*' {
				j++
			}
			b.WriteString(html.EscapeString(s[i:j]))
			i = j
		}
	}
	return b.String()
}

func isASCIIPunct(c byte) bool {
	return strings.IndexByte("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~", c) >= 0
}
