#!/bin/bash
# Signed uploads through the real postern-check and the real sqv, driven the
# way postern-installd drives them (check_spawn_upload, check-signed-drive):
# keys made here with gpg in a throwaway GNUPGHOME. GNU .sig and .asc over
# the .tar.xz and kup .tar.sign over the uncompressed tar pass with the
# right signer, with either key of a two-key keyring; another maintainer's
# key, another file's signature, an expired key, a revoked key, a signature
# dated in the future, a SHA-1
# signature, garbage, an oversized signature and an unreadable keyring are
# each refused with their own message; so are signatures made while their
# key was valid by a key that has since expired, a key revoked since as
# superseded, and a signing subkey revoked since as superseded beside a
# valid one (sqv judges the key at the signature's time; gpgv, the second
# verifier, at the present), binary or armored; a good signature never rescues a bad
# archive; the checker leaves every file as it was.
#
# test-check-signatures.sh DRIVER CHECKER
set -u
DRIVER=$1
CHECKER=$2
W=$(mktemp -d "${TMPDIR:-/tmp}/test-check-sig.XXXXXX")
export GNUPGHOME="$W/gnupg"
mkdir -m 0700 "$GNUPGHOME"
cleanup() { gpgconf --kill all >/dev/null 2>&1; rm -rf "$W"; }
trap cleanup EXIT
. "$(dirname "$0")/../../common/tap.sh"

echo "1..29"

g() { gpg --batch --quiet --no-tty --passphrase '' --pinentry-mode loopback "$@" 2>>"$W/gpg.log"; }
fpr() { gpg --list-keys --with-colons "$1" 2>/dev/null | awk -F: '/^fpr/ { print $10; exit }'; }
g --quick-gen-key 'Alice <alice@example.org>' ed25519 sign 1y
g --quick-gen-key 'Bob <bob@example.org>' ed25519 sign 1y
g --quick-gen-key 'Rob <rob@example.org>' rsa3072 sign 1y
g --quick-gen-key 'Rev <rev@example.org>' ed25519 sign 1y
# Made in 2020 without expiry, so it can sign today; given then an expiry
# of 2020-01-02 by a self-signature dated 2020: the key had expired long
# before it made the signature.
g --faked-system-time 20200101T000000 --quick-gen-key 'Exp <exp@example.org>' ed25519 sign never
# Made a month ago, so it can sign in the past: signatures.max_age.
g --faked-system-time "$(date -u -d '-30 days' +%Y%m%dT%H%M%S)" --quick-gen-key 'Old <old@example.org>' ed25519 sign never
# Valid when they sign, four and two days ago (within signatures.max_age),
# and no longer now: expired yesterday; revoked as superseded today; a
# signing subkey revoked as superseded today beside a new one.
g --faked-system-time "$(date -u -d '-5 days' +%Y%m%dT%H%M%S)" --quick-gen-key 'Lapsed <lapsed@example.org>' ed25519 sign 4d
g --faked-system-time "$(date -u -d '-5 days' +%Y%m%dT%H%M%S)" --quick-gen-key 'Super <super@example.org>' ed25519 sign never
g --faked-system-time "$(date -u -d '-5 days' +%Y%m%dT%H%M%S)" --quick-gen-key 'Subs <subs@example.org>' ed25519 cert never
g --faked-system-time "$(date -u -d '-5 days' +%Y%m%dT%H%M%S)" --quick-add-key "$(fpr subs@example.org)" ed25519 sign never
ALICE=$(fpr alice@example.org) BOB=$(fpr bob@example.org) ROB=$(fpr rob@example.org)
OLD=$(fpr old@example.org)
REV=$(fpr rev@example.org) EXP=$(fpr exp@example.org)

# The release: demo-1.0.tar.xz, its tar, and another release's tarball.
mkdir -p "$W/src/demo-1.0"
head -c 300000 /dev/urandom | od -x > "$W/src/demo-1.0/data.txt"
echo "Version 1.0" > "$W/src/demo-1.0/NEWS"
tar -C "$W/src" -cf "$W/demo-1.0.tar" demo-1.0
xz -T1 -6 -k "$W/demo-1.0.tar"
echo other > "$W/src/demo-1.0/NEWS"
tar -C "$W/src" -cf - demo-1.0 | xz -T1 > "$W/other.tar.xz"
mkdir -p "$W/bad/demo-1.0"
echo x > "$W/bad/demo-1.0/x"
ln -s /etc/passwd "$W/bad/demo-1.0/escape"
tar -C "$W/bad" -cf - demo-1.0 | xz -T1 > "$W/bad/demo-1.0.tar.xz"
U="$W/demo-1.0.tar.xz"

sign() { # sign KEY OUT FILE [gpg options]
	local key=$1 out=$2 file=$3
	shift 3
	g --yes -u "$key" "$@" --detach-sign -o "$out" "$file"
}
sign alice@example.org "$W/a.sig" "$U"
sign alice@example.org "$W/a.asc" "$U" --armor
sign alice@example.org "$W/a.tar.sign" "$W/demo-1.0.tar"
sign bob@example.org "$W/b.sig" "$U"
sign rob@example.org "$W/rob-sha1.sig" "$U" --digest-algo SHA1
sign alice@example.org "$W/future.sig" "$U" --faked-system-time "$(date -u -d '+30 days' +%Y%m%dT%H%M%S)"
sign alice@example.org "$W/other.sig" "$W/other.tar.xz"
sign alice@example.org "$W/bad.sig" "$W/bad/demo-1.0.tar.xz"
sign exp@example.org "$W/exp.sig" "$U"
sign old@example.org "$W/old-8d.sig" "$U" --faked-system-time "$(date -u -d '-8 days' +%Y%m%dT%H%M%S)"
sign old@example.org "$W/old-1d.sig" "$U" --faked-system-time "$(date -u -d '-1 day' +%Y%m%dT%H%M%S)"
g --faked-system-time 20200101T120000 --quick-set-expire "$EXP" 1d
LAPSED=$(fpr lapsed@example.org) SUPER=$(fpr super@example.org) SUBS=$(fpr subs@example.org)
sign lapsed@example.org "$W/lapsed.sig" "$U" --faked-system-time "$(date -u -d '-4 days' +%Y%m%dT%H%M%S)"
sign super@example.org "$W/super.sig" "$U" --faked-system-time "$(date -u -d '-2 days' +%Y%m%dT%H%M%S)"
sign subs@example.org "$W/subs.sig" "$U" --faked-system-time "$(date -u -d '-2 days' +%Y%m%dT%H%M%S)"
printf 'y\n2\nreplaced\n\ny\n' | g --command-fd 0 --edit-key "$SUPER" revkey save >/dev/null
g --quick-add-key "$SUBS" ed25519 sign never
printf 'y\n2\nreplaced\n\ny\n' | g --command-fd 0 --edit-key "$SUBS" 'key 1' revkey save >/dev/null
sign rev@example.org "$W/rev.sig" "$U"
sed 's/^:-----BEGIN/-----BEGIN/' "$GNUPGHOME/openpgp-revocs.d/$REV.rev" > "$W/rev.rev"
g --import "$W/rev.rev"
head -c 200000 /dev/urandom > "$W/garbage-200k.sig"
# Random bytes whose first octet has bit 7 clear: RFC 4880 4.2 makes that no
# packet header, so the verdict does not depend on what urandom gave (with a
# random first octet, one run in a few read as a signature packet).
{ printf '?'; head -c 29999 /dev/urandom; } > "$W/garbage-30k.sig"
gpg --export alice@example.org > "$W/alice.pgp"
gpg --export --armor alice@example.org > "$W/alice.asc"
gpg --export alice@example.org bob@example.org > "$W/alice-bob.pgp"
gpg --export rob@example.org > "$W/rob.pgp"
gpg --export exp@example.org > "$W/exp.pgp"
gpg --export old@example.org > "$W/old.pgp"
gpg --export rev@example.org > "$W/rev.pgp"
gpg --export lapsed@example.org > "$W/lapsed.pgp"
gpg --export --armor lapsed@example.org > "$W/lapsed.asc"
gpg --export super@example.org > "$W/super.pgp"
gpg --export subs@example.org > "$W/subs.pgp"
: > "$W/empty.pgp"
echo "not a keyring" > "$W/broken.pgp"
state() { (cd "$W" && find . -path ./gnupg -prune -o -type f -print0 | sort -z | xargs -0 sha256sum); }
before=$(state)

run() { "$DRIVER" "$CHECKER" "$@" 2>&1; }
passes() { # passes DESCRIPTION SIGNER ARGS...
	local what=$1 signer=$2 out
	shift 2
	out=$(run "$@")
	[ $? = 0 ] && [ "$out" = "pass $signer" ] && ok "$what" || not_ok "$what: $out"
}
refused() { # refused DESCRIPTION MESSAGE ARGS...
	local what=$1 msg=$2 out
	shift 2
	out=$(run "$@")
	[ $? = 1 ] && case "$out" in "refused "*"$msg"*) true ;; *) false ;; esac && ok "$what" ||
		not_ok "$what: $out"
}

passes "unsigned upload: passes without a signer" "" "$U" none
passes "GNU .sig (binary) over the .tar.xz: passes, signer Alice" "$ALICE" "$U" file "$W/a.sig" "$W/alice.pgp"
passes "GNU .asc (armored) with an armored keyring: passes, signer Alice" "$ALICE" "$U" file "$W/a.asc" "$W/alice.asc"
passes "kup .tar.sign over the uncompressed tar: passes, signer Alice" "$ALICE" "$U" tar "$W/a.tar.sign" "$W/alice.pgp"
passes "a keyring of two keys: Alice's signature passes" "$ALICE" "$U" file "$W/a.sig" "$W/alice-bob.pgp"
passes "a keyring of two keys: Bob's signature passes" "$BOB" "$U" file "$W/b.sig" "$W/alice-bob.pgp"
refused "another maintainer's key: refused, naming the key" \
	"made by the key $BOB, which is not in your keyring" "$U" file "$W/b.sig" "$W/alice.pgp"
refused "another file's signature: refused" "does not match the uploaded file" \
	"$U" file "$W/other.sig" "$W/alice.pgp"
refused "a .sig of the compressed file given as .tar.sign: refused" \
	"does not match the uncompressed tar" "$U" tar "$W/a.sig" "$W/alice.pgp"
refused "a .tar.sign given as the file's signature: refused" "does not match the uploaded file" \
	"$U" file "$W/a.tar.sign" "$W/alice.pgp"
refused "an expired key: refused" "$EXP had expired" "$U" file "$W/exp.sig" "$W/exp.pgp"
refused "a revoked key: refused" "$REV is revoked" "$U" file "$W/rev.sig" "$W/rev.pgp"
refused "a key valid when it signed, expired since: refused" \
	"($LAPSED) has expired since" "$U" file "$W/lapsed.sig" "$W/lapsed.pgp"
refused "the same from an armored keyring: refused" \
	"($LAPSED) has expired since" "$U" file "$W/lapsed.sig" "$W/lapsed.asc"
refused "a key revoked as superseded after it signed: refused" \
	"($SUPER) has been revoked since it signed (as superseded or retired)" \
	"$U" file "$W/super.sig" "$W/super.pgp"
refused "a signing subkey revoked as superseded after it signed, beside a valid one: refused" \
	"($SUBS) has been revoked since it signed" "$U" file "$W/subs.sig" "$W/subs.pgp"
refused "signatures.max_age: 0 does not rescue a key expired since" \
	"($LAPSED) has expired since" "$U" file "$W/lapsed.sig" "$W/lapsed.pgp" 0
refused "a signature dated in the future: refused" "dated in the future" \
	"$U" file "$W/future.sig" "$W/alice.pgp"
refused "a signature 8 days old (signatures.max_age: 7 days): refused as possibly back-dated" \
	"longer ago than this server accepts (signatures.max_age): sign the file again now" \
	"$U" file "$W/old-8d.sig" "$W/old.pgp"
passes "a signature 1 day old: passes" "$OLD" "$U" file "$W/old-1d.sig" "$W/old.pgp"
passes "signatures.max_age: 0 accepts the 8-day-old one" "$OLD" "$U" file "$W/old-8d.sig" "$W/old.pgp" 0
refused "a SHA-1 signature: refused" "uses the SHA-1 hash" "$U" file "$W/rob-sha1.sig" "$W/rob.pgp"
refused "a 200 KB garbage signature: refused unread" "larger than 65536 bytes" \
	"$U" file "$W/garbage-200k.sig" "$W/alice.pgp"
refused "a 30 KB garbage signature: refused" "not an OpenPGP detached signature" \
	"$U" file "$W/garbage-30k.sig" "$W/alice.pgp"
refused "an unreadable keyring: refused as the admins' problem" "the server's admins must fix it" \
	"$U" file "$W/a.sig" "$W/broken.pgp"
refused "an empty keyring: refused, naming the key" "made by the key $ALICE" \
	"$U" file "$W/a.sig" "$W/empty.pgp"
refused "a good signature does not rescue a bad archive" "its link target is an absolute path" \
	"$W/bad/demo-1.0.tar.xz" file "$W/bad.sig" "$W/alice.pgp"
[ "$before" = "$(state)" ] && ok "every upload, signature and keyring is unchanged" ||
	not_ok "files changed during the checks"
[ -z "$(find "$W" -path "$W/gnupg" -prune -o -newer "$W/broken.pgp" -print)" ] &&
	ok "the checks created no file" || not_ok "new files: $(find "$W" -newer "$W/broken.pgp")"
[ "$failed" = 0 ]
