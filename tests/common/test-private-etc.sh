#!/bin/sh
# A user and a file created under private-etc must not exist afterwards;
# lib-accounts.sh refuses to edit the real /etc; installed-etc looks like a
# server with postern installed, and lib-accounts makes its throwaway
# accounts there all the same.
pe="$1" ie="$2"
lib="$(dirname "$pe")/lib-accounts.sh"
. "$(dirname "$0")/tap.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root"
"$pe" sh -c 'useradd -M -s /usr/sbin/nologin ptetc-probe && id ptetc-probe >/dev/null && mkdir -p /etc/postern && touch /etc/postern/probe && exit 7'
rc=$?
[ "$rc" = 7 ] && ok "command ran, status passed through" || not_ok "status $rc"
id ptetc-probe >/dev/null 2>&1 && not_ok "test user leaked" || ok "test user gone"
[ -e /etc/postern/probe ] && not_ok "file leaked into /etc" || ok "/etc untouched"
before=$(cat /etc/passwd /etc/group)
out=$(bash -c '. "$1"; acct_user ptetc-probe -M' sh "$lib" 2>&1)
rc=$?
[ "$rc" != 0 ] && [ "$(cat /etc/passwd /etc/group)" = "$before" ] && ok "lib-accounts refuses outside private-etc" ||
	not_ok "lib-accounts ran outside private-etc ($rc): $out"
"$ie" "$pe" sh -c 'getent passwd postern >/dev/null && getent group postern >/dev/null &&
	getent group uploaders >/dev/null && test -s /etc/postern/postern.yaml &&
	test "$(getent group uploaders | cut -d: -f4 | tr , "\n" | grep -c ^ptreal-)" = 3'
rc=$?
[ "$rc" = 0 ] && ok "installed-etc: postern, uploaders, postern.yaml and three accounts" || not_ok "installed-etc ($rc)"
"$ie" "$pe" bash -c '. "$1"; old=$(id -u ptreal-ann); acct_user ptreal-ann -M -N && acct_group postern -r &&
	acct_user postern -r -g postern -M && id ptreal-ann >/dev/null && id postern >/dev/null &&
	test "$(getent passwd | cut -d: -f1 | grep -c "^ptreal-ann$")" = 1 &&
	test "$(getent passwd | cut -d: -f1 | grep -c "^postern$")" = 1' sh "$lib"
rc=$?
[ "$rc" = 0 ] && ok "lib-accounts remakes accounts that already exist (postern, a regular one)" || not_ok "remaking accounts ($rc)"
finish
