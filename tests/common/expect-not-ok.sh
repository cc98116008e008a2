#!/bin/sh
# expect-not-ok.sh DESCRIPTION TEST [ARG...]: a test of a test's refusal.
# TEST run with ARGs must fail the way it means to: exit 1 having printed
# "not ok N - DESCRIPTION", neither pass nor break (a test that cannot
# source tap.sh, or dies, exits otherwise or prints no such line).
. "$(dirname "$0")/tap.sh"
want=$1
shift
out=$("$@" 2>&1)
rc=$?
if [ "$rc" = 1 ] && printf '%s\n' "$out" | sed -n 's/^not ok [0-9]* - //p' | grep -q -F -x -e "$want"; then
	ok "$(basename "$1") fails: $want"
else
	not_ok "$(basename "$1") should fail with \"not ok - $want\"; it exited $rc" "$out"
fi
finish
