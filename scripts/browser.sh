#!/usr/bin/env bash
# scripts/browser.sh - the headless browser of the end-to-end tests (Debian's chromium), installed when missing.
#   bash scripts/browser.sh          install if missing; print the browser's path
#   bash scripts/browser.sh path     print the path only (exit 3 when there is none)
#
# The pinned version is installed when the Debian archive still has it; Debian replaces a chromium package with each
# security release, so when the pinned one is gone the archive's current one is installed instead (and said so).
# The downloaded packages are kept in $ZGW_CACHE_DIR/apt (default ~/.cache/zgw/apt), so a reinstall reads them
# from there. Needs root and apt-get; anywhere else, install chromium yourself or set ZGW_CHROMIUM to its path.
#
# Environment:
#   ZGW_CHROMIUM          a browser to use as it is (skips the install)
#   ZGW_CHROMIUM_VERSION  the Debian package version to install (default below)
set -euo pipefail

CHROMIUM_VERSION="${ZGW_CHROMIUM_VERSION:-156.0.8078.79-1~deb12u1}"   # Debian 12 (bookworm) security archive
CACHE_DIR="${ZGW_CACHE_DIR:-${HOME:?HOME is not set}/.cache/zgw}"
APT_CACHE="$CACHE_DIR/apt"

note() { echo "browser: $*" >&2; }

found() {
  local p
  for p in "${ZGW_CHROMIUM:-}" /usr/bin/chromium /usr/bin/chromium-browser; do
    if [[ -n "$p" && -x "$p" ]]; then echo "$p"; return 0; fi
  done
  return 1
}

if [[ "${1:-}" == path ]]; then found || exit 3; exit 0; fi
if found; then exit 0; fi

command -v apt-get >/dev/null 2>&1 && [[ "$(id -u)" == 0 ]] ||
  { note "chromium is missing; install it (Debian: apt-get install chromium) or set ZGW_CHROMIUM"; exit 1; }
mkdir -p "$APT_CACHE/partial"
LOG="$APT_CACHE/install.log"
apt() { DEBIAN_FRONTEND=noninteractive apt-get -qq -o Dir::Cache::archives="$APT_CACHE" "$@" >>"$LOG" 2>&1; }
note "installing chromium $CHROMIUM_VERSION (apt-get; packages kept in $APT_CACHE)"
: > "$LOG"
apt update || { tail -20 "$LOG" >&2; note "apt-get update failed"; exit 1; }
if ! apt install -y --no-install-recommends "chromium=$CHROMIUM_VERSION"; then
  note "chromium $CHROMIUM_VERSION is no longer in the archive; installing its current version"
  apt install -y --no-install-recommends chromium || { tail -20 "$LOG" >&2; note "apt-get install chromium failed"; exit 1; }
fi
found || { note "chromium installed but not found"; exit 1; }
note "installed $(dpkg-query -W -f='${Version}' chromium 2>/dev/null)"
