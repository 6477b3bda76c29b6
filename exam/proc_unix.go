//go:build unix

package exam

import (
	"os/exec"
	"syscall"
)

// killGroup makes the command the leader of a process group of its own and
// makes its cancellation kill the whole group, so that a client command
// that is a script does not leave its children running after the round.
func killGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
