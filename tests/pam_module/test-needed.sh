#!/bin/sh
# The module leaves the dynamic linker nothing but libpam and libc: a
# library sshd lacks would be mapped, relocated and unmapped in every login,
# and even sshd's own libcrypto cost the page faults of its symbol tables and
# code (bench/totp). liboath and nettle are linked in; libcrypt is opened
# only for a recovery code.
#
# Nothing to judge must never read as "needs nothing": a missing or non-ELF
# module, or no readelf or nm on PATH, leaves both lists empty. So a tool
# that fails is a failure, and so is an empty list (the module always needs
# libc and always imports libpam's functions); so is a listing without one
# undefined symbol line, as nm gives for a static archive.
. "$(dirname "$0")/../common/tap.sh"
module=$1
check_tools="check that $module was built and is an ELF shared object, and that binutils' readelf and nm are on PATH"

if ! dynamic=$(readelf -dW "$module"); then
	not_ok "readelf -dW failed on the module" "$check_tools (the error is on stderr)"
else
	needed=$(printf '%s\n' "$dynamic" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
	extra=$(printf '%s\n' $needed | grep -v -x -e 'libpam\.so\.0' -e 'libc\.so\.6' -e 'libdl\.so\.2' | tr '\n' ' ')
	if [ -z "$needed" ]; then
		not_ok "readelf -dW lists no NEEDED library in the module (not even libc)" "$check_tools"
	elif [ -z "$extra" ]; then
		ok "needs only libpam and libc ($needed)"
	else
		not_ok "also needs: $extra"
	fi
fi

# Only "U" and "w" lines are symbols: nm prints file headers for an archive.
if ! listing=$(nm -D --undefined-only "$module"); then
	not_ok "nm -D --undefined-only failed on the module" "$check_tools (the error is on stderr)"
elif ! undefined=$(printf '%s\n' "$listing" | grep -E '^ +[Uw] '); then
	not_ok "nm -D --undefined-only lists no undefined symbol in the module (not even libpam's)" "$check_tools"
elif printf '%s\n' "$undefined" | grep -q -e ' oath_' -e ' nettle_' -e ' crypt_rn' -e '@OPENSSL_'; then
	not_ok "liboath, nettle, libcrypt or libcrypto symbols are left to the dynamic linker"
else
	ok "no liboath, nettle, libcrypt or libcrypto symbol is resolved at load time"
fi
finish
