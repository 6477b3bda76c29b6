//go:build !race

package main

// raceEnabled is true when the tests run with the race detector.
const raceEnabled = false
