#!/bin/bash
# test-signed.sh AUDIT
#
# Signed releases in the trail (issue 14): install_ok carries signed=yes|no
# and signer=<fingerprint>. postern-audit filters on them (--signed,
# --signer), counts them in summary and per key in signers; an install_ok
# from before signatures were recorded counts as unsigned. No root needed.
set -u
audit=$1
. "$(dirname "$0")/lib.sh"
audit_work

a=6A1442B28B091BAB9EDA8075C254AD59A4E84C8B
b=F88A236672F536ED91BE68508584A30CC84FCFCC
head="from=local port=- sid=0123456789abcdef"
tail="sha256=00 maintainer=yes basis=maintainer forced=no peer_uid=1001 peer_pid=4242 dry_run=no"
cat >"$work/trail.log" <<LOG
Dec  3 06:50:00 vm postern-installd[200]: event=install_ok user=torv $head module=linux version=6.1 file=linux-6.1.tar.xz dir=v6.x $tail
Dec  3 06:51:00 vm postern-installd[200]: event=install_ok user=torv $head module=linux version=6.2 file=linux-6.2.tar.xz dir=v6.x $tail signed=yes signer=$a
Dec  3 06:52:00 vm postern-installd[200]: event=install_ok user=torv $head module=linux version=6.3 file=linux-6.3.tar.xz dir=v6.x $tail signed=yes signer=$b
Dec  3 06:53:00 vm postern-installd[200]: event=install_ok user=greg $head module=stable version=6.2.1 file=stable-6.2.1.tar.xz dir=v6.x $tail signed=yes signer=$a
Dec  3 06:54:00 vm postern-installd[200]: event=install_ok user=greg $head module=stable version=6.2.2 file=stable-6.2.2.tar.xz dir=v6.x $tail signed=no
Dec  3 06:55:00 vm postern-installd[200]: event=install_refused user=greg $head file=stable-6.2.3.tar.xz module=stable version=6.2.3 reason="no signature" peer_uid=1002 peer_pid=1 dry_run=no
LOG
versions() { "$audit" -q --year 2026 --json "$@" "$work/trail.log" | python3 -c '
import json, sys
print(" ".join(json.loads(l)["record"].get("version", "") for l in sys.stdin))'; }

[ "$(versions --signed yes)" = "6.2 6.3 6.2.1" ]
result $? "--signed yes: the releases with signed=yes"
[ "$(versions --signed no)" = "6.1 6.2.2" ]
result $? "--signed no: signed=no, and an install_ok from before signatures; no refusal"
[ "$(versions --signer $a)" = "6.2 6.2.1" ] && [ "$(versions --signer "$a,$b" --user torv)" = "6.2 6.3" ]
result $? "--signer, a list of keys, combined with --user"
[ "$(versions --signer "$(tr A-F a-f <<<"$b" | sed 's/..../& /g')")" = "6.3" ]
result $? "--signer in lower case, in groups of four"
"$audit" --signed maybe "$work/trail.log" >/dev/null 2>"$work/err"
[ $? = 1 ] && grep -qx "postern-audit: maybe: --signed is yes or no" "$work/err"
result $? "--signed with another word is refused"
"$audit" --signer "$a"x "$work/trail.log" >/dev/null 2>"$work/err"
[ $? = 1 ] && grep -q "not a fingerprint: 'x' is not a hex digit" "$work/err"
result $? "--signer with a non-hex character is refused"

"$audit" -q --year 2026 --csv summary "$work/trail.log" >"$work/summary.csv"
python3 -c '
import csv, sys
rows = {r[0]: r for r in csv.reader(open(sys.argv[1], newline=""))}
h = rows["user"]
get = lambda u, k: rows[u][h.index(k)]
sys.exit(not (h[-2:] == ["signed_installs", "unsigned_installs"] and
              (get("torv", "installs"), get("torv", "signed_installs"), get("torv", "unsigned_installs")) == ("3", "2", "1") and
              (get("greg", "installs"), get("greg", "signed_installs"), get("greg", "unsigned_installs")) == ("2", "1", "1")))' "$work/summary.csv"
result $? "summary counts signed and unsigned installs per user"

"$audit" -q --year 2026 signers "$work/trail.log" >"$work/signers.txt"
[ "$(awk 'NR > 1 { print $1, $2, $3, $4 }' "$work/signers.txt" | tr '\n' ';')" = "- 2 torv,greg linux,stable;$a 2 torv,greg linux,stable;$b 1 torv linux;" ] &&
	head -n 1 "$work/signers.txt" | grep -q '^SIGNER  *RELEASES  *USERS  *MODULES$'
result $? "signers: per key, releases, users and modules; - for unsigned"
"$audit" -q --year 2026 --csv signers --module stable "$work/trail.log" >"$work/signers.csv"
[ "$(cat "$work/signers.csv")" = "$(printf 'signer,releases,users,modules\r\n"-","1","greg","stable"\r\n"%s","1","greg","stable"\r' "$a")" ]
result $? "signers --csv, with a filter"
finish
