#!/bin/bash
# test-real-trail.sh AUDIT SRCDIR
#
# postern-audit over the trail of a real end-to-end run (data/real-e2e.log:
# the real sshd, pam_postern, postern-shell, rrsync, postern-installd),
# alone and with forged and malformed lines mixed in. No root needed.
set -u
audit=$1 src=$2
. "$(dirname "$0")/lib.sh"
audit_work
log=$src/data/real-e2e.log

POSTERN_AUDIT=$audit "$src/check-e2e-trail.sh" "$log" "$src/data/real-e2e.expected" >"$work/real.tap" 2>&1
result $? "who released what, when, from where, and the summary, from the real trail"
[ $failed = 0 ] || sed 's/^/# /' "$work/real.tap"

# The ControlMaster session of the release team member: one login, then
# upload, install and list, in order.
sid=$("$audit" -q --year 2026 --json --user pte2e-rel --event install_ok "$log" |
	python3 -c 'import json, sys; print(json.loads(sys.stdin.readline())["record"]["sid"])')
story=$("$audit" -q --year 2026 --json session "$sid" "$log" |
	python3 -c 'import json, sys; print(" ".join(json.loads(l)["record"]["event"] for l in sys.stdin))')
[ "$story" = "login_ok command_allow upload_done session_end command_allow install_ok session_end command_allow session_end" ]
result $? "session $sid: one login, then upload, install and list"

# The same client address and port again later in the same boot: same sid,
# a second connection.
{ cat "$log"; grep "sid=$sid" "$log" | sed 's/^Dec  3 [0-9:]*/Dec  3 07:30:00/'; } >"$work/reused.log"
parts=$("$audit" -q --year 2026 --json session "$sid" "$work/reused.log" |
	python3 -c 'import json, sys; print(" ".join(str(json.loads(l)["part"]) for l in sys.stdin))')
[ "$parts" = "1 1 1 1 1 1 1 1 1 2 2 2 2 2 2 2 2 2" ] &&
	"$audit" -q --year 2026 session "$sid" "$work/reused.log" | grep -q '^-- connection 2 (same address and port) --$'
result $? "a reused session id splits into two connections at the second login"

# CSV: RFC 4180 cells, the same counts as JSON.
"$audit" -q --year 2026 --csv summary "$log" >"$work/summary.csv"
python3 -c '
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
want = {"-": "0 0 0 0 0 0 0 0 2 0 0", "pte2e-maint": "8 3 1 1 0 0 0 5 0 0 1",
        "pte2e-other": "9 0 3 0 0 1 0 4 0 0 0", "pte2e-rel": "1 0 0 1 0 0 0 0 0 0 1"}
sys.exit(not (rows[0][0] == "user" and len(rows) == 5 and
              all(" ".join(r[1:]) == want[r[0]] for r in rows[1:])))' "$work/summary.csv"
result $? "summary --csv"
"$audit" -q --year 2026 --csv session "$sid" "$log" | head -n 1 | grep -q '^part,time,host,event,user,from,port,sid,module,version,file,reason,details'
result $? "session --csv has a part column"

# sshd's own refusals, which never reach PAM or the shell: the key-only
# logins (the key accepted, the code never given), the refused -L forwards
# (the user from the session's earlier lines), the sftp requests, the
# connections dropped before authentication.
"$audit" -q --year 2026 --csv "$log" |
	python3 -c '
import csv, sys
rows = [r for r in csv.DictReader(sys.stdin) if r["event"].startswith("sshd_")]
got = sorted((r["event"], r["user"], r["details"]) for r in rows)
key = "SHA256:akbR//HhE3dOOUrtxngvbm/i8vTnr01nLi3tEkdNyPc"
want = sorted([("sshd_auth_incomplete", "pte2e-maint", "how=closed key=" + key)] * 3 +
              [("sshd_auth_incomplete", "pte2e-maint", "how=closed key=-"),
               ("sshd_auth_incomplete", "pte2e-maint", "how=disconnected key=" + key)] +
              [("sshd_forward_refused", "pte2e-other", "kind=local target=\"127.0.0.1 port 45691\"")] * 2 +
              [("sshd_subsystem_refused", "pte2e-other", "subsystem=sftp")] * 2 +
              [("sshd_preauth_disconnect", "-", "how=closed")] * 2)
if got != want:
    print("\n".join(map(str, got)))
sys.exit(got != want)' >"$work/sshd.out" 2>&1
result $? "sshd's refusals for the postern sshd: key-only, forwards, subsystems, preauth"
[ -s "$work/sshd.out" ] && sed 's/^/# /' "$work/sshd.out"
"$audit" -q --year 2026 --sshd-tag none -e sshd_forward_refused "$log" | grep -q sshd_
[ $? = 1 ]
result $? "--sshd-tag none: sshd's lines are not read"
"$audit" -q --year 2026 --sshd-tag sshd -e sshd_forward_refused "$log" | grep -q sshd_
[ $? = 1 ]
result $? "another sshd's lines (another tag) are not counted"

# Forged and malformed lines in the middle of the real trail change nothing
# but the count of suspicious lines.
{ head -n 200 "$log"; head -n 13 "$src/data/hostile.log"; tail -n +201 "$log"; } >"$work/mixed.log"
{ grep -v '^suspicious' "$src/data/real-e2e.expected"; echo "suspicious 12"; } >"$work/mixed.expected"
POSTERN_AUDIT=$audit "$src/check-e2e-trail.sh" "$work/mixed.log" "$work/mixed.expected" >"$work/mixed.tap" 2>&1
result $? "the same reconstruction with 12 hostile lines mixed in"
[ $failed = 0 ] || sed 's/^/# /' "$work/mixed.tap"

finish
