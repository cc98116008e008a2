#!/bin/bash
# postern-installd when its audit records cannot be delivered (docs/AUDIT.md):
# with no /dev/log and no journal, and with a /dev/log that refuses every
# record, an install and a deletion are refused with a message that says
# what to do, and change nothing (the upload stays in incoming, the tree and
# the ledger are as they were); list goes on. With audit.on_failure:
# continue the install goes on. The daemon runs in the namespace that
# syslog-capture --log=absent|refusing gives it; the client keeps the
# fixture's /dev/log.
. "$(dirname "$0")/lib-installd.sh"
enter_fixture "$@"
CAPTURE=$1
echo "1..13"

# start_nolog MODE: the daemon with no way to deliver its records.
start_nolog() {
	[ -n "$CHECKD" ] || start_checker
	[ -n "$SIGND" ] || start_signer
	rm -f "$R/run/installd.sock"
	setsid "$CAPTURE" --log="$1" "$R/nolog.log" -- "$INSTALLD" -C /etc/postern/postern.yaml \
		--user ptinst-d --socket-group ptinst-up --socket "$R/run/installd.sock" \
		--check-socket "$R/run/check.sock" --log-socket "$R/run/logsign.sock" 2>>"$R/daemon.err" &
	DAEMON=$!
	wait_until test -S "$R/run/installd.sock"
}

start_daemon
make_tarball ptinst-m ptmod-1.0.tar.xz
check "a first release, with the records delivered" client ptinst-m install-module ptmod-1.0.tar.xz
kill_daemon
make_tarball ptinst-m ptmod-1.1.tar.xz
before=$(tree_state)
ledger=$(sha256sum <"$R/state/ledger")

for mode in absent refusing; do
	start_nolog "$mode"
	out=$(client ptinst-m install-module ptmod-1.1.tar.xz 2>&1)
	rc=$?
	[ $rc != 0 ] && printf '%s' "$out" | grep -q "refused, nothing changed: audit records cannot be delivered (/dev/log " &&
		printf '%s' "$out" | grep -q "start rsyslog or systemd-journald" &&
		ok "$mode /dev/log: install refused, saying what to do" || not_ok "$mode: install: rc $rc: $out"
	[ -e "$R/incoming/ptinst-m/ptmod-1.1.tar.xz" ] && [ "$(tree_state)" = "$before" ] &&
		[ "$(sha256sum <"$R/state/ledger")" = "$ledger" ] &&
		ok "$mode: the upload stays in incoming, tree and ledger unchanged" || not_ok "$mode: something changed"
	out=$(client ptinst-m delete-own ptmod-1.0.tar.xz 2>&1)
	rc=$?
	[ $rc != 0 ] && printf '%s' "$out" | grep -q "audit records cannot be delivered" &&
		[ "$(tree_state)" = "$before" ] && ok "$mode: delete-own of a release refused, tree unchanged" ||
		not_ok "$mode: delete: rc $rc: $out"
	out=$(client ptinst-m list ptmod 2>&1)
	printf '%s' "$out" | grep -q "1 release of ptmod" && ok "$mode: list goes on" || not_ok "$mode: list: $out"
	grep -q "warning: audit records cannot be delivered" "$R/daemon.err" &&
		ok "$mode: the daemon warned at start-up" || not_ok "$mode: no warning in $(cat "$R/daemon.err")"
	: >"$R/daemon.err"
	kill_daemon
done
[ ! -s "$R/nolog.log" ] && ok "nothing reached a log" || not_ok "logged: $(cat "$R/nolog.log")"

printf 'audit:\n  on_failure: continue\n' >>/etc/postern/postern.yaml
start_nolog absent
out=$(client ptinst-m install-module ptmod-1.1.tar.xz 2>&1)
[ $? = 0 ] && [ -e "$R/pub/sources/ptmod/1.1/ptmod-1.1.tar.xz" ] &&
	ok "audit.on_failure: continue: the install goes on without a record" || not_ok "continue: $out"
kill_daemon
[ "$failed" = 0 ]
