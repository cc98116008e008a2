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
# test-check-signatures.sh. The same for gpgv, the second verifier: the
# real sqv passes a real signature whose notation names the call, and the
# stand-in, bind-mounted over /usr/bin/gpgv, makes it; only socket() fails
# with EACCES there instead (glibc's nscd lookup in GnuPG), which leaves it
# refused as a verifier that did not confirm the key.
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
ncalls=$(wc -w <<<"$calls")
echo "1..$((2 * ncalls + 2))"

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

# gpgv: a real key and real signatures carrying the call as a notation.
export GNUPGHOME="$W/gnupg"
mkdir -m 0700 "$GNUPGHOME"
trap 'gpgconf --kill all >/dev/null 2>&1; rm -rf "$W"' EXIT
gg() { gpg --batch --quiet --no-tty --passphrase '' --pinentry-mode loopback "$@" 2>/dev/null; }
gg --quick-gen-key 'Confined <confined@example.org>' ed25519 sign 1y
gg --export confined@example.org >"$W/real.pgp"
chmod a+r "$W/real.pgp"
# verify_now CALL: the driver's answer with the real sqv and the stand-in as gpgv.
verify_now() {
	gg --yes -u confined@example.org --sig-notation "call@postern.test=$1" --detach-sign \
		-o "$W/demo-1.0.tar.xz.sig" "$W/demo-1.0.tar.xz"
	chmod a+r "$W/demo-1.0.tar.xz.sig"
	unshare --mount --propagation private -- sh -c \
		'mount --bind "$1" /usr/bin/gpgv && exec "$2" "$3" "$4" file "$5" "$6"' sh \
		"$FAKE" "$DRIVER" "$CHECKER" "$W/demo-1.0.tar.xz" "$W/demo-1.0.tar.xz.sig" "$W/real.pgp" 2>&1
}
out=$(verify_now nothing)
grep -q "^refused .*gpgv could not confirm" <<<"$out" && ! grep -q "crashed" <<<"$out" &&
	ok "gpgv: the stand-in runs as gpgv after the real sqv passed (no call: refused)" ||
	not_ok "gpgv control: $out"
for c in $calls; do
	out=$(verify_now "$c")
	if [ "$c" = socket ]; then
		grep -q "^refused .*gpgv could not confirm" <<<"$out" &&
			ok "gpgv: socket fails (EACCES), and the stand-in is still refused" ||
			not_ok "gpgv: socket: $out"
		continue
	fi
	grep -q "^refused .*gpgv crashed on this signature (signal 31)" <<<"$out" &&
		ok "gpgv: $c: killed before it returns" || not_ok "gpgv: $c: $out"
done
[ "$failed" = 0 ]
