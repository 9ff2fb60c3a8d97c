#!/usr/bin/env bash
# The Ansible test drives Debian's ansible-core (ansible.builtin only, no Galaxy collections); a fresh machine lacks it.
set -euo pipefail
if command -v ansible-playbook >/dev/null; then exit 0; fi
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null; then
  echo "ensure-ansible: ansible-playbook is missing and we are not root on Debian; the Ansible test will be skipped" >&2
  exit 0
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends ansible-core >/dev/null
echo "ensure-ansible: installed $(ansible-playbook --version | sed -n 1p)"
