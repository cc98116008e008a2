#!/bin/bash
# postern-installd against a hostile client (FIFOs, directories, another
# user's file, files that change while read, garbage on the socket) and
# under concurrent installs. The daemon must refuse, log, survive, and keep
# the tree and the indexes consistent.
#
# test-installd-abuse.sh SYSLOG_CAPTURE PRIVATE_ETC INSTALLD DRIVER ABUSE WORKDIR
set -u
. "$(dirname "$0")/lib-installd.sh"
enter_fixture "$@"

echo "1..26"
start_daemon
sock="$R/run/installd.sock"
abuse() { as ptinst-m "$ABUSE" "$sock" "$@"; }
before=$(tree_state)

# --- fds that are not the user's regular file --------------------------------
as ptinst-m mkfifo "$R/incoming/ptinst-m/ptmod-2.0.tar.xz"
out=$(abuse passfd "$R/incoming/ptinst-m/ptmod-2.0.tar.xz" ptmod-2.0.tar.xz)
[ $? = 0 ] && printf '%s' "$out" | grep -q '^R .*not a regular file' && ok "a FIFO is refused" || not_ok "FIFO: $out"
rm -f "$R/incoming/ptinst-m/ptmod-2.0.tar.xz"
out=$(abuse passdir "$R/incoming/ptinst-m" ptmod-2.0.tar.xz)
[ $? = 0 ] && printf '%s' "$out" | grep -q '^R .*not a regular file' && ok "a directory is refused" || not_ok "dir: $out"
install -d -m 0755 "$R/shared"
make_tarball ptinst-n ptmod-2.0.tar.xz
mv "$R/incoming/ptinst-n/ptmod-2.0.tar.xz" "$R/shared/"
out=$(abuse passfd "$R/shared/ptmod-2.0.tar.xz" ptmod-2.0.tar.xz)
[ $? = 0 ] && printf '%s' "$out" | grep -q "^R .*owned by uid $(id -u ptinst-n), not by you" && ok "another user's file is refused" || not_ok "foreign file: $out"
audit_has install_refused "user=ptinst-m" "reason=\"the upload is owned by uid" && ok "audit: the foreign file refusal" || not_ok "no record of the foreign file"
out=$(abuse passfd /etc/passwd ptmod-2.0.tar.xz)
[ $? = 0 ] && printf '%s' "$out" | grep -q '^R ' && ok "a root-owned system file is refused" || not_ok "/etc/passwd: $out"

# --- files that change while they are read -----------------------------------
make_big ptinst-m ptmod-2.1.tar.gz 24
out=$(abuse grow "$R/incoming/ptinst-m/ptmod-2.1.tar.gz" ptmod-2.1.tar.gz)
[ $? = 0 ] && ok "a file growing during the install is refused" || not_ok "grow: $out"
make_big ptinst-m ptmod-2.2.tar.gz 24
out=$(abuse shrink "$R/incoming/ptinst-m/ptmod-2.2.tar.gz" ptmod-2.2.tar.gz)
[ $? = 0 ] && ok "a file shrinking during the install is refused" || not_ok "shrink: $out"
[ "$before" = "$(tree_state)" ] && ok "nothing reached the tree" || not_ok "tree changed by abuse"
[ -z "$(ls -A "$R/pub/.staging")" ] && ok "no staging leftovers" || not_ok "staging: $(ls -A "$R/pub/.staging")"

# --- garbage on the socket ---------------------------------------------------
invalid_before=$(grep -c 'event=request_invalid' "$LOG" || true)
for mode in garbage badlen short; do
	out=$(abuse "$mode")
	[ $? = 0 ] && ok "$mode request: refused" || not_ok "$mode: $out"
done
out=$(abuse twofds /etc/hostname ptmod-2.3.tar.xz)
[ $? = 0 ] && printf '%s' "$out" | grep -q 'E invalid request: 2 file descriptors' && ok "two fds: refused" || not_ok "twofds: $out"
out=$(abuse fdwithlist /etc/hostname)
[ $? = 0 ] && printf '%s' "$out" | grep -q 'E invalid request' && ok "an fd with a list request: refused" || not_ok "fdwithlist: $out"
start=$(date +%s)
out=$(abuse silent)
[ $? = 0 ] && [ $(( $(date +%s) - start )) -le 15 ] && ok "a silent client is dropped after the request timeout" || not_ok "silent: $out"
start=$(date +%s)
out=$(abuse trickle)
[ $? = 0 ] && [ $(( $(date +%s) - start )) -le 15 ] && ok "a client trickling its request is dropped after the request timeout" || not_ok "trickle: $(( $(date +%s) - start ))s: $out"
invalid_since() { [ $(( $(grep -c 'event=request_invalid' "$LOG") - invalid_before )) -ge 6 ]; }
wait_until invalid_since
invalid_after=$(grep -c 'event=request_invalid' "$LOG" || true)
[ $((invalid_after - invalid_before)) -ge 6 ] && audit_has request_invalid "user=ptinst-m" "peer_uid=$(id -u ptinst-m)" "peer_pid=" &&
	ok "request_invalid logged for each, with peer uid and pid" || not_ok "request_invalid: $((invalid_after - invalid_before))"
check "the daemon survived" kill -0 "$DAEMON"
make_tarball ptinst-m ptmod-2.4.tar.xz
check "and still installs" client ptinst-m install-module ptmod-2.4.tar.xz

# --- concurrency -------------------------------------------------------------
for k in 1 2 3 4 5 6 7 8; do make_big ptinst-m "ptmod-3.0.$k.tar.gz" 2; done
for k in 1 2 3 4 5 6 7 8; do client ptinst-m install-module "ptmod-3.0.$k.tar.gz" > "$R/c$k.out" 2>&1 & done
wait_ok=0
for job in $(jobs -p); do [ "$job" = "$DAEMON" ] || [ "$job" = "$CHECKD" ] || [ "$job" = "$SIGND" ] || wait "$job" || wait_ok=1; done
[ $wait_ok = 0 ] && ok "8 concurrent installs of one module all succeed" || not_ok "concurrent: $(cat "$R"/c*.out)"
grep -q 'waiting: another release or deletion of ptmod' "$R"/c*.out && ok "a waiting client is told it waits" || not_ok "no wait message"
[ "$(cache_versions ptmod)" = "2.4 3.0.1 3.0.2 3.0.3 3.0.4 3.0.5 3.0.6 3.0.7 3.0.8" ] && [ "$(ls "$R/pub/sources/ptmod/3.0" | grep LATEST-IS)" = "LATEST-IS-3.0.8" ] &&
	ok "cache.json and LATEST-IS hold all eight" || not_ok "after concurrency: $(cache_versions ptmod); $(ls "$R/pub/sources/ptmod/3.0")"
[ "$(grep -c 'op=install .*module=ptmod version=3.0' "$R/state/ledger")" = 8 ] && ok "eight ledger records" || not_ok "ledger: $(grep -c 'version=3.0' "$R/state/ledger")"
for m in ptc1 ptc2 ptc3 ptc4; do make_tarball ptinst-rt "$m-1.0.tar.xz"; done
for m in ptc1 ptc2 ptc3 ptc4; do client ptinst-rt install-module "$m-1.0.tar.xz" >/dev/null 2>&1 & done
wait_ok=0
for job in $(jobs -p); do [ "$job" = "$DAEMON" ] || [ "$job" = "$CHECKD" ] || [ "$job" = "$SIGND" ] || wait "$job" || wait_ok=1; done
[ $wait_ok = 0 ] && [ "$(cache_versions ptc1)$(cache_versions ptc2)$(cache_versions ptc3)$(cache_versions ptc4)" = "1.01.01.01.0" ] &&
	ok "four modules installed concurrently" || not_ok "modules: $(ls "$R/pub/sources")"
make_tarball ptinst-m ptmod-4.0.tar.xz
make_tarball ptinst-rt ptmod-4.0.tar.xz
client ptinst-m install-module ptmod-4.0.tar.xz >/dev/null 2>&1 & a=$!
client ptinst-rt install-module ptmod-4.0.tar.xz >/dev/null 2>&1 & b=$!
wait $a; ra=$?; wait $b; rb=$?
left=$(ls "$R/incoming/ptinst-m/ptmod-4.0.tar.xz" "$R/incoming/ptinst-rt/ptmod-4.0.tar.xz" 2>/dev/null | wc -l)
[ $((ra + rb)) -ne 0 ] && { [ $ra = 0 ] || [ $rb = 0 ]; } && [ "$left" = 1 ] &&
	ok "the same version twice at once: exactly one wins, the loser's upload stays" || not_ok "race: $ra $rb $left"
check "tree and indexes consistent after all of it" tree_consistent
trap - EXIT
kill_daemon
[ "$failed" = 0 ]
