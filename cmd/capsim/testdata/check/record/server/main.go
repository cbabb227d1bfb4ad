// A tiny shop back end for recording a real run: the shop scenario's
// routes, timed by sleeping lognormal times, behind nginx.
package main

import (
	"encoding/json"
	"log"
	"math"
	"math/rand/v2"
	"net/http"
	"os"
	"sync"
	"time"
)

var (
	mu  sync.Mutex
	out *json.Encoder
	rng = rand.New(rand.NewPCG(7, 7))
	app = make(chan struct{}, 8)
	db  = make(chan struct{}, 3)
)

func logEvent(m map[string]any) {
	mu.Lock()
	defer mu.Unlock()
	m["time"] = time.Now().UTC().Format(time.RFC3339Nano)
	out.Encode(m)
}

// lognormal(p50, p95) in seconds.
func draw(p50, p95 float64) time.Duration {
	mu.Lock()
	z := rng.NormFloat64()
	mu.Unlock()
	sigma := math.Log(p95/p50) / 1.6448536269514722
	return time.Duration(p50 * math.Exp(sigma*z) * 1e9)
}

// worker: 2 instances, cold start 2s, stop after 60s idle.
type instance struct {
	lastUsed time.Time
	running  bool
}

var (
	wmu   sync.Mutex
	insts [2]instance
	wslot = make(chan int, 2)
	jobs  int64
)

func init() { wslot <- 0; wslot <- 1 }

func receipt(reqID string) {
	start := time.Now()
	wmu.Lock()
	jobs++
	job := jobs
	wmu.Unlock()
	i := <-wslot
	wmu.Lock()
	cold := !insts[i].running || time.Since(insts[i].lastUsed) > 60*time.Second
	wmu.Unlock()
	if cold {
		time.Sleep(2 * time.Second)
	}
	t0 := time.Now()
	logEvent(map[string]any{"event": "receipt_started", "request_id": reqID, "job_id": job, "since_s": t0.Sub(start).Seconds()})
	time.Sleep(draw(0.300, 0.700))
	t1 := time.Now()
	logEvent(map[string]any{"event": "receipt_sent", "request_id": reqID, "job_id": job, "since_s": t1.Sub(t0).Seconds()})
	wmu.Lock()
	insts[i].running, insts[i].lastUsed = true, time.Now()
	wmu.Unlock()
	wslot <- i
}

func main() {
	f, err := os.Create(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	out = json.NewEncoder(f)
	http.HandleFunc("/browse", func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		app <- struct{}{}
		time.Sleep(draw(0.040, 0.120))
		logEvent(map[string]any{"event": "page_served", "request_id": r.Header.Get("X-Request-ID"), "since_s": time.Since(start).Seconds()})
		<-app
		w.Write([]byte("ok\n"))
	})
	http.HandleFunc("/order", func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-ID")
		start := time.Now()
		app <- struct{}{}
		time.Sleep(draw(0.030, 0.080))
		t1 := time.Now()
		logEvent(map[string]any{"event": "order_validated", "request_id": id, "since_s": t1.Sub(start).Seconds()})
		db <- struct{}{}
		time.Sleep(draw(0.150, 0.400))
		<-db
		t2 := time.Now()
		logEvent(map[string]any{"event": "order_saved", "request_id": id, "since_s": t2.Sub(t1).Seconds()})
		<-app
		go receipt(id)
		w.Write([]byte("ok\n"))
	})
	log.Fatal(http.ListenAndServe("127.0.0.1:18081", nil))
}
