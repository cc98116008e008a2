#!/bin/sh
# The module loads no shared library sshd does not already have: each one
# would be mapped, relocated and unmapped in every login (bench/totp).
# liboath is linked in; libcrypt is opened only for a recovery code.
echo "1..2"
rc=0
needed=$(readelf -dW "$1" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
extra=$(printf '%s\n' $needed | grep -v -x -e 'libcrypto\.so\.3' -e 'libpam\.so\.0' -e 'libc\.so\.6' -e 'libdl\.so\.2' | tr '\n' ' ')
if [ -z "$extra" ]; then
	echo "ok 1 - needs only libcrypto, libpam and libc ($needed)"
else
	echo "not ok 1 - also needs: $extra"
	rc=1
fi
if nm -D --undefined-only "$1" | grep -q -w -e 'oath_[a-z0-9_]*' -e 'crypt_rn'; then
	echo "not ok 2 - liboath or libcrypt symbols are left to the dynamic linker"
	rc=1
else
	echo "ok 2 - no liboath or libcrypt symbol is resolved at load time"
fi
exit "$rc"
