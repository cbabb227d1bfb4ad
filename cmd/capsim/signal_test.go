package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// TestMain lets a test run the real main in a child process (the test
// binary re-executed), so signals reach a real capsim process.
func TestMain(m *testing.M) {
	if os.Getenv("CAPSIM_TEST_MAIN") == "1" {
		os.Args = append([]string{"capsim"}, os.Args[1:]...)
		main()
		return
	}
	os.Exit(m.Run())
}

func startCapsim(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "CAPSIM_TEST_MAIN=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &stderr
}

// listFiles returns every regular file under dir.
func listFiles(t *testing.T, dir string) []string {
	var files []string
	filepath.Walk(dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	return files
}

// An interrupted sweep stops its workers, exits 130 and leaves no file,
// whole or partial; a second interrupt quits at once, also leaving none.
func TestInterruptedSweepWritesNothing(t *testing.T) {
	notInShort(t, "starts a child process")
	for _, signals := range []int{1, 2} {
		out := t.TempDir()
		cmd, stderr := startCapsim(t, "sweep", "trip", "--replications", "200", "--out", out)
		time.Sleep(400 * time.Millisecond)
		for i := 0; i < signals; i++ {
			cmd.Process.Signal(syscall.SIGINT)
			time.Sleep(20 * time.Millisecond)
		}
		err := cmd.Wait()
		ee, ok := err.(*exec.ExitError)
		if !ok || ee.ExitCode() != exitInterrupt {
			t.Fatalf("%d signal(s): exit %v, stderr %s", signals, err, stderr)
		}
		if files := listFiles(t, out); len(files) != 0 {
			t.Errorf("%d signal(s): files left behind: %v", signals, files)
		}
		if !bytes.Contains(stderr.Bytes(), []byte("capsim: interrupted, stopping")) {
			t.Errorf("%d signal(s): stderr %q", signals, stderr)
		}
	}
}

// An interrupted run, by SIGINT or SIGTERM, stops within a second, exits
// 130 and leaves no trace file behind, whole or partial. The kernel asks
// every 65,536 events, a few milliseconds apart; the second leaves room for
// a loaded machine.
func TestInterruptedRunWritesNothing(t *testing.T) {
	notInShort(t, "starts a child process")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGTERM} {
		dir := t.TempDir()
		cmd, stderr := startCapsim(t, "run", "mmc", "--set", "journeys.customer.count=1000000000",
			"--set", "duration=1000000000s", "--trace", filepath.Join(dir, "trace.jsonl"))
		time.Sleep(400 * time.Millisecond)
		sent := time.Now()
		cmd.Process.Signal(sig)
		err := cmd.Wait()
		took := time.Since(sent)
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitInterrupt {
			t.Fatalf("%v: exit %v, stderr %s", sig, err, stderr)
		}
		if took > time.Second {
			t.Errorf("%v: exited %v after the signal, want within a second", sig, took)
		}
		if !bytes.Contains(stderr.Bytes(), []byte("capsim: run interrupted; no output written")) {
			t.Errorf("%v: stderr %q", sig, stderr)
		}
		if files := listFiles(t, dir); len(files) != 0 {
			t.Errorf("%v: files left behind: %v", sig, files)
		}
	}
}
