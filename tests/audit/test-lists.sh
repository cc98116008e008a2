#!/bin/bash
# test-lists.sh AUDIT
#
# upload_done's files= list reads back exactly: one file named "a,b" and
# two files "a" and "b" are different records, and postern-audit --json
# gives each its list of names; a list the writer could not have written,
# or one in a cut record, is given as null. No root needed.
set -u
audit=$1
. "$(dirname "$0")/lib.sh"
audit_work

head='Dec  3 06:57:00 vm postern-shell[23616]: event=upload_done user=ptau-alice from=127.0.0.1 port=34674 sid=c3062d2c50d14089 status=ok exit=0'
cat >"$work/trail.log" <<LOG
$head files=a%2cb
$head files=a,b
$head files=%2d,100%25,x%2cy%2cz
$head files=-
$head files="two words,G\xc3\xb6llnitz"
$head files=a%2Cb
$head files=a,,b
$head files=a%2cb truncated=yes
LOG
"$audit" -q --year 2026 --json "$work/trail.log" >"$work/out.json" 2>"$work/err"
result $? "postern-audit reads the records"
python3 - "$work/out.json" >"$work/lists" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    print(json.dumps(json.loads(line).get("files", "absent")))
PY
cat >"$work/want" <<'WANT'
["a,b"]
["a", "b"]
["-", "100%", "x,y,z"]
[]
["two words", "G\\xc3\\xb6llnitz"]
null
null
null
WANT
diff "$work/want" "$work/lists" >"$work/diff"
result $? "each record's files list, exactly (one file 'a,b' is not 'a' and 'b')"
[ -s "$work/diff" ] && sed 's/^/# /' "$work/diff"
finish
