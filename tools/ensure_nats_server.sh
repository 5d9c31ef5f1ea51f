#!/usr/bin/env bash
# Installs nats-server (Debian package, 2.9.x) when it is missing: the worker-pool tests start
# their own server on 127.0.0.1 with JetStream, so none of them is skipped on a fresh machine.
set -euo pipefail
command -v nats-server >/dev/null 2>&1 && exit 0
if [[ "$(id -u)" == 0 ]]; then
  as_root=()
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "error [NATS_SERVER_MISSING]: Cannot install nats-server: not root and no password-less sudo (install the Debian package nats-server)" >&2
  exit 2
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "error [NATS_SERVER_MISSING]: Cannot install nats-server: no apt-get (install nats-server 2.9 or later)" >&2
  exit 2
fi
export DEBIAN_FRONTEND=noninteractive
echo "installing nats-server (Debian package) for the worker-pool tests" >&2
if ! { "${as_root[@]}" apt-get install -y -q nats-server >/dev/null 2>&1 ||
  { "${as_root[@]}" apt-get update -q >/dev/null && "${as_root[@]}" apt-get install -y -q nats-server >/dev/null; }; }; then
  echo "error [NATS_SERVER_MISSING]: Cannot install nats-server: apt-get failed (offline, or no nats-server in the package sources; install nats-server 2.9 or later)" >&2
  exit 2
fi
if ! command -v nats-server >/dev/null; then
  echo "error [NATS_SERVER_MISSING]: Cannot find nats-server after installing the package" >&2
  exit 2
fi
