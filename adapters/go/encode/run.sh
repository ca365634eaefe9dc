#!/bin/sh
# Runs the Go encoder adapter (main.go beside this script) through ../run.sh, which
# installs Go if it is missing and builds main.go into .cache/ here on first use.
# Usage: adapters/go/encode/run.sh [encoderune|appendrune|string]
here=$(cd "$(dirname "$0")" && pwd)
GO_ADAPTER_DIR="$here" GO_ADAPTER_NAME=go-encode-adapter exec "$here/../run.sh" "$@"
