#!/bin/bash
# The capture tool must see records sent to /dev/log by the command and by a
# different, unprivileged user, and leave the host's /dev untouched.
set -u
cap="$1"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
. "$(dirname "$0")/tap.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root"
had_log=no; [ -e /dev/log ] && had_log=yes
"$cap" "$out" -- sh -c 'logger -t postern-test "event=test value=\"a b\""; setpriv --reuid=65534 --regid=65534 --clear-groups logger -t nobody-test "from nobody"; exit 3'
rc=$?
[ "$rc" = 3 ] && ok "exit status passed through" || not_ok "exit status $rc"
grep -q ' postern-test.*: event=test value="a b"$' "$out" && ok "record captured" || { not_ok "record missing"; cat "$out" >&2; }
grep -q 'nobody-test.*from nobody' "$out" && ok "unprivileged sender captured" || not_ok "unprivileged record missing"
now_log=no; [ -e /dev/log ] && now_log=yes
[ "$had_log" = "$now_log" ] && ok "host /dev unchanged" || not_ok "host /dev/log changed"
"$cap" "$out" -- setpriv --reuid=65534 --regid=65534 --clear-groups /usr/bin/python3 -c 'import os; m, s = os.openpty(); print(os.ttyname(s))' >/dev/null 2>&1 &&
	ok "an unprivileged user can open a pseudo-terminal inside" ||
	not_ok "no pseudo-terminal inside"
finish
