//go:build race

package main

// raceEnabled is true when the tests run with the race detector, which makes
// them several times slower: the heaviest tests then take a sample and the
// full runs happen in .ci/run's run without it.
const raceEnabled = true
