package main

import (
	"bytes"
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"capsim/model"
	"capsim/plots/diagram"
	"capsim/plots/sweepreport"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

//go:embed serve/index.html
var servePage embed.FS

const defaultServeAddr = "127.0.0.1:8080"

type serveOptions struct {
	Scenario    string
	Addr        string
	AllowRemote bool
}

func (o *serveOptions) scenarioArg() *string { return &o.Scenario }

func newServeCmd(io *IOStreams) *cobra.Command {
	cmd, opts := scenarioCommand(io, "serve [SCENARIO]", runServe, &cobra.Command{
		Short: "Serve a local what-if page: change parameters, sweep, read the verdicts",
		Long: `Serve a page for a design review on --addr (default 127.0.0.1:8080; port 0
picks a free one): the scenario's designs to tick, a field for every
parameter capsim sensitivity --list shows (with its value, its range and
whether it is an input, fitted or an assumption), the load multipliers and
the replications. Run sweeps them in this process, planned exactly as
capsim sweep plans them, shows the progress, then per design the first
failure, its interval, the rank, the SLO broken and the component, and the
capsim sweep command line that gives the same answer, beside the diagram
of the design that fails first, its failing component outlined. Nothing
is written to disk. One sweep runs at a time; Cancel, or closing the page,
stops it. The page's address holds its fields: a link that reopens the
what-if, and reruns it once a sweep has answered.

The page runs simulations for whoever reaches it, so an address other than
the loopback (127.0.0.1, ::1, localhost) is refused unless --allow-remote
is given. Nor is the page's API for other sites' pages: a request whose
Host is not a loopback name with the port served, or whose Origin is not
the page's, is refused (403), as is a POST that is not application/json
(415). The page and its API are described in docs/serve.md.

Exit codes: 0 stopped by an interrupt; 1 the address cannot be listened on;
2 bad flags, scenario or address.`,
		Example: `  capsim serve
  capsim serve my-system.yaml --addr 127.0.0.1:0`,
	})
	f := cmd.Flags()
	f.StringVar(&opts.Addr, "addr", defaultServeAddr, "`HOST:PORT` to listen on (port 0: any free port)")
	f.BoolVar(&opts.AllowRemote, "allow-remote", false, "allow an --addr that is not the loopback: anyone who reaches it can run sweeps")
	return cmd
}

// checkServeAddr refuses an address beyond this machine without
// --allow-remote: every request runs simulations.
func checkServeAddr(addr string, allowRemote bool) error {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return usageErr("--addr %s: expected HOST:PORT, such as %s", addr, defaultServeAddr)
	}
	// A service's name (http) is a port too; what neither is could only
	// fail to listen, which is no fault of the machine.
	if _, err := net.LookupPort("tcp", port); err != nil {
		return usageErr("--addr %s: the port must be a number from 0 (any free port) to 65535, got %q", addr, port)
	}
	if allowRemote || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return usageErr("--addr %s is not a loopback address (127.0.0.1, ::1 or localhost): anyone who reaches it could run sweeps on this machine; add --allow-remote to allow that", addr)
}

func runServe(ctx context.Context, io *IOStreams, opts *serveOptions) error {
	if err := checkServeAddr(opts.Addr, opts.AllowRemote); err != nil {
		return err
	}
	h, err := newServeHandler(opts.Scenario)
	if err != nil {
		return err
	}
	h.allowRemote = opts.AllowRemote
	h.addrHost, _, _ = net.SplitHostPort(opts.Addr)
	ln, err := net.Listen("tcp", opts.Addr)
	if err != nil {
		return ioErr("--addr %s: %v", opts.Addr, err)
	}
	// Requests live under the command's context: an interrupt cancels a
	// sweep under way as it does capsim sweep's.
	srv := &http.Server{Handler: h, BaseContext: func(net.Listener) context.Context { return ctx },
		ReadHeaderTimeout: 10 * time.Second}
	fmt.Fprintf(io.Out, "serving %s at http://%s/\n", h.name, ln.Addr())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ln) }()
	select {
	case err := <-served:
		return ioErr("--addr %s: %v", opts.Addr, err)
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(stop); err != nil {
		srv.Close()
	}
	fmt.Fprintln(io.Out, "stopped")
	return nil
}

// serveHandler answers the page and its API for one scenario.
type serveHandler struct {
	arg  string // the scenario argument, as capsim sweep takes it
	name string
	info serveScenario
	// diagram is the scenario as written, drawn: the page's picture until
	// a run gives the failing design's.
	diagram []byte
	// running is held while a sweep runs: one at a time, a second is
	// refused, not queued behind it.
	running sync.Mutex
	mux     *http.ServeMux
	// allowRemote and addrHost widen the names a request may be addressed
	// to beyond the loopback's, as --allow-remote widens --addr.
	allowRemote bool
	addrHost    string
}

// serveScenario is GET /api/scenario's answer.
type serveScenario struct {
	Name         string       `json:"name"`
	Designs      []string     `json:"designs"`
	Multipliers  string       `json:"multipliers"`
	Replications int          `json:"replications"`
	Params       []serveParam `json:"params"`
}

type serveParam struct {
	Name  string `json:"name"`
	Path  string `json:"path"`
	Value string `json:"value"`
	Label string `json:"label"`
	Lo    string `json:"lo"`
	Hi    string `json:"hi"`
}

// serveRun is POST /api/run's request: capsim sweep's flags of the same
// names. A field left out leaves the scenario's default, as an absent flag
// does; one given is the flag given, so an empty or zero one is refused as
// the flag would be (designs nil is absent, [] given and empty).
type serveRun struct {
	Designs      []string `json:"designs"`
	Sets         []string `json:"sets"`
	Multipliers  *string  `json:"multipliers"`
	Replications *int     `json:"replications"`
}

// decodeServeRun reads POST /api/run's body: one JSON object, each key at
// most once and none null, and nothing after it. encoding/json would take
// the last of a key given twice and ignore a second object, and decode
// null into the empty request, which is the default sweep. Its errors are
// the answer's words.
func decodeServeRun(body []byte) (serveRun, error) {
	req, err := decodeServeObject(body)
	if err != nil {
		var k notAnObject
		if errors.As(err, &k) {
			return req, err
		}
		return req, fmt.Errorf("the request: %w", err)
	}
	return req, nil
}

// notAnObject is a body holding nothing, or a JSON value that is no object.
type notAnObject string

func (k notAnObject) Error() string { return "the request is " + string(k) + ": send one JSON object" }

func decodeServeObject(body []byte) (serveRun, error) {
	var req serveRun
	if len(bytes.Trim(body, " \t\r\n")) == 0 {
		return req, notAnObject("empty")
	}
	// What is not well formed is left to Decode, which says where.
	if t, err := json.NewDecoder(bytes.NewReader(body)).Token(); err == nil {
		switch t.(type) {
		case nil:
			return req, notAnObject("null")
		case string:
			return req, notAnObject("a string")
		case float64:
			return req, notAnObject("a number")
		case bool:
			return req, notAnObject("a boolean")
		}
		if t == json.Delim('[') {
			return req, notAnObject("an array")
		}
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&req); err != nil {
		return req, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return req, errors.New("more after the JSON object; send one object")
	}
	// The object decoded, so its tokens are well formed: its top-level
	// keys are every other token between the braces.
	walk := json.NewDecoder(bytes.NewReader(body))
	walk.Token() // {
	var seen []string
	for walk.More() {
		t, err := walk.Token()
		if err != nil {
			return req, err
		}
		key, _ := t.(string)
		// encoding/json matches keys to fields regardless of case.
		if slices.ContainsFunc(seen, func(k string) bool { return strings.EqualFold(k, key) }) {
			return req, fmt.Errorf("%q is given twice", key)
		}
		seen = append(seen, key)
		var value json.RawMessage
		if err := walk.Decode(&value); err != nil {
			return req, err
		}
		if string(value) == "null" {
			return req, fmt.Errorf("%q is null: give a value, or leave %q out for the default", key, key)
		}
	}
	return req, nil
}

// serveLine is one line of POST /api/run's answer: progress, then the
// result, the command line and the diagram capsim sweep's report draws
// beside its verdict (none when no design fails), or an error.
type serveLine struct {
	Progress       string          `json:"progress,omitempty"`
	Result         json.RawMessage `json:"result,omitempty"`
	Command        string          `json:"command,omitempty"`
	Diagram        string          `json:"diagram,omitempty"`
	DiagramCaption string          `json:"diagram_caption,omitempty"`
	Error          string          `json:"error,omitempty"`
}

func newServeHandler(arg string) (*serveHandler, error) {
	doc, err := parseScenario(arg)
	if err != nil {
		return nil, scenarioErr(err)
	}
	l, err := loadDesign(doc, model.LoadOptions{})
	if err != nil {
		return nil, scenarioErr(err)
	}
	sc := l.Scenario
	designs, err := model.ChooseDesigns("all", sc.Designs.Names())
	if err != nil {
		return nil, usageErr("%v", err)
	}
	info := serveScenario{Name: sc.Name, Designs: designs, Multipliers: defaultMultipliers,
		Replications: defaultReplications, Params: []serveParam{}}
	if sc.Sweep.Multipliers != "" {
		info.Multipliers = sc.Sweep.Multipliers
	}
	if sc.Sweep.Replications != nil {
		info.Replications = *sc.Sweep.Replications
	}
	for _, p := range l.Params() {
		info.Params = append(info.Params, serveParam{Name: p.Name, Path: p.Path, Value: p.Value, Label: p.Label, Lo: p.Lo, Hi: p.Hi})
	}
	c, err := l.Compile()
	if err != nil {
		return nil, scenarioErr(err)
	}
	if arg == "" {
		arg = sc.Name
	}
	h := &serveHandler{arg: arg, name: sc.Name, info: info, mux: http.NewServeMux(),
		diagram: diagram.SVG(c.Graph(), diagram.Options{Caption: "the scenario as written; a run draws the design that fails first"})}
	h.mux.HandleFunc("GET /{$}", h.page)
	h.mux.HandleFunc("GET /api/scenario", h.scenario)
	h.mux.HandleFunc("GET /api/diagram", h.scenarioDiagram)
	h.mux.HandleFunc("POST /api/run", h.run)
	return h, nil
}

func (h *serveHandler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if status, msg := h.refusal(r); status != 0 {
		writeServeError(w, status, msg)
		return
	}
	h.mux.ServeHTTP(w, r)
}

// refusal is the status and message a request is refused with, or 0 for
// one that is served. Listening on the loopback keeps other machines out,
// not other sites: any page the user opens can POST a text/plain body
// here without a preflight, and a name of its own resolved to 127.0.0.1
// (DNS rebinding) lets it read the answers too. So the request must be
// addressed to this server by a loopback name or address and its port,
// come from no page but this one, and say it is JSON, which no page of
// another site can send without a preflight this server never grants.
func (h *serveHandler) refusal(r *http.Request) (int, string) {
	port := ""
	if a, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok {
		_, port, _ = net.SplitHostPort(a.String())
	}
	host, hostPort := splitServeHost(r.Host)
	if port == "" || hostPort != port || !h.servesHost(host) {
		return http.StatusForbidden, fmt.Sprintf("Host %q is not this server's address: it answers at http://127.0.0.1:%s/, or [::1] or localhost with that port", r.Host, port)
	}
	if origins := r.Header.Values("Origin"); len(origins) > 0 {
		served := "http://" + net.JoinHostPort(host, port)
		if port == "80" {
			served = "http://" + strings.TrimSuffix(served, ":80")
		}
		if len(origins) > 1 || !strings.EqualFold(origins[0], served) {
			return http.StatusForbidden, fmt.Sprintf("Origin %q is not this page's, %s: a page from elsewhere may not use this server", strings.Join(origins, ", "), served)
		}
	}
	if r.Method == http.MethodPost {
		ct := r.Header.Get("Content-Type")
		if mt, _, err := mime.ParseMediaType(ct); err != nil || mt != "application/json" {
			got := "none"
			if ct != "" {
				got = strconv.Quote(ct)
			}
			return http.StatusUnsupportedMediaType, "POST needs Content-Type: application/json, got " + got
		}
	}
	return 0, ""
}

// splitServeHost splits a Host header; one without a port is HTTP's 80.
func splitServeHost(hostport string) (host, port string) {
	if host, port, err := net.SplitHostPort(hostport); err == nil {
		return host, port
	}
	return strings.TrimSuffix(strings.TrimPrefix(hostport, "["), "]"), "80"
}

// servesHost says whether a request addressed to host is for this server:
// a loopback name or address, and with --allow-remote also an IP address
// or the name --addr gives. A name of any other site is refused: it could
// resolve to this machine only to rebind a page of that site to it.
func (h *serveHandler) servesHost(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	if ip != nil && ip.IsLoopback() {
		return true
	}
	return h.allowRemote && (ip != nil || h.addrHost != "" && strings.EqualFold(host, h.addrHost))
}

func (h *serveHandler) page(w http.ResponseWriter, _ *http.Request) {
	data, err := servePage.ReadFile("serve/index.html")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Write(data)
}

func (h *serveHandler) scenario(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(h.info)
}

func (h *serveHandler) scenarioDiagram(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "image/svg+xml")
	w.Write(h.diagram)
}

// sweepArgs is the capsim sweep command line a request stands for, after
// "capsim sweep": the scenario, then a flag for each field given.
func (h *serveHandler) sweepArgs(req serveRun) []string {
	args := []string{h.arg}
	if req.Designs != nil {
		args = append(args, "--designs", strings.Join(req.Designs, ","))
	}
	for _, s := range req.Sets {
		args = append(args, "--set", s)
	}
	if req.Multipliers != nil {
		args = append(args, "-m", *req.Multipliers)
	}
	if req.Replications != nil {
		args = append(args, "-r", strconv.Itoa(*req.Replications))
	}
	return append(args, "--json", "-")
}

// planServeRun parses args as capsim sweep parses its own and plans the
// sweep as it does: the same flags, defaults and checks.
func planServeRun(args []string) (*sweepPlan, *sweepOptions, error) {
	opts := &sweepOptions{}
	fs := pflag.NewFlagSet("sweep", pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	sweepFlags(fs, opts)
	// Each value joined to its flag's long name, so that one starting with
	// "-" is a value, not a flag, and an empty one stays empty (pflag
	// reads "-m=" as the value "=").
	var joined []string
	for i := 1; i < len(args); i += 2 {
		name := strings.TrimLeft(args[i], "-")
		if len(name) == 1 {
			if f := fs.ShorthandLookup(name); f != nil {
				name = f.Name
			}
		}
		joined = append(joined, "--"+name+"="+args[i+1])
	}
	if err := fs.Parse(joined); err != nil {
		return nil, nil, usageErr("%v", err)
	}
	if empty := emptyFlag(fs); empty != nil {
		return nil, nil, usageErr("--%s needs a value, got an empty one (see capsim sweep --help)", empty.Name)
	}
	opts.Scenario = args[0]
	opts.set = flagsGiven(fs)
	opts.cmdline = append([]string{"capsim", "sweep"}, args...)
	plan, err := planSweep(opts)
	return plan, opts, err
}

func (h *serveHandler) run(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, 1<<20))
	if err != nil {
		writeServeError(w, http.StatusBadRequest, "the request: "+err.Error())
		return
	}
	req, err := decodeServeRun(body)
	if err != nil {
		writeServeError(w, http.StatusBadRequest, err.Error())
		return
	}
	if !h.running.TryLock() {
		writeServeError(w, http.StatusConflict, "a sweep is already running: wait for it to end, or cancel it")
		return
	}
	defer h.running.Unlock()
	args := h.sweepArgs(req)
	plan, opts, err := planServeRun(args)
	if err != nil {
		status := http.StatusInternalServerError
		var ce *codedError
		if errors.As(err, &ce) && ce.code == exitUsage {
			status = http.StatusBadRequest
		}
		writeServeError(w, status, printableLines(err.Error()))
		return
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.WriteHeader(http.StatusOK)
	lines := &serveLines{w: w}
	// Progress comes as capsim sweep writes it to a log, one line at each
	// tenth of a phase, each line sent as it comes.
	sio := &IOStreams{In: strings.NewReader(""), Out: io.Discard, ErrOut: lines, Now: time.Now}
	res, hc, err := sweepAnswer(r.Context(), sio, plan, opts, nil, nil)
	if err != nil {
		lines.send(serveLine{Error: printableLines(err.Error())})
		return
	}
	data, err := sweepJSON(res, hc, "")
	if err != nil {
		lines.send(serveLine{Error: err.Error()})
		return
	}
	svg, caption, _ := sweepreport.Diagram(res, plan.graphs())
	lines.send(serveLine{Result: json.RawMessage(strings.TrimSpace(string(data))), Command: shellLine(opts.cmdline),
		Diagram: string(svg), DiagramCaption: caption})
}

// serveLines turns what a sweep writes on standard error into progress
// lines of the answer, flushed one by one.
type serveLines struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	partial []byte
}

func (s *serveLines) Write(p []byte) (int, error) {
	s.mu.Lock()
	s.partial = append(s.partial, p...)
	var done []string
	for {
		i := strings.IndexByte(string(s.partial), '\n')
		if i < 0 {
			break
		}
		if line := strings.TrimSpace(string(s.partial[:i])); line != "" {
			done = append(done, line)
		}
		s.partial = s.partial[i+1:]
	}
	s.mu.Unlock()
	for _, line := range done {
		s.send(serveLine{Progress: line})
	}
	return len(p), nil
}

func (s *serveLines) send(l serveLine) {
	s.mu.Lock()
	defer s.mu.Unlock()
	enc := json.NewEncoder(s.w)
	enc.SetEscapeHTML(false)
	enc.Encode(l) // a client gone away is the request's context's to notice
	if f, ok := s.w.(http.Flusher); ok {
		f.Flush()
	}
}

func writeServeError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.Encode(serveLine{Error: msg})
}

// shellLine joins a command line for a POSIX shell, quoting the words
// that need it.
func shellLine(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		plain := w != ""
		for _, c := range w {
			if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune("-_./:=,+@%", c)) {
				plain = false
				break
			}
		}
		if plain {
			quoted[i] = w
		} else {
			quoted[i] = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
	}
	return strings.Join(quoted, " ")
}
