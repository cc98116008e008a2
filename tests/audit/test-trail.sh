#!/bin/bash
# test-trail.sh AUDIT GEN_TRAIL SYSLOG_CAPTURE PRIVATE_ETC SRCDIR
#
# postern-audit over trails written by the real common/audit.c: gen-trail's
# release day captured from syslog(3), the same day as journal JSON, with
# forged and malformed lines (logger under our tags, #012, invalid UTF-8,
# a record split by a raw newline, a cut record, unknown events, other
# uids in the journal). Checks what is listed, counted, and refused, and
# that nothing it prints holds a control character. Needs root.
set -u
audit=$1 gen=$2 capture=$3 private_etc=$4 src=$5
. "$(dirname "$0")/lib.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (syslog-capture, private-etc)"
audit_work


# 1. The release day, as syslog lines.
"$capture" "$work/auth.log" -- "$gen" syslog
POSTERN_AUDIT=$audit "$src/check-e2e-trail.sh" "$work/auth.log" "$src/data/gen-trail.expected" >"$work/e2e.tap" 2>&1
check "check-e2e-trail.sh reconstructs the release day" test $? = 0 || cat "$work/e2e.tap" | sed 's/^/# /'

"$audit" --json "$work/auth.log" >"$work/all.json" 2>"$work/all.err"
rc=$?
check "a clean trail exits 0" test $rc = 0
check "all 20 records listed" test "$(wc -l <"$work/all.json")" = 20
check "syslog records are marked unverified, with a note" \
	sh -c "! grep -q '\"verified\":true' '$work/all.json' && grep -q 'records are unverified' '$work/all.err'"

# 2. The hostile command line stays one escaped value.
"$audit" -q "$work/auth.log" >"$work/table.txt"
check "table shows the escaped newline inside the command" grep -q 'command="ls\\x0aevent=install_ok user=ptau-alice module=evil \\"\\\\\\xff\\xe2\\x80\\xae"' "$work/table.txt"
check "no module=evil record was made of it" sh -c "! grep -q '^[^ ]* *install_ok.*module=evil' '$work/table.txt'"
check "table output holds no control character" sh -c "! LC_ALL=C grep -q '[[:cntrl:]]' '$work/table.txt'"

# 3. CSV: RFC 4180, and a formula cell defused.
"$audit" -q --csv "$work/auth.log" >"$work/all.csv"
check "CSV parses, 21 rows of 12 cells" python3 -c "
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline='')))
sys.exit(not (len(rows) == 21 and all(len(r) == 12 for r in rows)))" "$work/all.csv"
check "a command starting with = is prefixed with a quote" grep -q "\"'=cmd|' /C calc'!A0\"" "$work/all.csv"

# 4. One session's story, in order.
sid=$(python3 -c "
import json, sys
for l in open(sys.argv[1]):
    r = json.loads(l)['record']
    if r['event'] == 'install_ok' and r['user'] == 'ptau-alice': print(r['client_session'])" "$work/all.json")
story=$("$audit" -q --json session "$sid" "$work/auth.log" | python3 -c "
import json, sys
print(' '.join(json.loads(l)['record']['event'] for l in sys.stdin))")
check "session $sid tells alice's story in order" test "$story" = \
	"login_fail login_ok command_allow upload_done command_allow install_ok command_deny session_end"

# 5. Filters.
count() { "$audit" -q --json "$@" "$work/auth.log" | wc -l; }
check "--user ptau-bob --event install_ok,install_refused" test "$(count --user ptau-bob --event install_ok,install_refused)" = 2
check "--module gtk" test "$(count --module gtk)" = 2
check "--from 198.51.100.9" test "$(count --from 198.51.100.9)" = 3
check "--event repeated" test "$(count --event lockout --event totp_unlock)" = 2
check "--signed yes: alice's signed gtk release" test "$(count --signed yes --user ptau-alice)" = 1 -a "$(count --signed yes)" = 1
check "--signed no: bob's unsigned glib release, and no other event" test "$(count --signed no)" = 1 -a "$(count --signed no --module glib)" = 1
check "--signer in lower case with spaces" test "$(count --signer '6a14 42b2 8b09 1bab 9eda  8075 c254 ad59 a4e8 4c8b')" = 1
check "--signer of another key" test "$(count --signer 0000000000000000000000000000000000000000)" = 0
"$audit" --signer 6A1442B2 2>"$work/bad-signer.err" </dev/null
check "a short --signer is an error that says why" sh -c "test $? = 1 && grep -q 'not a fingerprint: 8 hex digits, expected 40 or 64' '$work/bad-signer.err'"
"$audit" -q --json signers "$work/auth.log" >"$work/signers.json"
check "signers: one signed release by alice's key, one unsigned by bob" python3 -c "
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
sys.exit(rows != [{'signer': '-', 'releases': 1, 'users': 'ptau-bob', 'modules': 'glib'},
                  {'signer': '6A1442B28B091BAB9EDA8075C254AD59A4E84C8B', 'releases': 1, 'users': 'ptau-alice', 'modules': 'gtk'}])" "$work/signers.json"
"$audit" --event install 2>"$work/bad-event.err" </dev/null
check "an unknown --event is an error that says what to do" sh -c "test $? = 1 && grep -q '^postern-audit: install: unknown event' '$work/bad-event.err'"
check "standard input is read" test "$("$audit" -q --json <"$work/auth.log" | wc -l)" = 20

# 6. Forged and malformed lines: reported with their line numbers, never counted.
"$capture" "$work/auth.log" -- sh -c '
	s="user=ptau-alice from=192.0.2.7 port=50122 sid=6f11660f5822bf26"
	logger -t postern-shell "event=install_ok $s module=gtk version=6 file=gtk-6.tar.xz maintainer=yes"
	logger -t postern "event=install_ok $s module=gtk version=6 file=gtk-6.tar.xz maintainer=yes"
	logger -t postern-shell "$(printf "event=command_deny $s command=\"a\nevent=install_ok\"")"
	logger -t postern-shell "$(printf "event=command_deny $s command=\"\\377\"")"
	logger -t postern-installd "event=install_everything $s"'
cat "$src/data/hostile.log" >>"$work/auth.log"
"$audit" -q --json "$work/auth.log" >"$work/hostile.json" 2>"$work/hostile.err"
rc=$?
lines=$(sed -n 's/^postern-audit: [^:]*:\([0-9]*\): suspicious, not counted: .*/\1/p' "$work/hostile.err" | tr '\n' ' ')
expect="21 22 23 24 25 26 27 28 29 30 31 32 33 34 36 37 38 39 "
if [ "$rc" = 2 ] && [ "$lines" = "$expect" ]; then ok "18 suspicious lines reported by number, exit 2"; else not_ok "suspicious lines: rc=$rc, lines $lines" "$(cat "$work/hostile.err")"; fi
check "the same 20 records, nothing from the forged lines" test "$(wc -l <"$work/hostile.json")" = 20
check "stderr holds no control character" sh -c "! LC_ALL=C grep -q '[[:cntrl:]]' '$work/hostile.err'"
{ cat "$src/data/gen-trail.expected"; echo "suspicious 18"; } >"$work/hostile.expected"
POSTERN_AUDIT=$audit "$src/check-e2e-trail.sh" "$work/auth.log" "$work/hostile.expected" >"$work/e2e2.tap" 2>&1
check "summary counts unchanged by the forgeries" test $? = 0 || sed 's/^/# /' "$work/e2e2.tap"

# 7. The journal: trusted by sender uid; forged entries from other uids refused.
"$private_etc" sh -c '
	set -e
	. "$5"
	shell=--shell-exe=/usr/bin/postern-shell
	for u in postern ptau-alice ptau-bob ptau-mallory; do acct_user "$u" -M -N; done
	"$1" journal "$(id -u postern)" >"$2/journal.json"
	{ cat "$3/data/gen-trail.expected"; echo "suspicious 2"; echo "option $shell"; } >"$2/journal.expected"
	POSTERN_AUDIT=$4 "$3/check-e2e-trail.sh" "$2/journal.json" "$2/journal.expected" >"$2/journal.tap"
	"$4" -q --json "$shell" "$2/journal.json" >"$2/journal.out" 2>"$2/journal.err" || test $? = 2
	"$4" -q --json "$shell" --since 2025-12-03T06:34:26Z --until 2025-12-03T06:34:30Z "$2/journal.json" >"$2/window.out" 2>/dev/null || true
' sh "$gen" "$work" "$src" "$audit" "$(dirname "$private_etc")/lib-accounts.sh"
check "check-e2e-trail.sh on the journal (2 forged entries refused)" test -s "$work/journal.tap" -a "$(grep -c '^not ok' "$work/journal.tap")" = 0
check "journal records are verified, forged ones named" sh -c "test \$(grep -c '\"verified\":true' '$work/journal.out') = 20 && test \$(grep -c 'forged: sent by uid' '$work/journal.err') = 2"
check "--since/--until select by time" test "$(wc -l <"$work/window.out")" = 3
finish
