#!/bin/bash
# test-rsyslog.sh AUDIT GEN_TRAIL PRIVATE_ETC SRCDIR
#
# postern-audit over files written by a real rsyslogd: one of our own, in a
# private mount namespace (its own /run and /dev, the host's logging
# untouched), writing the release day of gen-trail in the three layouts it
# can use for /var/log/auth.log: traditional (Debian's default), its ISO
# file format, and RFC 5424. A local user's logger forgeries go through the
# same rsyslogd, which escapes their raw control characters as #ooo.
set -u
audit=$1 gen=$(readlink -f "$2") private_etc=$3 src=$4
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] && command -v rsyslogd >/dev/null || skip_all "needs root and rsyslogd"
audit_work
layouts="RSYSLOG_TraditionalFileFormat RSYSLOG_FileFormat RSYSLOG_SyslogProtocol23Format"
mkdir "$work/spool"
{
	echo 'module(load="imuxsock")'
	echo "global(workDirectory=\"$work/spool\")"
	for t in $layouts; do
		echo "authpriv.* action(type=\"omfile\" file=\"$work/$t.log\" template=\"$t\")"
	done
	echo "user.* action(type=\"omfile\" file=\"$work/sentinel.log\")"
} >"$work/rsyslog.conf"

cat >"$work/inside.sh" <<'INSIDE'
set -eu
gen=$1 work=$2
. "$3"
. "$4"
audit_private_run_dev "$work"
rsyslogd -n -f "$work/rsyslog.conf" -i "$work/rsyslogd.pid" >"$work/rsyslogd.out" 2>&1 &
rpid=$!
for _ in $(seq 100); do [ -S /dev/log ] && break; sleep 0.05; done
acct_user ptau-mallory -M -N
"$gen" syslog
s="user=ptau-alice from=192.0.2.7 port=50122 sid=6f11660f5822bf26"
as() { setpriv --reuid=ptau-mallory --regid=users --clear-groups "$@"; }
as logger -p authpriv.notice -t postern-shell "$(printf "event=command_deny $s command=\"a\nevent=install_ok user=ptau-mallory\"")"
as logger -p authpriv.notice -t postern-shell "$(printf "event=command_deny $s command=\"\t\"")"
as logger -p authpriv.notice -t postern "event=install_ok $s module=gtk version=6 file=gtk-6.tar.xz maintainer=yes"
as logger -p authpriv.notice -t postern-installd "$(printf "event=install_ok $s module=\"\377\"")"
# One input, one queue: once the sentinel is written, everything sent
# before it has been. A fixed sleep would be a guess on a loaded machine.
logger -p user.notice -t sentinel "end of the test trail"
for _ in $(seq 300); do grep -qs "end of the test trail" "$work/sentinel.log" && break; sleep 0.05; done
kill "$rpid"
wait "$rpid" || true
INSIDE
"$private_etc" bash "$work/inside.sh" "$gen" "$work" "$(dirname "$private_etc")/lib-accounts.sh" "$src/lib.sh"

{ cat "$src/data/gen-trail.expected"; echo "suspicious 4"; } >"$work/expected"
for t in $layouts; do
	POSTERN_AUDIT=$audit "$src/check-e2e-trail.sh" "$work/$t.log" "$work/expected" >"$work/$t.tap" 2>&1
	rc=$?
	result $rc "$t: releases, sessions and summary; 4 forgeries reported"
	[ $rc = 0 ] || { sed 's/^/# /' "$work/$t.tap"; head -c 3000 "$work/$t.log" | sed 's/^/# /'; sed 's/^/# /' "$work/rsyslogd.out"; }
done
grep -q 'command="a#012event=install_ok' "$work/RSYSLOG_TraditionalFileFormat.log"
result $? "rsyslogd escaped the forged newline as #012, in one line"
"$audit" -q "$work/RSYSLOG_TraditionalFileFormat.log" 2>&1 >/dev/null | grep -c '#012, how rsyslog writes' >"$work/n012"
test "$(cat "$work/n012")" = 1
result $? "postern-audit names the #012"
finish
