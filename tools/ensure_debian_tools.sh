#!/usr/bin/env bash
# Installs the Debian packages the tests run when they are missing, so that none of those tests is
# skipped on a fresh machine: nats-server (2.9.x; the worker-pool tests start their own server on
# 127.0.0.1 with JetStream) and openssl (`openssl ts` plays a local RFC 3161 TSA in the timestamp
# tests). Each stops with its own code and exit 2 when it cannot be installed.
set -euo pipefail

# command, package, error code, what the tests use it for
TOOLS=(
  "nats-server|nats-server|NATS_SERVER_MISSING|the worker-pool tests"
  "openssl|openssl|OPENSSL_MISSING|the timestamp tests (a local RFC 3161 TSA)"
)

missing=()
for entry in "${TOOLS[@]}"; do
  IFS='|' read -r cmd _ _ _ <<<"$entry"
  command -v "$cmd" >/dev/null 2>&1 || missing+=("$entry")
done
[[ ${#missing[@]} -eq 0 ]] && exit 0

if [[ "$(id -u)" == 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  as_root=(none)
fi
export DEBIAN_FRONTEND=noninteractive
updated=0
for entry in "${missing[@]}"; do
  IFS='|' read -r cmd pkg code why <<<"$entry"
  if [[ "${as_root[*]}" == none ]]; then
    echo "error [$code]: Cannot install $pkg: not root and no password-less sudo (install the Debian package $pkg)" >&2
    exit 2
  fi
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "error [$code]: Cannot install $pkg: no apt-get (install $pkg)" >&2
    exit 2
  fi
  echo "installing $pkg (Debian package) for $why" >&2
  if ! "${as_root[@]}" apt-get install -y -q "$pkg" >/dev/null 2>&1; then
    if [[ $updated == 0 ]] && "${as_root[@]}" apt-get update -q >/dev/null 2>&1; then updated=1; fi
    if ! "${as_root[@]}" apt-get install -y -q "$pkg" >/dev/null 2>&1; then
      echo "error [$code]: Cannot install $pkg: apt-get failed (offline, or no $pkg in the package sources; install $pkg)" >&2
      exit 2
    fi
  fi
  if ! command -v "$cmd" >/dev/null; then
    echo "error [$code]: Cannot find $cmd after installing the package" >&2
    exit 2
  fi
done
