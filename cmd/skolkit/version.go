package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
)

// version and revision, when set at link time (-ldflags "-X
// main.version=v1.2.3 -X main.revision=<git commit>", as release.sh does),
// replace the module version and fill in a revision the build info lacks
// (a build from a git worktree, or with -buildvcs=false).
var version, revision string

// buildVersion describes the running binary from its build info: the
// module version (v1.2.3 when installed with go install ...@v1.2.3, a
// pseudo-version or "(devel)" for a local build) and, when it was built from
// a git checkout, the VCS revision, its time and whether the tree was
// modified.
type buildVersion struct {
	Version, Revision, Time string
	Modified                bool
	Go, Platform            string
}

func readBuildVersion() buildVersion {
	v := buildVersion{Version: "(unknown)", Go: runtime.Version(), Platform: runtime.GOOS + "/" + runtime.GOARCH}
	if info, ok := debug.ReadBuildInfo(); ok {
		if info.Main.Version != "" {
			v.Version = info.Main.Version
		}
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				v.Revision = s.Value
			case "vcs.time":
				v.Time = s.Value
			case "vcs.modified":
				v.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		v.Version = version
	}
	if v.Revision == "" {
		v.Revision = revision
	}
	return v
}

func (v buildVersion) String() string {
	s := "skolkit " + v.Version
	if v.Revision != "" {
		s += "\nrevision " + v.Revision
		if v.Time != "" {
			s += " (" + v.Time + ")"
		}
		if v.Modified {
			s += ", with uncommitted changes"
		}
	}
	if v.Revision == "" && (v.Version == "(devel)" || v.Version == "(unknown)") {
		s += "\nbuilt from a source tree without version information (release.sh and go install ...@VERSION record it)"
	}
	return s + "\n" + v.Go + " " + v.Platform + "\n"
}

const versionHelp = `Usage: skolkit version

Prints the version of skolkit (the module version it was installed or
released as), the git revision it was built from when known, and the Go
version and platform it was built with.
`

func versionCmd(args []string, stdout, stderr io.Writer) int {
	if isHelp(args) {
		fmt.Fprint(stdout, versionHelp)
		return exitOK
	}
	if len(args) > 0 {
		fmt.Fprintf(stderr, "skolkit version: unexpected argument %q\nRun 'skolkit version -h' for help.\n", args[0])
		return exitUsage
	}
	fmt.Fprint(stdout, readBuildVersion())
	return exitOK
}
