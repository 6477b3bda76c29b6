#!/usr/bin/env bash
# Builds the release binaries of skolkit for Linux, macOS and Windows on
# amd64 and arm64 into dist/, with SHA-256 checksums:
#
#   ./release.sh                 every platform, version from git describe
#   VERSION=v1.2.3 ./release.sh  a given version
#   ./release.sh linux/amd64     only the platforms named
#
# The binaries are static (CGO_ENABLED=0) and reproducible (-trimpath, no
# build ids); `skolkit version` prints VERSION and the git revision.
set -euo pipefail
cd "$(dirname "$0")"

VERSION=${VERSION:-$(git describe --tags --always --dirty 2>/dev/null || echo dev)}
REVISION=$(git rev-parse HEAD 2>/dev/null || true)
platforms=("$@")
if [ ${#platforms[@]} -eq 0 ]; then
  platforms=(linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64 windows/arm64)
fi

rm -rf dist/release
mkdir -p dist/release
for p in "${platforms[@]}"; do
  os=${p%/*} arch=${p#*/}
  exe=skolkit
  [ "$os" = windows ] && exe=skolkit.exe
  out="dist/release/skolkit_${VERSION}_${os}_${arch}"
  echo "== $os/$arch"
  mkdir -p "$out"
  CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -buildvcs=auto \
    -ldflags "-s -w -buildid= -X main.version=$VERSION -X main.revision=$REVISION" -o "$out/$exe" ./cmd/skolkit
  cp README.md "$out/"
  if [ "$os" = windows ]; then
    (cd dist/release && zip -qr "$(basename "$out").zip" "$(basename "$out")" 2>/dev/null) ||
      tar -C dist/release -czf "$out.tar.gz" "$(basename "$out")"
  else
    tar -C dist/release -czf "$out.tar.gz" "$(basename "$out")"
  fi
  rm -rf "$out"
done
(cd dist/release && sha256sum -- *.tar.gz *.zip 2>/dev/null > SHA256SUMS || true)
echo "== dist/release"
ls -l dist/release
