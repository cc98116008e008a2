#!/bin/bash
# A clock set back never reopens the delete window: the daemon keeps the
# latest time it has seen in <state>/history/clock, and delete-own refuses
# while the clock is behind it. The daemon runs under faketime (libfaketime),
# stepped forward past the window, then back inside it, then back before
# the install; the release team is not bound by the window, nor by this.
#
# test-installd-clock.sh SYSLOG_CAPTURE PRIVATE_ETC INSTALLD DRIVER ABUSE WORKDIR CHECKER
set -u
. "$(dirname "$0")/lib-installd.sh"
enter_fixture "$@"
command -v faketime >/dev/null || skip_all "faketime is not installed (Build-Depends)"
echo "1..7"
clock() { cat "$R/state/history/clock" 2>/dev/null; }

start=$(date +%s)
start_daemon
[ "$(clock)" -ge "$start" ] 2>/dev/null && ok "the daemon's start records the time it saw" || not_ok "clock at start: $(clock)"
make_tarball ptinst-m ptmod-1.0.tar.xz
check "an install" client ptinst-m install-module ptmod-1.0.tar.xz
kill_daemon

# The window (delete_window: 3600) is over two hours later.
start_daemon faketime -f +2h
out=$(client ptinst-m delete-own ptmod-1.0.tar.xz 2>&1)
[ $? -ne 0 ] && grep -q "installed 2 hours ago; you may delete your own releases only within 1 hour" <<<"$out" &&
	[ "$(clock)" -ge $((start + 7200)) ] &&
	ok "two hours later: the window is shut, and the later time is kept" || not_ok "+2h: $out $(clock)"
kill_daemon

# Set back to half an hour after the install: inside the window by the install's time.
start_daemon faketime -f +30m
out=$(client ptinst-m delete-own ptmod-1.0.tar.xz 2>&1)
[ $? -ne 0 ] && grep -q "the server's clock is 1 hour behind a time it has already seen (an earlier request): it was set back" <<<"$out" &&
	[ -e "$R/pub/sources/ptmod/1.0/ptmod-1.0.tar.xz" ] &&
	ok "set back into the window: refused, the release stays" || not_ok "+30m: $out"
audit_has delete_refused "rule=clock_not_behind" && ok "audit: the refusal names the rule" || not_ok "audit clock_not_behind"
kill_daemon

# Before the install itself: three hours behind less the seconds since the
# +2h request, shown in whole hours rounded down.
start_daemon faketime -f -1h
out=$(client ptinst-m delete-own ptmod-1.0.tar.xz 2>&1)
[ $? -ne 0 ] && grep -Eq "clock is [23] hours behind a time it has already seen" <<<"$out" &&
	ok "set back before the install: refused" || not_ok "-1h: $out"
kill_daemon

# Once the administrator finds the later time was the wrong one and removes it,
# the window counts from the install again (real time: 1.0 is minutes old).
rm "$R/state/history/clock"
start_daemon
check "with the clock right again, the installer deletes within the window" client ptinst-m delete-own ptmod-1.0.tar.xz
trap - EXIT
kill_daemon
[ "$failed" = 0 ]
