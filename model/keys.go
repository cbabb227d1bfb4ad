package model

import (
	"errors"
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
	"sync"

	"capsim/sim"
)

// The numeric keys of the language, in one table. Every field of the
// schema that holds a number (a count, a number, a time, a rate, a
// distribution, an SLO bound, an observed value) declares its range in a
// bound tag and, where 0 is allowed and means something other than
// nothing, what it means in a zero tag:
//
//	Queue *int `yaml:"queue" bound:"[0,count]" zero:"no waiting room: a busy pool refuses"`
//
// NumericKeys reads the tags from the schema's Go types, so that a key
// cannot be added without its row: a test fails on a numeric field with no
// bound, the language reference's table of keys (docs/keys.md) is
// generated from it, and a test tries every key at its bounds, one past
// them and at the values that break arithmetic (NaN, ±Inf, 2^31+3, 2^63,
// 1e308), holding the loader to the table.

// NumericKey is one numeric key of the scenario language.
type NumericKey struct {
	// Path is where the key is written, with <name> for a name the
	// author chooses, <kind> for a component of that kind and [] for
	// any item of a list: journeys.<name>.steps[].retry.attempts.
	Path string
	// Owner and Key are the Go type that holds the key and its YAML
	// name: together they identify the key wherever it is written (the
	// same step keys are written in journeys, routes and nested steps).
	Owner reflect.Type
	Key   string
	Type  KeyType
	Bound KeyBound
	// Zero says what 0 means when the bound allows it and it is not
	// simply none.
	Zero string
	// List: the key holds a list of such values (statuses, rates).
	List bool
	// Value is the Go type a value decodes to.
	Value reflect.Type
}

// KeyType is how a numeric key is written and what its bound counts.
type KeyType string

const (
	KeyCount        KeyType = "count"        // a whole number
	KeyNumber       KeyType = "number"       // any number
	KeyTime         KeyType = "time"         // a duration with a unit; bounds in seconds
	KeyRate         KeyType = "rate"         // count/unit; bounds per second
	KeyDistribution KeyType = "distribution" // a time or a distribution of times; bounds in seconds
	KeyThreshold    KeyType = "bound"        // an SLO bound (">= 0.99", "< 2s"); the bound is on its number
	KeyCountOrAttr  KeyType = "count or attribute"
	KeyWeight       KeyType = "weight or attribute"
	KeyTarget       KeyType = "rate or clients" // a stage's target
	KeyQuantity     KeyType = "quantity"        // an observed value with its unit (29s, 0.54%, 193)
	KeyObserved     KeyType = "k/n"             // k events of n
	KeyShare        KeyType = "share"           // a fraction, or a percentage
	KeyAttribute    KeyType = "attribute"       // a number, or choose: [{weight, value}]
)

// KeyBound is a range of numbers, each end open or closed.
type KeyBound struct {
	Lo, Hi         float64
	LoOpen, HiOpen bool
	Text           string // as the tag writes it
}

// Contains reports whether x lies in the range (NaN never does).
func (b KeyBound) Contains(x float64) bool {
	if math.IsNaN(x) {
		return false
	}
	lo := x > b.Lo || !b.LoOpen && x == b.Lo
	hi := x < b.Hi || !b.HiOpen && x == b.Hi
	return lo && hi
}

// boundNames are the named ends a bound tag may use: the limits the rest
// of the code enforces, by their own constants.
var boundNames = map[string]float64{
	"count":        MaxCount,
	"time":         MaxDuration.Seconds(),
	"rate":         MaxRate,
	"clients":      MaxClients,
	"replications": MaxReplications,
	"attempts":     maxAttempts,
	"multiplier":   MaxMultiplier,
	"observed":     MaxObservedCount,
	"quantum":      MinQuantum.Seconds(),
	"inf":          math.Inf(1),
	"-inf":         math.Inf(-1),
}

// ParseBound reads a bound tag: [lo,hi], (lo,hi], … with numbers or the
// names above at either end.
func ParseBound(tag string) (KeyBound, error) {
	b := KeyBound{Text: tag}
	if len(tag) < 5 || !strings.ContainsRune("[(", rune(tag[0])) || !strings.ContainsRune("])", rune(tag[len(tag)-1])) {
		return b, fmt.Errorf("bound %q is not [lo,hi] with [ or ( and ] or )", tag)
	}
	b.LoOpen, b.HiOpen = tag[0] == '(', tag[len(tag)-1] == ')'
	lo, hi, ok := strings.Cut(tag[1:len(tag)-1], ",")
	if !ok {
		return b, fmt.Errorf("bound %q has no comma", tag)
	}
	end := func(s string) (float64, error) {
		s = strings.TrimSpace(s)
		if v, ok := boundNames[s]; ok {
			return v, nil
		}
		if v, ok := boundNames[strings.TrimPrefix(s, "-")]; ok {
			return -v, nil
		}
		return strconv.ParseFloat(s, 64)
	}
	var err error
	if b.Lo, err = end(lo); err != nil {
		return b, fmt.Errorf("bound %q: %v", tag, err)
	}
	if b.Hi, err = end(hi); err != nil {
		return b, fmt.Errorf("bound %q: %v", tag, err)
	}
	if !(b.Lo < b.Hi) {
		return b, fmt.Errorf("bound %q is empty", tag)
	}
	return b, nil
}

// keyTypes maps the schema's numeric Go types to how they are written.
var keyTypes = map[reflect.Type]KeyType{
	reflect.TypeOf(0):               KeyCount,
	reflect.TypeOf(int64(0)):        KeyCount,
	reflect.TypeOf(0.0):             KeyNumber,
	reflect.TypeOf(Duration{}):      KeyTime,
	reflect.TypeOf(Rate{}):          KeyRate,
	reflect.TypeOf(DistRef{}):       KeyDistribution,
	reflect.TypeOf(Threshold{}):     KeyThreshold,
	reflect.TypeOf(Count{}):         KeyCountOrAttr,
	reflect.TypeOf(Weight{}):        KeyWeight,
	reflect.TypeOf(StageTarget{}):   KeyTarget,
	reflect.TypeOf(Quantity{}):      KeyQuantity,
	reflect.TypeOf(ObservedCount{}): KeyObserved,
	reflect.TypeOf(Share{}):         KeyShare,
	reflect.TypeOf(Attribute{}):     KeyAttribute,
	reflect.TypeOf(DistEntry{}):     KeyDistribution,
}

// keyProblems are the numeric fields whose tags are missing or wrong,
// found while building the table; a test reports them.
var keyProblems []string

// NumericKeys lists every numeric key of the language, scenario keys in
// schema order and then each component kind's, with the bound its tag
// declares.
var NumericKeys = func() []NumericKey {
	w := keyWalker{seen: map[reflect.Type]bool{}}
	w.walk(reflect.TypeOf(Scenario{}), "")
	for _, k := range kinds {
		w.walk(reflect.TypeOf(k.newSpec()), "components.<"+k.name+">.")
	}
	return w.out
}()

type keyWalker struct {
	seen map[reflect.Type]bool
	out  []NumericKey
}

func (w *keyWalker) walk(t reflect.Type, prefix string) {
	t = deref(t)
	if t == reflect.TypeOf(Component{}) {
		// A component's own keys are its kind's, walked after the
		// scenario; status is common to every kind.
		w.field(t, reflect.StructField{Name: "Status", Type: reflect.TypeOf(0),
			Tag: `yaml:"status" bound:"[400,599]"`}, prefix)
		return
	}
	if t.Kind() != reflect.Struct || w.seen[t] {
		return
	}
	w.seen[t] = true
	for i := 0; i < t.NumField(); i++ {
		w.field(t, t.Field(i), prefix)
	}
}

func deref(t reflect.Type) reflect.Type {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	return t
}

func (w *keyWalker) field(owner reflect.Type, f reflect.StructField, prefix string) {
	name, _, _ := strings.Cut(f.Tag.Get("yaml"), ",")
	if name == "" || name == "-" {
		return
	}
	ft, path, list := deref(f.Type), prefix+name, false
	switch {
	case ft.Kind() == reflect.Slice:
		ft, path, list = deref(ft.Elem()), path+"[]", true
	case strings.HasPrefix(ft.Name(), "Named["):
		ft, path = ft.Field(0).Type.Elem().Field(1).Type, path+".<name>"
	}
	kt, numeric := keyTypes[ft]
	if !numeric {
		w.walk(ft, path+".")
		return
	}
	k := NumericKey{Path: path, Owner: owner, Key: name, Type: kt, Zero: f.Tag.Get("zero"), List: list, Value: ft}
	tag, ok := f.Tag.Lookup("bound")
	if !ok {
		keyProblems = append(keyProblems, fmt.Sprintf("%s (%s.%s) has no bound tag", k.Path, owner.Name(), f.Name))
	} else {
		b, err := ParseBound(tag)
		if err != nil {
			keyProblems = append(keyProblems, fmt.Sprintf("%s: %v", k.Path, err))
		}
		k.Bound = b
	}
	w.out = append(w.out, k)
}

// boundCache holds each struct field's parsed bound tag.
var boundCache sync.Map // boundAt -> *KeyBound (nil: none)

type boundAt struct {
	t  reflect.Type
	fi int
}

func fieldBound(t reflect.Type, fi int) *KeyBound {
	at := boundAt{t, fi}
	if b, ok := boundCache.Load(at); ok {
		return b.(*KeyBound)
	}
	var b *KeyBound
	if tag, ok := t.Field(fi).Tag.Lookup("bound"); ok {
		if kb, err := ParseBound(tag); err == nil {
			b = &kb
		}
	}
	boundCache.Store(at, b)
	return b
}

// checkBound returns the problem with a decoded field if a value in it
// lies outside the range its bound tag declares: the one check of every
// numeric key's range, made where the value is read so that the message
// carries its line.
func checkBound(t reflect.Type, fi int, field reflect.Value) error {
	b := fieldBound(t, fi)
	if b == nil {
		return nil
	}
	hint := ""
	if h := t.Field(fi).Tag.Get("hint"); h != "" {
		hint = " (" + h + ")"
	}
	for field.Kind() == reflect.Pointer {
		if field.IsNil() {
			return nil
		}
		field = field.Elem()
	}
	if field.Kind() == reflect.Slice {
		for i := 0; i < field.Len(); i++ {
			if err := checkValue(*b, hint, field.Index(i), true); err != nil {
				return err
			}
		}
		return nil
	}
	return checkValue(*b, hint, field, false)
}

func checkValue(b KeyBound, hint string, v reflect.Value, inList bool) error {
	x, text, ok := numberOf(v)
	if t, isBound := v.Interface().(Threshold); isBound && b.Contains(x) {
		// A bound inside the key's range may still be one no value meets.
		if why := t.never(b); why != "" {
			return errors.New(why)
		}
	}
	if !ok || b.Contains(x) {
		return nil
	}
	t := v.Type()
	switch {
	case !inList && (t.Kind() == reflect.Int || t.Kind() == reflect.Int64) && math.Abs(x) > MaxCount && b.Hi == MaxCount:
		// Past what any count may be: checkInt says so, in those words.
		return nil
	case x > b.Hi && b.hiUnsaid(t):
		// Words leaves out the cap every value of the type shares; this
		// value passes it, so say it.
		return fmt.Errorf("must be at most %s%s, got %s", b.endWords(t, b.Hi), hint, text)
	}
	return fmt.Errorf("must be %s%s, got %s", b.Words(t), hint, text)
}

// numberOf is the number a decoded value stands for, in the unit its
// bound counts, and how to print it; ok is false for a value that is no
// number (an attribute's name, a distribution, a drawn attribute).
func numberOf(v reflect.Value) (x float64, text string, ok bool) {
	switch x := v.Interface().(type) {
	case int:
		return float64(x), strconv.Itoa(x), true
	case int64:
		return float64(x), strconv.FormatInt(x, 10), true
	case float64:
		return x, strconv.FormatFloat(x, 'g', -1, 64), true
	case Duration:
		return x.T.Seconds(), x.T.String(), x.Set
	case Rate:
		return x.PerSecond, x.Text, true
	case Threshold:
		return x.Value, x.Text, true
	case Count:
		return float64(x.N), strconv.Itoa(x.N), x.Attr == ""
	case Weight:
		return x.V, strconv.FormatFloat(x.V, 'g', -1, 64), x.Attr == ""
	case Quantity:
		return x.V, x.Text, true
	case ObservedCount:
		return float64(x.N), fmt.Sprintf("%d/%d", x.K, x.N), true
	case Share:
		return x.V, x.Text, true
	case Attribute:
		return x.Value, strconv.FormatFloat(x.Value, 'g', -1, 64), x.Choose == nil
	}
	return 0, "", false
}

// Words says the range as a message does, in the unit of a value of
// type t: "between 0 and 1", "> 0s". An upper end that every value of
// the type has is left unsaid (hiUnsaid): its own message says it.
func (b KeyBound) Words(t reflect.Type) string {
	end := func(x float64) string { return b.endWords(t, x) }
	lo, hi := math.IsInf(b.Lo, -1), math.IsInf(b.Hi, 1) || b.hiUnsaid(t)
	switch {
	case lo && hi:
		return "a finite number"
	case hi && b.LoOpen:
		return "> " + end(b.Lo)
	case hi:
		return "at least " + end(b.Lo)
	case !b.LoOpen && !b.HiOpen:
		return "between " + end(b.Lo) + " and " + end(b.Hi)
	}
	low := "at least " + end(b.Lo)
	if b.LoOpen {
		low = "> " + end(b.Lo)
	}
	high := "at most " + end(b.Hi)
	if b.HiOpen {
		high = "below " + end(b.Hi)
	}
	return low + " and " + high
}

// keyUnit is what a value of a numeric type counts: seconds, per
// second, or a plain number.
type keyUnit int

const (
	unitNumber keyUnit = iota
	unitTime
	unitRate
)

func unitOf(t reflect.Type) keyUnit {
	switch t {
	case reflect.TypeOf(Duration{}), reflect.TypeOf(DistRef{}), reflect.TypeOf(DistEntry{}):
		return unitTime
	case reflect.TypeOf(Rate{}), reflect.TypeOf(StageTarget{}):
		return unitRate
	}
	return unitNumber
}

// hiUnsaid: the upper end is the cap every value of type t has (100 years
// for a time, MaxRate for a rate, MaxCount for a count).
func (b KeyBound) hiUnsaid(t reflect.Type) bool {
	if b.HiOpen {
		return false
	}
	switch unitOf(t) {
	case unitTime:
		return b.Hi == MaxDuration.Seconds()
	case unitRate:
		return b.Hi == MaxRate
	}
	return b.Hi == MaxCount && b.Lo >= 0
}

// endWords writes one end of a range in the unit of a value of type t.
func (KeyBound) endWords(t reflect.Type, x float64) string {
	switch unitOf(t) {
	case unitTime:
		if x == MaxDuration.Seconds() {
			return sim.MaxDurationText
		}
		return sim.Time(math.Round(x * 1e9)).String()
	case unitRate:
		return strconv.FormatFloat(x, 'g', -1, 64) + "/s"
	}
	return strconv.FormatFloat(x, 'f', -1, 64)
}
