#!/usr/bin/env bash
# Installs the programs the tests use for real on Linux when they are missing and this machine's
# package manager can be used without a password: bubblewrap and socat, which the Bash sandbox needs,
# qpdf, which checks the PDFs Read writes, and Chromium, in which the client SDK is driven as a web
# page uses it. Never fails: without them, a run with the sandbox on says what to install, the PDF
# check says it was skipped, and the browser test fails naming what is missing.
set -uo pipefail
[ "$(uname -s)" = "Linux" ] || exit 0
command -v apt-get >/dev/null || exit 0
if [ "$(id -u)" -eq 0 ]; then sudo=(); elif sudo -n true 2>/dev/null; then sudo=(sudo -n); else exit 0; fi
export DEBIAN_FRONTEND=noninteractive
updated=0

# install WHY PACKAGE... : one apt transaction per need, so that one missing package keeps no other out.
install() {
  local why="$1"
  shift
  echo "harness: installing $* for $why" >&2
  "${sudo[@]}" apt-get install -y -qq "$@" >/dev/null 2>&1 && return
  if [ "$updated" -eq 0 ]; then
    updated=1
    "${sudo[@]}" apt-get update -qq >/dev/null 2>&1 && "${sudo[@]}" apt-get install -y -qq "$@" >/dev/null 2>&1 && return
  fi
  echo "harness: could not install $*; the tests that need them will say so" >&2
}

command -v bwrap >/dev/null && command -v socat >/dev/null || install "the Bash sandbox" bubblewrap socat
command -v qpdf >/dev/null || install "checking the PDFs Read writes" qpdf
command -v chromium >/dev/null || install "the client SDK's browser test" chromium
exit 0
