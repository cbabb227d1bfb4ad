//go:build unix

package main

import (
	"os"
	"syscall"
)

// tryLock takes an exclusive lock on f without waiting, and reports
// whether it got it. The kernel releases the lock when the process ends,
// however it ends, so a lock never outlives a killed capsim.
func tryLock(f *os.File) bool {
	return syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB) == nil
}

// locksWork says whether tryLock tells a live owner from a dead one; only
// then may a temporary file without a live owner be removed.
const locksWork = true
