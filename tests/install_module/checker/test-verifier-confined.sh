#!/bin/bash
# The signature verifier is confined on its own, with or without systemd:
# the real checker (postern-check, driven as the daemon drives it) runs a
# stand-in for sqv (fake-verifier, bind-mounted over /usr/bin/sqv in a
# private mount namespace) that makes one forbidden call, named in the
# signature: opening a socket (the syslog socket included), connecting,
# sending, signalling another process, tracing or reading its memory,
# io_uring. Each must be killed before the call returns (the checker then
# refuses: "crashed ... signal 31"); a call that returned would say
# "escaped". The real sqv passes under the same filter in
# test-check-signatures.sh.
#
# test-verifier-confined.sh DRIVER CHECKER FAKE_VERIFIER
set -u
DRIVER=$1 CHECKER=$2 FAKE=$3
. "$(dirname "$0")/../../common/tap.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (a private mount namespace over /usr/bin/sqv)"
[ -e /usr/bin/sqv ] || skip_all "sqv is not installed (Build-Depends)"
W=$(mktemp -d "${TMPDIR:-/tmp}/test-verifier.XXXXXX")
trap 'rm -rf "$W"' EXIT
calls="socket connect sendto kill tgkill pidfd_open ptrace process_vm_readv io_uring_setup"
echo "1..$(($(wc -w <<<"$calls") + 1))"

mkdir -p "$W/src/demo-1.0"
echo "Version 1.0" >"$W/src/demo-1.0/NEWS"
tar -C "$W/src" -cf - demo-1.0 | xz -T1 >"$W/demo-1.0.tar.xz"
echo "not a key" >"$W/keyring.pgp"
chmod -R a+rX "$W"

# verify CALL: the driver's answer with the stand-in as sqv.
verify() {
	echo "$1" >"$W/demo-1.0.tar.xz.sig"
	unshare --mount --propagation private -- sh -c \
		'mount --bind "$1" /usr/bin/sqv && exec "$2" "$3" "$4" file "$5" "$6"' sh \
		"$FAKE" "$DRIVER" "$CHECKER" "$W/demo-1.0.tar.xz" "$W/demo-1.0.tar.xz.sig" "$W/keyring.pgp" 2>&1
}

out=$(verify nothing)
grep -q "^refused .*does not verify" <<<"$out" && ! grep -q "crashed" <<<"$out" &&
	ok "the stand-in runs as the verifier (no call: an ordinary refusal)" || not_ok "control: $out"
for c in $calls; do
	out=$(verify "$c")
	grep -q "^refused .*crashed on this signature (signal 31)" <<<"$out" && ! grep -q escaped <<<"$out" &&
		ok "$c: killed before it returns" || not_ok "$c: $out"
done
[ "$failed" = 0 ]
