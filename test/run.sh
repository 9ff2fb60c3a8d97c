#!/bin/sh
# Node's test runner (the arguments are its own) with a temporary folder of the run's own as TMPDIR, removed when the
# run ends however it ends: a run makes thousands of state dirs, plans and payloads, which piled up in /tmp.
run_tmp=$(mktemp -d "${TMPDIR:-/tmp}/stratum-tests-XXXXXX") || exit 1
# As /tmp is: tests run installers as other users (nobody), who must reach their own folders in it.
chmod 1777 "$run_tmp" || exit 1
trap 'rm -rf "$run_tmp"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
TMPDIR=$run_tmp node --import tsx --test "$@"
