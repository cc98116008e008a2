#!/bin/bash
# The capture tool must see records sent to /dev/log by the command and by a
# different, unprivileged user, and leave the host's /dev untouched.
set -u
cap="$1"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
echo "1..5"
if [ "$(id -u)" != 0 ]; then
	echo "ok 1 # SKIP needs root"; echo "ok 2 # SKIP"; echo "ok 3 # SKIP"; echo "ok 4 # SKIP"; echo "ok 5 # SKIP"
	exit 0
fi
had_log=no; [ -e /dev/log ] && had_log=yes
"$cap" "$out" -- sh -c 'logger -t postern-test "event=test value=\"a b\""; setpriv --reuid=65534 --regid=65534 --clear-groups logger -t nobody-test "from nobody"; exit 3'
rc=$?
[ "$rc" = 3 ] && echo "ok 1 - exit status passed through" || echo "not ok 1 - exit status $rc"
grep -q ' postern-test.*: event=test value="a b"$' "$out" && echo "ok 2 - record captured" || { echo "not ok 2 - record missing"; cat "$out" >&2; }
grep -q 'nobody-test.*from nobody' "$out" && echo "ok 3 - unprivileged sender captured" || echo "not ok 3 - unprivileged record missing"
now_log=no; [ -e /dev/log ] && now_log=yes
[ "$had_log" = "$now_log" ] && echo "ok 4 - host /dev unchanged" || echo "not ok 4 - host /dev/log changed"
"$cap" "$out" -- setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c 'import os; m, s = os.openpty(); print(os.ttyname(s))' >/dev/null 2>&1 &&
	echo "ok 5 - an unprivileged user can open a pseudo-terminal inside" ||
	echo "not ok 5 - no pseudo-terminal inside"
