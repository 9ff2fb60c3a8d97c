#!/bin/sh
# Node's test runner (the arguments are its own) with a temporary folder of the run's own as TMPDIR, removed when the
# run ends however it ends: a run makes thousands of state dirs, plans and payloads, which piled up in /tmp.
run_tmp=$(mktemp -d "${TMPDIR:-/tmp}/stratum-tests-XXXXXX") || exit 1
# As /tmp is: tests run installers as other users (nobody), who must reach their own folders in it.
chmod 1777 "$run_tmp" || exit 1
trap 'rm -rf "$run_tmp"' EXIT
# In the background, so that a signal sent to this script alone (a CI's timeout) reaches the runner now: while a
# command runs in the foreground, sh holds a trapped signal until the command ends. Node restores SIGINT, which sh
# ignores in a background command; Ctrl-C reaches both, as before.
TMPDIR=$run_tmp node --import tsx --test "$@" &
runner=$!
trap 'kill -INT "$runner" 2>/dev/null' INT
trap 'kill -TERM "$runner" 2>/dev/null' TERM
trap 'kill -HUP "$runner" 2>/dev/null' HUP
status=0
wait "$runner" || status=$?
# A trapped signal ends that wait early: the runner's own end is waited for, and its status is the run's.
while kill -0 "$runner" 2>/dev/null; do
  status=0
  wait "$runner" || status=$?
done
exit "$status"
