#!/bin/sh
# Install the benchmark tools whose real output the importer tests read:
# hyperfine, Google Benchmark (library and headers, built with g++) and Go
# (for `go test -bench`), and perf, whose counters a local command may
# record. pyperf, pytest-benchmark and asv come from PyPI with the dev
# extra. Idempotent.
set -eu

packages="hyperfine libbenchmark-dev g++ golang-go git linux-perf"

# shellcheck disable=SC2086  # word splitting of the package list is intended
sh "$(dirname "$0")/apt-install.sh" $packages
