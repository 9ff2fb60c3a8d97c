#!/usr/bin/env bash
# The Ansible tests drive Debian's ansible-core (the stratum.installer collection under ansible/ needs nothing
# else) and lint it with Debian's ansible-lint; a fresh machine lacks them.
set -euo pipefail
want=()
command -v ansible-playbook >/dev/null || want+=(ansible-core)
command -v ansible-lint >/dev/null || want+=(ansible-lint)
if [ ${#want[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "ensure-ansible: ${want[*]} missing and we are not root on Debian; the tests that need them will be skipped" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${want[@]}" >/dev/null
echo "ensure-ansible: installed $(ansible-playbook --version | sed -n 1p), $(ansible-lint --version 2>/dev/null | sed -n 1p)"
