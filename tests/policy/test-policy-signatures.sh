#!/bin/bash
# postern-policy and OpenPGP signatures (issue 14): explain says whether a
# release needs a signature and which setting says so; check lists, for each
# uploader who must sign, the fingerprints of the keyring <keyrings>/<user>.pgp
# (as real gpg lists keys made here with a throwaway GNUPGHOME), or warns
# when it is missing, unsafe or holds no usable certificate. check leaves no
# temporary gpg home behind.
#
# Usage: test-policy-signatures.sh POSTERN_POLICY PRIVATE_ETC WORK_BASE
set -u
pp="$1"; pe="$2"; base="$3"
if [ "$(id -u)" != 0 ]; then
	echo "1..0 # SKIP needs root (users, groups, root-owned keyrings)"
	exit 0
fi
if ! command -v gpg >/dev/null; then
	echo "1..0 # SKIP gpg is not installed (Build-Depends: gnupg)"
	exit 0
fi
if [ -z "${PTSIG_IN_PRIVATE_ETC:-}" ]; then
	exec "$pe" env PTSIG_IN_PRIVATE_ETC=1 "$0" "$@"
fi

w=$(mktemp -d "$base/ptsig-XXXXXX")
export GNUPGHOME="$w/gnupg"
cleanup() {
	gpgconf --homedir "$GNUPGHOME" --kill all 2>/dev/null
	rm -rf "$w"
}
trap cleanup EXIT
chmod 755 "$w"
mkdir -m 700 "$GNUPGHOME"
. "$(dirname "$pe")/lib-accounts.sh"
acct_group ptsig-rt
acct_user ptsig-torv -M -s /usr/sbin/nologin
acct_user ptsig-greg -M -s /usr/sbin/nologin
acct_user ptsig-dave -M -s /usr/sbin/nologin -G ptsig-rt
acct_user ptsig-anna -M -s /usr/sbin/nologin

. "$(dirname "$0")/../common/tap.sh"

newkey() {
	gpg --batch --passphrase '' --quick-gen-key "$1" ed25519 sign 1y 2>/dev/null &&
		gpg --batch --with-colons --list-keys "$1" | awk -F: '$1 == "fpr" { print $10; exit }'
}
fpr1=$(newkey "Torv One <torv1@example.org>")
fpr2=$(newkey "Torv Two <torv2@example.org>")
fpr3=$(newkey "Greg <greg@example.org>")
fpr4=$(newkey "Dave <dave@example.org>")
if [ ${#fpr1} != 40 ] || [ ${#fpr2} != 40 ] || [ ${#fpr3} != 40 ] || [ ${#fpr4} != 40 ]; then
	echo "Bail out! gpg could not make test keys"
	exit 1
fi

k="$w/keyrings"
mkdir -m 755 "$k"
gpg --batch --export "$fpr1" "$fpr2" > "$k/ptsig-torv.pgp"   # binary, two keys
gpg --batch --export --armor "$fpr3" > "$k/ptsig-greg.pgp"  # armored
# Not OpenPGP: the first octet lacks the packet tag bit, so gpg reads no
# packet at all (random octets sometimes parse as packets of no key).
yes "this is not an OpenPGP keyring" | head -n 60 > "$k/ptsig-dave.pgp"
chmod 644 "$k"/*.pgp

cat > "$w/postern.yaml" <<EOC
release_team:
  group: ptsig-rt
signatures:
  keyrings: $k
modules:
  linux:
    maintainers: [ptsig-torv, ptsig-greg, ptsig-anna]
    signature: required
  stable:
    maintainers: [ptsig-greg]
    signature: optional
  docs:
    maintainers: [ptsig-anna]
  firmware:
    open: true
    signature: required
EOC
chmod 644 "$w/postern.yaml"
C=(-C "$w/postern.yaml")

# explain: the decision line stays as it was; one more line about signatures.
out=$("$pp" "${C[@]}" explain ptsig-torv linux); rc=$?
[ "$rc" = 0 ] && grep -qxF "allowed: ptsig-torv is a maintainer of linux (from postern.yaml)" <<<"$out" &&
	grep -qxF "signature: required (module linux: signature: required)" <<<"$out" &&
	ok "explain: the module requires a signature" || not_ok "explain linux (status $rc): $out"
out=$("$pp" "${C[@]}" explain ptsig-greg stable)
grep -qxF "signature: not required (the module says signature: optional); a signature that comes with the upload is checked all the same" <<<"$out" &&
	ok "explain: optional module" || not_ok "explain stable: $out"
out=$("$pp" "${C[@]}" explain ptsig-anna docs)
grep -qxF "signature: not required (neither signatures.require nor the module asks for one); a signature that comes with the upload is checked all the same" <<<"$out" &&
	ok "explain: nothing asks for a signature" || not_ok "explain docs: $out"
out=$("$pp" "${C[@]}" explain --delete ptsig-anna docs)
! grep -q '^signature:' <<<"$out" && ok "explain --delete says nothing about signatures" ||
	not_ok "explain --delete: $out"

before=$(ls -d /tmp/postern-policy-gpg.* 2>/dev/null | wc -l)
out=$("$pp" "${C[@]}" check 2>&1); rc=$?
after=$(ls -d /tmp/postern-policy-gpg.* 2>/dev/null | wc -l)
[ "$rc" = 0 ] && grep -qxF "signatures: required for firmware, linux; keyrings in $k" <<<"$out" &&
	ok "check: which modules require signatures" || not_ok "check (status $rc): $out"
grep -qxF "keyring of ptsig-torv: $k/ptsig-torv.pgp: $fpr1, $fpr2" <<<"$out" ||
	grep -qxF "keyring of ptsig-torv: $k/ptsig-torv.pgp: $fpr2, $fpr1" <<<"$out"
[ $? = 0 ] && ok "check: a binary keyring with two keys lists both fingerprints" ||
	not_ok "check: torv's keyring: $out"
grep -qxF "keyring of ptsig-greg: $k/ptsig-greg.pgp: $fpr3" <<<"$out" &&
	ok "check: an armored keyring" || not_ok "check: greg's keyring: $out"
grep -qxF "warning: ptsig-anna must sign releases of linux but has no keyring $k/ptsig-anna.pgp: add one (gpg --export FINGERPRINT > $k/ptsig-anna.pgp; chmod 0644 $k/ptsig-anna.pgp; chown root:root $k/ptsig-anna.pgp)" <<<"$out" &&
	ok "check: a maintainer without a keyring is told what to do" || not_ok "check: anna: $out"
grep -q "^warning: keyring of ptsig-dave: $k/ptsig-dave.pgp: holds no OpenPGP certificate gpg can read" <<<"$out" &&
	ok "check: the release team signs too; garbage is no keyring" || not_ok "check: dave: $out"
! grep -q "docs\|ptsig-anna must sign releases of.*docs" <<<"$out" &&
	ok "check: modules that need no signature are not listed" || not_ok "check lists docs: $out"
grep -qxF "open module firmware requires signatures: every uploader needs a keyring $k/USER.pgp" <<<"$out" &&
	ok "check: an open module that requires signatures needs every uploader's keyring" ||
	not_ok "check: open module: $out"
grep -qxF "2 warnings" <<<"$out" && ok "check counts the keyring warnings" || not_ok "warnings: $out"
[ "$before" = "$after" ] && ok "check leaves no temporary gpg home in /tmp" ||
	not_ok "gpg homes in /tmp: $before before, $after after"

# Binary keys with armored ones appended: gpgv reads only the binary part.
cp "$k/ptsig-torv.pgp" "$w/torv.bin"
{ cat "$w/torv.bin"; gpg --batch --export --armor "$fpr3"; } > "$k/ptsig-torv.pgp"
out=$("$pp" "${C[@]}" check 2>&1)
grep -qxF "warning: keyring of ptsig-torv: $k/ptsig-torv.pgp holds binary keys followed by armored ones, which gpg cannot read and gpgv (it checks that the signing key is still valid) reads only in part: store every key binary (gpg --export FINGERPRINT... > $k/ptsig-torv.pgp)" <<<"$out" &&
	ok "check: a keyring mixing binary and armored keys is warned about" || not_ok "check: mixed keyring: $out"
cat "$w/torv.bin" > "$k/ptsig-torv.pgp"

chmod 664 "$k/ptsig-greg.pgp"
out=$("$pp" "${C[@]}" check 2>&1)
grep -q "^warning: keyring of ptsig-greg: $k/ptsig-greg.pgp.*mode 0664 is too open" <<<"$out" &&
	! grep -q "^keyring of ptsig-greg" <<<"$out" &&
	ok "check: a group-writable keyring is unsafe, its keys not listed" || not_ok "check: greg 0664: $out"
chmod 644 "$k/ptsig-greg.pgp"
chown ptsig-greg "$k/ptsig-greg.pgp"
out=$("$pp" "${C[@]}" check 2>&1)
grep -q "^warning: keyring of ptsig-greg: .*expected uid 0" <<<"$out" &&
	ok "check: a keyring its uploader owns is unsafe" || not_ok "check: greg owner: $out"
chown root "$k/ptsig-greg.pgp"

# gpg made a revocation certificate with the key; its first line is defused with ':'.
sed 's/^:-----/-----/' "$GNUPGHOME/openpgp-revocs.d/$fpr3.rev" | gpg --batch --import >/dev/null 2>&1
gpg --batch --export "$fpr3" > "$k/ptsig-greg.pgp"
out=$("$pp" "${C[@]}" check 2>&1)
if grep -qxF "keyring of ptsig-greg: $k/ptsig-greg.pgp: $fpr3 (revoked)" <<<"$out"; then
	grep -q "^warning: keyring of ptsig-greg: $k/ptsig-greg.pgp holds no certificate that is neither revoked nor expired" <<<"$out" &&
		ok "check: a keyring whose only key is revoked" || not_ok "check: revoked: $out"
else
	not_ok "check: revoked key not shown as revoked: $out"
fi

sed -i 's/^signatures:$/signatures:\n  require: true/' "$w/postern.yaml"
out=$("$pp" "${C[@]}" explain ptsig-anna docs)
grep -qxF "signature: required (signatures.require: true, for every module)" <<<"$out" &&
	ok "explain: signatures.require covers every module" || not_ok "explain require: $out"
out=$("$pp" "${C[@]}" check 2>&1)
grep -qxF "signatures: required for every release (signatures.require); keyrings in $k" <<<"$out" &&
	grep -q "^warning: ptsig-anna must sign releases of docs, linux but has no keyring" <<<"$out" &&
	ok "check: with signatures.require every maintainer must sign" || not_ok "check require: $out"

finish
