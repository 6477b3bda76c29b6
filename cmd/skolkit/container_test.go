package main

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestContainerImage builds the image of the Dockerfile as docs/container.md
// says (a static binary built on the host, buildah without a daemon, nothing
// pulled), checks its configuration, copies the binary out of the image and
// runs it. Running the image itself needs a container runtime this test does
// not assume. Where buildah is not installed the test says so and skips.
func TestContainerImage(t *testing.T) {
	buildah, err := exec.LookPath("buildah")
	if err != nil {
		t.Skip("buildah is not installed, so the container image is not built here (Debian: apt-get install buildah)")
	}
	if runtime.GOOS != "linux" {
		t.Skip("the image is built and its binary run on Linux only")
	}
	goTool, err := exec.LookPath("go")
	require.NoError(t, err)
	dir := t.TempDir()
	ctx := filepath.Join(dir, "context")
	require.NoError(t, os.MkdirAll(filepath.Join(ctx, "dist", "container"), 0o755))
	dockerfile, err := os.ReadFile("../../Dockerfile")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(ctx, "Dockerfile"), dockerfile, 0o644))

	build := exec.Command(goTool, "build", "-trimpath", "-o", filepath.Join(ctx, "dist", "container", "skolkit"), ".")
	build.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	out, err := build.CombinedOutput()
	require.NoError(t, err, "%s", out)

	storage := []string{"--storage-driver", "vfs", "--root", filepath.Join(dir, "root"), "--runroot", filepath.Join(dir, "runroot")}
	bah := func(args ...string) []byte {
		t.Helper()
		cmd := exec.Command(buildah, append(storage, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "buildah %s: %s", strings.Join(args, " "), stderr.String())
		return out
	}
	t.Cleanup(func() {
		_ = exec.Command(buildah, append(storage, "rmi", "--all", "--force")...).Run()
	})
	bah("bud", "--isolation", "chroot", "-t", "localhost/skolkit-test", ctx)

	var image struct {
		OCIv1 struct {
			Config struct {
				User         string              `json:"User"`
				Entrypoint   []string            `json:"Entrypoint"`
				ExposedPorts map[string]struct{} `json:"ExposedPorts"`
			} `json:"config"`
		} `json:"OCIv1"`
	}
	require.NoError(t, json.Unmarshal(bah("inspect", "--type", "image", "localhost/skolkit-test"), &image))
	cfg := image.OCIv1.Config
	assert.Equal(t, []string{"/skolkit", "serve", "--addr", ":8080"}, cfg.Entrypoint)
	assert.Equal(t, "65534:65534", cfg.User, "runs as nobody, not root")
	assert.Contains(t, cfg.ExposedPorts, "8080/tcp")

	// The binary, copied out of the image's layer.
	layout := filepath.Join(dir, "image")
	bah("push", "localhost/skolkit-test", "dir:"+layout)
	bin := filepath.Join(dir, "skolkit")
	require.True(t, extractFromLayers(t, layout, "skolkit", bin), "the image has /skolkit")
	version, err := exec.Command(bin, "version").Output()
	require.NoError(t, err)
	assert.Regexp(t, `^skolkit `, string(version))

	// It serves on every interface with the token from the environment, as
	// the image's entrypoint runs it, and is ready at /healthz.
	serve := exec.Command(bin, "serve", "--addr", ":0", "--scenario", "empty")
	serve.Env = append(os.Environ(), "SKOLKIT_ADMIN_TOKEN=container-test")
	stdout, err := serve.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, serve.Start())
	t.Cleanup(func() { _ = serve.Process.Kill(); _ = serve.Wait() })
	base := make(chan string, 1)
	go func() {
		data := make([]byte, 0, 4096)
		buf := make([]byte, 1024)
		for {
			n, err := stdout.Read(buf)
			data = append(data, buf[:n]...)
			if m := reServing.FindSubmatch(data); m != nil {
				base <- string(m[1])
				_, _ = io.Copy(io.Discard, stdout)
				return
			}
			if err != nil {
				close(base)
				return
			}
		}
	}()
	var url string
	select {
	case url = <-base:
	case <-time.After(time.Minute): // a hang, not a speed target
		t.Fatal("the binary from the image did not start serving")
	}
	require.NotEmpty(t, url, "the binary from the image exited before serving")
	resp, err := http.Get(url + "/healthz")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, http.StatusOK, resp.StatusCode)
}

// extractFromLayers looks for name in the layers of an image pushed to a
// directory (buildah push IMAGE dir:DIR) and writes it to dst.
func extractFromLayers(t *testing.T, layout, name, dst string) bool {
	t.Helper()
	entries, err := os.ReadDir(layout)
	require.NoError(t, err)
	for _, e := range entries {
		data, err := os.ReadFile(filepath.Join(layout, e.Name()))
		require.NoError(t, err)
		var r io.Reader = bytes.NewReader(data)
		if zr, err := gzip.NewReader(bytes.NewReader(data)); err == nil {
			r = zr
		}
		tr := tar.NewReader(r)
		for {
			h, err := tr.Next()
			if err != nil {
				break // the end, or not a tar file (the manifest, the config)
			}
			if strings.TrimPrefix(h.Name, "./") == name {
				f, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
				require.NoError(t, err)
				_, err = io.Copy(f, tr)
				require.NoError(t, err)
				require.NoError(t, f.Close())
				return true
			}
		}
	}
	return false
}
