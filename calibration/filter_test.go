package calibration

import "testing"

// AnyRoute selects what any of its patterns selects, each in its own
// syntax: a glob anchored at both ends, a ~ regular expression as written.
func TestAnyRoute(t *testing.T) {
	union, err := AnyRoute("/api/trips/*", "~^/admin")
	if err != nil {
		t.Fatal(err)
	}
	match, err := RouteMatcher(union)
	if err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]bool{"/api/trips/7": true, "/admin/users": true,
		"/api/trips/7/photos": false, "/x/admin": false, "/api/trips": false} {
		if got := match(path); got != want {
			t.Errorf("%s: %v, want %v (pattern %s)", path, got, want, union)
		}
	}
	if _, err := AnyRoute("/a", "~("); err == nil {
		t.Error("a pattern that does not compile was taken")
	}
}
