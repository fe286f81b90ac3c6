#!/bin/sh
# Install the real services the adapter tests start on loopback: podman with
# runc (crun fails on cgroups on these machines), a static busybox for the
# test image's root file system, and OpenSSH for the "VM over SSH" target.
# Idempotent: safe to run again on a machine that already has them.
set -eu

# procps: the SSH tests check with pgrep that master connections are closed.
packages="podman runc busybox-static openssh-server openssh-client procps"

# shellcheck disable=SC2086  # word splitting of the package list is intended
sh "$(dirname "$0")/apt-install.sh" $packages

# sshd refuses to start without its privilege-separation directory.
mkdir -p /run/sshd
# The Debian package starts a system sshd on port 22 where an init system
# runs; the tests start their own on a free loopback port and need none.
