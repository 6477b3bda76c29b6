// Command refclient is skolkit's reference sync client as a program, to
// try skolkit exam with (and to see what a correct client does):
//
//	go build -o /tmp/refclient ./exam/refclient/cmd/refclient
//	skolkit exam -- /tmp/refclient                      # interface B, correct
//	skolkit exam -- /tmp/refclient -interface A
//	skolkit exam -- /tmp/refclient -defect first-page-only
//
// It reads the URLs and credentials skolkit exam sets (SKOLKIT_TOKEN_URL,
// SKOLKIT_REGISTER_URL, SKOLKIT_BASE_URL, SKOLKIT_CLIENT_ID,
// SKOLKIT_CLIENT_SECRET) and keeps its sync state in the working
// directory.
package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/skolkit/skolkit/exam/refclient"
)

func main() {
	iface := flag.String("interface", "B", "the interface to sync: B (SS 12000) or A (the directory API)")
	defect := flag.String("defect", "", fmt.Sprintf("one defect to have (none: the correct client): %v", refclient.Defects))
	flag.Parse()
	os.Setenv(refclient.EnvInterface, *iface)
	os.Setenv(refclient.EnvDefect, *defect)
	os.Exit(refclient.Main(os.Stderr))
}
