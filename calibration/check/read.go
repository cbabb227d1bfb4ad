package check

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"math"
	"os"
	"slices"
	"strings"

	"capsim/calibration"
)

// Inputs say where the recorded run is and what to read from it.
type Inputs struct {
	// Access holds the logs of the requests at the edge: nginx access logs
	// (JSON or combined) or k6 CSV output, whose request_time or
	// http_req_duration are a route's times and whose statuses its failures.
	Access []string
	// Clients are load drivers' own JSON lines of their requests, read
	// with the fields their plan source names: the route field selects a
	// route's requests as a k6 name tag does.
	Clients []Client
	// App holds application JSON-lines logs: stage events with a duration
	// field, and one event per journey named after it with result and
	// failure_stage fields, as the application logs an outcome.
	App []string
	// Routes maps each route to the path pattern (calibration's Filter
	// syntax; for k6 also its name tag) that selects its requests.
	Routes map[string]string
	// Stages lists the application events whose StageField is a stage's
	// time; Journeys the journeys whose outcome events are counted, and
	// FailureStages, per journey, the stages counted apart.
	Stages        []string
	StageField    string // default since_s
	Journeys      []string
	FailureStages map[string][]string
}

// Client is a load driver's log, as a plan source names it.
type Client struct {
	Name, File string
	Fields     calibration.ClientFields
}

// Files lists every log the inputs name, access logs, clients' and
// application logs, in that order.
func (in Inputs) Files() []string {
	files := slices.Clone(in.Access)
	for _, c := range in.Clients {
		files = append(files, c.File)
	}
	return append(files, in.App...)
}

// Stat reports the first log that cannot be read: a caller checks before
// simulating, to answer a mistyped name at once.
func (in Inputs) Stat() error {
	for _, f := range in.Files() {
		st, err := os.Stat(f)
		if err != nil {
			var pe *fs.PathError
			if errors.As(err, &pe) {
				err = pe.Err
			}
			return fmt.Errorf("%s: %v", f, err)
		}
		// Each log is read twice, for doubled lines and then for its
		// records: a device never ends, and a pipe is empty the second
		// time or blocks the open, beyond an interrupt's reach.
		if err := calibration.NotRegular(f, st.Mode()); err != nil {
			return err
		}
	}
	return nil
}

// Read reads the recorded run. A file that cannot be opened, or a line that
// cannot be parsed, is an error naming it (file:line: message).
func Read(in Inputs) (*Run, error) {
	if err := in.Stat(); err != nil {
		return nil, err
	}
	run := NewRun()
	field := in.StageField
	if field == "" {
		field = "since_s"
	}
	clients := make([][]calibration.ClientRequest, len(in.Clients))
	var taken [][]bool // per client log and request, whether some route selects it
	for i, c := range in.Clients {
		var err error
		if clients[i], err = readClient(c); err != nil {
			return nil, err
		}
		run.Source = c.Name
	}
	// A request is one route's: patterns that share requests would count
	// them in both routes' times and hide as many requests of no route.
	// Requests no route selects are another scenario's, and are counted.
	names := slices.Sorted(maps.Keys(in.Routes))
	selected := map[string]int{} // each route's requests in the access logs
	anySelected := 0             // the requests some route selects there
	if len(in.Access) > 0 && len(names) > 0 {
		patterns := make([]string, len(names))
		for i, name := range names {
			patterns[i] = in.Routes[name]
		}
		union, err := calibration.AnyRoute(patterns...)
		if err != nil {
			return nil, err
		}
		s, err := sample(calibration.Options{Filter: calibration.Filter{Route: union}}, in.Access)
		if err != nil {
			return nil, err
		}
		for _, fs := range s.Stats {
			run.Unmatched += fs.Records // before the filter: the whole
		}
		anySelected = records(s)
		run.Unmatched -= anySelected
	}
	shared := false // some client request two routes select
	for _, name := range names {
		pattern := in.Routes[name]
		t := run.Route(name)
		if len(in.Access) > 0 {
			s, err := sample(calibration.Options{Filter: calibration.Filter{Route: pattern}}, in.Access)
			if err != nil {
				return nil, err
			}
			for _, fs := range s.Stats {
				run.Source = "nginx"
				if fs.Format == calibration.FormatK6CSV || fs.Format == calibration.FormatK6JSON {
					run.Source = "k6"
				}
			}
			selected[name] = records(s)
			t.Values = s.Values
			for _, st := range s.Statuses {
				if st > 0 {
					t.Total++
					if st >= 400 {
						t.Failed++
					}
				}
			}
		}
		if len(in.Clients) == 0 {
			continue
		}
		if taken == nil {
			taken = make([][]bool, len(clients))
			for i, reqs := range clients {
				taken[i] = make([]bool, len(reqs))
			}
		}
		match, err := calibration.RouteMatcher(pattern)
		if err != nil {
			return nil, err
		}
		for i, reqs := range clients {
			for j, rq := range reqs {
				if rq.Route != name && !match(rq.Route) {
					continue
				}
				shared = shared || taken[i][j]
				taken[i][j] = true
				t.Values = append(t.Values, rq.Latency)
				t.Total++
				if rq.Failed {
					t.Failed++
				}
			}
		}
	}
	for _, t := range taken {
		for _, selected := range t {
			if !selected {
				run.Unmatched++
			}
		}
	}
	sum := 0
	for _, n := range selected {
		sum += n
	}
	if sum > anySelected || shared {
		why, err := overlapping(in, names, selected, clients)
		if err != nil {
			return nil, err
		}
		return nil, errors.New(why)
	}
	if len(in.App) == 0 {
		return run, nil
	}
	for _, ev := range in.Stages {
		s, err := sample(calibration.Options{Format: calibration.FormatAppLog, FromEvent: ev, Column: field}, in.App)
		if err != nil {
			return nil, err
		}
		run.Stage(ev).Values = s.Values
	}
	count := func(journey string, tags ...calibration.Tag) (int, error) {
		s, err := sample(calibration.Options{Format: calibration.FormatAppLog, FromEvent: journey, Column: "duration_s",
			Filter: calibration.Filter{Tags: tags}}, in.App)
		if err != nil {
			return 0, err
		}
		n := 0
		for _, fs := range s.Stats {
			n += fs.Records - fs.Filtered
		}
		return n, nil
	}
	for _, j := range in.Journeys {
		o := run.Journey(j)
		var err error
		if o.Ended, err = count(j); err != nil {
			return nil, err
		}
		if o.Succeeded, err = count(j, calibration.Tag{Key: "result", Value: "success"}); err != nil {
			return nil, err
		}
		failed, err := count(j, calibration.Tag{Key: "result", Value: "failure"})
		if err != nil {
			return nil, err
		}
		if other := o.Ended - o.Succeeded - failed; other > 0 {
			// Counted as failures, they would move the success rate by a
			// word the log writer chose.
			return nil, fmt.Errorf("%d %s event(s) have a result other than success or failure: every outcome must say one of the two", other, j)
		}
		for _, st := range in.FailureStages[j] {
			n, err := count(j, calibration.Tag{Key: "result", Value: "failure"}, calibration.Tag{Key: "failure_stage", Value: st})
			if err != nil {
				return nil, err
			}
			if n > 0 {
				o.Stages[st] = n
			}
		}
	}
	return run, nil
}

// overlapping names two routes (of names, sorted) whose patterns select
// the same requests, and how many: in the access logs, where each
// route's count is in selected and the pair's is read again, or else in
// the client logs. It is "" when no two do.
func overlapping(in Inputs, names []string, selected map[string]int, clients [][]calibration.ClientRequest) (string, error) {
	for i, a := range names {
		for _, b := range names[i+1:] {
			n, where := 0, ""
			if len(in.Access) > 0 {
				both, err := calibration.AnyRoute(in.Routes[a], in.Routes[b])
				if err != nil {
					return "", err
				}
				s, err := sample(calibration.Options{Filter: calibration.Filter{Route: both}}, in.Access)
				if err != nil {
					return "", err
				}
				n, where = selected[a]+selected[b]-records(s), strings.Join(in.Access, ", ")
			}
			if n == 0 && len(clients) > 0 {
				files := make([]string, len(in.Clients))
				for i, c := range in.Clients {
					files[i] = c.File
				}
				n, where = sharedClientRequests(in, a, b, clients), strings.Join(files, ", ")
			}
			if n > 0 {
				return fmt.Sprintf("routes %s (%s) and %s (%s) both select %d requests of %s; a request is one route's: give --route patterns that no request matches twice",
					a, in.Routes[a], b, in.Routes[b], n, where), nil
			}
		}
	}
	return "", nil
}

// sharedClientRequests counts the client logs' requests routes a and b
// both select.
func sharedClientRequests(in Inputs, a, b string, clients [][]calibration.ClientRequest) int {
	ma, _ := calibration.RouteMatcher(in.Routes[a]) // compiled before
	mb, _ := calibration.RouteMatcher(in.Routes[b])
	n := 0
	for _, reqs := range clients {
		for _, rq := range reqs {
			if (rq.Route == a || ma(rq.Route)) && (rq.Route == b || mb(rq.Route)) {
				n++
			}
		}
	}
	return n
}

// records counts the records a sample selected.
func records(s *calibration.Sample) int {
	n := 0
	for _, fs := range s.Stats {
		n += fs.Records - fs.Filtered
	}
	return n
}

func readClient(c Client) ([]calibration.ClientRequest, error) {
	r, closeFile, err := calibration.OpenFile(c.File)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	return calibration.ReadClientLog(c.File, r, c.Fields)
}

// sample reads files with opts. Unlike calibrate, a line that cannot be
// read is an error: a comparison must not quietly lose records.
func sample(opts calibration.Options, files []string) (*calibration.Sample, error) {
	r, err := calibration.NewReader(opts)
	if err != nil {
		return nil, err
	}
	for _, f := range files {
		if err := r.ReadFile(f); err != nil {
			return nil, err
		}
	}
	s, _ := r.Sample() // no values is a count of 0 here, not an error
	if s.LineErrorCount > 0 {
		e := s.LineErrors[0]
		more := ""
		if s.LineErrorCount > 1 {
			more = fmt.Sprintf(" (and %d more lines)", s.LineErrorCount-1)
		}
		// The readers word a bad line for calibrate, which skips it; a
		// check stops at it instead.
		msg := strings.TrimSuffix(e.Msg, "; skipped")
		return nil, fmt.Errorf("%s:%d: %s%s", e.File, e.Line, msg, more)
	}
	return s, nil
}

// Starts reads when each journey of the recorded run started, from its
// outcome events in the application logs: the event's time less its
// duration_s. Times are Unix seconds, sorted; a journey still open when
// the recording stopped logged no outcome and is missing.
func Starts(app []string, journeys []string) (map[string][]float64, error) {
	starts := map[string][]float64{}
	for _, j := range journeys {
		s, err := sample(calibration.Options{Format: calibration.FormatAppLog, FromEvent: j, Column: "duration_s"}, app)
		if err != nil {
			return nil, err
		}
		for i, v := range s.Values {
			if t := s.Times[i]; !math.IsNaN(t) {
				starts[j] = append(starts[j], t-v)
			}
		}
		slices.Sort(starts[j])
	}
	return starts, nil
}

// Duplicates refuses a line that repeats an earlier one byte for byte, in
// the same file or another, when the line carries a request id: a log
// shipped twice, or a rotated file given beside its copy, would count its
// requests twice, and a check must not quietly pass on doubled records.
// Only such a line is unique to one request. A combined nginx line keeps
// whole seconds and a k6 CSV row no id, so two requests alike in a second
// write the same line, and those lines are counted, not compared (the
// same file given twice is refused by the caller). Blank lines are skipped.
func Duplicates(files []string) error {
	type at struct {
		file string
		line int
	}
	seen := map[[sha256.Size]byte]at{}
	for _, f := range files {
		r, closeFile, err := calibration.OpenFile(f)
		if err != nil {
			return err
		}
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, calibration.MaxLineBytes)
		n := 0
		for sc.Scan() {
			n++
			line := bytes.TrimRight(sc.Bytes(), "\r")
			if !hasRequestID(line) {
				continue
			}
			sum := sha256.Sum256(line)
			if first, ok := seen[sum]; ok {
				closeFile()
				return fmt.Errorf("%s:%d: the same line as %s:%d; a record logged twice would be counted twice (give each once)",
					f, n, first.file, first.line)
			}
			seen[sum] = at{f, n}
		}
		err = sc.Err()
		closeFile()
		if err != nil && !errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%s: %v", f, err)
		}
		// A line too long to compare is reported by the reader itself.
	}
	return nil
}

// requestIDKeys are the fields a JSON log names its request id with.
var requestIDKeys = []string{"request_id", "requestId", "req_id", "trace_id", "traceId"}

// hasRequestID reports whether a log line carries an id of its request:
// a JSON object with one of requestIDKeys (not empty), or a text line
// ending in nginx's $request_id, 32 hex digits.
func hasRequestID(line []byte) bool {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return false
	}
	if line[0] != '{' {
		fields := bytes.Fields(line)
		last := fields[len(fields)-1]
		return len(last) == 32 && len(bytes.Trim(last, "0123456789abcdef")) == 0
	}
	var obj map[string]json.RawMessage
	if json.Unmarshal(line, &obj) != nil {
		return false // reported where the line is read
	}
	for _, k := range requestIDKeys {
		if v, ok := obj[k]; ok && string(v) != `""` && string(v) != "null" {
			return true
		}
	}
	return false
}

// AppEvents counts the events of application logs: Stages those holding
// the stage field, Outcomes those with a result field (a journey's
// outcome, named after it).
type AppEvents struct {
	Stages, Outcomes map[string]int
}

// ScanApp reads application logs for the events they hold, and refuses
// logs a comparison could not use: a file without a record, a line that
// names no event (it could be no stage and no outcome, and would be
// dropped without a word), and logs in which events other than outcomes
// exist but no line holds field (a mistyped --stage-field would leave
// every stage without a recorded time). Lines that are not JSON are left
// to the reader, which names what is wrong with them.
func ScanApp(files []string, field string) (*AppEvents, error) {
	ev := &AppEvents{Stages: map[string]int{}, Outcomes: map[string]int{}}
	others := 0
	for _, f := range files {
		r, closeFile, err := calibration.OpenFile(f)
		if err != nil {
			return nil, err
		}
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, calibration.MaxLineBytes)
		n, records := 0, 0
		for sc.Scan() {
			n++
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			records++
			var obj map[string]any
			if json.Unmarshal(line, &obj) != nil {
				continue
			}
			name := calibration.AppEventName(obj)
			if name == "" {
				closeFile()
				return nil, fmt.Errorf("%s:%d: no field event (nor msg or message): every line of an application log names its event", f, n)
			}
			_, hasField := obj[field]
			_, hasResult := obj["result"]
			switch {
			case hasField:
				ev.Stages[name]++
			case hasResult:
				ev.Outcomes[name]++
			default:
				others++
			}
		}
		err = sc.Err()
		closeFile()
		if err != nil && !errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s: %v", f, err)
		}
		if err == nil && records == 0 {
			return nil, fmt.Errorf("%s: is empty", f)
		}
	}
	if len(ev.Stages) == 0 && others > 0 {
		return nil, fmt.Errorf("%s: no line has the field %s (--stage-field)", strings.Join(files, ", "), field)
	}
	return ev, nil
}

// AccessLog refuses a file given as an access log that is none: check
// times requests from nginx's access log or k6's output, and the reader's
// own advice (its --format, --column and --from-event) is calibrate's. It
// reads only the file's head, so a caller runs it before simulating.
func AccessLog(path string) error {
	in, closeFn, err := calibration.OpenFile(path)
	if err != nil {
		return err
	}
	defer closeFn()
	f, err := calibration.Detect(bufio.NewReaderSize(in, 64<<10)) // as the reader peeks
	switch {
	case errors.Is(err, calibration.ErrNotRecognised):
		return fmt.Errorf("%s: not an access log: --access takes nginx's access log (combined or JSON) or k6's output (CSV or JSON)", path)
	case err != nil:
		return fmt.Errorf("%s: %w", path, err)
	}
	what := "a plain CSV"
	switch f {
	case calibration.FormatNginxCombined, calibration.FormatNginxJSON, calibration.FormatK6CSV, calibration.FormatK6JSON:
		return nil
	case calibration.FormatAppLog:
		return fmt.Errorf("%s is an application log: give it with --app; --access takes nginx's access log or k6's output", path)
	case calibration.FormatK6Summary:
		what = "a k6 end-of-test summary"
	}
	return fmt.Errorf("%s is %s, not an access log: --access takes nginx's access log (combined or JSON) or k6's output (CSV or JSON)", path, what)
}
