# The skolkit image: the static skolkit binary alone, on an empty base
# (FROM scratch), run as a non-root user, serving the mock on port 8080 of
# every interface. Nothing is pulled: build the binary first, then the image
# (docs/container.md):
#
#   CGO_ENABLED=0 GOOS=linux go build -trimpath -o dist/container/skolkit ./cmd/skolkit
#   buildah bud --isolation chroot --storage-driver vfs -t skolkit .    # or: docker build -t skolkit .
#
# Run it with the control plane's token from the environment (listening on
# every interface requires one):
#
#   docker run -e SKOLKIT_ADMIN_TOKEN=change-me -p 8080:8080 skolkit
#
# The server is ready when GET /healthz answers 200 "ok".
FROM scratch
COPY dist/container/skolkit /skolkit
# nobody:nogroup; the image has no /etc/passwd, so the ids are numeric.
USER 65534:65534
EXPOSE 8080
ENTRYPOINT ["/skolkit", "serve", "--addr", ":8080"]
