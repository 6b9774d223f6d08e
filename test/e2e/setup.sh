#!/usr/bin/env bash
# Installs what the end-to-end test needs to run the extension in a real VS Code on this machine:
# code-server 4.100.3 (VS Code 1.100.3, the last line on Node 20), Debian's Chromium, and
# playwright-core to drive it. Idempotent; cached under .cache/ (ignored by git).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
CACHE="$ROOT/.cache/e2e"
mkdir -p "$CACHE"

need_apt=()
for pkg in chromium ripgrep pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev git; do
  dpkg -s "$pkg" >/dev/null 2>&1 || need_apt+=("$pkg")
done
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "e2e setup: installing ${need_apt[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

if [ ! -x "$CACHE/node_modules/.bin/code-server" ]; then
  echo "e2e setup: installing code-server 4.100.3 (a few minutes)"
  # @vscode/ripgrep downloads rg from GitHub unless a tarball is already in its cache: give it Debian's.
  RG_CACHE="${TMPDIR:-/tmp}/vscode-ripgrep-cache-1.15.11"
  for v in 1.15.9 1.15.10 1.15.11 1.15.12 1.15.13 1.15.14; do
    d="${TMPDIR:-/tmp}/vscode-ripgrep-cache-$v"
    mkdir -p "$d"
    if [ ! -f "$d/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" ]; then
      tmp=$(mktemp -d)
      cp /usr/bin/rg "$tmp/rg"
      tar -czf "$d/ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz" -C "$tmp" rg
      rm -rf "$tmp"
    fi
  done
  : "$RG_CACHE"
  (cd "$CACHE" && [ -f package.json ] || echo '{"name":"e2e-cache","private":true}' > "$CACHE/package.json")
  (cd "$CACHE" && npm_config_yes=true npm_config_unsafe_perm=true npm_config_dangerously_allow_all_scripts=true npm install --no-audit --no-fund code-server@4.100.3 playwright-core@1 >"$CACHE/install.log" 2>&1) || {
    tail -40 "$CACHE/install.log"
    exit 1
  }
fi
echo "e2e setup: ready ($("$CACHE/node_modules/.bin/code-server" --version | head -1))"
