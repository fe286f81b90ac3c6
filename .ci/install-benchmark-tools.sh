#!/bin/sh
# Install the benchmark tools whose real output the importer tests read:
# hyperfine, Google Benchmark (library and headers, built with g++) and Go
# (for `go test -bench`). pyperf, pytest-benchmark and asv come from PyPI
# with the dev extra. Idempotent.
set -eu

packages="hyperfine libbenchmark-dev g++ golang-go git"

missing=""
for p in $packages; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
        missing="$missing $p"
    fi
done

if [ -n "$missing" ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    # shellcheck disable=SC2086  # word splitting of the package list is intended
    apt-get install -y -q --no-install-recommends $missing
fi
