#!/bin/bash
# postern-audit verify on a real daemon's tree and state: all agree after
# installs and a delete-own; then a replaced tarball and a rewritten ledger
# line are each reported (exit 1, with what differs).
#
# test-installd-audit-verify.sh SYSLOG_CAPTURE PRIVATE_ETC INSTALLD DRIVER ABUSE WORKDIR CHECKER AUDIT
set -u
. "$(dirname "$0")/lib-installd.sh"
enter_fixture "$@"
AUDIT=$8
echo "1..5"
start_daemon
make_tarball ptinst-m ptmod-1.0.tar.xz; client ptinst-m install-module ptmod-1.0.tar.xz >/dev/null 2>&1
make_tarball ptinst-m ptmod-1.1.tar.xz; client ptinst-m install-module ptmod-1.1.tar.xz >/dev/null 2>&1
client ptinst-m delete-own ptmod-1.1.tar.xz >/dev/null 2>&1
vkey=$(as ptinst-s "$LOGSIGN" --dir "$R/logsign" --vkey)
out=$("$AUDIT" verify -C /etc/postern/postern.yaml --vkey "$vkey" 2>&1); rc=$?
[ $rc = 0 ] && grep -q "^ledger, log and tree agree$" <<<"$out" && grep -q "the last 3 are the log's entries, one for one" <<<"$out" &&
	ok "installs and a delete: ledger, log and tree agree" || not_ok "verify: $rc $out"
out=$("$AUDIT" --vkey "$vkey" verify -C /etc/postern/postern.yaml 2>&1); rc=$?
[ $rc = 0 ] && ok "options before the command too" || not_ok "options first: $rc $out"
cp "$R/pub/sources/ptmod/1.0/ptmod-1.0.tar.xz" "$R/keep"
echo replaced > "$R/pub/sources/ptmod/1.0/ptmod-1.0.tar.xz"
out=$("$AUDIT" verify -C /etc/postern/postern.yaml --vkey "$vkey" 2>&1); rc=$?
[ $rc = 1 ] && grep -q "^CHANGED sources/ptmod/1.0/ptmod-1.0.tar.xz" <<<"$out" &&
	ok "a replaced tarball: CHANGED, exit 1" || not_ok "replaced: $rc $out"
cp "$R/keep" "$R/pub/sources/ptmod/1.0/ptmod-1.0.tar.xz"
sed -i '1s/user=ptinst-m/user=ptinst-n/' "$R/state/ledger"
out=$("$AUDIT" verify -C /etc/postern/postern.yaml --vkey "$vkey" 2>&1); rc=$?
[ $rc = 1 ] && grep -q "^DIFFERS log entry 0 .* by ptinst-n" <<<"$out" &&
	ok "a rewritten ledger line: DIFFERS, exit 1" || not_ok "ledger: $rc $out"
out=$("$AUDIT" verify -C /etc/postern/postern.yaml --vkey "$(sed 's/ptinst/other/' <<<"$vkey")" 2>&1); rc=$?
[ $rc = 2 ] && ok "another key: refused, exit 2" || not_ok "other key: $rc $out"
trap - EXIT
kill_daemon
[ "$failed" = 0 ]
