#!/bin/bash
# The debounced mirror_sync survives a restart: a change whose sync was
# still waiting for the interval when the daemon was killed is synced as
# soon as the daemon is back (<state>/history/sync.pending).
#
# test-installd-sync.sh SYSLOG_CAPTURE PRIVATE_ETC INSTALLD DRIVER ABUSE WORKDIR CHECKER
set -u
. "$(dirname "$0")/lib-installd.sh"
enter_fixture "$@"
echo "1..4"
# An interval no run of this test reaches: the second change must wait.
sed -i 's/^mirror_sync_interval: .*/mirror_sync_interval: 3600/' /etc/postern/postern.yaml
syncs() { wc -l < "$R/hooks/sync.log" 2>/dev/null || echo 0; }

start_daemon
make_tarball ptinst-m ptmod-1.0.tar.xz
client ptinst-m install-module ptmod-1.0.tar.xz >/dev/null 2>&1
wait_until test -s "$R/hooks/sync.log"
wait_until sh -c "[ ! -e '$R/state/history/sync.pending' ]"
[ "$(syncs)" = 1 ] && ok "the first change is synced at once, and nothing is left pending" || not_ok "first sync: $(syncs)"
make_tarball ptinst-m ptmod-1.1.tar.xz
client ptinst-m install-module ptmod-1.1.tar.xz >/dev/null 2>&1
[ "$(syncs)" = 1 ] && [ -e "$R/state/history/sync.pending" ] &&
	ok "the second waits for the interval, recorded in <state>/history/sync.pending" || not_ok "second: $(syncs)"
kill_daemon
start_daemon
wait_until sh -c "[ \$(wc -l < '$R/hooks/sync.log') -ge 2 ]"
[ "$(syncs)" = 2 ] && ok "after kill -9 and a restart, the waiting sync runs" || not_ok "after restart: $(syncs)"
kill_daemon
start_daemon
sleep 1
[ "$(syncs)" = 2 ] && ok "and only once: another restart syncs nothing" || not_ok "again: $(syncs)"
trap - EXIT
kill_daemon
[ "$failed" = 0 ]
