#!/bin/sh
# A user and a file created under private-etc must not exist afterwards.
pe="$1"
echo "1..3"
if [ "$(id -u)" != 0 ]; then
	echo "ok 1 # SKIP needs root"; echo "ok 2 # SKIP"; echo "ok 3 # SKIP"; exit 0
fi
"$pe" sh -c 'useradd -M -s /usr/sbin/nologin ptetc-probe && id ptetc-probe >/dev/null && mkdir -p /etc/postern && touch /etc/postern/probe && exit 7'
rc=$?
[ "$rc" = 7 ] && echo "ok 1 - command ran, status passed through" || echo "not ok 1 - status $rc"
id ptetc-probe >/dev/null 2>&1 && echo "not ok 2 - test user leaked" || echo "ok 2 - test user gone"
[ -e /etc/postern/probe ] && echo "not ok 3 - file leaked into /etc" || echo "ok 3 - /etc untouched"
