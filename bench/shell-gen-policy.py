#!/usr/bin/python3
"""bench/shell-gen-policy.py INCOMING USER [MODULES] [USERS]

Writes to stdout a GNOME-scale postern.yaml: MODULES modules (default 1000)
with about five maintainers each drawn from USERS accounts (default 500),
every tenth module open, a release team of two. USER maintains the first
module. Deterministic, so every run measures the same policy.
"""
import random
import sys


def main():
    incoming, user = sys.argv[1:3]
    modules = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    users = int(sys.argv[4]) if len(sys.argv) > 4 else 500
    rnd = random.Random(1000)
    names = ["maint%03d" % i for i in range(users)]
    out = ["paths:", "  incoming: " + incoming, "  tree: /srv/postern/pub",
           "  state: /var/lib/postern", "  socket: /run/postern/installd.sock",
           "release_team:", "  users: [maint000, maint001]", "modules:"]
    for m in range(modules):
        out.append("  module-%04d:" % m)
        if m % 10 == 9:
            out.append("    open: true")
            continue
        who = rnd.sample(names, min(users, rnd.randint(3, 7)))
        if m == 0:
            who[0] = user
        out.append("    maintainers: [%s]" % ", ".join(who))
    print("\n".join(out))


main()
