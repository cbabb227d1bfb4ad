package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The what-if page in a real browser: capsim serve in a child process,
// headless Chromium driven over its DevTools protocol as a person would
// drive the page: open a link that holds the designs, multipliers and
// replications, type a parameter, Tab to Run and press Enter, wait for
// the verdict. The numbers on the page must be capsim sweep --json's for
// the same flags, the address must hold the state, the diagram the
// report's caption, and a 1280x720 screenshot must show the failing
// component outlined in red. It is saved where CAPSIM_BROWSER_SCREENSHOT
// says, for a person to look at. .ci/run installs Chromium and sets
// CAPSIM_BROWSER_TESTS=1.
func TestServeInBrowser(t *testing.T) {
	if os.Getenv("CAPSIM_BROWSER_TESTS") != "1" {
		t.Skip("in a browser: set CAPSIM_BROWSER_TESTS=1 (as .ci/run does) to run it")
	}
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		t.Skip("in a browser: no chromium on PATH (.ci/run installs it, as root, with apt-get install chromium)")
	}

	page := startServe(t)
	b := startChromium(t, chromium)

	// A link with a bad key or path is refused on the page, nothing run.
	b.navigate(t, page+"#x=1&set=components.nope.servers=3&run")
	b.waitFor(t, `document.getElementById("status").className === "error"`)
	if got, want := b.eval(t, `document.getElementById("status").textContent`),
		"the address: x: not a key of this page's address (designs, m, r, set, run); "+
			"set=components.nope.servers: no parameter of this page has that path"; got != want {
		t.Errorf("a link with an unknown key and path: status %q, want %q", got, want)
	}
	if ran := b.eval(t, `String(document.getElementById("run").disabled || document.querySelector("table.verdicts") !== null)`); ran != "false" {
		t.Errorf("a bad link started a run")
	}

	b.navigate(t, page+"#designs=v1-original,v1-improved&m=1,2,3&r=2")
	b.waitFor(t, `document.querySelectorAll("#paramrows input").length > 0 && document.getElementById("multipliers").value === "1,2,3"`)
	if unlabelled := b.eval(t, `JSON.stringify([...document.querySelectorAll("input")].filter((i) => i.labels.length === 0)
		.map((i) => i.id || i.value))`); unlabelled != "[]" {
		t.Errorf("fields without a label: %s", unlabelled)
	}
	// Before a run, the scenario as written.
	b.waitFor(t, `document.getElementById("diagramimg").complete && document.getElementById("diagramimg").naturalWidth > 0 &&
		document.getElementById("diagramimg").src === location.origin + "/api/diagram"`)
	field := `document.querySelector('#paramrows input[data-path="components.app.servers"]')`
	if label := b.eval(t, field+`.labels[0].textContent`); label != "app.servers" {
		t.Errorf("the field of components.app.servers is labelled %q, want app.servers", label)
	}
	b.eval(t, field+`.select()`)
	b.call(t, "Input.insertText", map[string]any{"text": "150"})
	const state = "#designs=v1-original,v1-improved&m=1,2,3&r=2&set=components.app.servers=150"
	if got := b.eval(t, `location.hash`); got != state {
		t.Errorf("after typing 150 in app.servers the address holds %q, want %q", got, state)
	}
	// From the last field of the sweep, Tab reaches Run and Enter runs.
	b.eval(t, `document.getElementById("replications").focus()`)
	b.key(t, "Tab", 9, "")
	if got := b.eval(t, `document.activeElement.id`); got != "run" {
		t.Fatalf("Tab from replications reaches %q, want the Run button", got)
	}
	b.key(t, "Enter", 13, "\r")
	b.waitFor(t, `["done", "cancelled"].includes(document.getElementById("status").textContent) || document.getElementById("status").className === "error"`)
	if status := b.eval(t, `document.getElementById("status").textContent`); status != "done" {
		t.Fatalf("the run ended with %q", status)
	}

	const command = "capsim sweep trip --designs v1-original,v1-improved --set components.app.servers=150 -m 1,2,3 -r 2 --json -"
	out := t.TempDir() + "/out"
	code, stdout, stderr := run(t, append(strings.Fields(command)[1:], "--out", out, "--quiet")...)
	if code != 0 {
		t.Fatalf("%s: exit %d: %s", command, code, stderr)
	}
	var want struct {
		Designs []struct {
			Design       string   `json:"design"`
			Status       string   `json:"status"`
			FirstFailure *float64 `json:"first_failure"`
			CILow        *float64 `json:"ci_low"`
			CIHigh       *float64 `json:"ci_high"`
			RankText     string   `json:"rank_text"`
			SLO          string   `json:"slo"`
			Component    string   `json:"component"`
			Stage        string   `json:"failure_stage"`
		} `json:"designs"`
	}
	if err := json.Unmarshal([]byte(stdout), &want); err != nil {
		t.Fatal(err)
	}
	num := func(v *float64) string {
		if v == nil {
			return "—"
		}
		return strconv.FormatFloat(*v, 'f', -1, 64)
	}
	var rows [][]string
	if err := json.Unmarshal([]byte(b.eval(t, `JSON.stringify([...document.querySelectorAll("table.verdicts tr")].slice(1)
		.map((tr) => [...tr.cells].map((td) => td.textContent)))`)), &rows); err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(want.Designs) {
		t.Fatalf("the page shows %d designs, the sweep %d: %q", len(rows), len(want.Designs), rows)
	}
	for i, d := range want.Designs {
		first := num(d.FirstFailure) + "×"
		switch d.Status {
		case "held":
			first = "holds in the range"
		case "below_range":
			first = "below the range"
		}
		slo, component := d.SLO, d.Component
		if slo == "" {
			slo = "—"
		}
		if component == "" {
			component = "—"
		}
		if d.Stage != "" {
			component += " (" + d.Stage + ")"
		}
		interval := "—"
		if d.CILow != nil || d.CIHigh != nil {
			interval = strings.ReplaceAll(num(d.CILow)+" – "+num(d.CIHigh), "—", "?")
		}
		wantRow := []string{d.Design, first, interval, d.RankText, slo, component}
		if strings.Join(rows[i], " | ") != strings.Join(wantRow, " | ") {
			t.Errorf("row %d: the page shows %q, capsim sweep --json gives %q", i+1, rows[i], wantRow)
		}
	}
	if d := want.Designs[0]; d.FirstFailure == nil || d.Component == "" {
		t.Errorf("v1-original with 150 app servers has no first failure at a component: %+v", d)
	}
	if got := b.eval(t, `document.querySelector("#after pre").textContent`); got != command {
		t.Errorf("the page's command line is %q, want %q", got, command)
	}
	if got := b.eval(t, `location.hash`); got != state+"&run" {
		t.Errorf("after the run the address holds %q, want %q: a link that reruns it", got, state+"&run")
	}
	report, err := os.ReadFile(out + "/report.md")
	if err != nil {
		t.Fatal(err)
	}
	caption := regexp.MustCompile("The scenario as a diagram, (.*), is in `diagram.svg`.").FindSubmatch(report)
	if caption == nil {
		t.Fatalf("report.md names no diagram")
	}
	if got, want := b.eval(t, `document.getElementById("diagramcaption").textContent`),
		"The scenario as a diagram, "+string(caption[1])+"."; got != want {
		t.Errorf("diagram caption %q, want the report's %q", got, want)
	}
	// The address is the link to the answer: opened afresh, it runs the
	// same sweep and shows the same verdict.
	verdict := b.eval(t, `document.getElementById("result").textContent`)
	b.navigate(t, page+state+"&run")
	b.waitFor(t, `document.getElementById("status").textContent === "done" || document.getElementById("status").className === "error"`)
	if again := b.eval(t, `document.getElementById("result").textContent`); again != verdict {
		t.Errorf("the link %s shows %q, the run it came from %q", state+"&run", again, verdict)
	}
	b.waitFor(t, `document.getElementById("diagramimg").complete && document.getElementById("diagramimg").naturalWidth > 0 &&
		document.getElementById("diagramimg").src.startsWith("blob:")`)

	shot := b.screenshot(t)
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatal(err)
	}
	if r := img.Bounds(); r.Dx() != 1280 || r.Dy() != 720 {
		t.Errorf("screenshot is %dx%d, want 1280x720", r.Dx(), r.Dy())
	}
	// The outline is #d62728, 3.5 units wide: scaled to the column, still
	// a line of pixels of about that colour.
	red := 0
	for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			if near(r>>8, 0xd6) && near(g>>8, 0x27) && near(bl>>8, 0x28) {
				red++
			}
		}
	}
	if red < 40 {
		t.Errorf("the screenshot has %d pixels of the outline's red, want the failing component outlined", red)
	}
	// A run where every design holds draws no failing design: the page
	// goes back to the scenario as written, and says so.
	b.navigate(t, page+"#designs=v1-improved&m=1&r=2&run")
	b.waitFor(t, `document.getElementById("status").textContent === "done" || document.getElementById("status").className === "error"`)
	if got, want := b.eval(t, `document.querySelector("table.verdicts tr:nth-child(2)").textContent + " / " +
		document.getElementById("diagramcaption").textContent + " / " + document.getElementById("diagramimg").src.endsWith("/api/diagram")`),
		"v1-improvedholds in the range—1—— / The scenario as written: no design failed in the range. / true"; got != want {
		t.Errorf("a run where v1-improved holds shows %q, want %q", got, want)
	}

	path := os.Getenv("CAPSIM_BROWSER_SCREENSHOT")
	if path == "" {
		path = filepath.Join(t.TempDir(), "serve.png")
	}
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

func near(v, want uint32) bool { return v+24 >= want && v <= want+24 }

// startServe runs capsim serve on a free port of the loopback and returns
// its address; at the end it interrupts it, by its PID, and checks that
// it stopped as it says it does.
func startServe(t *testing.T) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "serve", "--addr", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), "CAPSIM_TEST_MAIN=1")
	outR, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	out := bufio.NewReader(outR)
	line, err := out.ReadString('\n')
	addr := regexp.MustCompile(`^serving trip at (http://127\.0\.0\.1:[0-9]+/)\n$`).FindStringSubmatch(line)
	if addr == nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("capsim serve said %q (%v), stderr %s", line, err, stderr.String())
	}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGINT)
		rest, _ := io.ReadAll(out)
		err := cmd.Wait()
		if string(rest) != "stopped\n" || err != nil {
			t.Errorf("capsim serve, interrupted: %q, %v; want stopped, exit 0 (stderr %s)", rest, err, stderr.String())
		}
	})
	return addr[1]
}

// browser is one page of a headless Chromium, driven over the DevTools
// protocol's WebSocket.
type browser struct {
	conn net.Conn
	r    *bufio.Reader
	id   int
}

// startChromium starts Chromium headless at 1280x720 with a profile of
// its own and connects to its first page; at the end it kills it by its
// PID.
func startChromium(t *testing.T, chromium string) *browser {
	t.Helper()
	profile := t.TempDir()
	args := []string{"--headless", "--disable-gpu", "--hide-scrollbars", "--no-first-run", "--window-size=1280,720",
		"--disable-dev-shm-usage", "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--user-data-dir=" + profile}
	if os.Geteuid() == 0 {
		args = append(args, "--no-sandbox") // Chromium's sandbox refuses root
	}
	cmd := exec.Command(chromium, append(args, "about:blank")...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	// Chromium writes the port it took, and the browser's path, to this
	// file of its profile.
	var port string
	for deadline := time.Now().Add(30 * time.Second); port == ""; {
		if data, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort")); err == nil && bytes.Count(data, []byte("\n")) >= 1 {
			port = strings.SplitN(string(data), "\n", 2)[0]
		} else if time.Now().After(deadline) {
			t.Fatalf("chromium wrote no DevToolsActivePort in 30 s: %s", stderr.String())
		} else {
			select {
			case <-exited:
				t.Fatalf("chromium exited: %s", stderr.String())
			case <-time.After(50 * time.Millisecond):
			}
		}
	}
	resp, err := http.Get("http://127.0.0.1:" + port + "/json/list")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var targets []struct{ Type, WebSocketDebuggerURL string }
	if err := json.NewDecoder(resp.Body).Decode(&targets); err != nil {
		t.Fatal(err)
	}
	for _, tg := range targets {
		if tg.Type == "page" {
			b, err := dialDevTools(tg.WebSocketDebuggerURL)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { b.conn.Close() })
			b.call(t, "Emulation.setDeviceMetricsOverride", map[string]any{"width": 1280, "height": 720, "deviceScaleFactor": 1, "mobile": false})
			return b
		}
	}
	t.Fatalf("chromium has no page: %+v", targets)
	return nil
}

// dialDevTools opens the WebSocket of ws://HOST/PATH: the handshake of
// RFC 6455, enough of it for a local Chromium.
func dialDevTools(ws string) (*browser, error) {
	u, err := url.Parse(ws)
	if err != nil {
		return nil, err
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return nil, err
	}
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n", u.RequestURI(), u.Host, base64.StdEncoding.EncodeToString([]byte("capsim-serve-key")))
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		conn.Close()
		return nil, fmt.Errorf("%s: %s", ws, resp.Status)
	}
	return &browser{conn: conn, r: r}, nil
}

// send writes one text frame, masked as a client's must be.
func (b *browser) send(payload []byte) error {
	head := []byte{0x81}
	switch n := len(payload); {
	case n < 126:
		head = append(head, 0x80|byte(n))
	case n < 1<<16:
		head = append(head, 0x80|126, byte(n>>8), byte(n))
	default:
		head = binary.BigEndian.AppendUint64(append(head, 0x80|127), uint64(n))
	}
	mask := []byte{0x5a, 0xc3, 0x17, 0x9e}
	masked := make([]byte, len(payload))
	for i, c := range payload {
		masked[i] = c ^ mask[i%4]
	}
	_, err := b.conn.Write(append(append(head, mask...), masked...))
	return err
}

// receive reads one message, joining its fragments.
func (b *browser) receive() ([]byte, error) {
	var msg []byte
	for {
		var h [2]byte
		if _, err := io.ReadFull(b.r, h[:]); err != nil {
			return nil, err
		}
		n := uint64(h[1] & 0x7f)
		switch n {
		case 126:
			var l [2]byte
			if _, err := io.ReadFull(b.r, l[:]); err != nil {
				return nil, err
			}
			n = uint64(binary.BigEndian.Uint16(l[:]))
		case 127:
			var l [8]byte
			if _, err := io.ReadFull(b.r, l[:]); err != nil {
				return nil, err
			}
			n = binary.BigEndian.Uint64(l[:])
		}
		if n > 64<<20 {
			return nil, fmt.Errorf("a DevTools frame of %d bytes", n)
		}
		payload := make([]byte, n)
		if _, err := io.ReadFull(b.r, payload); err != nil {
			return nil, err
		}
		switch op := h[0] & 0x0f; op {
		case 0x8:
			return nil, fmt.Errorf("DevTools closed the connection")
		case 0x0, 0x1, 0x2:
			msg = append(msg, payload...)
			if h[0]&0x80 != 0 {
				return msg, nil
			}
		} // ping and pong: Chromium sends none unasked
	}
}

// call sends a DevTools command and returns its result.
func (b *browser) call(t *testing.T, method string, params any) json.RawMessage {
	t.Helper()
	res, err := b.try(t, method, params)
	if err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	return res
}

// try sends a DevTools command and returns its result or the error
// Chromium answers (an evaluation while a page loads may find no
// context), skipping the events that come before it; a broken connection
// ends the test.
func (b *browser) try(t *testing.T, method string, params any) (json.RawMessage, error) {
	t.Helper()
	b.id++
	req, _ := json.Marshal(map[string]any{"id": b.id, "method": method, "params": params})
	b.conn.SetDeadline(time.Now().Add(30 * time.Second))
	if err := b.send(req); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	for {
		msg, err := b.receive()
		if err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		var reply struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(msg, &reply); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if reply.ID != b.id {
			continue
		}
		if reply.Error != nil {
			return nil, fmt.Errorf("%s", reply.Error.Message)
		}
		return reply.Result, nil
	}
}

// evaluate runs expr in the page and returns its value as a string, or
// the exception it threw.
func (b *browser) evaluate(t *testing.T, expr string) (string, error) {
	t.Helper()
	var res struct {
		Result struct {
			Value any `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	reply, err := b.try(t, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	if err != nil {
		return "", err
	}
	if err := json.Unmarshal(reply, &res); err != nil {
		t.Fatal(err)
	}
	if res.Exception != nil {
		return "", fmt.Errorf("%s %s", res.Exception.Text, res.Exception.Exception.Description)
	}
	if s, ok := res.Result.Value.(string); ok {
		return s, nil
	}
	if res.Result.Value == nil {
		return "", nil
	}
	return fmt.Sprint(res.Result.Value), nil
}

func (b *browser) eval(t *testing.T, expr string) string {
	t.Helper()
	v, err := b.evaluate(t, expr)
	if err != nil {
		t.Fatalf("%s: %v", expr, err)
	}
	return v
}

// waitFor evaluates cond until it is true, for up to two minutes: a run
// of the page is a sweep.
func (b *browser) waitFor(t *testing.T, cond string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		v, err := b.evaluate(t, cond)
		if err == nil && v == "true" {
			return
		}
		if time.Now().After(deadline) {
			status, _ := b.evaluate(t, `document.getElementById("status") && document.getElementById("status").textContent`)
			t.Fatalf("waited 2 minutes for %s (%v); the page's status: %q", cond, err, status)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// navigate loads to afresh, by way of a blank page: a link that differs
// from the page shown only after # is then a new page, not a hashchange.
// It waits for the page's load, not for its address, which the page
// itself rewrites.
func (b *browser) navigate(t *testing.T, to string) {
	t.Helper()
	b.call(t, "Page.navigate", map[string]any{"url": "about:blank"})
	b.waitFor(t, `location.href === "about:blank" && document.readyState === "complete"`)
	b.call(t, "Page.navigate", map[string]any{"url": to})
	doc, _, _ := strings.Cut(to, "#")
	b.waitFor(t, `document.readyState === "complete" && location.origin + location.pathname === `+strconv.Quote(doc))
}

// key presses and releases a key in the focused element.
func (b *browser) key(t *testing.T, name string, code int, text string) {
	t.Helper()
	down := map[string]any{"type": "keyDown", "key": name, "code": name, "windowsVirtualKeyCode": code}
	if text != "" {
		down["text"] = text
	}
	b.call(t, "Input.dispatchKeyEvent", down)
	b.call(t, "Input.dispatchKeyEvent", map[string]any{"type": "keyUp", "key": name, "code": name, "windowsVirtualKeyCode": code})
}

func (b *browser) screenshot(t *testing.T) []byte {
	t.Helper()
	var res struct {
		Data string `json:"data"`
	}
	if err := json.Unmarshal(b.call(t, "Page.captureScreenshot", map[string]any{"format": "png"}), &res); err != nil {
		t.Fatal(err)
	}
	data, err := base64.StdEncoding.DecodeString(res.Data)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
