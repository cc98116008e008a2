#!/bin/sh
# A user and a file created under private-etc must not exist afterwards;
# lib-accounts.sh refuses to edit the real /etc; installed-etc looks like a
# server with postern installed, and lib-accounts makes its throwaway
# accounts there all the same.
pe="$1" ie="$2"
lib="$(dirname "$pe")/lib-accounts.sh"
echo "1..6"
if [ "$(id -u)" != 0 ]; then
	for i in 1 2 3 4 5 6; do echo "ok $i # SKIP needs root"; done; exit 0
fi
"$pe" sh -c 'useradd -M -s /usr/sbin/nologin ptetc-probe && id ptetc-probe >/dev/null && mkdir -p /etc/postern && touch /etc/postern/probe && exit 7'
rc=$?
[ "$rc" = 7 ] && echo "ok 1 - command ran, status passed through" || echo "not ok 1 - status $rc"
id ptetc-probe >/dev/null 2>&1 && echo "not ok 2 - test user leaked" || echo "ok 2 - test user gone"
[ -e /etc/postern/probe ] && echo "not ok 3 - file leaked into /etc" || echo "ok 3 - /etc untouched"
before=$(cat /etc/passwd /etc/group)
out=$(bash -c '. "$1"; acct_user ptetc-probe -M' sh "$lib" 2>&1)
rc=$?
[ "$rc" != 0 ] && [ "$(cat /etc/passwd /etc/group)" = "$before" ] && echo "ok 4 - lib-accounts refuses outside private-etc" ||
	echo "not ok 4 - lib-accounts ran outside private-etc ($rc): $out"
"$ie" "$pe" sh -c 'getent passwd postern >/dev/null && getent group postern >/dev/null &&
	getent group uploaders >/dev/null && test -s /etc/postern/postern.yaml &&
	test "$(getent group uploaders | cut -d: -f4 | tr , "\n" | grep -c ^ptreal-)" = 3'
rc=$?
[ "$rc" = 0 ] && echo "ok 5 - installed-etc: postern, uploaders, postern.yaml and three accounts" || echo "not ok 5 - installed-etc ($rc)"
"$ie" "$pe" bash -c '. "$1"; old=$(id -u ptreal-ann); acct_user ptreal-ann -M -N && acct_group postern -r &&
	acct_user postern -r -g postern -M && id ptreal-ann >/dev/null && id postern >/dev/null &&
	test "$(getent passwd | cut -d: -f1 | grep -c "^ptreal-ann$")" = 1 &&
	test "$(getent passwd | cut -d: -f1 | grep -c "^postern$")" = 1' sh "$lib"
rc=$?
[ "$rc" = 0 ] && echo "ok 6 - lib-accounts remakes accounts that already exist (postern, a regular one)" || echo "not ok 6 - remaking accounts ($rc)"
