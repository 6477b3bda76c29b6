package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/skolkit/skolkit/scenarios"
)

// Exit codes, the same for the same kind of outcome in every command.
const (
	// exitOK: the command did what was asked (and -h printed its help).
	exitOK = 0
	// exitFailed: the command ran and failed: a conformance check failed,
	// or the server or a write broke down after the start.
	exitFailed = 1
	// exitUsage: the command could not start: an unknown command or flag, a
	// bad value, a missing argument, a scenario that is missing, unreadable
	// or invalid, an output path that cannot be written, an address that
	// cannot be listened on (and, for conformance, a server that cannot be
	// reached).
	exitUsage = 2
)

const exitStatusHelp = `Exit status: 0 on success (and for -h), 1 when the command ran and failed
(a conformance check failed; the server or a write broke down), 2 when it
could not start (an unknown flag or argument, a bad value, a missing or
invalid scenario file, an output path that cannot be written, an address
that cannot be listened on).
`

// parseFlags parses a command's flags. For -h it prints help (the command's
// text, then its flags) to stdout and returns exitOK; for a bad flag it
// prints the error and a hint to stderr and returns exitUsage. ok is true
// when the command should go on.
func parseFlags(fset *flag.FlagSet, args []string, help string, stdout, stderr io.Writer) (code int, ok bool) {
	fset.SetOutput(io.Discard)
	fset.Usage = func() {}
	if err := fset.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			printHelp(stdout, fset, help)
			return exitOK, false
		}
		fmt.Fprintf(stderr, "%s: %v\nRun '%s -h' for help.\n", fset.Name(), err, fset.Name())
		return exitUsage, false
	}
	if fset.NArg() > 0 {
		fmt.Fprintf(stderr, "%s: unexpected argument %q\nRun '%s -h' for help.\n", fset.Name(), fset.Arg(0), fset.Name())
		return exitUsage, false
	}
	return exitOK, true
}

// printHelp writes a command's help text and its flags.
func printHelp(w io.Writer, fset *flag.FlagSet, help string) {
	fmt.Fprint(w, help)
	hasFlags := false
	fset.VisitAll(func(*flag.Flag) { hasFlags = true })
	if hasFlags {
		fmt.Fprint(w, "\nFlags:\n")
		fset.SetOutput(w)
		fset.PrintDefaults()
		fset.SetOutput(io.Discard)
	}
}

// isHelp reports whether a command's only argument asks for help.
func isHelp(args []string) bool {
	return len(args) == 1 && (args[0] == "-h" || args[0] == "-help" || args[0] == "--help" || args[0] == "help")
}

// loadScenario takes a built-in scenario's name or a scenario file. A
// file that exists but cannot be read is reported as such (permission
// denied, a directory); so is a path (a name with a slash or a .yaml, .yml
// or .json ending) that does not exist.
func loadScenario(nameOrFile string) (*scenarios.Scenario, error) {
	data, err := os.ReadFile(nameOrFile)
	if err == nil {
		return scenarios.Parse(nameOrFile, data)
	}
	if !errors.Is(err, fs.ErrNotExist) || looksLikeFile(nameOrFile) {
		return nil, fmt.Errorf("scenario file %s", describeFileError(nameOrFile, err))
	}
	sc, berr := scenarios.Builtin(nameOrFile)
	if berr != nil {
		return nil, fmt.Errorf("%v; nor is there a scenario file of that name", berr)
	}
	return sc, nil
}

func looksLikeFile(name string) bool {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".yaml", ".yml", ".json":
		return true
	}
	return strings.ContainsAny(name, `/\`)
}

// describeFileError says in words what is wrong with a file: "x: no such
// file", "x: permission denied", "x: is a directory", or the error itself.
func describeFileError(name string, err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Sprintf("%s: no such file", name)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Sprintf("%s: permission denied", name)
	}
	if info, serr := os.Stat(name); serr == nil && info.IsDir() {
		return fmt.Sprintf("%s: is a directory", name)
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return fmt.Sprintf("%s: %v", name, pe.Err)
	}
	return fmt.Sprintf("%s: %v", name, err)
}

// checkWritableFile reports, before any work is done, why a file the
// command will write at the end could not be written: its directory is
// missing or not writable, or the path is a directory. An existing file is
// opened for appending (and left unchanged) to check it.
func checkWritableFile(path string) error {
	if info, err := os.Stat(path); err == nil {
		if info.IsDir() {
			return fmt.Errorf("%s: is a directory", path)
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			return fmt.Errorf("%s", describeFileError(path, err))
		}
		return f.Close()
	}
	return checkWritableDir(filepath.Dir(path))
}

// checkWritableDir reports whether files can be created in dir (which must
// exist), by creating and removing one.
func checkWritableDir(dir string) error {
	info, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("directory %s", describeFileError(dir, err))
	}
	if !info.IsDir() {
		return fmt.Errorf("%s: not a directory", dir)
	}
	f, err := os.CreateTemp(dir, ".skolkit-write-check-*")
	if err != nil {
		return fmt.Errorf("directory %s", describeFileError(dir, err))
	}
	name := f.Name()
	f.Close()
	return os.Remove(name)
}
