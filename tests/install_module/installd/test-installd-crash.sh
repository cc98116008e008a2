#!/bin/bash
# kill -9 of postern-installd (the daemon and its connection handler) at
# several points of an install, then a restart: the tree must hold either
# the old or the new state, consistent with its indexes and the ledger, and
# the upload must still be in incoming unless the client was told "installed".
# Then the recovery path itself, deterministically, from a left-over intent.
#
# test-installd-crash.sh SYSLOG_CAPTURE PRIVATE_ETC INSTALLD DRIVER ABUSE WORKDIR
set -u
. "$(dirname "$0")/lib-installd.sh"
enter_fixture "$@"

echo "1..$((3 * 10 + 13))"
start_daemon
make_tarball ptinst-m ptmod-1.0.tar.xz
client ptinst-m install-module ptmod-1.0.tar.xz >/dev/null 2>&1
# How long one install of this size takes here; the kills are spread over it,
# most of them near its end, where the commit happens.
make_big ptinst-m ptmod-4.0.tar.gz 16
t0=$(date +%s.%N)
client ptinst-m install-module ptmod-4.0.tar.gz >/dev/null 2>&1
t1=$(date +%s.%N)
delays=$(python3 -c 'import sys; t = float(sys.argv[2]) - float(sys.argv[1]); print(" ".join("%.3f" % (t * f) for f in (0.02, 0.3, 0.6, 0.85, 0.93, 0.97, 1.0, 1.02, 1.05, 1.1)))' "$t0" "$t1")
echo "# one install takes $(python3 -c 'import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 3))' "$t0" "$t1")s; kills after: $delays"

i=0
for delay in $delays; do
	i=$((i + 1))
	f="ptmod-5.$i.tar.gz"
	make_big ptinst-m "$f" 16
	client ptinst-m install-module "$f" > "$R/crash.out" 2>&1 & c=$!
	sleep "$delay"
	kill_daemon
	wait "$c"; rc=$?
	start_daemon
	in_tree=no; [ -e "$R/pub/sources/ptmod/5.$i/$f" ] && in_tree=yes
	in_incoming=no; [ -e "$R/incoming/ptinst-m/$f" ] && in_incoming=yes
	echo "# kill after ${delay}s: client status $rc, in tree: $in_tree, in incoming: $in_incoming"
	if [ "$in_tree" = yes ] || { [ "$in_incoming" = yes ] && [ $rc != 0 ]; }; then
		ok "kill after ${delay}s: old or new state, upload kept unless installed"
	else
		not_ok "kill after ${delay}s: lost (status $rc, tree $in_tree, incoming $in_incoming)"
	fi
	check "kill after ${delay}s: tree, checksums and cache.json consistent" tree_consistent
	led=no; grep -q "file=$f " "$R/state/ledger" && led=yes
	[ "$led" = "$in_tree" ] && ok "kill after ${delay}s: ledger agrees with the tree" || not_ok "ledger $led, tree $in_tree"
done
make_big ptinst-m ptmod-5.99.tar.gz 4
check "after all the kills a normal install works" client ptinst-m install-module ptmod-5.99.tar.gz

# --- recovery from an intent, deterministically ------------------------------
stop_daemon
make_tarball ptinst-m ptmod-6.0.tar.xz
h=$(sha256sum < "$R/incoming/ptinst-m/ptmod-6.0.tar.xz" | cut -d' ' -f1)
line="time=2026-12-03T07:00:00Z op=install user=ptinst-m module=ptmod version=6.0 file=ptmod-6.0.tar.xz sha256=$h maintainer=yes basis=maintainer dir=6.0 forced=no attic=-"
# The state a kill between "link into the tree" and "indexes" leaves behind.
install -d -o ptinst-d -g ptinst-d -m 0755 "$R/pub/sources/ptmod/6.0"
install -o ptinst-d -g ptinst-d -m 0644 "$R/incoming/ptinst-m/ptmod-6.0.tar.xz" "$R/pub/sources/ptmod/6.0/"
printf '%s\n' "$line" > "$R/state/locks/ptmod.intent"
chown ptinst-d "$R/state/locks/ptmod.intent"; chmod 0600 "$R/state/locks/ptmod.intent"
start_daemon
[ ! -e "$R/state/locks/ptmod.intent" ] && ok "recovery at start consumes the intent" || not_ok "intent still there"
grep -qxF "$line" "$R/state/ledger" && ok "recovery appends the missing ledger record" || not_ok "ledger not completed"
[ "$(readlink "$R/pub/sources/ptmod/6.0/LATEST-IS-6.0")" = ptmod-6.0.tar.xz ] && cache_versions ptmod | grep -q ' 6.0$' &&
	ok "recovery writes LATEST-IS and cache.json" || not_ok "indexes not recovered"
check "recovery restores the .sha256sum, the tree is consistent" tree_consistent
# The state a kill between "intent written" and "link" leaves: nothing happened.
stop_daemon
before=$(tree_state)
printf '%s\n' "${line//6.0/6.1}" > "$R/state/locks/ptmod.intent"
chown ptinst-d "$R/state/locks/ptmod.intent"; chmod 0600 "$R/state/locks/ptmod.intent"
start_daemon
[ ! -e "$R/state/locks/ptmod.intent" ] && ! grep -q 'version=6.1' "$R/state/ledger" && [ "$before" = "$(tree_state)" ] &&
	ok "an intent whose file never arrived changes nothing" || not_ok "phantom 6.1 recorded"
# The state a kill in a --force install leaves between "old files to the attic"
# and "new file linked": the old release must come back from the attic.
stop_daemon
before=$(tree_state)
stamp=20261203T070000Z.4242
install -d -o ptinst-d -g ptinst-d -m 0750 "$R/state/attic/ptmod" "$R/state/attic/ptmod/$stamp"
mv "$R/pub/sources/ptmod/6.0/ptmod-6.0.tar.xz" "$R/pub/sources/ptmod/6.0/ptmod-6.0.sha256sum" "$R/state/attic/ptmod/$stamp/"
forced="${line/forced=no attic=-/forced=yes attic=attic/ptmod/$stamp}"
forced="${forced/user=ptinst-m/user=ptinst-rt}"
printf '%s\n' "$forced" > "$R/state/locks/ptmod.intent"
chown ptinst-d "$R/state/locks/ptmod.intent"; chmod 0600 "$R/state/locks/ptmod.intent"
start_daemon
[ "$before" = "$(tree_state)" ] && [ -z "$(ls -A "$R/state/attic/ptmod/$stamp")" ] &&
	ok "an interrupted --force puts the old release back from the attic" || not_ok "force not restored: $(ls -R "$R/pub/sources/ptmod/6.0" "$R/state/attic/ptmod")"
! grep -q "user=ptinst-rt module=ptmod version=6.0" "$R/state/ledger" && ok "and records no install that did not happen" || not_ok "phantom forced install in the ledger"
# The same --force of the same file name killed before the old files moved:
# the name is in the tree, but not with the bytes the intent names.
stop_daemon
before=$(tree_state)
printf '%s\n' "${forced/sha256=$h/sha256=$(printf '%064d' 0)}" > "$R/state/locks/ptmod.intent"
chown ptinst-d "$R/state/locks/ptmod.intent"; chmod 0600 "$R/state/locks/ptmod.intent"
start_daemon
[ "$before" = "$(tree_state)" ] && [ ! -e "$R/state/locks/ptmod.intent" ] &&
	! grep -q "user=ptinst-rt module=ptmod version=6.0" "$R/state/ledger" &&
	ok "a --force killed before the old file of the same name moved records nothing" ||
	not_ok "phantom forced install over a same-named file: $(grep 'user=ptinst-rt' "$R/state/ledger")"
# The interrupted --force again, with <state> on another filesystem than the
# tree: the attic then copies instead of renaming, and the release it puts
# back must be the same file, mode and time included (list shows the time).
stop_daemon
cp -a "$R/state" "$R/state.saved"
mount -t tmpfs -o mode=0755 postern-state "$R/state"
cp -a "$R/state.saved/." "$R/state/"
start_daemon
make_tarball ptinst-m ptmod-6.5.tar.xz
client ptinst-m install-module ptmod-6.5.tar.xz >/dev/null 2>&1
stop_daemon
d65="$R/pub/sources/ptmod/6.5"
[ "$(stat -c %d "$R/state")" != "$(stat -c %d "$d65")" ] && ok "state and tree are on two filesystems" || not_ok "state on the tree's filesystem"
before=$(tree_state)
meta=$(stat -c '%n %a %U %Y' "$d65/ptmod-6.5.tar.xz" "$d65/ptmod-6.5.sha256sum")
h65=$(sha256sum < "$d65/ptmod-6.5.tar.xz" | cut -d' ' -f1)
stamp=20261203T080000Z.4343
install -d -o ptinst-d -g ptinst-d -m 0750 "$R/state/attic/ptmod/$stamp"
mv "$d65/ptmod-6.5.tar.xz" "$d65/ptmod-6.5.sha256sum" "$R/state/attic/ptmod/$stamp/"
forced="${line//6.0/6.5}"
forced="${forced/sha256=$h/sha256=$(printf '%064d' 0)}"
forced="${forced/forced=no attic=-/forced=yes attic=attic/ptmod/$stamp}"
printf '%s\n' "${forced/user=ptinst-m/user=ptinst-rt}" > "$R/state/locks/ptmod.intent"
chown ptinst-d "$R/state/locks/ptmod.intent"; chmod 0600 "$R/state/locks/ptmod.intent"
start_daemon
after_meta=$(stat -c '%n %a %U %Y' "$d65/ptmod-6.5.tar.xz" "$d65/ptmod-6.5.sha256sum" 2>&1)
[ "$before" = "$(tree_state)" ] && [ "$h65" = "$(sha256sum < "$d65/ptmod-6.5.tar.xz" | cut -d' ' -f1)" ] &&
	[ -z "$(ls -A "$R/state/attic/ptmod/$stamp")" ] &&
	ok "across filesystems, an interrupted --force puts the old release back" || not_ok "not restored across filesystems: $(ls -R "$d65" "$R/state/attic/ptmod/$stamp")"
[ "$meta" = "$after_meta" ] && ok "the restored release keeps its mode, owner and mtime" ||
	not_ok "restored release differs: before [$meta] after [$after_meta]"
check "the tree is consistent after the restore across filesystems" tree_consistent
trap - EXIT
kill_daemon
[ "$failed" = 0 ]
