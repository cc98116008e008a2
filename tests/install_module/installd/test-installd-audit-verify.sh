#!/bin/bash
# postern-audit verify on a real daemon's tree and state: all agree after
# installs and a delete-own; then a replaced tarball and a rewritten ledger
# line are each reported (exit 1, with what differs). Each install's
# inclusion proof (<file>.tlog-proof) is beside it, proves the download
# offline, goes to the attic with a delete and is replaced with a --force.
#
# test-installd-audit-verify.sh SYSLOG_CAPTURE PRIVATE_ETC INSTALLD DRIVER ABUSE WORKDIR CHECKER AUDIT
set -u
. "$(dirname "$0")/lib-installd.sh"
enter_fixture "$@"
AUDIT=$8
echo "1..10"
start_daemon
make_tarball ptinst-m ptmod-1.0.tar.xz; client ptinst-m install-module ptmod-1.0.tar.xz >/dev/null 2>&1
make_tarball ptinst-m ptmod-1.1.tar.xz; client ptinst-m install-module ptmod-1.1.tar.xz >/dev/null 2>&1
client ptinst-m delete-own ptmod-1.1.tar.xz >/dev/null 2>&1
vkey=$(as ptinst-s "$LOGSIGN" --dir "$R/logsign" --vkey)
VERIFY=$(dirname "$INSTALLD")/../client/postern-verify
proof=$R/pub/sources/ptmod/1.0/ptmod-1.0.tar.xz.tlog-proof
[ "$(stat -c '%U %a' "$proof" 2>&1)" = "ptinst-d 644" ] && head -n 1 "$proof" | grep -qx 'c2sp.org/tlog-proof@v1' &&
	ok "an install writes its c2sp.org/tlog-proof beside the tarball, world-readable" || not_ok "proof: $(ls -l "$R/pub/sources/ptmod/1.0")"
out=$("$VERIFY" --vkey "$vkey" "$R/pub/sources/ptmod/1.0/ptmod-1.0.tar.xz" 2>&1); rc=$?
[ $rc = 0 ] && grep -q "^OK .*ptmod-1.0.tar.xz: ptmod 1.0, entry 0 of 1, uploaded by ptinst-m (offline" <<<"$out" &&
	ok "postern-verify proves the download offline with its proof (the checkpoint that first covered it)" || not_ok "offline: $rc $out"
[ ! -e "$R/pub/sources/ptmod/1.1/ptmod-1.1.tar.xz.tlog-proof" ] &&
	find "$R/state/attic/ptmod" -name ptmod-1.1.tar.xz.tlog-proof | grep -q . &&
	ok "delete-own moves the proof to the attic with its release" || not_ok "proof after delete: $(find "$R/state/attic" "$R/pub/sources/ptmod")"
make_tarball ptinst-rt ptmod-1.0.tar.xz
client ptinst-rt install-module --force ptmod-1.0.tar.xz >/dev/null 2>&1
out=$("$VERIFY" --vkey "$vkey" "$R/pub/sources/ptmod/1.0/ptmod-1.0.tar.xz" 2>&1); rc=$?
[ $rc = 0 ] && grep -q "entry 3 of 4, uploaded by ptinst-rt" <<<"$out" &&
	[ "$(find "$R/state/attic/ptmod" -name ptmod-1.0.tar.xz.tlog-proof | wc -l)" = 1 ] &&
	ok "--force: the old proof to the attic, the new release proved by the new entry" || not_ok "force: $rc $out"
out=$("$AUDIT" verify -C /etc/postern/postern.yaml --vkey "$vkey" 2>&1); rc=$?
[ $rc = 0 ] && grep -q "^ledger, log and tree agree$" <<<"$out" && grep -q "the last 4 are the log's entries, one for one" <<<"$out" &&
	ok "installs and a delete: ledger, log and tree agree" || not_ok "verify: $rc $out"
out=$("$AUDIT" --vkey "$vkey" verify -C /etc/postern/postern.yaml 2>&1); rc=$?
[ $rc = 0 ] && ok "options before the command too" || not_ok "options first: $rc $out"
cp "$R/pub/sources/ptmod/1.0/ptmod-1.0.tar.xz" "$R/keep"
echo replaced > "$R/pub/sources/ptmod/1.0/ptmod-1.0.tar.xz"
out=$("$AUDIT" verify -C /etc/postern/postern.yaml --vkey "$vkey" 2>&1); rc=$?
[ $rc = 1 ] && grep -q "^CHANGED sources/ptmod/1.0/ptmod-1.0.tar.xz:" <<<"$out" &&
	ok "a replaced tarball: CHANGED, exit 1" || not_ok "replaced: $rc $out"
cp "$R/keep" "$R/pub/sources/ptmod/1.0/ptmod-1.0.tar.xz"
cp "$proof" "$R/keep.proof"
sed -i 's/^index 3$/index 2/' "$proof"
out=$("$AUDIT" verify -C /etc/postern/postern.yaml --vkey "$vkey" 2>&1); rc=$?
[ $rc = 1 ] && grep -q "^CHANGED sources/ptmod/1.0/ptmod-1.0.tar.xz.tlog-proof: the inclusion proof does not hold" <<<"$out" &&
	ok "a doctored proof file: CHANGED, exit 1" || not_ok "doctored proof: $rc $out"
cp "$R/keep.proof" "$proof"
sed -i '1s/user=ptinst-m/user=ptinst-n/' "$R/state/ledger"
out=$("$AUDIT" verify -C /etc/postern/postern.yaml --vkey "$vkey" 2>&1); rc=$?
[ $rc = 1 ] && grep -q "^DIFFERS log entry 0 .* by ptinst-n" <<<"$out" &&
	ok "a rewritten ledger line: DIFFERS, exit 1" || not_ok "ledger: $rc $out"
out=$("$AUDIT" verify -C /etc/postern/postern.yaml --vkey "$(sed 's/ptinst/other/' <<<"$vkey")" 2>&1); rc=$?
[ $rc = 2 ] && ok "another key: refused, exit 2" || not_ok "other key: $rc $out"
trap - EXIT
kill_daemon
[ "$failed" = 0 ]
