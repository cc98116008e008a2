#!/usr/bin/python3
"""bench/shell-gen-policy.py INCOMING USER [MODULES] [USERS] [DOAP_FILE]

Writes to stdout a GNOME-scale postern.yaml: MODULES modules (default 1000)
with about five maintainers each drawn from USERS accounts (default 500),
every tenth module open, a release team of two. USER maintains the first
module. Deterministic, so every run measures the same policy.

With DOAP_FILE, laid out as GNOME would run it: the maintainers go to
DOAP_FILE, a generated module list as postern-policy import-doap writes it
(each module's <maintainer> entries), which postern.yaml names in
doap_modules; postern.yaml keeps the settings and the open modules.
"""
import os
import random
import sys


def main():
    incoming, user = sys.argv[1:3]
    modules = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    users = int(sys.argv[4]) if len(sys.argv) > 4 else 500
    doap_file = sys.argv[5] if len(sys.argv) > 5 else None
    rnd = random.Random(1000)
    names = ["maint%03d" % i for i in range(users)]
    out = ["paths:", "  incoming: " + incoming, "  tree: /srv/postern/pub",
           "  state: /var/lib/postern", "  socket: /run/postern/installd.sock",
           "  logins: " + os.path.join(os.path.dirname(incoming), "logins"),
           "release_team:", "  users: [maint000, maint001]"]
    if doap_file:
        out.append("doap_modules: " + doap_file)
    out.append("modules:")
    doap = ["modules:"]
    for m in range(modules):
        name = "module-%04d" % m
        if m % 10 == 9:
            out += ["  %s:" % name, "    open: true"]
            continue
        who = rnd.sample(names, min(users, rnd.randint(3, 7)))
        if m == 0:
            who[0] = user
        if doap_file:
            doap += ["  %s:" % name, "    maintainers: [%s]" % ", ".join(who),
                     "    source: %s.doap" % name]
        else:
            out += ["  %s:" % name, "    maintainers: [%s]" % ", ".join(who)]
    if doap_file:
        with open(doap_file, "w") as f:
            f.write("\n".join(doap) + "\n")
    print("\n".join(out))


main()
