package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// TestCalibrateRecordedThroughNginx records real logs: a back end on
// 127.0.0.1 behind nginx, driven with a few hundred requests, each of the
// three logging its side of a request under nginx's $request_id. A plan
// joins them. There is no true value to compare with, so the test checks
// what the plan must get right whatever the timings: every request joined,
// every negative nginx difference within a millisecond kept as 0 and
// counted, and the time spent in nginx itself fitted as the mean of the
// unclamped differences. It needs nginx, which CI does not install, and is
// skipped without it.
func TestCalibrateRecordedThroughNginx(t *testing.T) {
	notInShort(t, "records through nginx: not in -short")
	nginx, err := exec.LookPath("nginx")
	if err != nil {
		if nginx, err = exec.LookPath("/usr/sbin/nginx"); err != nil {
			t.Skip("nginx is not installed")
		}
	}
	dir := t.TempDir()
	const n = 300

	// The back end: sleeps 2 to 4 ms and logs its handler time.
	appLog, err := os.Create(filepath.Join(dir, "app.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	enc := json.NewEncoder(appLog)
	var served int
	app := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		mu.Lock()
		served++
		sleep := time.Duration(2+served%3) * time.Millisecond
		mu.Unlock()
		time.Sleep(sleep)
		io.WriteString(w, "ok\n")
		ms := float64(time.Since(start).Nanoseconds()) / 1e6
		mu.Lock()
		enc.Encode(map[string]any{"event": "request_done", "request_id": r.Header.Get("X-Request-ID"), "handler_ms": ms, "status": 200})
		mu.Unlock()
	})}
	appLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	go app.Serve(appLn)
	defer app.Close()

	// nginx in the foreground, as a child of the test, listening on a free
	// port of 127.0.0.1 only.
	probe, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := probe.Addr().String()
	probe.Close()
	conf := fmt.Sprintf(`daemon off;
worker_processes 1;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 64; }
http {
    access_log off;
    client_body_temp_path %[1]s/tmp;
    proxy_temp_path %[1]s/tmp;
    fastcgi_temp_path %[1]s/tmp;
    uwsgi_temp_path %[1]s/tmp;
    scgi_temp_path %[1]s/tmp;
    log_format calib escape=json '{"time_iso8601":"$time_iso8601","request_id":"$request_id","request":"$request","status":"$status","request_time":"$request_time","upstream_response_time":"$upstream_response_time"}';
    upstream app { server %[2]s; keepalive 4; }
    server {
        listen %[3]s;
        access_log %[1]s/access.log calib;
        location / {
            proxy_http_version 1.1;
            proxy_set_header Connection "";
            proxy_set_header X-Request-ID $request_id;
            add_header X-Request-ID $request_id always;
            proxy_pass http://app;
        }
    }
}
`, dir, appLn.Addr().String(), addr)
	os.WriteFile(filepath.Join(dir, "nginx.conf"), []byte(conf), 0o644)
	cmd := exec.Command(nginx, "-c", filepath.Join(dir, "nginx.conf"), "-p", dir)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Skipf("nginx does not start: %v", err)
	}
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			// SIGQUIT: finish the requests in flight and flush the log.
			cmd.Process.Signal(syscall.SIGQUIT)
			cmd.Wait()
		}
	}
	defer stop()

	// The driver: sequential requests, each logged with the latency the
	// client saw and the request id nginx returned.
	client := &http.Client{Timeout: 5 * time.Second}
	var driver strings.Builder
	for i := 0; i < n; i++ {
		start := time.Now()
		resp, err := client.Get("http://" + addr + "/api/items/" + strconv.Itoa(i%10))
		if err != nil {
			if i == 0 {
				// nginx may still be starting.
				time.Sleep(200 * time.Millisecond)
				i--
				continue
			}
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ms := float64(time.Since(start).Nanoseconds()) / 1e6
		fmt.Fprintf(&driver, `{"time":%q,"event":"response","request_id":%q,"status":%d,"duration_ms":%.6f}`+"\n",
			start.UTC().Format(time.RFC3339Nano), resp.Header.Get("X-Request-ID"), resp.StatusCode, ms)
	}
	stop()
	appLog.Close()
	os.WriteFile(filepath.Join(dir, "driver.jsonl"), []byte(driver.String()), 0o644)
	os.WriteFile(filepath.Join(dir, "plan.yaml"), []byte(`sources:
  driver: {file: driver.jsonl}
  nginx: {file: access.log}
  app: {file: app.jsonl}
measured:
  nginx_own_time: {from: nginx, where: status == 2xx, expr: request_time - upstream_response_time}
  client_overhead:
    from: [driver, app]
    key: request_id
    expr: driver.duration_ms - app.handler_ms
`), 0o644)

	// What the plan must find, computed here from the access log itself: a
	// difference of two times, each within 1 ms of the truth, is kept when
	// it is at least -2 ms, as 0 when negative. A machine under load can
	// log one further below, which is rejected.
	access, err := os.ReadFile(filepath.Join(dir, "access.log"))
	if err != nil {
		t.Fatal(err)
	}
	var sum float64
	negative, lines, used := 0, 0, 0
	for _, line := range strings.Split(strings.TrimSpace(string(access)), "\n") {
		var rec struct{ RequestTime, UpstreamResponseTime string }
		var raw map[string]string
		json.Unmarshal([]byte(line), &raw)
		rec.RequestTime, rec.UpstreamResponseTime = raw["request_time"], raw["upstream_response_time"]
		rt, _ := strconv.ParseFloat(rec.RequestTime, 64)
		ut, _ := strconv.ParseFloat(rec.UpstreamResponseTime, 64)
		d := rt - ut
		lines++
		if d < -0.002*(1+1e-9) {
			continue
		}
		used++
		sum += d
		if d < 0 {
			negative++
		}
	}
	if lines != n {
		t.Fatalf("nginx logged %d requests, want %d", lines, n)
	}
	stdout, stderr, err := calibrate(t, "", filepath.Join(dir, "plan.yaml"), "--out", "-")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	t.Logf("%d of %d nginx differences kept, %d of them negative; mean %.4g ms\n%s", used, n, negative, sum/float64(used)*1000, stderr)
	if !strings.Contains(stdout, fmt.Sprintf("      n: %d\n      resolution: \"nginx 1ms (nginx logs times in whole milliseconds)\"\n      clamped: %d\n", used, negative)) {
		t.Errorf("nginx_own_time does not keep %d values with %d clamped:\n%s", used, negative, stdout)
	}
	if !strings.Contains(stderr, fmt.Sprintf("client_overhead: %d values of", n)) {
		t.Errorf("client_overhead did not join all %d requests:\n%s", n, stderr)
	}
	// Within five quanta of 0 with a spread under one quantum, the time in
	// nginx is the constant mean of the differences; otherwise a gamma of
	// that mean.
	var mean float64
	for _, line := range strings.Split(stdout, "\n") {
		if d, ok := strings.CutPrefix(line, "    dist: constant("); ok {
			mean, _ = strconv.ParseFloat(strings.TrimSuffix(d, "s)"), 64)
			break
		}
		if strings.HasPrefix(line, "    dist: gamma(") {
			var k, s float64
			fmt.Sscanf(line, "    dist: gamma(shape=%g, scale=%gs)", &k, &s)
			mean = k * s
			break
		}
	}
	if want := max(sum/float64(used), 0); math.Abs(mean-want) > 1e-5*max(want, 1e-3) {
		t.Errorf("nginx_own_time has mean %gs, want the mean of the differences %gs", mean, want)
	}
}
