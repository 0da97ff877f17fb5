#!/usr/bin/env bash
# Installs what the Bash sandbox needs on Linux (bubblewrap and socat) when they are missing and
# this machine's package manager can be used without a password: the sandbox's tests run it for
# real. Never fails: without them, a run with the sandbox on says what to install.
set -uo pipefail
[ "$(uname -s)" = "Linux" ] || exit 0
command -v bwrap >/dev/null && command -v socat >/dev/null && exit 0
command -v apt-get >/dev/null || exit 0
if [ "$(id -u)" -eq 0 ]; then sudo=(); elif sudo -n true 2>/dev/null; then sudo=(sudo -n); else exit 0; fi
echo "harness: installing bubblewrap and socat for the Bash sandbox" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get install -y -qq bubblewrap socat >/dev/null 2>&1 ||
  { "${sudo[@]}" apt-get update -qq >/dev/null 2>&1 && "${sudo[@]}" apt-get install -y -qq bubblewrap socat >/dev/null 2>&1; } ||
  echo "harness: could not install bubblewrap and socat; the sandbox's tests will say so" >&2
exit 0
