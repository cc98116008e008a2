#!/bin/bash
# import-doap never parses a DOAP file as root (issue 27, item 6): libxml2
# runs in a forked child that becomes doap_parse_user and enters the
# sandbox before it reads the file (seen with strace on the real binary),
# and a stand-in for a libxml2 taken over by its file (hostile_xml.so,
# preloaded) is stopped at every forbidden call, or its lying answer is
# refused; each time the module keeps its previous maintainers and nothing
# the stand-in tried happened. doap_parse_user must be an existing user,
# never root.
#
# Usage: test-policy-doap-confined.sh POSTERN_POLICY SYSLOG_CAPTURE PRIVATE_ETC
#        DOAP_DIR WORK_BASE HOSTILE_XML_SO
set -u
pp="$1"; cap="$2"; pe="$3"; doap="$4"; base="$5"; hostile="$6"
. "$(dirname "$0")/../common/tap.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (import-doap drops to doap_parse_user only as root)"
command -v strace >/dev/null || skip_all "strace is not installed (Build-Depends: strace)"
if [ -z "${PTDOAP_IN_PRIVATE_ETC:-}" ]; then
	exec "$pe" env PTDOAP_IN_PRIVATE_ETC=1 "$0" "$@"
fi
. "$(dirname "$pe")/lib-accounts.sh"
acct_user ptdoap-parse -M -s /usr/sbin/nologin
parse_uid=$(id -u ptdoap-parse)

w=$(mktemp -d "$base/ptdoap-XXXXXX")
trap 'rm -rf "$w"' EXIT
chmod 755 "$w"
mkdir -m 755 "$w/src" "$w/state"
cp "$doap/gtk.doap" "$doap/pango.doap" "$w/src/"
out_file="$w/state/doap-modules.yaml"
write_config() {   # write_config [EXTRA LINE]
	{
		echo "doap_sources: [$w/src]"
		echo "doap_modules: $out_file"
		[ $# = 0 ] || echo "$1"
	} > "$w/postern.yaml"
	chmod 644 "$w/postern.yaml"
}
import() {   # import [VAR=VALUE...]: sets out and rc
	out=$(env "$@" "$cap" "$w/log" -- "$pp" -C "$w/postern.yaml" import-doap 2>&1); rc=$?
}
write_config "doap_parse_user: ptdoap-parse"

# The real parser, watched: which child set which uid, and when it read.
strace -f -qq -o "$w/trace" -e trace=setresuid,seccomp,landlock_restrict_self,read \
	"$cap" "$w/log" -- "$pp" -C "$w/postern.yaml" import-doap >"$w/out" 2>&1; rc=$?
result "$rc" "the first import succeeds under strace" || sed 's/^/# /' "$w/out"
# One space after the pid, whatever the strace version pads it with.
sed -i -E 's/^([0-9]+) +/\1 /' "$w/trace"
parsers=$(grep -E "setresuid\($parse_uid, $parse_uid, $parse_uid\) +=  *0" "$w/trace" | awk '{print $1}')
[ "$(wc -w <<<"$parsers")" = 2 ] &&
	ok "each of the two files is parsed by its own child as doap_parse_user" ||
	not_ok "parsers: '$parsers'" "$(grep setresuid "$w/trace")"
confined_first=1
for pid in $parsers; do
	# In that child: uid, then Landlock, then seccomp, and only then the file.
	order=$(grep "^$pid " "$w/trace" | grep -oE "^$pid (setresuid|landlock_restrict_self|seccomp|read\(1,)" |
		awk '{print $2}' | uniq | tr '\n' ' ')
	case $order in
	"setresuid landlock_restrict_self seccomp read(1, ") ;;
	*) confined_first=0; echo "# child $pid: $order" ;;
	esac
done
[ "$confined_first" = 1 ] && ok "the child is confined before it reads a byte of the file" ||
	not_ok "a child read the file before it was confined"
grep -q "^[0-9]* read(1, \"<?xml" "$w/trace" && ! grep -E "^[0-9]* read\([0-9]+, \"<\?xml" "$w/trace" |
	awk '{print $1}' | grep -qvxF -f <(tr ' ' '\n' <<<"$parsers" | grep .) &&
	ok "no process but the confined children reads the DOAP text" ||
	not_ok "the DOAP text was read outside the children" "$(grep -E 'read\([0-9]+, "<\?xml' "$w/trace")"
grep -q "ebassi" "$out_file" && ok "the children's answers make the module list" ||
	not_ok "gtk's maintainers missing" "$(cat "$out_file")"
cp "$out_file" "$w/before.yaml"

# Stand-ins for a libxml2 that the file took over.
stopped() {   # stopped TRY MESSAGE: both files refused with MESSAGE, nothing changed
	rm -f "$w/escaped"
	import LD_PRELOAD="$hostile" PTDOAP_TRY="$1" PTDOAP_MARK="$w/escaped"
	[ "$rc" = 1 ] && [ "$(grep -cF -- "$2" <<<"$out")" = 2 ] && [ ! -e "$w/escaped" ] &&
		cmp -s "$out_file" "$w/before.yaml" &&
		grep -qxF "gtk: gtk.doap could not be used; keeping the previous maintainers" <<<"$out" &&
		ok "a parser that tries $1 is stopped: $2" ||
		not_ok "tries $1" "rc=$rc escaped=$([ -e "$w/escaped" ] && echo yes || echo no)
$out"
}
stopped socket "the DOAP parser was stopped by signal 31 (a system call its sandbox forbids)"
stopped open "the DOAP parser was stopped by signal 31 (a system call its sandbox forbids)"
stopped kill "the DOAP parser was stopped by signal 31 (a system call its sandbox forbids)"
stopped exec "the DOAP parser was stopped by signal 31 (a system call its sandbox forbids)"
stopped spin "the DOAP parser was stopped by signal 9 (out of CPU time, or killed)"
stopped garble "the DOAP parser gave a malformed answer"
stopped flood "the DOAP parser's answer was unreadable or too large"

import LD_PRELOAD="$hostile" PTDOAP_TRY=forge
[ "$rc" = 0 ] && grep -qF "gtk.doap: warning: maintainer ?]0;owned?Eve has no gnome:userid" <<<"$out" &&
	! grep -q $'\033' <<<"$out" && cmp -s "$out_file" "$w/before.yaml" &&
	ok "a forged name reaches the terminal made printable; the module keeps its maintainers" ||
	not_ok "forged answer" "rc=$rc $(od -c <<<"$out" | head -20)"

write_config "doap_parse_user: ptdoap-none-such"
acct_forget_user ptdoap-none-such
import
[ "$rc" = 1 ] && grep -qF "doap_parse_user ptdoap-none-such: no such user, or root: DOAP files are not parsed (set doap_parse_user to an unprivileged user)" <<<"$out" &&
	cmp -s "$out_file" "$w/before.yaml" &&
	ok "a doap_parse_user that does not exist: nothing parsed, nothing written" ||
	not_ok "missing parse user" "rc=$rc $out"
write_config "doap_parse_user: root"
import
[ "$rc" != 0 ] && grep -qF "doap_parse_user: 'root' is not a user name to run as (a plain name, not root)" <<<"$out" &&
	ok "doap_parse_user: root is refused by the policy" || not_ok "root parse user" "rc=$rc $out"
finish
