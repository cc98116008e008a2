#!/bin/bash
# test-ci.sh AUDIT
#
# CI releases in the trail (issue 28): postern-installd's install_ok and
# install_refused of a CI job carry uploader=ci:<issuer>/<project> and the
# job (user is postern-ci's), and postern-ci's own ci_refused records what it
# turned away before the daemon. postern-audit filters them (--ci,
# --uploader) and counts them in summary under the CI identity. No root needed.
set -u
audit=$1
. "$(dirname "$0")/lib.sh"
audit_work

head="from=127.0.0.1 port=- sid=0123456789abcdef"
tail="sha256=00 maintainer=yes forced=no signed=no peer_uid=998 peer_pid=4242 dry_run=no"
job="ci_pipeline=4711 ci_job=815 ci_sha=0123456789abcdef0123456789abcdef01234567 ci_user=ebassi"
cat >"$work/trail.log" <<LOG
Dec  3 06:50:00 vm postern-installd[200]: event=install_ok user=matthiasc $head module=gtk version=4.14.0 file=gtk-4.14.0.tar.xz dir=4.14 basis=maintainer $tail
Dec  3 06:51:00 vm postern-installd[200]: event=install_ok user=postern-ci $head module=gtk version=4.14.1 file=gtk-4.14.1.tar.xz dir=4.14 basis=ci $tail uploader=ci:gitlab/GNOME/gtk $job
Dec  3 06:52:00 vm postern-installd[200]: event=install_refused user=postern-ci $head file=gtk-4.14.1.tar.xz module=gtk version=4.14.1 reason="already released" peer_uid=998 peer_pid=1 dry_run=no uploader=ci:gitlab/GNOME/gtk $job
Dec  3 06:53:00 vm postern-installd[200]: event=install_ok user=postern-ci $head module=glib version=2.82.0 file=glib-2.82.0.tar.xz dir=2.82 basis=ci $tail uploader=ci:gitlab/GNOME/glib $job
Dec  3 06:54:00 vm postern-ci[300]: event=ci_refused user=postern-ci $head status=401 reason="the token has expired" issuer=gitlab project=GNOME/gtk ci_pipeline=4712 ci_job=816 ci_user=ebassi
LOG
events() { "$audit" -q --year 2026 --json "$@" "$work/trail.log" | python3 -c '
import json, sys
print(" ".join(r["event"] + ":" + r.get("version", "-") for r in (json.loads(l)["record"] for l in sys.stdin)))'; }

[ "$(events --ci yes)" = "install_ok:4.14.1 install_refused:4.14.1 install_ok:2.82.0" ]
result $? "--ci yes: the CI jobs' releases and refusals"
[ "$(events --ci no --event install_ok)" = "install_ok:4.14.0" ]
result $? "--ci no: a maintainer's release only"
[ "$(events --uploader ci:gitlab/GNOME/gtk)" = "install_ok:4.14.1 install_refused:4.14.1" ]
result $? "--uploader names one CI identity"
[ "$(events --uploader matthiasc,ci:gitlab/GNOME/glib)" = "install_ok:4.14.0 install_ok:2.82.0" ]
result $? "--uploader takes users and CI identities together"
[ "$(events --event ci_refused)" = "ci_refused:-" ]
result $? "postern-ci's ci_refused is a record of the schema"
"$audit" --ci maybe "$work/trail.log" >/dev/null 2>"$work/err"
[ $? = 1 ] && grep -qx "postern-audit: maybe: --ci is yes or no" "$work/err"
result $? "--ci with another word is refused"

"$audit" -q --year 2026 --csv summary "$work/trail.log" >"$work/summary.csv"
python3 -c '
import csv, sys
rows = {r[0]: r for r in csv.reader(open(sys.argv[1], newline=""))}
h = rows["user"]
get = lambda u, k: rows[u][h.index(k)]
sys.exit(not (get("ci:gitlab/GNOME/gtk", "installs") == "1" and
              get("ci:gitlab/GNOME/gtk", "refused_installs") == "1" and
              get("ci:gitlab/GNOME/glib", "installs") == "1" and
              get("matthiasc", "installs") == "1" and
              rows.get("postern-ci", [None] * len(h))[h.index("installs")] in (None, "0")))' "$work/summary.csv"
result $? "summary counts a CI job's releases under its identity, not postern-ci's"
finish
