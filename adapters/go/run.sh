#!/bin/sh
# Runs the Go adapter: if no `go` is on PATH, installs Debian's golang-go with
# apt-get (saying so on stderr); builds main.go into .cache/ beside this script on
# first use (or when the source is newer than the binary); then replaces itself
# with the binary. Everything the build prints goes to stderr, because stdout is
# the protocol channel.
# Usage: adapters/go/run.sh [range|tovalid]
# Another Go adapter (encode/run.sh) runs through this script with GO_ADAPTER_DIR (the
# folder of its main.go) and GO_ADAPTER_NAME (its binary's name) set.
set -eu
here=${GO_ADAPTER_DIR:-$(cd "$(dirname "$0")" && pwd)}
name=${GO_ADAPTER_NAME:-go-adapter}
cache="$here/.cache"
binary="$cache/$name"

install_go() {
    echo "go adapter: no 'go' on PATH; installing golang-go with apt-get" >&2
    if [ "$(id -u)" -eq 0 ]; then
        as_root=""
    elif command -v sudo >/dev/null 2>&1; then
        as_root="sudo"
    else
        echo "go adapter: installing golang-go needs root (or sudo); install Go and retry" >&2
        exit 1
    fi
    # The package lists may be missing or stale on a fresh machine: refresh and retry once.
    if ! DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y golang-go >&2; then
        $as_root apt-get update >&2
        DEBIAN_FRONTEND=noninteractive $as_root apt-get install -y golang-go >&2
    fi
}

if [ ! -x "$binary" ] || [ -n "$(find "$here/main.go" -newer "$binary")" ]; then
    command -v go >/dev/null 2>&1 || install_go
    echo "go adapter: building main.go into $cache" >&2
    mkdir -p "$cache"
    # Build under a private name, then rename, so concurrent starts never run a
    # half-written binary. GOTOOLCHAIN=local: build with the installed toolchain
    # rather than downloading another one. The build cache defaults to one under
    # .cache/ so that the build works without a HOME.
    staging=$(mktemp "$cache/$name.XXXXXX")
    trap 'rm -f "$staging"' EXIT
    (cd "$here" && GOTOOLCHAIN=local GOCACHE="${GOCACHE:-$cache/go-build}" go build -o "$staging" main.go) >&2
    mv -f "$staging" "$binary"
fi
exec "$binary" "$@"
