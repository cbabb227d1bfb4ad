// Drives shoppers at a Poisson rate through nginx and logs each shopper's
// outcome as the client sees it.
package main

import (
	"encoding/json"
	"io"
	"log"
	"math/rand/v2"
	"net/http"
	"os"
	"strconv"
	"sync"
	"time"
)

func main() {
	rate, _ := strconv.ParseFloat(os.Args[1], 64)
	dur, _ := time.ParseDuration(os.Args[2])
	f, err := os.Create(os.Args[3])
	if err != nil {
		log.Fatal(err)
	}
	var mu sync.Mutex
	enc := json.NewEncoder(f)
	rng := rand.New(rand.NewPCG(3, 3))
	client := &http.Client{Timeout: 30 * time.Second, Transport: &http.Transport{MaxIdleConnsPerHost: 100}}
	get := func(path string) bool {
		resp, err := client.Get("http://127.0.0.1:18080" + path)
		if err != nil {
			return false
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode < 400
	}
	var wg sync.WaitGroup
	end := time.Now().Add(dur)
	for t := time.Now(); t.Before(end); {
		wg.Add(1)
		go func() {
			defer wg.Done()
			start := time.Now()
			ok, stage := get("/browse"), "browse"
			if ok {
				time.Sleep(2 * time.Second)
				ok, stage = get("/order"), "order"
			}
			res := map[string]any{"event": "shopper", "result": "success", "duration_s": time.Since(start).Seconds(), "time": time.Now().UTC().Format(time.RFC3339Nano)}
			if !ok {
				res["result"], res["failure_stage"] = "failure", stage
			}
			mu.Lock()
			enc.Encode(res)
			mu.Unlock()
		}()
		t = t.Add(time.Duration(rng.ExpFloat64() / rate * 1e9))
		time.Sleep(time.Until(t))
	}
	wg.Wait()
}
