#!/bin/sh
# expect_status.sh STATUS PATTERN command...: runs the command, shows its output, and passes
# when it exits with STATUS and its output matches the extended regular expression PATTERN
# ("" matches anything).
want=$1
pattern=$2
shift 2
out=$("$@" 2>&1)
got=$?
printf '%s\n' "$out"
if [ "$got" -ne "$want" ]; then
  echo "expect_status.sh: exit status $got, want $want"
  exit 1
fi
if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
  echo "expect_status.sh: no output line matches '$pattern'"
  exit 1
fi
exit 0
