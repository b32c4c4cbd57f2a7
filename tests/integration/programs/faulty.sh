#!/usr/bin/env bash
# The JavaScript example port behind a bash loop that misbehaves (tests/integration/test_faults.py).
# faulty.sh MODE N: exit-start (exit 3 before the handshake), crash (exit 7 on the Nth run
# request), orphan (leave a child holding stdout and exit 5 on the Nth), hang (on the Nth),
# linger-on-stop (leave a child behind when told to stop).
mode=$1 n=${2:-0} count=0
if [ "$mode" = exit-start ]; then echo "faulty.sh: exiting before the handshake" >&2; exit 3; fi
coproc PORT { exec node "$(dirname "$0")/../../../examples/js/eventproof-port.mjs"; }
while IFS= read -r line; do
  case $line in
    *'"cmd":"stop"'*) [ "$mode" = linger-on-stop ] && sleep 300 >/dev/null 2>&1 & exit 0 ;;
    *'"cmd":"run"'*) count=$((count + 1)) ;;
  esac
  if [ "$count" = "$n" ]; then
    case $mode in
      crash) echo "faulty.sh: crashing on request $count" >&2; exit 7 ;;
      orphan) sleep 300 & exit 5 ;;
      hang) sleep 3600 ;;
    esac
  fi
  printf '%s\n' "$line" >&"${PORT[1]}"
  IFS= read -r answer <&"${PORT[0]}"
  printf '%s\n' "$answer"
done
