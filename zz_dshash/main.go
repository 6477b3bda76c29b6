package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/skolkit/skolkit/scenarios"
)

func main() {
	now := time.Date(2026, 11, 2, 8, 0, 0, 0, time.UTC)
	for _, name := range []string{"default", "edge-cases", "large"} {
		sc, err := scenarios.Builtin(name)
		if err != nil {
			panic(err)
		}
		if name == "large" {
			n, _ := strconv.Atoi(os.Args[1])
			g := &sc.Generate
			g.SchoolUnits, g.Children, g.Pupils, g.Staff = 12, 1000, 1200, 200
			g.Groups, g.Placements, g.Syllabuses = 300, 3000, 60
			g.CalendarEvents, g.Attendances, g.Absences = n, 2000, 300
		}
		ds, err := sc.Build(now)
		if err != nil {
			panic(err)
		}
		b, _ := json.Marshal(ds)
		fmt.Printf("%s %x %d events\n", name, sha256.Sum256(b), len(ds.CalendarEvents))
	}
}
