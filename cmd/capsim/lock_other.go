//go:build !unix

package main

import "os"

// tryLock always succeeds where capsim has no advisory locks: concurrent
// sweeps into one folder are then not kept apart.
func tryLock(*os.File) bool { return true }

// locksWork is false: stale temporary files are left for the user.
const locksWork = false
