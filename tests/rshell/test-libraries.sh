#!/bin/sh
# postern-shell loads neither libcrypto nor libxml2: relocating libcrypto was
# most of its time from exec to decision (bench/shell), and the DOAP parser
# belongs to postern-policy alone.
#
# Nothing to judge must never read as "needs neither": a missing or non-ELF
# program, or no readelf on PATH, leaves the list empty. So readelf failing
# is a failure, and so is an empty list (postern-shell always needs libc).
. "$(dirname "$0")/../common/tap.sh"
shell=$1
check_tools="check that $shell was built and is a dynamically linked ELF program, and that binutils' readelf is on PATH"

if ! dynamic=$(readelf -dW "$shell"); then
	not_ok "readelf -dW failed on postern-shell" "$check_tools (the error is on stderr)"
	finish
fi
needed=$(printf '%s\n' "$dynamic" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
case " $needed" in
" ") not_ok "readelf -dW lists no NEEDED library in postern-shell (not even libc)" "$check_tools" ;;
*" libcrypto."* | *" libxml2."*) not_ok "postern-shell needs: $needed" ;;
*) ok "postern-shell needs only: $needed" ;;
esac
finish
