package calibration

import (
	"math"
	"slices"
	"strconv"
)

// Keys tried, in order, for the parts of an application-log event. They
// cover the common JSON encoders: logstash-logback-encoder (@timestamp,
// message), zap (ts, msg), slog and logrus (time, msg), bunyan (time, msg),
// and loggers that name the event explicitly (event).
var (
	appEventKeys  = []string{"event", "msg", "message"}
	appTimeKeys   = []string{"@timestamp", "timestamp", "time", "ts"}
	appPathKeys   = []string{"path", "route", "uri", "url", "request_uri"}
	appStatusKeys = []string{"status", "status_code", "http_status"}
)

// AppEventName is the event a decoded application-log line names, by the
// keys the reader tries (event, msg, message), or "" when it names none.
func AppEventName(obj map[string]any) string {
	for _, k := range appEventKeys {
		if s, ok := obj[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// joiner pairs a start event with an end event carrying the same join key,
// in whatever order they appear, across all the files of a Reader. Memory
// holds one entry per request still waiting for its partner.
type joiner struct {
	pending  map[string]*joinEntry
	keys     []string // the fields the filter needs, copied into entries
	noKey    int      // events of interest without the join key
	repeated int      // second start (or end) for a key already holding one
}

type joinEntry struct {
	start, end     float64 // Unix seconds, NaN until seen
	endFile        string
	endLine        int
	fields         map[string]string
	haveStartEvent bool
	haveEndEvent   bool
}

func (r *Reader) readAppLog(name string, lr *lineReader, fs *FileStats) error {
	o := r.opts
	if o.ToEvent != "" && r.join == nil {
		r.join = &joiner{pending: map[string]*joinEntry{}, keys: r.filterKeys()}
	}
	unit, unitKnown := r.opts.Unit, r.opts.Unit != 0
	if !unitKnown && o.Column != "" {
		unit, unitKnown = unitFromName(o.Column)
	}
	for {
		line, num, ok, err := r.nextLine(name, lr, fs)
		if !ok {
			return err
		}
		obj, err := decodeObject(line)
		if err != nil {
			r.malformed(name, fs, num, "%s", jsonErrText(err))
			continue
		}
		get := func(key string) (string, bool) { return lookupString(obj, key) }
		event, _ := firstOf(get, appEventKeys)
		isStart, isEnd := event == o.FromEvent, o.ToEvent != "" && event == o.ToEvent
		if o.ToEvent == "" {
			isStart = o.FromEvent == "" || event == o.FromEvent
		}
		if !isStart && !isEnd {
			fs.Other++
			continue
		}
		ts, hasTime := firstOf(get, appTimeKeys)
		t := math.NaN()
		if hasTime {
			if t, err = parseTimestamp(ts); err != nil {
				r.malformed(name, fs, num, "%v", err)
				continue
			}
		}
		if o.ToEvent == "" {
			r.appFieldValue(name, fs, num, get, t, unit, unitKnown)
			continue
		}
		if !hasTime {
			r.malformed(name, fs, num, "event %s has no timestamp (looked for %v)", event, appTimeKeys)
			continue
		}
		key, ok := get(o.JoinKey)
		if !ok || key == "" {
			r.join.noKey++
			continue
		}
		r.joinEvent(name, fs, num, key, isStart, t, get)
	}
}

// appFieldValue reads the duration held in one event's field.
func (r *Reader) appFieldValue(name string, fs *FileStats, num int, get func(string) (string, bool), t float64, unit Unit, unitKnown bool) {
	col := r.opts.Column
	s, ok := get(col)
	rec := appRecord(get, t)
	if ok && s != "" {
		u := unit
		if !unitKnown {
			u = 1
			if _, err := strconv.ParseFloat(s, 64); err == nil {
				r.note("field %s has no unit in its name; its numbers were read as seconds (pass a unit to override)", col)
			}
		}
		v, err := parseDurationValue(s, u)
		if err != nil {
			r.malformed(name, fs, num, "%s: %v", col, err)
			return
		}
		rec.value, rec.hasValue = v, true
	}
	r.add(name, fs, num, &rec)
}

func appRecord(get func(string) (string, bool), t float64) record {
	rec := record{time: t, tag: get}
	if p, ok := firstOf(get, appPathKeys); ok {
		rec.path = urlPath(p)
	}
	if s, ok := firstOf(get, appStatusKeys); ok {
		rec.status, _ = strconv.Atoi(s)
	}
	return rec
}

func (r *Reader) joinEvent(name string, fs *FileStats, num int, key string, isStart bool, t float64, get func(string) (string, bool)) {
	j := r.join
	e := j.pending[key]
	if e == nil {
		e = &joinEntry{start: math.NaN(), end: math.NaN(), fields: map[string]string{}}
		j.pending[key] = e
	}
	if isStart {
		if e.haveStartEvent {
			j.repeated++
			return
		}
		e.start, e.haveStartEvent = t, true
	} else {
		if e.haveEndEvent {
			j.repeated++
			return
		}
		e.end, e.haveEndEvent = t, true
		e.endFile, e.endLine = name, num
	}
	for _, k := range j.keys {
		if v, ok := get(k); ok {
			e.fields[k] = v
		}
	}
	if !e.haveStartEvent || !e.haveEndEvent {
		return
	}
	delete(j.pending, key)
	rec := record{value: e.end - e.start, hasValue: true, time: e.end}
	fields := e.fields
	lookup := func(k string) (string, bool) { v, ok := fields[k]; return v, ok }
	if p, ok := firstOf(lookup, appPathKeys); ok {
		rec.path = urlPath(p)
	}
	if s, ok := firstOf(lookup, appStatusKeys); ok {
		rec.status, _ = strconv.Atoi(s)
	}
	rec.tag = lookup
	// The pair is counted against the file holding its later event.
	target := fs
	if e.endFile != name {
		for i := range r.s.Stats {
			if r.s.Stats[i].File == e.endFile {
				target = &r.s.Stats[i]
			}
		}
	}
	r.add(e.endFile, target, e.endLine, &rec)
}

// filterKeys lists the event fields the filter may ask about, which a join
// must carry from an event to the pair it completes.
func (r *Reader) filterKeys() []string {
	keys := slices.Concat(appPathKeys, appStatusKeys)
	for _, t := range r.opts.Filter.Tags {
		keys = append(keys, t.Key)
	}
	return keys
}

// finish turns what the join left over into notes: requests whose start or
// end was never seen are not silently lost.
func (j *joiner) finish(r *Reader) {
	o := r.opts
	var startOnly, endOnly int
	for _, e := range j.pending {
		switch {
		case e.haveStartEvent && !e.haveEndEvent:
			startOnly++
		case e.haveEndEvent && !e.haveStartEvent:
			endOnly++
		}
	}
	if startOnly > 0 {
		r.note("%d %s values had %s but no %s", startOnly, o.JoinKey, o.FromEvent, o.ToEvent)
	}
	if endOnly > 0 {
		r.note("%d %s values had %s but no %s", endOnly, o.JoinKey, o.ToEvent, o.FromEvent)
	}
	if j.noKey > 0 {
		r.note("%d %s or %s events had no %s and could not be joined", j.noKey, o.FromEvent, o.ToEvent, o.JoinKey)
	}
	if j.repeated > 0 {
		r.note("%d events repeated a %s or %s already seen for their %s; the first was kept", j.repeated, o.FromEvent, o.ToEvent, o.JoinKey)
	}
	j.pending = map[string]*joinEntry{}
	j.noKey, j.repeated = 0, 0
}

func firstOf(get func(string) (string, bool), keys []string) (string, bool) {
	for _, k := range keys {
		if v, ok := get(k); ok && v != "" {
			return v, true
		}
	}
	return "", false
}
