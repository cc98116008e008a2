#!/bin/sh
# The module leaves the dynamic linker nothing but libpam and libc: a
# library sshd lacks would be mapped, relocated and unmapped in every login,
# and even sshd's own libcrypto cost the page faults of its symbol tables and
# code (bench/totp). liboath and nettle are linked in; libcrypt is opened
# only for a recovery code.
. "$(dirname "$0")/../common/tap.sh"
needed=$(readelf -dW "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
extra=$(printf '%s\n' $needed | grep -v -x -e 'libpam\.so\.0' -e 'libc\.so\.6' -e 'libdl\.so\.2' | tr '\n' ' ')
if [ -z "$extra" ]; then
	ok "needs only libpam and libc ($needed)"
else
	not_ok "also needs: $extra"
fi
if nm -D --undefined-only "$1" | grep -q -e ' oath_' -e ' nettle_' -e ' crypt_rn' -e '@OPENSSL_'; then
	not_ok "liboath, nettle, libcrypt or libcrypto symbols are left to the dynamic linker"
else
	ok "no liboath, nettle, libcrypt or libcrypto symbol is resolved at load time"
fi
finish
