#!/bin/bash
# test-claimed.sh AUDIT
#
# postern-installd marks what its client claims about the SSH session
# (client_from, client_port, client_session) apart from what it knows
# (user from SO_PEERCRED; its own from=local and sid). postern-audit joins
# such a record to the claimed session for `session SID` and --from, and
# joins no other program's records that way. No root needed.
set -u
audit=$1
. "$(dirname "$0")/lib.sh"
audit_work

ssh=6f11660f5822bf26 own=0123456789abcdef
cat >"$work/trail.log" <<LOG
Dec  3 06:57:00 vm postern-shell[100]: event=command_allow user=ptau-alice from=192.0.2.7 port=50122 sid=$ssh command=install-module name=install-module mode=login_shell
Dec  3 06:57:01 vm postern-installd[200]: event=install_ok user=ptau-alice from=local port=- sid=$own client_from=192.0.2.7 client_port=50122 client_session=$ssh module=gtk version=4.14.0 file=gtk-4.14.0.tar.xz sha256=00 maintainer=yes basis=maintainer dir=sources/gtk/4.14 forced=no peer_uid=1001 peer_pid=4242 dry_run=no
Dec  3 06:57:02 vm postern-shell[100]: event=session_end user=ptau-alice from=192.0.2.7 port=50122 sid=$ssh client_session=fedcba9876543210 name=install-module status=0
LOG
events() { "$audit" -q --year 2026 --json "$@" "$work/trail.log" | python3 -c '
import json, sys
print(" ".join(json.loads(l)["record"]["event"] for l in sys.stdin))'; }
[ "$(events session $ssh)" = "command_allow install_ok session_end" ]
result $? "session $ssh holds the daemon's record through its client_session"
[ "$(events --from 192.0.2.7)" = "command_allow install_ok session_end" ]
result $? "--from matches the claimed client_from of a daemon record"
[ "$(events session fedcba9876543210)" = "" ]
result $? "a client_session in another program's record joins nothing"
[ "$(events session $own)" = "" ]
result $? "the daemon's own connection id is not a session"
"$audit" -q --year 2026 --json "$work/trail.log" | python3 -c '
import json, sys
r = [json.loads(l)["record"] for l in sys.stdin][1]
sys.exit(not (r["from"] == "local" and r["client_from"] == "192.0.2.7" and r["peer_uid"] == "1001"))'
result $? "--json keeps the record as written: from=local, client_from, peer_uid"
finish
