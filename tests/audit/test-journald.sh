#!/bin/bash
# test-journald.sh AUDIT GEN_TRAIL PRIVATE_ETC SRCDIR
#
# postern-audit over `journalctl -o json` from a real systemd-journald: one
# of our own, started in a private mount namespace (its own /run and /dev,
# so the host's logging is untouched), fed by gen-trail parts sent by the
# uid each program runs as (root for sshd's pam_postern and postern-totp,
# user postern for postern-installd, each maintainer for postern-shell), and
# by a local user forging records with logger. journald, not the sender,
# fills _UID: the forgeries must be refused, everything else verified.
set -u
audit=$1 gen=$(readlink -f "$2") private_etc=$3 src=$4
. "$(dirname "$0")/lib.sh"
journald=/lib/systemd/systemd-journald
[ "$(id -u)" = 0 ] && [ -x "$journald" ] || skip_all "needs root and systemd-journald"
audit_work

cat >"$work/inside.sh" <<'INSIDE'
set -eu
gen=$1 work=$2 journald=$3
. "$4"
. "$5"
audit_private_run_dev "$work"
# In memory, under /run/log/journal, whatever the release's default: Debian
# 13 keeps a persistent journal in /var/log/journal. /etc is private here.
mkdir -p /etc/systemd/journald.conf.d
printf '[Journal]\nStorage=volatile\n' >/etc/systemd/journald.conf.d/postern-test.conf
"$journald" >"$work/journald.log" 2>&1 &
jpid=$!
for _ in $(seq 100); do [ -S /run/systemd/journal/dev-log ] && break; sleep 0.05; done
ln -s /run/systemd/journal/dev-log /dev/log
acct_group postern -r
acct_user postern -r -g postern -M
for u in ptau-alice ptau-bob ptau-mallory; do acct_user "$u" -M -N; done
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups "$@"; }
"$gen" syslog pam_postern
as ptau-alice "$gen" syslog postern-shell ptau-alice
as ptau-bob "$gen" syslog postern-shell ptau-bob
as postern "$gen" syslog postern-installd
"$gen" syslog postern-totp
s="from=192.0.2.7 port=50122 sid=6f11660f5822bf26"
as ptau-mallory logger -t postern-installd "event=install_ok user=ptau-mallory $s module=gtk version=6 file=gtk-6.tar.xz maintainer=yes"
as ptau-mallory logger -t postern-shell "event=command_allow user=ptau-alice $s command=list name=list mode=forced"
as ptau-mallory logger -t sshd "pam_postern(sshd:auth): event=login_ok user=ptau-mallory $s service=sshd method=totp"
journalctl --sync 2>/dev/null || sleep 1
journalctl -D /run/log/journal -o json --no-pager >"$work/journal.json"
kill "$jpid"
wait "$jpid" || true
INSIDE

# Users exist only inside private-etc: everything that needs them runs there.
cat >"$work/check.sh" <<'CHECK'
set -u
audit=$1 gen=$2 work=$3 src=$4 accounts=$5
bash "$work/inside.sh" "$gen" "$work" /lib/systemd/systemd-journald "$accounts" "$src/lib.sh" || exit 1
{ cat "$src/data/gen-trail.expected"; echo "suspicious 3"; echo "option --shell-exe=$gen"; } >"$work/expected"
POSTERN_AUDIT=$audit "$src/check-e2e-trail.sh" "$work/journal.json" "$work/expected" >"$work/check.tap" 2>&1
echo $? >"$work/check.rc"
"$audit" -q --json --shell-exe="$gen" "$work/journal.json" >"$work/records.json" 2>"$work/suspicious.txt"
echo $? >"$work/audit.rc"
CHECK
"$private_etc" bash "$work/check.sh" "$audit" "$gen" "$work" "$src" "$(dirname "$private_etc")/lib-accounts.sh"

test -s "$work/journal.json"
result $? "a real journald recorded the day"
[ -s "$work/journal.json" ] || sed 's/^/# /' "$work/journald.log"
test "$(cat "$work/check.rc" 2>/dev/null)" = 0
result $? "check-e2e-trail.sh: releases, sessions and summary from the journal, 3 forgeries refused"
[ "$(cat "$work/check.rc" 2>/dev/null)" = 0 ] || sed 's/^/# /' "$work/check.tap"
test "$(grep -c '"verified":true' "$work/records.json")" = 20 -a "$(grep -c '"verified":false' "$work/records.json")" = 0
result $? "all 20 records verified by their sender uid"
test "$(grep -c 'forged: sent by uid' "$work/suspicious.txt")" = 3 -a "$(cat "$work/audit.rc")" = 2
result $? "the 3 logger forgeries are named as forged, exit 2"
[ $failed = 0 ] || sed 's/^/# /' "$work/suspicious.txt"
finish
