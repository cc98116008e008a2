#!/bin/bash
# postern-installd as a real daemon user, with real maintainers: install,
# refusals, dry run, --force, list, delete-own, hooks, reindex, the ledger
# and the audit records. Every refusal must leave the upload in incoming and
# the tree unchanged.
#
# test-installd.sh SYSLOG_CAPTURE PRIVATE_ETC INSTALLD DRIVER ABUSE WORKDIR
set -u
. "$(dirname "$0")/lib-installd.sh"
enter_fixture "$@"

echo "1..75"

# --- starting ---------------------------------------------------------------
out=$("$INSTALLD" --help 2>/dev/null)
[ $? = 0 ] && printf '%s' "$out" | grep -q '^usage: postern-installd ' && ok "--help: usage on stdout, exit 0" || not_ok "--help: $out"
out=$("$INSTALLD" --reindex ptmod --help -C /nonexistent 2>/dev/null)
[ $? = 0 ] && printf '%s' "$out" | grep -q '^usage:' && ok "--help after other options still helps" || not_ok "late --help: $out"
"$INSTALLD" -C /etc/postern/postern.yaml --reindex --all -- --help >/dev/null 2>"$R/usage.err"
[ $? = 2 ] && grep -q '^usage:' "$R/usage.err" && ok "-- ends the options: a word after it is an operand (usage error)" || not_ok "after --: $(cat "$R/usage.err")"
out=$("$INSTALLD" -C /etc/postern/postern.yaml --socket "$R/run/x.sock" --foreground 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q 'refusing to run as root' &&
	ok "refuses to run as root without --user" || not_ok "runs as root without --user: $out"
[ ! -e "$R/run/x.sock" ] && ok "no socket left by the refused start" || not_ok "socket left behind"
start_daemon
check "daemon is up" kill -0 "$DAEMON"
st=$(stat -c '%U:%G %a' "$R/run/installd.sock")
[ "$st" = "ptinst-d:ptinst-up 660" ] && ok "socket is ptinst-d:ptinst-up 0660" || not_ok "socket is $st"
dproc=$(pgrep -u ptinst-d -f "$INSTALLD" | head -1)
[ -n "$dproc" ] && [ "$(stat -c %u /proc/$DAEMON)" = "$(id -u ptinst-d)" ] &&
	ok "daemon dropped to ptinst-d" || not_ok "daemon still runs as $(stat -c %U /proc/$DAEMON)"
st=$(stat -c '%U %a' "$R/state/ledger" "$R/state/locks" "$R/state/attic" | tr '\n' ' ')
[ "$st" = "ptinst-d 640 ptinst-d 700 ptinst-d 750 " ] && ok "state prepared: ledger, locks, attic" || not_ok "state: $st"

# --- a maintainer's install ------------------------------------------------
make_tarball ptinst-m ptmod-1.0.tar.xz
cp "$R/incoming/ptinst-m/ptmod-1.0.tar.xz" "$R/orig.tar.xz"
# The client claims an SSH session; the daemon cannot verify it.
out=$(SSH_CONNECTION="192.0.2.55 41234 127.0.0.1 22" client ptinst-m install-module ptmod-1.0.tar.xz 2>&1)
rc=$?
[ $rc = 0 ] && ok "maintainer installs ptmod-1.0.tar.xz" || not_ok "install failed ($rc): $out"
d="$R/pub/sources/ptmod/1.0"
check "the tarball is in the tree, byte for byte" cmp "$R/orig.tar.xz" "$d/ptmod-1.0.tar.xz"
check "its .sha256sum verifies" sh -c "cd '$d' && sha256sum -c --status ptmod-1.0.sha256sum"
[ "$(readlink "$d/LATEST-IS-1.0")" = "ptmod-1.0.tar.xz" ] && ok "LATEST-IS-1.0 points at it" || not_ok "LATEST-IS: $(ls "$d")"
[ "$(cache_versions ptmod)" = "1.0" ] && ok "cache.json lists version 1.0" || not_ok "cache.json: $(cat "$R/pub/sources/ptmod/cache.json")"
[ ! -e "$R/incoming/ptinst-m/ptmod-1.0.tar.xz" ] && ok "the upload left incoming" || not_ok "upload still in incoming"
grep -q "op=install user=ptinst-m module=ptmod version=1.0 file=ptmod-1.0.tar.xz sha256=$(sha256sum < "$R/orig.tar.xz" | cut -d' ' -f1) maintainer=yes" "$R/state/ledger" &&
	ok "ledger records the install" || not_ok "ledger: $(cat "$R/state/ledger")"
audit_has install_ok "user=ptinst-m" "module=ptmod" "version=1.0" "basis=maintainer" "peer_uid=$(id -u ptinst-m)" &&
	ok "audit: install_ok with the peer's uid" || not_ok "no install_ok record"
audit_has install_ok "user=ptinst-m from=local port=- sid=[0-9a-f]\{16\} client_from=192.0.2.55 client_port=41234 client_session=[0-9a-f]\{16\} module=ptmod" &&
	ok "audit: the session the client claims is marked client_from/client_port/client_session, from/port/sid are the daemon's" ||
	not_ok "install_ok does not mark the claimed session: $(grep 'event=install_ok' "$LOG" | head -1)"
wait_until grep -q "^ptmod 1.0 ptinst-m yes [0-9a-f]\{64\}$" "$R/hooks/after.log" 2>/dev/null &&
	ok "after_install hook ran with MODULE VERSION USER MAINTAINER_UPLOAD SHA256" || not_ok "hook log: $(cat "$R/hooks/after.log" 2>&1)"

# --- refusals leave everything in place -------------------------------------
before=$(tree_state)
make_tarball ptinst-m ptmod-1.0.tar.xz
out=$(client ptinst-m install-module ptmod-1.0.tar.xz 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q 'refused: version 1.0 of ptmod is already released.*use a new version number.*stays in your incoming' &&
	ok "same version again: refused with the reason" || not_ok "re-release: $out"
[ -e "$R/incoming/ptinst-m/ptmod-1.0.tar.xz" ] && ok "refused upload stays in incoming" || not_ok "refused upload gone"
make_tarball ptinst-n ptmod-1.1.tar.xz
out=$(client ptinst-n install-module ptmod-1.1.tar.xz 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q 'refused:.*ptinst-n.*ptmod' && ok "non-maintainer refused, told why" || not_ok "other user: $out"
audit_has install_refused "user=ptinst-n" "module=ptmod" "peer_uid=$(id -u ptinst-n)" && ok "audit: install_refused" || not_ok "no install_refused"
make_tarball ptinst-m ptmod-1.3.tar.xz ptmod-9.9
out=$(client ptinst-m install-module ptmod-1.3.tar.xz 2>&1)
[ $? -ne 0 ] && [ -e "$R/incoming/ptinst-m/ptmod-1.3.tar.xz" ] && ok "wrong top directory: refused, upload kept" || not_ok "bad top dir: $out"
make_tarball ptinst-m ptmod-1.4.tar.xz "" gz
out=$(client ptinst-m install-module ptmod-1.4.tar.xz 2>&1)
[ $? -ne 0 ] && ok "gzip data named .tar.xz: refused" || not_ok "wrong compression accepted: $out"
make_tarball ptinst-m ptmod-1.5.tar.xz
out=$(client ptinst-m install-module --dry-run ptmod-1.5.tar.xz 2>&1)
[ $? = 0 ] && printf '%s' "$out" | grep -q 'dry run' && [ -e "$R/incoming/ptinst-m/ptmod-1.5.tar.xz" ] &&
	ok "--dry-run passes, keeps the upload" || not_ok "dry run: $out"
out=$(client ptinst-m install-module --force ptmod-1.5.tar.xz 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q 'release team' && ok "--force is refused to a maintainer" || not_ok "--force by maintainer: $out"
[ "$before" = "$(tree_state)" ] && ok "the tree did not change through all of that" || not_ok "tree changed"

# --- several files, versions, directories ------------------------------------
make_tarball ptinst-m ptmod-1.2.0.tar.gz
make_tarball ptinst-m ptmod-1.2.1.tar.bz2
cp "$R/incoming/ptinst-m/ptmod-1.2.1.tar.bz2" "$R/121.tar.bz2"
make_tarball ptinst-m ptmod-1.10.0.tar.zst
out=$(client ptinst-m install-module ptmod-1.2.1.tar.bz2 ptmod-1.2.0.tar.gz ptmod-1.3.tar.xz ptmod-1.10.0.tar.zst 2>&1)
[ $? -ne 0 ] && ok "one bad file among several: non-zero exit" || not_ok "exit 0 with a bad file"
[ "$(cache_versions ptmod)" = "1.0 1.2.0 1.2.1 1.10.0" ] && ok "the good ones are in, sorted by version" || not_ok "versions: $(cache_versions ptmod)"
[ "$(readlink "$R/pub/sources/ptmod/1.2/LATEST-IS-1.2.1")" = "ptmod-1.2.1.tar.bz2" ] && [ "$(ls "$R/pub/sources/ptmod/1.2" | grep -c LATEST-IS)" = 1 ] &&
	ok "one LATEST-IS in 1.2/, the newest" || not_ok "1.2/: $(ls "$R/pub/sources/ptmod/1.2")"
make_tarball ptinst-m ptbig-45.alpha.tar.xz
make_tarball ptinst-m ptbig-3.0.tar.xz
client ptinst-m install-module ptbig-45.alpha.tar.xz ptbig-3.0.tar.xz >/dev/null 2>&1
[ -e "$R/pub/sources/ptbig/45/ptbig-45.alpha.tar.xz" ] && [ -e "$R/pub/sources/ptbig/3/ptbig-3.0.tar.xz" ] &&
	ok "version_dir: major puts 3.0 in 3/ and 45.alpha in 45/" || not_ok "ptbig: $(find "$R/pub/sources/ptbig")"

# --- open module, release team, --force -------------------------------------
make_tarball ptinst-n ptopen-0.1.tar.xz
out=$(client ptinst-n install-module ptopen-0.1.tar.xz 2>&1)
[ $? = 0 ] && printf '%s' "$out" | grep -q 'non-maintainer' && ok "open module: installed, flagged non-maintainer" || not_ok "open: $out"
audit_has install_ok "module=ptopen" "maintainer=no" "basis=open" && ok "audit: open upload marked maintainer=no" || not_ok "open audit"
make_tarball ptinst-rt ptmod-1.0.tar.xz
cp "$R/incoming/ptinst-rt/ptmod-1.0.tar.xz" "$R/new.tar.xz"
out=$(client ptinst-rt install-module --force ptmod-1.0.tar.xz 2>&1)
[ $? = 0 ] && cmp -s "$R/pub/sources/ptmod/1.0/ptmod-1.0.tar.xz" "$R/new.tar.xz" && ok "release team --force replaces a release" || not_ok "force: $out"
attic_old=$(find "$R/state/attic/ptmod" -name ptmod-1.0.tar.xz | head -1)
[ -n "$attic_old" ] && cmp -s "$attic_old" "$R/orig.tar.xz" && ok "the old file is in the attic, intact" || not_ok "attic after force: $(find "$R/state/attic")"
grep -q "user=ptinst-rt module=ptmod version=1.0 .* forced=yes attic=attic/ptmod/" "$R/state/ledger" && ok "ledger: forced install with attic path" || not_ok "ledger force"
make_tarball ptinst-rt ptnew-1.0.tar.xz
check "release team releases a module nobody listed" client ptinst-rt install-module ptnew-1.0.tar.xz

# --- list -------------------------------------------------------------------
out=$(client ptinst-m list 2>&1)
printf '%s' "$out" | grep -q 'ptmod: .*maintainer' && printf '%s' "$out" | grep -q 'ptmod-1.3.tar.xz' &&
	printf '%s' "$out" | grep -q 'install.*ptmod-1.2.1.tar.bz2' && ok "list: allowed modules, pending uploads, own releases" || not_ok "list: $out"
out=$(client ptinst-n list ptmod 2>&1)
printf '%s' "$out" | grep -q '1.10.0 .*1.10/ptmod-1.10.0.tar.zst' && ok "list MODULE: its versions" || not_ok "list ptmod: $out"

# A name longer than postern serves (NAME_USER_MAX, 32 bytes) is refused
# before anything is sent, never cut to one it does serve.
# (useradd refuses such a name, so it is written into the private /etc.)
long=ptinst-long-$(printf '%021d' 0)
uid=$(acct_free_uid 61000)
echo "$long:x:$uid:$uid::/nonexistent:/bin/sh" >>/etc/passwd
echo "$long:x:$uid:" >>/etc/group
out=$(client "$long" list 2>&1)
[ $? = 69 ] && [ "$out" = "list: the user name of uid $uid is longer than 32 bytes, which postern does not serve (tell an administrator)" ] &&
	ok "a 33-byte user name: the client refuses, and says why" || not_ok "33-byte user name: $out"

# --- delete-own ---------------------------------------------------------------
out=$(client ptinst-m delete-own ptmod-1.3.tar.xz 2>&1)
[ $? = 0 ] && [ ! -e "$R/incoming/ptinst-m/ptmod-1.3.tar.xz" ] && ok "delete-own of a pending upload removes it" || not_ok "pending delete: $out"
audit_has delete "kind=pending" "file=ptmod-1.3.tar.xz" && ok "audit: delete kind=pending" || not_ok "no pending delete record"
before=$(tree_state)
out=$(client ptinst-n delete-own ptmod-1.2.0.tar.gz 2>&1)
[ $? -ne 0 ] && [ "$before" = "$(tree_state)" ] && ok "delete-own of someone else's release: refused, tree unchanged" || not_ok "foreign delete: $out"
out=$(client ptinst-rt delete-own ptmod-1.2.0.tar.gz 2>&1)
[ $? -ne 0 ] && [ "$before" = "$(tree_state)" ] && ok "the release team cannot delete another user's release either" || not_ok "release team deleted: $out"
printf '%s' "$out" | grep -q 'not installed by you, but by ptinst-m, and only the user who installed a release may delete it.*release team can replace this one with install-module --force' &&
	! printf '%s' "$out" | grep -q 'ask the release team' && ok "the refusal says what is actually possible" || not_ok "foreign delete message: $out"
out=$(client ptinst-m delete-own ptmod-1.2.1.tar.bz2 2>&1)
[ $? = 0 ] && [ ! -e "$R/pub/sources/ptmod/1.2/ptmod-1.2.1.tar.bz2" ] && [ -n "$(find "$R/state/attic/ptmod" -name ptmod-1.2.1.tar.bz2)" ] &&
	ok "delete-own of an own release moves it to the attic" || not_ok "own delete: $out"
[ "$(cache_versions ptmod)" = "1.0 1.2.0 1.10.0" ] && [ "$(readlink "$R/pub/sources/ptmod/1.2/LATEST-IS-1.2.0")" = "ptmod-1.2.0.tar.gz" ] &&
	ok "indexes follow the deletion" || not_ok "after delete: $(cache_versions ptmod); $(ls "$R/pub/sources/ptmod/1.2")"
audit_has delete "kind=release" "file=ptmod-1.2.1.tar.bz2" "attic=attic/ptmod/" && grep -q "op=delete user=ptinst-m .*file=ptmod-1.2.1.tar.bz2" "$R/state/ledger" &&
	ok "deletion in the audit log and the ledger" || not_ok "delete records"

# --- delete-own of whatever rsync can leave in incoming ----------------------
# Names starting with '-' or '.', a directory tree, symlinks out of it: all
# the user's own, so delete-own removes them, as the user, following nothing.
in="$R/incoming/ptinst-m"
install -d -m 0755 "$R/outside"
echo keep >"$R/outside/target"
as ptinst-m sh -c "cd '$in' && echo x >-rf && echo x >.partial && mkdir -p sub/deeper/deepest &&
	echo x >sub/deeper/deepest/f && ln -s '$R/outside/target' sub/deeper/to-target &&
	ln -s '$R/outside' sub/to-dir && ln -s '$R/outside' lnk"
out=$(client ptinst-m list 2>&1)
printf '%s' "$out" | grep -qF -- "-rf  (a file, not an upload install-module takes; remove it with: delete-own -- '-rf')" &&
	printf '%s' "$out" | grep -qF "sub  (a directory," && printf '%s' "$out" | grep -qF ".partial  (a file," &&
	printf '%s' "$out" | grep -qF "lnk  (a symlink," &&
	ok "list shows entries install-module does not take, with how to remove them" || not_ok "list of odd entries: $out"
out=$(client ptinst-m delete-own -rf 2>&1)
[ $? = 2 ] && [ -e "$in/-rf" ] && ok "delete-own -rf without '--' is a usage error, nothing removed" || not_ok "delete-own -rf: $out"
client ptinst-m delete-own -- -rf >/dev/null 2>&1 && client ptinst-m delete-own .partial >/dev/null 2>&1 &&
	client ptinst-m delete-own sub >/dev/null 2>&1 && client ptinst-m delete-own -- lnk >/dev/null 2>&1
rc=$?
[ $rc = 0 ] && [ -z "$(ls -A "$in" | grep -v '^ptmod\|^ptbig\|^ptother')" ] &&
	[ "$(cat "$R/outside/target")" = keep ] && [ -d "$R/outside" ] &&
	ok "delete-own -- -rf, .partial, a directory tree and a symlink: gone; what the links point to: untouched" ||
	not_ok "odd entries ($rc): $(ls -lA "$in"); outside: $(ls -lA "$R/outside")"
audit_has delete "kind=pending" "file=sub " && audit_has delete "kind=pending" 'file="-rf"\|file=-rf ' &&
	ok "audit: each removal logged as delete kind=pending" || not_ok "no delete records for the odd entries"

# A bind mount inside incoming (same file system, so the same st_dev) is
# never walked into: what it shows stays. (This fixture's mount namespace is
# private, so the mount goes with it.)
install -d -m 0755 "$R/elsewhere"
echo keep >"$R/elsewhere/canary"
as ptinst-m mkdir -p "$in/bm/inner"
mount --bind "$R/elsewhere" "$in/bm/inner"
out=$(client ptinst-m delete-own bm 2>&1)
[ $? -ne 0 ] && grep -q "inner: is a mount point (another file system, or a bind mount)" <<<"$out" &&
	[ "$(cat "$R/elsewhere/canary")" = keep ] &&
	ok "delete-own never crosses a bind mount inside incoming" || not_ok "bind mount: $out; $(ls -A "$R/elsewhere")"
umount "$in/bm/inner"
check "and removes the directory once it is no mount" client ptinst-m delete-own bm

# --- hooks: mirror_sync is debounced ----------------------------------------
wait_until test -s "$R/hooks/sync.log"
sleep 2.5
c=$(wc -l < "$R/hooks/sync.log" 2>/dev/null || echo 0)
# Fewer runs than changes is the debounce; how many fewer depends on how fast
# this machine ran the steps above, which a test must not assume.
[ "$c" -ge 1 ] && [ "$c" -lt 10 ] && ok "mirror_sync ran, debounced ($c runs for 10 changes)" || not_ok "mirror_sync ran $c times"

# --- a version is never reused: not spelled differently, not with other bytes ---
make_tarball ptinst-m ptmod-1.02.tar.xz
out=$(client ptinst-m install-module ptmod-1.02.tar.xz 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q 'the number 02 has a leading zero' && ok "a version with a leading zero is refused" || not_ok "leading zero: $out"
# A release from before leading zeros were refused, put in place by hand.
make_tarball ptinst-m ptmod-2.05.tar.xz
install -d -o ptinst-d -g ptinst-d -m 0755 "$R/pub/sources/ptmod/2.05"
install -o ptinst-d -g ptinst-d -m 0644 "$R/incoming/ptinst-m/ptmod-2.05.tar.xz" "$R/pub/sources/ptmod/2.05/"
rm "$R/incoming/ptinst-m/ptmod-2.05.tar.xz"
"$INSTALLD" -C /etc/postern/postern.yaml --user ptinst-d --reindex ptmod
before=$(tree_state)
make_tarball ptinst-m ptmod-2.5.tar.xz
out=$(client ptinst-m install-module ptmod-2.5.tar.xz 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q 'version 2.5 of ptmod is already released as 2.05/ptmod-2.05.tar.xz, the same version spelled differently' &&
	[ -e "$R/incoming/ptinst-m/ptmod-2.5.tar.xz" ] && [ "$before" = "$(tree_state)" ] &&
	ok "2.5 after 2.05: already released, nothing changed" || not_ok "alias of a released version: $out"
# ptmod-1.2.1 was withdrawn by delete-own above.
make_tarball ptinst-m ptmod-1.2.1.tar.bz2
out=$(client ptinst-m install-module ptmod-1.2.1.tar.bz2 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q 'version 1.2.1 of ptmod was released before as ptmod-1.2.1.tar.bz2 (sha256 [0-9a-f]*) and withdrawn.*only with the same bytes.*--force' &&
	[ -e "$R/incoming/ptinst-m/ptmod-1.2.1.tar.bz2" ] && [ "$before" = "$(tree_state)" ] &&
	ok "a withdrawn version with other bytes: refused, nothing changed" || not_ok "withdrawn, other bytes: $out"
install -o ptinst-m -g ptinst-m -m 0644 "$R/121.tar.bz2" "$R/incoming/ptinst-m/ptmod-1.2.1.tar.bz2"
out=$(client ptinst-m install-module ptmod-1.2.1.tar.bz2 2>&1)
[ $? = 0 ] && cmp -s "$R/121.tar.bz2" "$R/pub/sources/ptmod/1.2/ptmod-1.2.1.tar.bz2" && ok "a withdrawn version with the same bytes comes back" || not_ok "withdrawn, same bytes: $out"
out=$(client ptinst-rt delete-own ptnew-1.0.tar.xz 2>&1) || not_ok "release team's own delete: $out"
make_tarball ptinst-rt ptnew-1.0.tar.xz
out=$(client ptinst-rt install-module ptnew-1.0.tar.xz 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q 'withdrawn' && ok "the release team too needs the same bytes without --force" || not_ok "release team, no --force: $out"
cp "$R/incoming/ptinst-rt/ptnew-1.0.tar.xz" "$R/new10.tar.xz"
out=$(client ptinst-rt install-module --force ptnew-1.0.tar.xz 2>&1)
[ $? = 0 ] && cmp -s "$R/new10.tar.xz" "$R/pub/sources/ptnew/1.0/ptnew-1.0.tar.xz" && ok "the release team brings it back with other bytes with --force" || not_ok "release team --force: $out"

# --- reindex regenerates the indexes from the tree ---------------------------
good=$(tree_state)
rm "$R/pub/sources/ptmod/cache.json" "$R/pub/sources/ptmod/1.10/LATEST-IS-1.10.0" "$R/pub/sources/ptmod/1.0/ptmod-1.0.sha256sum"
"$INSTALLD" -C /etc/postern/postern.yaml --user ptinst-d --reindex ptmod 2>&1
[ "$good" = "$(tree_state)" ] && ok "--reindex rebuilds cache.json, LATEST-IS and a lost .sha256sum" || not_ok "reindex differs"
"$INSTALLD" -C /etc/postern/postern.yaml --user ptinst-d --all --reindex ptmod >/dev/null 2>&1
[ $? = 2 ] && ok "--reindex MODULE and --all together: usage error" || not_ok "reindex usage"
check "--reindex --all works" "$INSTALLD" -C /etc/postern/postern.yaml --user ptinst-d --reindex --all

check "daemon survived everything" kill -0 "$DAEMON"

# --- systemd socket activation (LISTEN_PID/LISTEN_FDS), started as the user itself ---
stop_daemon
rm -f "$R/run/installd.sock"
systemd-socket-activate -l "$R/run/installd.sock" \
	setpriv --reuid=ptinst-d --regid=ptinst-d --clear-groups "$INSTALLD" -C /etc/postern/postern.yaml \
	--check-socket "$R/run/check.sock" --log-socket "$R/run/logsign.sock" 2>>"$R/daemon.err" &
DAEMON=$!
wait_until test -S "$R/run/installd.sock"
chgrp ptinst-up "$R/run/installd.sock"; chmod 0660 "$R/run/installd.sock"
make_tarball ptinst-m ptmod-8.0.tar.xz
out=$(client ptinst-m install-module ptmod-8.0.tar.xz 2>&1)
[ $? = 0 ] && [ -e "$R/pub/sources/ptmod/8.0/ptmod-8.0.tar.xz" ] && ok "socket-activated daemon installs" || not_ok "socket activation: $out"
[ "$(stat -c %U "/proc/$DAEMON")" = ptinst-d ] && [ "$(readlink "/proc/$DAEMON/exe")" = "$(readlink -f "$INSTALLD")" ] &&
	ok "it is the daemon itself on the passed socket, as its user" || not_ok "activated process: $(cat /proc/$DAEMON/cmdline | tr '\0' ' ')"
stop_daemon

# --- limits come from the policy; a failing hook never undoes an install -------
sed -i 's/^  time_limit: 60$/  time_limit: 60\n  max_compressed: 100000/' /etc/postern/postern.yaml
sed -i "s|^  after_install: .*|  after_install: [/bin/sh, -c, 'exit 3']|" /etc/postern/postern.yaml
sed -i 's/^delete_window: 3600$/delete_window: 0/' /etc/postern/postern.yaml
start_daemon
make_big ptinst-m ptmod-7.0.tar.gz 1
out=$(client ptinst-m install-module ptmod-7.0.tar.gz 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q 'more than the limit of 100000' && [ -e "$R/incoming/ptinst-m/ptmod-7.0.tar.gz" ] &&
	ok "limits.max_compressed: refused, upload kept" || not_ok "cap: $out"
make_tarball ptinst-m ptmod-7.1.tar.xz
out=$(client ptinst-m install-module ptmod-7.1.tar.xz 2>&1)
[ $? = 0 ] && [ -e "$R/pub/sources/ptmod/7.1/ptmod-7.1.tar.xz" ] && ok "an install whose after_install hook fails stays installed" || not_ok "failing hook: $out"
wait_until grep -q 'postern-installd.*hook after_install failed: exit status 3' "$LOG" && ok "the failing hook is logged" || not_ok "no hook failure in the log"
# delete_window: 0 is "never": not in the same second, not for the release
# team, and not when the clock stepped back behind the install's time.
out=$(client ptinst-m delete-own ptmod-7.1.tar.xz 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q 'delete_window: 0' && [ -e "$R/pub/sources/ptmod/7.1/ptmod-7.1.tar.xz" ] &&
	ok "delete_window: 0 refuses a delete right after the install" || not_ok "delete_window 0: $out"
# (The daemon reads a module's records from its index, kept beside the ledger.)
grep "file=ptmod-7.1.tar.xz " "$R/state/ledger" | tail -1 |
	sed "s/^time=[^ ]*/time=$(date -u -d '+1 hour' +%Y-%m-%dT%H:%M:%SZ)/" |
	tee -a "$R/state/ledger" >> "$R/state/history/index/module/ptmod"
out=$(client ptinst-m delete-own ptmod-7.1.tar.xz 2>&1)
[ $? -ne 0 ] && [ -e "$R/pub/sources/ptmod/7.1/ptmod-7.1.tar.xz" ] && ! grep -q "op=delete .*file=ptmod-7.1.tar.xz" "$R/state/ledger" &&
	ok "delete_window: 0 refuses it when the clock is behind the install" || not_ok "delete after a clock step: $out"
make_tarball ptinst-rt ptnew-1.1.tar.xz
client ptinst-rt install-module ptnew-1.1.tar.xz >/dev/null 2>&1
out=$(client ptinst-rt delete-own ptnew-1.1.tar.xz 2>&1)
[ $? -ne 0 ] && [ -e "$R/pub/sources/ptnew/1.1/ptnew-1.1.tar.xz" ] && ok "delete_window: 0 holds for the release team too" || not_ok "release team delete with window 0: $out"
stop_daemon
[ ! -e /proc/$DAEMON ] && ok "SIGTERM stops it" || not_ok "still running after SIGTERM"
trap - EXIT
stop_checker
stop_signer
[ "$failed" = 0 ]
