#!/usr/bin/env bash
# Demo stand-in for /usr/lib/stratum/firstboot: reads node.yaml, prints progress, exits.
#   FIRSTBOOT_DELAY=S   seconds between progress lines (default 0.3)
#   FIRSTBOOT_FAIL=1    fail part way with exit 1
#   FIRSTBOOT_FAIL_HOST=NAME  fail part way with exit 1 on the node whose node.yaml names hostname NAME only
#   FIRSTBOOT_FLOOD=N   print N lines as fast as possible, then exit 0
set -euo pipefail

node_yaml="${1:-}"
if [[ -z "$node_yaml" || ! -f "$node_yaml" ]]; then
  echo "[firstboot] error: node.yaml not found: ${node_yaml:-(no path given)}" >&2
  exit 3
fi

if [[ -n "${FIRSTBOOT_FLOOD:-}" ]]; then
  if [[ ! "$FIRSTBOOT_FLOOD" =~ ^[0-9]+$ ]]; then
    echo "[firstboot] error: FIRSTBOOT_FLOOD must be a whole number, got '$FIRSTBOOT_FLOOD'" >&2
    exit 2
  fi
  # seq writes in large blocks; a bash loop would make the producer the bottleneck of a benchmark.
  seq -f "[firstboot] flood line %.0f of $FIRSTBOOT_FLOOD" 1 "$FIRSTBOOT_FLOOD"
  exit 0
fi

delay="${FIRSTBOOT_DELAY:-0.3}"
# The installer's node.yaml quotes its strings ("eno1"): the name without them.
interface="$(sed -n 's/^[[:space:]]*interface:[[:space:]]*["'"'"']\{0,1\}\([^[:space:]#"'"'"']*\).*/\1/p' "$node_yaml" | head -n 1)"

step() {
  echo "[firstboot] $*"
  sleep "$delay"
}

step "reading $node_yaml"
step "configuring network on ${interface:-eno1}"
step "setting hostname and timezone"
echo "[firstboot] warning: NTP server did not answer yet, retrying in background" >&2
step "starting container runtime"
step "pulling images 3/12"
if [[ "${FIRSTBOOT_FAIL:-}" == "1" ]] || { [[ -n "${FIRSTBOOT_FAIL_HOST:-}" ]] && grep -Eq "^hostname:[[:space:]]*[\"']?${FIRSTBOOT_FAIL_HOST}[\"']?[[:space:]]*$" "$node_yaml"; }; then
  echo "[firstboot] error: image stratum/ceph-mon:2026.11.0 failed checksum verification" >&2
  exit 1
fi
step "pulling images 7/12"
step "pulling images 12/12"
step "bootstrapping ceph mon"
echo "[firstboot] warning: clock skew 0.08s detected against ntp peer" >&2
step "bootstrapping ceph mgr"
step "preparing osd devices"
step "starting control plane services"
step "registering node with cluster"
echo "[firstboot] done; the cloud will report readiness on its own"
