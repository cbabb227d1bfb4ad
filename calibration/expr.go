package calibration

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Expr is an arithmetic expression over the fields of a record, such as
// "driver.duration_ms - app.handler_ms" or "hold_ms / sleeps": numbers,
// field references (letters, digits, _ and dots, starting with a letter or
// _; "time" is a record's timestamp in seconds, meant for differences
// between records; thumbs[].ms reads ms of each element of the array
// thumbs, one value per element), + - * /, unary minus and
// parentheses, with the usual precedence, left to right.
//
// Derived values are what a single log line rarely holds: a client's
// latency less the server's share of the same request, a hold divided by the
// sleeps it contains, the gap between two events of one request.
type Expr struct {
	text string
	root *exprNode
	refs []string // in order of first appearance, each once
}

type exprNode struct {
	op          byte // 0 for a leaf
	num         float64
	ref         string // a field reference when op == 0 and ref != ""
	left, right *exprNode
}

// ParseExpr reads an expression. The error names the offending position.
func ParseExpr(s string) (*Expr, error) {
	p := &exprParser{src: s}
	if len(s) > MaxExprLen {
		return nil, p.errorf("%d characters long, more than the %d an expression may have", len(s), MaxExprLen)
	}
	p.next()
	root, err := p.sum()
	if err != nil {
		return nil, err
	}
	if p.tok != tokEnd {
		return nil, p.errorf("unexpected %s", p.describe())
	}
	e := &Expr{text: s, root: root}
	var walk func(n *exprNode)
	walk = func(n *exprNode) {
		if n == nil {
			return
		}
		if n.op == 0 && n.ref != "" && !slices.Contains(e.refs, n.ref) {
			e.refs = append(e.refs, n.ref)
		}
		walk(n.left)
		walk(n.right)
	}
	walk(root)
	return e, nil
}

// String returns the expression as it was written.
func (e *Expr) String() string { return e.text }

// Refs lists the fields the expression reads, each once, in order of
// appearance.
func (e *Expr) Refs() []string { return e.refs }

// Eval computes the expression, looking each field up with get. A field
// that is missing or not a number, and a division by zero, are errors: a
// value that cannot be computed is not silently replaced.
func (e *Expr) Eval(get func(ref string) (float64, error)) (float64, error) {
	return e.root.eval(get)
}

func (n *exprNode) eval(get func(string) (float64, error)) (float64, error) {
	if n.op == 0 {
		if n.ref == "" {
			return n.num, nil
		}
		return get(n.ref)
	}
	if n.op == 'n' {
		v, err := n.left.eval(get)
		return -v, err
	}
	a, err := n.left.eval(get)
	if err != nil {
		return 0, err
	}
	b, err := n.right.eval(get)
	if err != nil {
		return 0, err
	}
	switch n.op {
	case '+':
		return a + b, nil
	case '-':
		return a - b, nil
	case '*':
		return a * b, nil
	}
	if b == 0 {
		return 0, errors.New("division by zero")
	}
	return a / b, nil
}

type exprToken int

const (
	tokEnd exprToken = iota
	tokNum
	tokRef
	tokOp
	tokBad
)

// MaxExprDepth bounds how deeply an expression nests (unary minus and
// parentheses): parsing and evaluation recurse once per level, and a
// plan's expression nested deeper than any derived value needs, as a
// pasted file of minus signs is, must be refused rather than overflow the
// stack.
const MaxExprDepth = 64

// maxExprEcho is the most of an expression a message repeats: the
// position says where, and a megabyte of it would bury the point.
const maxExprEcho = 80

// MaxExprLen bounds an expression's length: a sum of many terms nests
// as deeply as its terms are many when evaluated, and no derived value of
// a log line needs more than a few dozen.
const MaxExprLen = 4096

type exprParser struct {
	src   string
	depth int // levels of unary minus and parentheses open
	pos   int // start of the current token
	end   int // end of the current token
	tok   exprToken
	text  string
	num   float64
}

func (p *exprParser) errorf(format string, args ...any) error {
	src := p.src
	if len(src) > maxExprEcho {
		src = src[:maxExprEcho] + "..."
	}
	return fmt.Errorf("expression %q, at column %d: %s", src, p.pos+1, fmt.Sprintf(format, args...))
}

func (p *exprParser) describe() string {
	switch p.tok {
	case tokEnd:
		return "end of expression"
	case tokBad:
		return fmt.Sprintf("character %q", p.text)
	}
	return fmt.Sprintf("%q", p.text)
}

func isRefStart(c byte) bool { return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
func isRefByte(c byte) bool {
	return isRefStart(c) || c >= '0' && c <= '9' || c == '.' || c == '[' || c == ']'
}

func (p *exprParser) next() {
	i := p.end
	for i < len(p.src) && (p.src[i] == ' ' || p.src[i] == '\t') {
		i++
	}
	p.pos = i
	if i == len(p.src) {
		p.tok, p.text, p.end = tokEnd, "", i
		return
	}
	c := p.src[i]
	switch {
	case strings.IndexByte("+-*/()", c) >= 0:
		p.tok, p.text, p.end = tokOp, p.src[i:i+1], i+1
	case c >= '0' && c <= '9' || c == '.':
		j := i
		for j < len(p.src) && (p.src[j] >= '0' && p.src[j] <= '9' || p.src[j] == '.') {
			j++
		}
		if j < len(p.src) && (p.src[j] == 'e' || p.src[j] == 'E') {
			k := j + 1
			if k < len(p.src) && (p.src[k] == '+' || p.src[k] == '-') {
				k++
			}
			if k < len(p.src) && p.src[k] >= '0' && p.src[k] <= '9' {
				for k < len(p.src) && p.src[k] >= '0' && p.src[k] <= '9' {
					k++
				}
				j = k
			}
		}
		p.tok, p.text, p.end = tokNum, p.src[i:j], j
		v, err := strconv.ParseFloat(p.text, 64)
		if err != nil {
			p.tok = tokBad
		}
		p.num = v
	case isRefStart(c):
		j := i
		for j < len(p.src) && isRefByte(p.src[j]) {
			j++
		}
		p.tok, p.text, p.end = tokRef, p.src[i:j], j
	default:
		p.tok, p.text, p.end = tokBad, p.src[i:i+1], i+1
	}
}

// sum := product {("+" | "-") product}
func (p *exprParser) sum() (*exprNode, error) { return p.leftAssociative("+-", p.product) }

// product := unary {("*" | "/") unary}
func (p *exprParser) product() (*exprNode, error) { return p.leftAssociative("*/", p.unary) }

// leftAssociative parses one level of the grammar, operand {op operand}
// with op one of the bytes of ops, grouping to the left: a-b-c is (a-b)-c.
func (p *exprParser) leftAssociative(ops string, operand func() (*exprNode, error)) (*exprNode, error) {
	left, err := operand()
	if err != nil {
		return nil, err
	}
	for p.tok == tokOp && len(p.text) == 1 && strings.Contains(ops, p.text) {
		op := p.text[0]
		p.next()
		right, err := operand()
		if err != nil {
			return nil, err
		}
		left = &exprNode{op: op, left: left, right: right}
	}
	return left, nil
}

// unary := "-" unary | number | field | "(" sum ")"
func (p *exprParser) unary() (*exprNode, error) {
	if p.tok == tokOp && (p.text == "-" || p.text == "(") {
		if p.depth++; p.depth > MaxExprDepth {
			return nil, p.errorf("nested more than %d deep (unary minus and parentheses)", MaxExprDepth)
		}
		defer func() { p.depth-- }()
	}
	switch {
	case p.tok == tokOp && p.text == "-":
		p.next()
		x, err := p.unary()
		if err != nil {
			return nil, err
		}
		return &exprNode{op: 'n', left: x}, nil
	case p.tok == tokNum:
		n := &exprNode{num: p.num}
		p.next()
		return n, nil
	case p.tok == tokRef:
		if strings.HasSuffix(p.text, ".") || strings.Contains(p.text, "..") {
			return nil, p.errorf("field %q is not a name such as app.handler_ms", p.text)
		}
		if err := checkArrayName(p.text); err != nil {
			return nil, p.errorf("%v", err)
		}
		n := &exprNode{ref: p.text}
		p.next()
		return n, nil
	case p.tok == tokOp && p.text == "(":
		p.next()
		x, err := p.sum()
		if err != nil {
			return nil, err
		}
		if p.tok != tokOp || p.text != ")" {
			return nil, p.errorf("expected ) but found %s", p.describe())
		}
		p.next()
		return x, nil
	}
	return nil, p.errorf("expected a number, a field or ( but found %s", p.describe())
}

// isFinite reports whether v is neither NaN nor infinite.
func isFinite(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
