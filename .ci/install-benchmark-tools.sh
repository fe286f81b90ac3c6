#!/bin/sh
# Install the benchmark tools whose real output the importer tests read:
# hyperfine, Google Benchmark (library and headers, built with g++) and Go
# (for `go test -bench`), criterion.rs 0.3 as Debian's Rust source crates
# (under /usr/share/cargo/registry, which cargo builds from offline; cargo
# itself is rustup's, under ~/.cargo/bin on these machines), and perf, whose
# counters a local command may record. pyperf, pytest-benchmark and asv come
# from PyPI with the dev extra. Idempotent.
set -eu

packages="hyperfine libbenchmark-dev g++ golang-go git linux-perf librust-criterion-dev"

# shellcheck disable=SC2086  # word splitting of the package list is intended
sh "$(dirname "$0")/apt-install.sh" $packages
