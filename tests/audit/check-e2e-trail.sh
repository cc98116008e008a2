#!/bin/bash
# check-e2e-trail.sh LOGFILE EXPECTED
#
# Asserts that postern-audit reconstructs a scenario from its audit trail:
# exactly who released what, when and from where (each release tied to a
# login of the same user from the same address in the same session), the
# per-user summary counts, and how many lines are suspicious. EXPECTED's
# format is described in tests/audit/data/gen-trail.expected. LOGFILE is an
# auth.log-style file (tests/common/syslog-capture writes those) or
# `journalctl -o json` output. The postern-audit binary is $POSTERN_AUDIT,
# or postern-audit from PATH. Prints TAP; exits non-zero on any failure.
set -u
log=${1:?usage: check-e2e-trail.sh LOGFILE EXPECTED}
expected=${2:?usage: check-e2e-trail.sh LOGFILE EXPECTED}
audit=${POSTERN_AUDIT:-postern-audit}
exec python3 - "$audit" "$log" "$expected" <<'PY'
import json, subprocess, sys
from datetime import datetime

audit, log, expected_path = sys.argv[1:4]
releases, summary, options = set(), {}, []
window, suspicious_expected = None, 0
for n, line in enumerate(open(expected_path, encoding="utf-8"), 1):
    words = line.split()
    if not words or words[0].startswith("#"):
        continue
    kind, args = words[0], words[1:]
    if kind == "release" and len(args) == 6 and args[5] in ("maintainer", "nmu"):
        releases.add(tuple(args))
    elif kind == "summary" and len(args) in (8, 10):
        summary[args[0]] = [int(a) for a in args[1:]]
    elif kind == "between" and len(args) == 2:
        # without a zone, local time, as postern-audit reads --since/--until
        window = [datetime.fromisoformat(a).astimezone() for a in args]
    elif kind == "suspicious" and len(args) == 1:
        suspicious_expected = int(args[0])
    elif kind == "option" and len(args) == 1:
        options.append(args[0])
    else:
        sys.exit(f"check-e2e-trail: {expected_path}:{n}: cannot read \"{line.strip()}\"")

results = []
def check(ok, what, detail=""):
    results.append((ok, what, detail))

def run(*args):
    p = subprocess.run([audit, "-q", "--json", *options, *args, log],
                       capture_output=True, text=True)
    if p.returncode not in (0, 2):
        sys.exit(f"check-e2e-trail: {audit} failed ({p.returncode}): {p.stderr.strip()}")
    return [json.loads(l) for l in p.stdout.splitlines()], p.stderr, p.returncode

records, err, rc = run()
suspicious = [l for l in err.splitlines() if "suspicious, not counted" in l]
check(len(suspicious) == suspicious_expected and (rc == 2) == (suspicious_expected > 0),
      f"{suspicious_expected} suspicious lines", "\n".join(suspicious))

found = set()
for r in (r for r in records if r["record"]["event"] == "install_ok"):
    # postern-installd's own from/sid are "local" and its connection; the
    # SSH session is what its client claims (docs/AUDIT.md). Older trails
    # carry the claim in from/sid.
    f = dict(r["record"])
    f["from"] = f.get("client_from", f["from"])
    f["sid"] = f.get("client_session", f["sid"])
    found.add((f["user"], f["module"], f["version"], f["file"], f["from"],
               "maintainer" if f.get("maintainer") == "yes" else "nmu"))
    story, _, _ = run("session", f["sid"])
    logins = [s for s in story if s["record"]["event"] == "login_ok"
              and s["record"]["user"] == f["user"] and s["record"]["from"] == f["from"]
              and s["time"] <= r["time"]]
    check(bool(logins), f"{f['user']} logged in from {f['from']} before releasing {f['file']} (session {f['sid']})")
    if window:
        when = datetime.fromisoformat(r["time"])
        check(window[0] <= when <= window[1],
              f"{f['file']} released at {r['time']}, within {window[0].isoformat()}..{window[1].isoformat()}")
check(found == releases, "exactly the expected releases (who, what, from where, maintainer or not)",
      f"missing: {sorted(releases - found)}\nunexpected: {sorted(found - releases)}")

rows, _, _ = run("summary")
got = {r["user"]: [r["logins_ok"], r["logins_failed"], r["denied_commands"], r["installs"],
                   r["non_maintainer_uploads"], r["refused_installs"], r["lockouts"],
                   r["signed_installs"], r["unsigned_installs"]] for r in rows}
for user, counts in sorted(summary.items()):
    have = got.get(user, [])[:len(counts)]
    check(have == counts, f"summary of {user}: {counts}", f"got {have}")
for user, counts in sorted(got.items()):
    if user not in summary:
        check(not any(counts), f"no counted activity for unlisted user {user}", f"got {counts}")

print(f"1..{len(results)}")
for i, (ok, what, detail) in enumerate(results, 1):
    print(f"{'ok' if ok else 'not ok'} {i} - {what}")
    if not ok and detail:
        print("\n".join("# " + d for d in detail.splitlines()))
sys.exit(0 if all(ok for ok, _, _ in results) else 1)
PY
