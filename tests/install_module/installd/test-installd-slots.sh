#!/bin/bash
# postern-installd's connection slots: one user's idle connections, or
# connections that wait for a module lock, cannot make another user wait.
# A uid has at most 8 connections (the rest are refused and logged), a
# client that says nothing is dropped after 3 s, and a handler that waits
# for a module lock does not count against the 64 working slots.
#
# test-installd-slots.sh SYSLOG_CAPTURE PRIVATE_ETC INSTALLD DRIVER ABUSE WORKDIR
set -u
. "$(dirname "$0")/lib-installd.sh"
enter_fixture "$@"

echo "1..16"
start_daemon
sock="$R/run/installd.sock"
before=$(tree_state)
m_uid=$(id -u ptinst-m)

# --- idle connections ---------------------------------------------------------
# 80 idle connections: more than the 64 the daemon serves at once, so that
# without a per-uid cap they would hold every slot for the request timeout.
start=$(date +%s)
as ptinst-m "$ABUSE" "$sock" hold 80 > "$R/hold.out" 2>&1 & holder=$!
refusals() { grep -c 'event=connection_refused ' "$LOG" || true; }
all_refused() { [ "$(refusals)" -ge 72 ]; }
wait_until all_refused
out=$(client ptinst-n list 2>&1); rc=$?
elapsed=$(( $(date +%s) - start ))
[ $rc = 0 ] && printf '%s' "$out" | grep -q 'ptother: .*maintainer' &&
	ok "another user's list answers while one user holds idle connections" || not_ok "list: rc $rc: $out"
# Generous: the request timeout (10 s) is how long idle connections held every slot before.
[ "$elapsed" -lt 10 ] && ok "and before the idle connections' request timeout (${elapsed}s)" || not_ok "list came after ${elapsed}s"
wait "$holder"; rc=$?
refused=$(grep -c '^R too many connections: you already have 8 open to the release daemon (at most 8 per user); let them finish, then try again$' "$R/hold.out")
dropped=$(grep -c '^E invalid request: nothing was sent within 3 seconds of connecting$' "$R/hold.out")
[ $rc = 0 ] && [ "$refused" = 72 ] && [ "$dropped" = 8 ] &&
	ok "the idle user gets 8 connections; the other 72 are refused, saying why" || not_ok "hold: rc $rc, $refused refused, $dropped dropped: $(sort "$R/hold.out" | uniq -c)"
[ "$(refusals)" = 72 ] && audit_has connection_refused "peer_uid=$m_uid" "limit=8" "reason=\"uid $m_uid already has 8 connections open" &&
	ok "audit: one connection_refused record per refused connection, with the uid" || not_ok "connection_refused: $(refusals)"
audit_has request_invalid "peer_uid=$m_uid" "reason=\"nothing was sent within 3 seconds of connecting\"" &&
	ok "audit: the idle connections are logged as dropped" || not_ok "no request_invalid for the idle connections"
out=$(client ptinst-m list 2>&1)
[ $? = 0 ] && ok "the idle user's slots are free again once its connections ended" || not_ok "list after hold: $out"
[ "$before" = "$(tree_state)" ] && ok "idle connections changed nothing in the tree" || not_ok "tree changed"

# --- connections waiting for a module lock ------------------------------------
# 8 more maintainers, 8 installs each of the open module, all waiting for its
# lock (held here): 64 waiting handlers, the size of the working pool.
users=""
for i in 1 2 3 4 5 6 7 8; do
	u="ptslot$i"
	users="$users $u"
	useradd -M -d /nonexistent -s /bin/sh -G ptinst-up "$u"
	install -d -m 0700 -o "$u" -g "$u" "$R/incoming/$u"
	for k in 1 2 3 4 5 6 7 8 9; do make_tarball "$u" "ptopen-$i.$k.tar.gz"; done
done
lockfile="$R/state/locks/ptopen.lock"
[ -e "$lockfile" ] || install -o ptinst-d -g ptinst-d -m 0600 /dev/null "$lockfile"
python3 -c 'import fcntl, signal, sys
f = open(sys.argv[1], "r+")
fcntl.flock(f, fcntl.LOCK_EX)
print("locked", flush=True)
signal.pause()' "$lockfile" > "$R/lock.out" & locker=$!
wait_until grep -q locked "$R/lock.out" || echo "# the lock holder did not start: $(cat "$R/lock.out")"
waiters=()
i=0
for u in $users; do
	i=$((i + 1))
	for k in 1 2 3 4 5 6 7 8; do
		client "$u" install-module "ptopen-$i.$k.tar.gz" > "$R/w.$i.$k.out" 2>&1 & waiters+=($!)
	done
done
all_waiting() { [ "$(grep -l 'waiting: another release or deletion of ptopen' "$R"/w.*.out 2>/dev/null | wc -l)" = 64 ]; }
if ! wait_until all_waiting; then
	sed 's/^/# /' "$R"/w.*.out | head -20
fi
all_waiting && ok "64 installs wait for the module lock" || not_ok "waiting: $(grep -l waiting "$R"/w.*.out | wc -l)"
out=$(timeout 30 "$(command -v setpriv)" --reuid=ptinst-n --regid=ptinst-n --init-groups -- "$DRIVER" /etc/postern/postern.yaml list 2>&1); rc=$?
[ $rc = 0 ] && printf '%s' "$out" | grep -q 'ptother: .*maintainer' &&
	ok "another user's list answers while 64 connections wait for a lock" || not_ok "list while waiting: rc $rc: $out"
out=$(timeout 30 "$(command -v setpriv)" --reuid=ptslot1 --regid=ptslot1 --init-groups -- "$DRIVER" /etc/postern/postern.yaml install-module ptopen-1.9.tar.gz 2>&1); rc=$?
[ $rc = 1 ] && printf '%s' "$out" | grep -q 'refused: too many connections: you already have 8 open' &&
	printf '%s' "$out" | grep -q 'the upload stays in your incoming directory' && [ -e "$R/incoming/ptslot1/ptopen-1.9.tar.gz" ] &&
	ok "waiting connections still count against their user's cap; the upload stays" || not_ok "ninth: rc $rc: $out"
kill "$locker"; wait "$locker" 2>/dev/null
wait_ok=0
for p in "${waiters[@]}"; do wait "$p" || wait_ok=1; done
[ $wait_ok = 0 ] && ok "once the lock is free, all 64 are installed" || not_ok "waiters: $(grep -h refused "$R"/w.*.out | head -3)"
[ "$(cache_versions ptopen | wc -w)" = 64 ] && ok "cache.json lists all 64 versions" || not_ok "cache: $(cache_versions ptopen)"
[ "$(grep -c 'op=install .*module=ptopen ' "$R/state/ledger")" = 64 ] && ok "64 ledger records" || not_ok "ledger: $(grep -c 'module=ptopen' "$R/state/ledger")"
left=$(find "$R"/incoming/ptslot* -name 'ptopen-*.tar.gz' | wc -l)
[ "$left" = 8 ] && ok "the 8 uploads not sent are still in incoming, and only they" || not_ok "incoming: $left left"
after=$(find "$R/pub/sources" -mindepth 1 -maxdepth 1 -printf '%f\n' | sort | tr '\n' ' ')
[ "$after" = "ptopen " ] && ok "no other module was touched" || not_ok "sources: $after"
check "tree and indexes consistent" tree_consistent
trap - EXIT
kill_daemon
[ "$failed" = 0 ]
