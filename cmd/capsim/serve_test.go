package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func newTestServer(t *testing.T) (*serveHandler, *httptest.Server) {
	t.Helper()
	h, err := newServeHandler("trip")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return h, srv
}

func postRun(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url+"/api/run", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	return answer(t, resp)
}

// answer is a response's status and body, read whole.
func answer(t *testing.T, resp *http.Response) (int, string) {
	t.Helper()
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(data)
}

// The page and the scenario's description: trip's designs, and one of the
// parameters capsim sensitivity --list shows, with its value and label.
func TestServeScenario(t *testing.T) {
	_, srv := newTestServer(t)
	resp, err := http.Get(srv.URL + "/api/scenario")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got serveScenario
	if err := json.NewDecoder(resp.Body).Decode(&got); err != nil {
		t.Fatal(err)
	}
	if got.Name != "trip" || got.Multipliers != "1:5:1" || got.Replications != 5 {
		t.Errorf("name, multipliers, replications = %q, %q, %d; want trip, 1:5:1 (trip's sweep:), 5", got.Name, got.Multipliers, got.Replications)
	}
	if len(got.Designs) < 2 || got.Designs[0] != "v1-original" || got.Designs[1] != "v1-improved" {
		t.Errorf("designs = %v, want v1-original, v1-improved first", got.Designs)
	}
	want := serveParam{Name: "worker_cold_start", Path: "distributions.worker_cold_start", Value: "uniform(36s, 40s)", Label: "fitted"}
	if !slices.Contains(got.Params, want) {
		t.Errorf("params do not hold %+v: %+v", want, got.Params)
	}

	// The picture before a run: capsim scenarios show trip --graph's,
	// with a caption saying what a run draws instead.
	pic, err := http.Get(srv.URL + "/api/diagram")
	if err != nil {
		t.Fatal(err)
	}
	defer pic.Body.Close()
	svg, _ := io.ReadAll(pic.Body)
	graphFile := t.TempDir() + "/trip.svg"
	if code, _, stderr := run(t, "scenarios", "show", "trip", "--graph", graphFile); code != 0 {
		t.Fatalf("scenarios show trip --graph: exit %d %s", code, stderr)
	}
	graph, _ := os.ReadFile(graphFile)
	const captionLine = `<text x="20" y="42" fill="#444">the scenario as written; a run draws the design that fails first</text>` + "\n"
	if ct := pic.Header.Get("Content-Type"); ct != "image/svg+xml" || string(bytes.Replace(svg, []byte(captionLine), nil, 1)) != string(graph) {
		t.Errorf("GET /api/diagram = %s, want scenarios show trip --graph's SVG with the line %q:\n%.300s", ct, captionLine, svg)
	}

	page, err := http.Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	defer page.Body.Close()
	html, _ := io.ReadAll(page.Body)
	if page.StatusCode != 200 || !bytes.Contains(html, []byte(`fetch("/api/run"`)) || bytes.Contains(html, []byte("https://")) {
		t.Errorf("GET / = %d, a page that posts to /api/run and loads nothing from elsewhere expected:\n%.300s", page.StatusCode, html)
	}
}

// A run from the page answers what capsim sweep --json - answers, byte for
// byte, and gives the command line that does it.
func TestServeRunMatchesSweep(t *testing.T) {
	_, srv := newTestServer(t)
	code, body := postRun(t, srv.URL, `{"designs": ["v1-original", "v1-improved"], "multipliers": "1,2,3", "replications": 2}`)
	if code != http.StatusOK {
		t.Fatalf("POST /api/run = %d: %s", code, body)
	}
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	for _, l := range lines[:len(lines)-1] {
		var p serveLine
		if err := json.Unmarshal([]byte(l), &p); err != nil || p.Progress == "" {
			t.Errorf("line %q is not a progress line", l)
		}
	}
	var last serveLine
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &last); err != nil {
		t.Fatal(err)
	}
	const command = "capsim sweep trip --designs v1-original,v1-improved -m 1,2,3 -r 2 --json -"
	if last.Command != command {
		t.Errorf("command = %q, want %q", last.Command, command)
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, last.Result, "", "  "); err != nil {
		t.Fatal(err)
	}
	indented.WriteByte('\n')

	out := t.TempDir() + "/out"
	args := append(strings.Fields(command)[1:], "--out", out, "--quiet")
	cliCode, stdout, stderr := run(t, args...)
	if cliCode != 0 {
		t.Fatalf("capsim %s: exit %d: %s", strings.Join(args, " "), cliCode, stderr)
	}
	if indented.String() != stdout {
		t.Errorf("the page's answer differs from capsim sweep --json -:\npage:\n%s\nsweep:\n%s", indented.String(), stdout)
	}
	// The picture beside the verdict is the report's, the failing
	// component outlined.
	svg, err := os.ReadFile(out + "/diagram.svg")
	if err != nil {
		t.Fatal(err)
	}
	if last.Diagram != string(svg) || !strings.Contains(last.Diagram, `stroke="#d62728"`) {
		t.Errorf("the page's diagram is not the report's diagram.svg with a component outlined:\npage %.200s\nreport %.200s", last.Diagram, svg)
	}
	const caption = "design v1-original, first failure at "
	if !strings.HasPrefix(last.DiagramCaption, caption) || !strings.Contains(last.DiagramCaption, "outlined in red: ") {
		t.Errorf("diagram caption = %q, want it to begin %q and name the outlined component", last.DiagramCaption, caption)
	}
	var e struct {
		Designs []struct {
			Design       string   `json:"design"`
			FirstFailure *float64 `json:"first_failure"`
		} `json:"designs"`
	}
	if err := json.Unmarshal(last.Result, &e); err != nil || len(e.Designs) != 2 || e.Designs[0].FirstFailure == nil {
		t.Errorf("the answer holds no first failure of v1-original: %v %s", err, last.Result)
	}
}

// A bad --set is refused before anything runs, with the CLI's words.
func TestServeBadSet(t *testing.T) {
	_, srv := newTestServer(t)
	for _, set := range []string{"noequals", "components.nope.servers=3"} {
		code, body := postRun(t, srv.URL, `{"sets": ["`+set+`"]}`)
		_, _, stderr := run(t, "sweep", "trip", "--set", set)
		want, _ := json.Marshal(serveLine{Error: strings.TrimSuffix(strings.TrimPrefix(stderr, "capsim: "), "\n")})
		if code != http.StatusBadRequest || body != string(want)+"\n" {
			t.Errorf("--set %s: %d %s; want 400 %s", set, code, body, want)
		}
	}
}

// A field given is the flag given: an explicit zero or empty one is
// refused with the CLI's words, not taken for the default.
func TestServeGivenEmptyIsRefused(t *testing.T) {
	_, srv := newTestServer(t)
	for _, c := range []struct {
		body string
		flag []string
	}{
		{`{"replications": 0}`, []string{"-r", "0"}},
		{`{"replications": -1}`, []string{"-r", "-1"}},
		{`{"multipliers": ""}`, []string{"-m", ""}},
		{`{"multipliers": " "}`, []string{"-m", " "}},
		{`{"designs": []}`, []string{"--designs", ""}},
		{`{"sets": [""]}`, []string{"--set", ""}},
	} {
		code, body := postRun(t, srv.URL, c.body)
		_, _, stderr := run(t, append([]string{"sweep", "trip"}, c.flag...)...)
		want, _ := json.Marshal(serveLine{Error: strings.TrimSuffix(strings.TrimPrefix(stderr, "capsim: "), "\n")})
		if code != http.StatusBadRequest || body != string(want)+"\n" || !strings.HasPrefix(stderr, "capsim: --") {
			t.Errorf("%s: %d %s; want 400 %s", c.body, code, body, want)
		}
	}
}

// The request is one JSON object, each key once: a key given twice or a
// second object is refused, not decided by which comes last.
func TestServeRequestIsOneObject(t *testing.T) {
	_, srv := newTestServer(t)
	for _, c := range [][2]string{
		{`{"replications":1}{"replications":2}`, "the request: more after the JSON object; send one object"},
		{`{"replications":2} x`, "the request: more after the JSON object; send one object"},
		{`{"replications":2}]`, "the request: more after the JSON object; send one object"},
		{`{"replications":1,"replications":2}`, `the request: "replications" is given twice`},
		{`{"replications":1,"Replications":2}`, `the request: "Replications" is given twice`},
		{`{"sets":[],"multipliers":"1","sets":["a=1"]}`, `the request: "sets" is given twice`},
		{`{"replications":null}`, `the request: "replications" is null: give a value, or leave "replications" out for the default`},
	} {
		code, body := postRun(t, srv.URL, c[0])
		want, _ := json.Marshal(serveLine{Error: c[1]})
		if code != http.StatusBadRequest || body != string(want)+"\n" {
			t.Errorf("%s: %d %s; want 400 %s", c[0], code, body, want)
		}
	}
}

// A body that is not one object runs nothing: null, the empty body or a
// value of another kind would otherwise sweep the scenario's defaults or
// answer in encoding/json's words.
func TestServeRequestNotAnObject(t *testing.T) {
	_, srv := newTestServer(t)
	for _, c := range [][2]string{
		{``, "the request is empty: send one JSON object"},
		{" \n\t", "the request is empty: send one JSON object"},
		{`null`, "the request is null: send one JSON object"},
		{` null `, "the request is null: send one JSON object"},
		{`[]`, "the request is an array: send one JSON object"},
		{`[{"replications":2}]`, "the request is an array: send one JSON object"},
		{`"x"`, "the request is a string: send one JSON object"},
		{`2`, "the request is a number: send one JSON object"},
		{`true`, "the request is a boolean: send one JSON object"},
	} {
		code, body := postRun(t, srv.URL, c[0])
		want, _ := json.Marshal(serveLine{Error: c[1]})
		if code != http.StatusBadRequest || body != string(want)+"\n" {
			t.Errorf("%q: %d %.200s; want 400 %s", c[0], code, body, want)
		}
	}
}

// blockingWriter holds a run inside its handler: its first write is
// signalled, and it returns only once released.
type blockingWriter struct {
	*httptest.ResponseRecorder
	wrote, release chan struct{}
	once           bool
}

func (b *blockingWriter) Write(p []byte) (int, error) {
	if !b.once {
		b.once = true
		close(b.wrote)
		<-b.release
	}
	return b.ResponseRecorder.Write(p)
}

// While a sweep runs, a second is refused with 409; the first, its client
// gone, stops, and the next run is taken.
func TestServeOneRunAtATime(t *testing.T) {
	h, srv := newTestServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	first := &blockingWriter{ResponseRecorder: httptest.NewRecorder(), wrote: make(chan struct{}), release: make(chan struct{})}
	done := make(chan struct{})
	go func() {
		defer close(done)
		req := httptest.NewRequest("POST", "/api/run", strings.NewReader(`{"designs": ["v1-original"], "multipliers": "1:4:1"}`))
		req.Header.Set("Content-Type", "application/json")
		h.ServeHTTP(first, toServer(req.WithContext(ctx), srv))
	}()
	<-first.wrote
	code, body := postRun(t, srv.URL, `{}`)
	if want := `{"error":"a sweep is already running: wait for it to end, or cancel it"}` + "\n"; code != http.StatusConflict || body != want {
		t.Errorf("second run = %d %s; want 409 %s", code, body, want)
	}
	cancel()
	close(first.release)
	<-done
	if last := lastLine(first.Body.String()); last != `{"error":"sweep interrupted; no output written"}` {
		t.Errorf("the cancelled run ended with %s", last)
	}
	if code, body := postRun(t, srv.URL, `{"sets": ["noequals"]}`); code != http.StatusBadRequest {
		t.Errorf("after the cancelled run: %d %s; want the run taken (400 for its bad set)", code, body)
	}
}

// toServer addresses a request made for a handler to srv, and has it come
// in on srv's listener, as one sent to srv would.
func toServer(r *http.Request, srv *httptest.Server) *http.Request {
	r.Host = srv.Listener.Addr().String()
	return r.WithContext(context.WithValue(r.Context(), http.LocalAddrContextKey, srv.Listener.Addr()))
}

// send makes a request to srv with the given Host (srv's own if empty)
// and headers, and returns its status and body.
func send(t *testing.T, srv *httptest.Server, method, path, host string, header map[string]string, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return answer(t, resp)
}

// badSetNoEquals is the answer to {"sets":["noequals"]}: a run taken,
// and refused before it sweeps anything.
const badSetNoEquals = "--set noequals: expected path=value, e.g. components.api.servers=8"

func errorBody(msg string) string {
	data, _ := json.Marshal(serveLine{Error: msg})
	return string(data) + "\n"
}

// A request addressed to a name other than the loopback's, or to another
// port, is refused before anything is read or run: a page of another site
// whose name was made to resolve to 127.0.0.1 would send it so.
func TestServeRefusesOtherHosts(t *testing.T) {
	_, srv := newTestServer(t)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	p := strconv.Itoa(port)
	json := map[string]string{"Content-Type": "application/json"}
	for _, host := range []string{"evil.example:" + p, "evil.example", "127.0.0.1", "127.0.0.1:" + strconv.Itoa(port+1),
		"localhost.evil.example:" + p, "127.0.0.1.nip.io:" + p, "0.0.0.0:" + p, "[::]:" + p, "127.0.0.1:"} {
		want := errorBody(`Host "` + host + `" is not this server's address: it answers at http://127.0.0.1:` + p + `/, or [::1] or localhost with that port`)
		for _, r := range [][2]string{{"GET", "/"}, {"GET", "/api/scenario"}, {"GET", "/api/diagram"}, {"POST", "/api/run"}} {
			if code, body := send(t, srv, r[0], r[1], host, json, `{"replications":2,"multipliers":"1"}`); code != http.StatusForbidden || body != want {
				t.Errorf("%s %s, Host %s: %d %.200s; want 403 %s", r[0], r[1], host, code, body, want)
			}
		}
	}
	for _, host := range []string{"127.0.0.1:" + p, "localhost:" + p, "LocalHost:" + p, "[::1]:" + p, "127.0.0.2:" + p} {
		if code, body := send(t, srv, "GET", "/api/scenario", host, nil, ""); code != http.StatusOK {
			t.Errorf("GET /api/scenario, Host %s: %d %s; want 200", host, code, body)
		}
	}
}

// With --allow-remote the server is reached by this machine's addresses
// and the name --addr gives, but still not by any other name.
func TestServeAllowRemoteHosts(t *testing.T) {
	h, srv := newTestServer(t)
	h.allowRemote, h.addrHost = true, "capsim.lan"
	p := strconv.Itoa(srv.Listener.Addr().(*net.TCPAddr).Port)
	for _, host := range []string{"192.168.1.5:" + p, "[fe80::1]:" + p, "capsim.lan:" + p, "localhost:" + p} {
		if code, body := send(t, srv, "GET", "/api/scenario", host, nil, ""); code != http.StatusOK {
			t.Errorf("--allow-remote, Host %s: %d %s; want 200", host, code, body)
		}
	}
	host := "evil.example:" + p
	want := errorBody(`Host "` + host + `" is not this server's address: it answers at http://127.0.0.1:` + p + `/, or [::1] or localhost with that port`)
	if code, body := send(t, srv, "GET", "/api/scenario", host, nil, ""); code != http.StatusForbidden || body != want {
		t.Errorf("--allow-remote, Host %s: %d %s; want 403 %s", host, code, body, want)
	}
}

// A request from a page of another origin is refused, GET or POST: only
// the page this server serves may use it.
func TestServeRefusesOtherOrigins(t *testing.T) {
	_, srv := newTestServer(t)
	port := srv.Listener.Addr().(*net.TCPAddr).Port
	p := strconv.Itoa(port)
	served := "http://127.0.0.1:" + p
	for _, origin := range []string{"http://evil.example", "null", "", "http://127.0.0.1:" + strconv.Itoa(port+1),
		"https://127.0.0.1:" + p, "http://localhost:" + p, "http://127.0.0.1", served + "/", served + ".evil.example"} {
		want := errorBody(`Origin "` + origin + `" is not this page's, ` + served + `: a page from elsewhere may not use this server`)
		for _, r := range [][2]string{{"GET", "/api/scenario"}, {"POST", "/api/run"}} {
			header := map[string]string{"Origin": origin, "Content-Type": "application/json"}
			if code, body := send(t, srv, r[0], r[1], "", header, `{"replications":2,"multipliers":"1"}`); code != http.StatusForbidden || body != want {
				t.Errorf("%s %s, Origin %q: %d %.200s; want 403 %s", r[0], r[1], origin, code, body, want)
			}
		}
	}
	// The page's own origin, under each name it may be opened by: the
	// run is taken (and refused for its bad set, so nothing is swept).
	want := errorBody(badSetNoEquals)
	for _, c := range [][2]string{{"", served}, {"", "HTTP://127.0.0.1:" + p}, {"localhost:" + p, "http://localhost:" + p}, {"[::1]:" + p, "http://[::1]:" + p}} {
		header := map[string]string{"Origin": c[1], "Content-Type": "application/json"}
		if code, body := send(t, srv, "POST", "/api/run", c[0], header, `{"sets":["noequals"]}`); code != http.StatusBadRequest || body != want {
			t.Errorf("Host %q, Origin %s: %d %s; want 400 %s", c[0], c[1], code, body, want)
		}
	}
}

// A POST must say it is JSON: a form or text/plain body is what a page of
// another site can send without asking first.
func TestServeRunNeedsJSON(t *testing.T) {
	_, srv := newTestServer(t)
	for ct, got := range map[string]string{"text/plain": `"text/plain"`, "text/plain;charset=UTF-8": `"text/plain;charset=UTF-8"`,
		"application/x-www-form-urlencoded": `"application/x-www-form-urlencoded"`, "multipart/form-data; boundary=x": `"multipart/form-data; boundary=x"`,
		"application/jsonx": `"application/jsonx"`, "": "none"} {
		header := map[string]string{}
		if ct != "" {
			header["Content-Type"] = ct
		}
		want := errorBody("POST needs Content-Type: application/json, got " + got)
		if code, body := send(t, srv, "POST", "/api/run", "", header, `{"replications":2,"multipliers":"1"}`); code != http.StatusUnsupportedMediaType || body != want {
			t.Errorf("Content-Type %q: %d %.200s; want 415 %s", ct, code, body, want)
		}
	}
	want := errorBody(badSetNoEquals)
	for _, ct := range []string{"application/json", "application/json; charset=utf-8", "Application/JSON"} {
		header := map[string]string{"Content-Type": ct}
		if code, body := send(t, srv, "POST", "/api/run", "", header, `{"sets":["noequals"]}`); code != http.StatusBadRequest || body != want {
			t.Errorf("Content-Type %q: %d %s; want 400 %s", ct, code, body, want)
		}
	}
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestServeRefusesRemoteAddr(t *testing.T) {
	for _, addr := range []string{"0.0.0.0:8080", ":8080", "192.168.1.5:0"} {
		code, _, stderr := run(t, "serve", "--addr", addr)
		want := "capsim: --addr " + addr + " is not a loopback address (127.0.0.1, ::1 or localhost): anyone who reaches it could run sweeps on this machine; add --allow-remote to allow that\n"
		if code != exitUsage || stderr != want {
			t.Errorf("--addr %s: exit %d %q; want 2 %q", addr, code, stderr, want)
		}
	}
	for _, addr := range []string{"127.0.0.1:0", "[::1]:8080", "localhost:80"} {
		if err := checkServeAddr(addr, false); err != nil {
			t.Errorf("--addr %s refused: %v", addr, err)
		}
	}
	if err := checkServeAddr("0.0.0.0:0", true); err != nil {
		t.Errorf("--allow-remote 0.0.0.0:0 refused: %v", err)
	}
	code, _, stderr := run(t, "serve", "--addr", "8080")
	if want := "capsim: --addr 8080: expected HOST:PORT, such as 127.0.0.1:8080\n"; code != exitUsage || stderr != want {
		t.Errorf("--addr 8080: exit %d %q; want 2 %q", code, stderr, want)
	}
	// A port no socket can have is the command line's mistake, as a
	// missing one is: once exit 1, from the listen that failed.
	for addr, port := range map[string]string{"127.0.0.1:99999": "99999", "localhost:-1": "-1", "[::1]:no-such-service": "no-such-service"} {
		code, _, stderr := run(t, "serve", "--addr", addr)
		want := "capsim: --addr " + addr + ": the port must be a number from 0 (any free port) to 65535, got \"" + port + "\"\n"
		if code != exitUsage || stderr != want {
			t.Errorf("--addr %s: exit %d %q; want 2 %q", addr, code, stderr, want)
		}
	}
}

// capsim serve on port 0 says where it listens, serves the page there and
// stops, exit 0, when interrupted.
func TestServeListensAndStops(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	outR, outW := io.Pipe()
	var errOut bytes.Buffer
	exit := make(chan int, 1)
	go func() {
		exit <- MainContext(ctx, []string{"serve", "--addr", "127.0.0.1:0"}, &IOStreams{In: strings.NewReader(""), Out: outW, ErrOut: &errOut})
		outW.Close()
	}()
	out := bufio.NewReader(outR)
	line, err := out.ReadString('\n')
	if err != nil {
		t.Fatalf("%v (stderr %s)", err, errOut.String())
	}
	url := regexp.MustCompile(`^serving trip at (http://127\.0\.0\.1:[1-9][0-9]*/)\n$`).FindStringSubmatch(line)
	if url == nil {
		t.Fatalf("first line %q, want serving trip at http://127.0.0.1:PORT/", line)
	}
	resp, err := http.Get(url[1])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html; charset=utf-8" {
		t.Errorf("GET / = %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	cancel()
	rest, _ := io.ReadAll(out)
	if code := <-exit; code != exitOK || string(rest) != "stopped\n" {
		t.Errorf("interrupted: exit %d, then %q; want 0, stopped", code, rest)
	}
}
