package refclient

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
)

// Environment variables of the command form.
const (
	// EnvInterface chooses the client: "B" (SS 12000) or "A" (directory).
	EnvInterface = "SKOLKIT_REFCLIENT"
	// EnvDefect gives the client one defect (a Defect's name).
	EnvDefect = "SKOLKIT_REFCLIENT_DEFECT"
)

// FromEnv reads the client's configuration from the variables skolkit exam
// sets (SKOLKIT_TOKEN_URL, SKOLKIT_REGISTER_URL, SKOLKIT_BASE_URL,
// SKOLKIT_CLIENT_ID, SKOLKIT_CLIENT_SECRET) and SKOLKIT_REFCLIENT_DEFECT;
// the state is kept in the working directory.
func FromEnv() (Config, error) {
	cfg := Config{
		TokenURL: os.Getenv("SKOLKIT_TOKEN_URL"), RegisterURL: os.Getenv("SKOLKIT_REGISTER_URL"), BaseURL: os.Getenv("SKOLKIT_BASE_URL"),
		ClientID: os.Getenv("SKOLKIT_CLIENT_ID"), ClientSecret: os.Getenv("SKOLKIT_CLIENT_SECRET"), Dir: ".",
		Defect: Defect(os.Getenv(EnvDefect)),
	}
	if cfg.Defect != Correct && !slices.Contains(Defects, cfg.Defect) {
		return cfg, fmt.Errorf("%s=%q is no defect; the defects are %v", EnvDefect, cfg.Defect, Defects)
	}
	if cfg.TokenURL == "" || cfg.ClientID == "" {
		return cfg, fmt.Errorf("SKOLKIT_TOKEN_URL and SKOLKIT_CLIENT_ID are not set: run me under skolkit exam")
	}
	return cfg, nil
}

// Main runs the client named by SKOLKIT_REFCLIENT once, as a command does,
// and returns its exit status: 0 when the sync succeeded, 1 when it
// failed, 2 when it was not configured. A test binary calls it from
// TestMain when the variable is set, to serve as a client command without
// a build of its own.
func Main(stderr io.Writer) int {
	cfg, err := FromEnv()
	if err != nil {
		fmt.Fprintln(stderr, "refclient:", err)
		return 2
	}
	sync := SyncB
	switch os.Getenv(EnvInterface) {
	case "B", "b":
	case "A", "a":
		sync = SyncA
	default:
		fmt.Fprintf(stderr, "refclient: %s=%q: want A or B\n", EnvInterface, os.Getenv(EnvInterface))
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := sync(ctx, cfg); err != nil {
		fmt.Fprintln(stderr, "refclient:", err)
		return 1
	}
	return 0
}
