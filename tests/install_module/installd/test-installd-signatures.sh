#!/bin/bash
# Signed releases through the real client, daemon and checker (its real
# OpenPGP verifier), with keys made here in throwaway GNUPGHOMEs and each
# uploader's keyring in a root-owned keyrings directory: GNU .asc and .sig
# and kup .tar.sign are accepted and published beside the tarball (they
# verify with gpgv against the uploader's keyring, and the ledger, the
# audit record and list name the signer); a keyring with two keys accepts
# either. Refused, each with its own message, the upload and its signature
# kept in incoming and the tree unchanged: no signature where required,
# another maintainer's key, another file's signature, a 200 KB signature,
# a group-writable keyring, no keyring, two signatures, a symlinked one, a
# bad signature on a module where signatures are optional, an expired or a
# revoked key, a SHA-1 signature. delete-own moves
# the signature to the attic with its release.
#
# test-installd-signatures.sh SYSLOG_CAPTURE PRIVATE_ETC INSTALLD DRIVER ABUSE WORKDIR CHECKER
set -u
. "$(dirname "$0")/lib-installd.sh"
enter_fixture "$@"
trap 'kill_daemon; kill_gpg_agents' EXIT

echo "1..56"

enable_signatures
M1=$(make_key "$R/gpg-m" 'PT Maintainer <m1@example.org>')
M2=$(make_key "$R/gpg-m" 'PT Maintainer second key <m2@example.org>')
N1=$(make_key "$R/gpg-n" 'PT Other <n1@example.org>')
export_keyring ptinst-m "$R/gpg-m" "$M1" "$M2"
export_keyring ptinst-n "$R/gpg-n" "$N1"
[ ${#M1} = 40 ] && [ ${#M2} = 40 ] && [ ${#N1} = 40 ] && ok "three keys made: $M1 $M2 $N1" ||
	not_ok "key generation failed: '$M1' '$M2' '$N1'"
install -d -m 0700 "$R/gpgv"
start_daemon
IN="$R/incoming/ptinst-m"

# flat TEXT: on one line, for a TAP description.
flat() { printf '%s' "$*" | tr '\n' '|'; }

# refused_kept DESC PATTERN OUTPUT FILE SIG TREE_BEFORE: refused with PATTERN,
# FILE and SIG still in incoming, the tree as it was.
refused_kept() {
	local what="$1" pat="$2" out="$3" f="$4" sig="$5" before="$6"
	if printf '%s' "$out" | grep -q -e 'refused' && printf '%s' "$out" | grep -q -e "$pat"; then
		ok "$what: refused ($pat)"
	else
		not_ok "$what: $(flat "$out")"
	fi
	[ -f "$IN/$f" ] && { [ -z "$sig" ] || [ -f "$IN/$sig" ]; } && [ "$before" = "$(tree_state)" ] &&
		ok "$what: upload and signature kept, tree unchanged" ||
		not_ok "$what: incoming or tree changed: $(flat "$(ls "$IN")")"
}

# installed_signed DESC FILE SIG DIR FPR OUTPUT: installed, the signature
# published beside it with its .sha256sum line, both gone from incoming.
installed_signed() {
	local what="$1" f="$2" sig="$3" d="$4" fpr="$5" out="$6"
	local pub="$R/pub/sources/${f%%-*}/$d"
	printf '%s' "$out" | grep -q "installed as .*signed by OpenPGP key $fpr" &&
		[ -f "$pub/$f" ] && [ -f "$pub/$sig" ] && ok "$what: installed, signed by $fpr" ||
		not_ok "$what: $(flat "$out")"
	(cd "$pub" && sha256sum --quiet -c "${f%.tar.*}.sha256sum") >/dev/null 2>&1 &&
		grep -q "  $sig\$" "$pub/${f%.tar.*}.sha256sum" &&
		[ ! -e "$IN/$f" ] && [ ! -e "$IN/$sig" ] &&
		ok "$what: .sha256sum covers the signature; both left incoming" ||
		not_ok "$what: checksum or incoming: $(flat "$(cat "$pub/${f%.tar.*}.sha256sum" 2>&1) / $(ls "$IN")")"
}

# --- what needs no verifier -------------------------------------------------
make_tarball ptinst-m ptsig-1.0.tar.xz
before=$(tree_state)
out=$(client ptinst-m install-module ptsig-1.0.tar.xz 2>&1)
refused_kept "unsigned, signature required" \
	'module ptsig requires an OpenPGP signature: put ptsig-1.0.tar.xz.asc (gpg --armor --detach-sign ptsig-1.0.tar.xz) or ptsig-1.0.tar.sign next to it' \
	"$out" ptsig-1.0.tar.xz "" "$before"
audit_has install_refused 'module=ptsig' 'requires an OpenPGP signature' &&
	ok "the refusal is audited" || not_ok "no install_refused record"

head -c 200000 /dev/urandom > "$IN/ptsig-1.0.tar.xz.asc"
chown ptinst-m:ptinst-m "$IN/ptsig-1.0.tar.xz.asc"
out=$(client ptinst-m install-module ptsig-1.0.tar.xz 2>&1)
refused_kept "200 KB garbage signature" 'signature ptsig-1.0.tar.xz.asc is larger than 64 KiB: 200000 bytes' \
	"$out" ptsig-1.0.tar.xz ptsig-1.0.tar.xz.asc "$before"
msgs="$out"

sign_file "$R/gpg-m" "$M1" "$IN/ptsig-1.0.tar.xz" "$IN/ptsig-1.0.tar.xz.asc" --armor
sign_file "$R/gpg-m" "$M1" "$IN/ptsig-1.0.tar.xz" "$IN/ptsig-1.0.tar.xz.sig"
out=$(client ptinst-m install-module ptsig-1.0.tar.xz 2>&1)
refused_kept "two signatures next to the upload" 'two signatures are next to it, ptsig-1.0.tar.xz.asc and ptsig-1.0.tar.xz.sig' \
	"$out" ptsig-1.0.tar.xz ptsig-1.0.tar.xz.asc "$before"
rm -f "$IN/ptsig-1.0.tar.xz.sig"

ln -sf /etc/hostname "$IN/ptsig-1.0.tar.xz.sig"
rm -f "$IN/ptsig-1.0.tar.xz.asc"
out=$(client ptinst-m install-module ptsig-1.0.tar.xz 2>&1)
refused_kept "a symlink as the signature" 'its signature ptsig-1.0.tar.xz.sig cannot be used' \
	"$out" ptsig-1.0.tar.xz "" "$before"
rm -f "$IN/ptsig-1.0.tar.xz.sig"

# The release team may release ptsig, but has no keyring.
make_tarball ptinst-rt ptsig-1.1.tar.xz
sign_file "$R/gpg-m" "$M1" "$R/incoming/ptinst-rt/ptsig-1.1.tar.xz" "$R/incoming/ptinst-rt/ptsig-1.1.tar.xz.asc" --armor
out=$(client ptinst-rt install-module ptsig-1.1.tar.xz 2>&1)
printf '%s' "$out" | grep -q "refused: no keyring for ptinst-rt in $R/keyrings: ask the server's admins to add your key" &&
	[ -f "$R/incoming/ptinst-rt/ptsig-1.1.tar.xz" ] && [ -f "$R/incoming/ptinst-rt/ptsig-1.1.tar.xz.asc" ] &&
	[ "$before" = "$(tree_state)" ] && ok "no keyring: refused, the admins' problem, all kept" ||
	not_ok "no keyring: $(flat "$out")"
msgs="$msgs
$out"

sign_file "$R/gpg-m" "$M1" "$IN/ptsig-1.0.tar.xz" "$IN/ptsig-1.0.tar.xz.asc" --armor
chmod 0664 "$R/keyrings/ptinst-m.pgp"
out=$(client ptinst-m install-module ptsig-1.0.tar.xz 2>&1)
refused_kept "group-writable keyring" "your keyring $R/keyrings/ptinst-m.pgp is not safe to use (.*mode 0664.*): the server's admins must fix it" \
	"$out" ptsig-1.0.tar.xz ptsig-1.0.tar.xz.asc "$before"
chmod 0644 "$R/keyrings/ptinst-m.pgp"
msgs="$msgs
$out"

out=$("$ABUSE" "$R/run/installd.sock" signedonefd "$IN/ptsig-1.0.tar.xz" ptsig-1.0.tar.xz 2>&1)
[ $? = 0 ] && printf '%s' "$out" | grep -q 'E invalid request: 1 file descriptors passed with a signed install, expected two' &&
	ok "a signed request without the signature's fd: invalid" || not_ok "signedonefd: $(flat "$out")"
chown ptinst-n "$IN/ptsig-1.0.tar.xz.asc"
out=$(as ptinst-m "$ABUSE" "$R/run/installd.sock" sigpass "$IN/ptsig-1.0.tar.xz" "$IN/ptsig-1.0.tar.xz.asc" ptsig-1.0.tar.xz 2>&1)
chown ptinst-m "$IN/ptsig-1.0.tar.xz.asc"
printf '%s' "$out" | grep -q 'signature ptsig-1.0.tar.xz.asc is owned by uid' &&
	[ "$before" = "$(tree_state)" ] && ok "a signature fd of another user: refused" ||
	not_ok "sigpass of another user's file: $(flat "$out")"

# --- verified by the real verifier ------------------------------------------
out=$(client ptinst-m install-module ptsig-1.0.tar.xz 2>&1)
installed_signed "GNU .asc (required)" ptsig-1.0.tar.xz ptsig-1.0.tar.xz.asc 1.0 "$M1" "$out"
gpgv --homedir "$R/gpgv" --keyring "$R/keyrings/ptinst-m.pgp" \
	"$R/pub/sources/ptsig/1.0/ptsig-1.0.tar.xz.asc" "$R/pub/sources/ptsig/1.0/ptsig-1.0.tar.xz" >/dev/null 2>&1 &&
	ok "the published .asc verifies with gpgv against the uploader's keyring" || not_ok "gpgv refused the published .asc"
grep -q "op=install user=ptinst-m module=ptsig version=1.0 .* signature=ptsig-1.0.tar.xz.asc signer=$M1" "$R/state/ledger" &&
	ok "the ledger names the signature and its signer" || not_ok "ledger: $(tail -1 "$R/state/ledger")"
audit_has install_ok 'module=ptsig' 'signed=yes' "signer=$M1" 'signature=ptsig-1.0.tar.xz.asc' &&
	ok "install_ok: signed=yes signer=$M1" || not_ok "no signed install_ok record"
out=$(client ptinst-m list ptsig 2>&1)
printf '%s' "$out" | grep -q "1.0/ptsig-1.0.tar.xz .* signed by $M1" && ok "list MODULE names the signer" ||
	not_ok "list ptsig: $(flat "$out")"
out=$(client ptinst-m list 2>&1)
printf '%s' "$out" | grep -q "install ptsig-1.0.tar.xz signed by $M1" && ok "list (mine) names the signer" ||
	not_ok "list: $(flat "$out")"

make_tarball ptinst-m ptmod-3.0.tar.gz
sign_file "$R/gpg-m" "$M1" "$IN/ptmod-3.0.tar.gz" "$IN/ptmod-3.0.tar.gz.sig"
out=$(client ptinst-m install-module ptmod-3.0.tar.gz 2>&1)
installed_signed "GNU binary .sig (optional)" ptmod-3.0.tar.gz ptmod-3.0.tar.gz.sig 3.0 "$M1" "$out"
gpgv --homedir "$R/gpgv" --keyring "$R/keyrings/ptinst-m.pgp" \
	"$R/pub/sources/ptmod/3.0/ptmod-3.0.tar.gz.sig" "$R/pub/sources/ptmod/3.0/ptmod-3.0.tar.gz" >/dev/null 2>&1 &&
	ok "the published .sig verifies with gpgv" || not_ok "gpgv refused the published .sig"

make_tarball ptinst-m ptsig-2.0.tar.xz
sign_tar "$R/gpg-m" "$M1" "$IN/ptsig-2.0.tar.xz" "$IN/ptsig-2.0.tar.sign"
out=$(client ptinst-m install-module ptsig-2.0.tar.xz 2>&1)
installed_signed "kup .tar.sign over the uncompressed tar" ptsig-2.0.tar.xz ptsig-2.0.tar.sign 2.0 "$M1" "$out"
xz -dc "$R/pub/sources/ptsig/2.0/ptsig-2.0.tar.xz" |
	gpgv --homedir "$R/gpgv" --keyring "$R/keyrings/ptinst-m.pgp" "$R/pub/sources/ptsig/2.0/ptsig-2.0.tar.sign" - >/dev/null 2>&1 &&
	ok "the published .tar.sign verifies with gpgv over the uncompressed tar" || not_ok "gpgv refused the .tar.sign"

make_tarball ptinst-m ptsig-2.1.tar.xz
sign_file "$R/gpg-m" "$M2" "$IN/ptsig-2.1.tar.xz" "$IN/ptsig-2.1.tar.xz.asc" --armor
out=$(client ptinst-m install-module ptsig-2.1.tar.xz 2>&1)
installed_signed "a keyring of two keys: the second signs" ptsig-2.1.tar.xz ptsig-2.1.tar.xz.asc 2.1 "$M2" "$out"

# Refused by the verifier: upload and signature kept, tree unchanged.
make_tarball ptinst-m ptsig-3.0.tar.xz
before=$(tree_state)
sign_file "$R/gpg-n" "$N1" "$IN/ptsig-3.0.tar.xz" "$IN/ptsig-3.0.tar.xz.asc" --armor
out=$(client ptinst-m install-module ptsig-3.0.tar.xz 2>&1)
refused_kept "another maintainer's key (in her keyring, not yours)" "the signature was made by the key $N1, which is not in your keyring on this server" "$out" ptsig-3.0.tar.xz ptsig-3.0.tar.xz.asc "$before"
msgs="$msgs
$out"
echo "another file" > "$R/other.txt"
sign_file "$R/gpg-m" "$M1" "$R/other.txt" "$IN/ptsig-3.0.tar.xz.asc" --armor
chown ptinst-m:ptinst-m "$IN/ptsig-3.0.tar.xz.asc"
out=$(client ptinst-m install-module ptsig-3.0.tar.xz 2>&1)
refused_kept "another file's signature" 'the signature does not match the uploaded file: it is a signature of another file' "$out" ptsig-3.0.tar.xz ptsig-3.0.tar.xz.asc "$before"
msgs="$msgs
$out"
rm -f "$IN/ptsig-3.0.tar.xz.asc"
make_tarball ptinst-m ptmod-3.1.tar.xz
printf -- '-----BEGIN PGP SIGNATURE-----\n\nnot a signature\n-----END PGP SIGNATURE-----\n' > "$IN/ptmod-3.1.tar.xz.asc"
chown ptinst-m:ptinst-m "$IN/ptmod-3.1.tar.xz.asc"
out=$(client ptinst-m install-module ptmod-3.1.tar.xz 2>&1)
refused_kept "a bad signature where signatures are optional (never installed unsigned)" 'the signature file is not an OpenPGP detached signature' \
	"$out" ptmod-3.1.tar.xz ptmod-3.1.tar.xz.asc "$before"
msgs="$msgs
$out"
[ "$(printf '%s\n' "$msgs" | grep -c refused)" = "$(printf '%s\n' "$msgs" | grep refused | sort -u | wc -l)" ] &&
	ok "each refusal has its own message" || not_ok "messages repeat: $(flat "$msgs")"
audit_has install_refused 'module=ptsig' 'signature=ptsig-3.0.tar.xz.asc' &&
	ok "a refused signed upload's record names the signature" || not_ok "no install_refused with signature"

# --dry-run verifies and publishes nothing.
make_tarball ptinst-m ptsig-4.0.tar.xz
sign_file "$R/gpg-m" "$M1" "$IN/ptsig-4.0.tar.xz" "$IN/ptsig-4.0.tar.xz.asc" --armor
before=$(tree_state)
out=$(client ptinst-m install-module --dry-run ptsig-4.0.tar.xz 2>&1)
printf '%s' "$out" | grep -q "dry run: every check passed.*signed by OpenPGP key $M1" &&
	[ "$before" = "$(tree_state)" ] && [ -f "$IN/ptsig-4.0.tar.xz.asc" ] &&
	ok "--dry-run: verified, nothing published" || not_ok "dry run: $(flat "$out")"

# --- delete-own and --force --------------------------------------------------
before_attic=$(find "$R/state/attic" -type f 2>/dev/null | wc -l)
out=$(client ptinst-m delete-own ptsig-2.1.tar.xz 2>&1)
printf '%s' "$out" | grep -q 'ptsig-2.1.tar.xz and its signature ptsig-2.1.tar.xz.asc moved to the attic' &&
	[ ! -e "$R/pub/sources/ptsig/2.1/ptsig-2.1.tar.xz.asc" ] && [ ! -e "$R/pub/sources/ptsig/2.1/ptsig-2.1.tar.xz" ] &&
	ok "delete-own: release and signature leave the tree" || not_ok "delete-own: $(flat "$out")"
ev=$(find "$R/state/attic/ptsig" -name ptsig-2.1.tar.xz.asc -type f | head -1)
[ -n "$ev" ] && [ -f "$(dirname "$ev")/ptsig-2.1.tar.xz" ] &&
	[ "$(find "$R/state/attic" -type f | wc -l)" = $((before_attic + 4)) ] &&
	ok "delete-own: the signature is in the attic with its release, checksum and inclusion proof" ||
	not_ok "attic: $(flat "$(find "$R/state/attic" -type f 2>&1)")"

make_tarball ptinst-rt ptmod-3.0.tar.xz
out=$(client ptinst-rt install-module --force ptmod-3.0.tar.xz 2>&1)
printf '%s' "$out" | grep -q 'installed as' && [ ! -e "$R/pub/sources/ptmod/3.0/ptmod-3.0.tar.gz.sig" ] &&
	[ -n "$(find "$R/state/attic/ptmod" -name ptmod-3.0.tar.gz.sig -type f)" ] &&
	ok "--force: the old signature goes to the attic with the old release" || not_ok "--force: $(flat "$out")"

# --- a failure between the two links leaves the tree as it was --------------
# Something that is not a release already holds the tarball's name (a
# directory an admin left): the signature is linked, the tarball's link
# fails, and the signature goes to the attic.
install -d -o ptinst-d -g ptinst-d "$R/pub/sources/ptmod/6.0" "$R/pub/sources/ptmod/6.0/ptmod-6.0.tar.xz"
make_tarball ptinst-m ptmod-6.0.tar.xz
sign_file "$R/gpg-m" "$M1" "$IN/ptmod-6.0.tar.xz" "$IN/ptmod-6.0.tar.xz.asc" --armor
before=$(tree_state)
out=$(client ptinst-m install-module ptmod-6.0.tar.xz 2>&1)
refused_kept "the tarball's link fails after the signature's" 'internal error, nothing was installed: ptmod-6.0.tar.xz: cannot link into the tree' \
	"$out" ptmod-6.0.tar.xz ptmod-6.0.tar.xz.asc "$before"
[ ! -e "$R/pub/sources/ptmod/6.0/ptmod-6.0.tar.xz.asc" ] &&
	cmp -s "$IN/ptmod-6.0.tar.xz.asc" "$(find "$R/state/attic/ptmod" -name ptmod-6.0.tar.xz.asc -type f | head -1)" &&
	ok "the signature linked first was withdrawn to the attic" || not_ok "signature left: $(flat "$(find "$R/pub" "$R/state/attic" -name 'ptmod-6.0*')")"
rmdir "$R/pub/sources/ptmod/6.0/ptmod-6.0.tar.xz"
"$INSTALLD" -C /etc/postern/postern.yaml --user ptinst-d --reindex ptmod

# A crash between the two links: the intent names the signature, alone in
# the tree; the restarted daemon moves it to the attic and records nothing.
stop_daemon
install -d -o ptinst-d -g ptinst-d "$R/pub/sources/ptmod/7.0"
install -o ptinst-d -g ptinst-d -m 0644 "$IN/ptmod-6.0.tar.xz.asc" "$R/pub/sources/ptmod/7.0/ptmod-7.0.tar.xz.asc"
printf 'time=2026-12-03T06:40:00Z op=install user=ptinst-m module=ptmod version=7.0 file=ptmod-7.0.tar.xz sha256=%s maintainer=yes basis=maintainer dir=7.0 forced=no attic=- signature=ptmod-7.0.tar.xz.asc signer=%s\n' \
	"$(printf '%064d' 0)" "$M1" > "$R/state/locks/ptmod.intent"
chown ptinst-d:ptinst-d "$R/state/locks/ptmod.intent"
chmod 0600 "$R/state/locks/ptmod.intent"
start_daemon
[ ! -e "$R/pub/sources/ptmod/7.0/ptmod-7.0.tar.xz.asc" ] &&
	[ -n "$(find "$R/state/attic/ptmod" -name ptmod-7.0.tar.xz.asc -type f)" ] &&
	ok "recovery: the lone signature of an install that died moved to the attic" ||
	not_ok "recovery left: $(flat "$(find "$R/pub/sources/ptmod" "$R/state/locks")")"
[ ! -e "$R/state/locks/ptmod.intent" ] && ! grep -q 'version=7.0 ' "$R/state/ledger" &&
	ok "recovery: the intent is cleared and the ledger records no install" ||
	not_ok "recovery: intent or ledger: $(flat "$(ls "$R/state/locks"; grep 'version=7.0' "$R/state/ledger")")"

# A delete-own that died after its tarball went to the attic: the restarted
# daemon finishes it, the signature joining the release in its attic event.
stop_daemon
install -d -o ptinst-d -g ptinst-d "$R/pub/sources/ptmod/8.0" "$R/state/attic/ptmod/20261203T064000Z.1"
install -o ptinst-d -g ptinst-d -m 0644 "$IN/ptmod-6.0.tar.xz.asc" "$R/pub/sources/ptmod/8.0/ptmod-8.0.tar.xz.asc"
printf 'time=2026-12-03T06:40:00Z op=delete user=ptinst-m module=ptmod version=8.0 file=ptmod-8.0.tar.xz sha256=%s maintainer=yes basis=maintainer dir=8.0 forced=no attic=attic/ptmod/20261203T064000Z.1 signature=ptmod-8.0.tar.xz.asc signer=%s\n' \
	"$(printf '%064d' 0)" "$M1" > "$R/state/locks/ptmod.intent"
chown ptinst-d:ptinst-d "$R/state/locks/ptmod.intent"
chmod 0600 "$R/state/locks/ptmod.intent"
start_daemon
[ ! -e "$R/pub/sources/ptmod/8.0/ptmod-8.0.tar.xz.asc" ] &&
	[ -f "$R/state/attic/ptmod/20261203T064000Z.1/ptmod-8.0.tar.xz.asc" ] &&
	ok "recovery: a delete's leftover signature joins its attic event" ||
	not_ok "recovery of a delete: $(flat "$(find "$R/pub/sources/ptmod/8.0" "$R/state/attic/ptmod/20261203T064000Z.1")")"
[ ! -e "$R/state/locks/ptmod.intent" ] && grep -q 'op=delete .*version=8.0 .*signature=ptmod-8.0.tar.xz.asc' "$R/state/ledger" &&
	ok "recovery: the delete is recorded in the ledger" || not_ok "recovery of a delete: intent or ledger"

# --- keys the verifier refuses (ptinst-n, module ptother) -----------------
# An expired, a revoked key, and a SHA-1 signature, all by keys of her own
# keyring: the key is hers, its state or the hash is what is refused.
IN="$R/incoming/ptinst-n"
fpr_of() { gpg_in "$R/gpg-n" --with-colons --list-keys "$1" | awk -F: '/^fpr/ { print $10; exit }'; }
# Made in 2020 without expiry, then given an expiry of 2020-01-02 by a
# self-signature dated 2020: expired long before it signs today.
gpg_in "$R/gpg-n" --faked-system-time 20200101T000000 --quick-gen-key 'PT Expired <exp@example.org>' ed25519 sign never 2>/dev/null
gpg_in "$R/gpg-n" --quick-gen-key 'PT Revoked <rev@example.org>' ed25519 sign never 2>/dev/null
gpg_in "$R/gpg-n" --quick-gen-key 'PT Sha1 <rob@example.org>' rsa3072 sign never 2>/dev/null
EXP=$(fpr_of exp@example.org) REV=$(fpr_of rev@example.org) ROB=$(fpr_of rob@example.org)
for v in 1 2 3; do make_tarball ptinst-n "ptother-5.$v.tar.xz"; done
sign_file "$R/gpg-n" "$EXP" "$IN/ptother-5.1.tar.xz" "$IN/ptother-5.1.tar.xz.sig"
gpg_in "$R/gpg-n" --faked-system-time 20200101T120000 --quick-set-expire "$EXP" 1d 2>/dev/null
sign_file "$R/gpg-n" "$REV" "$IN/ptother-5.2.tar.xz" "$IN/ptother-5.2.tar.xz.sig"
sed 's/^:-----BEGIN/-----BEGIN/' "$R/gpg-n/openpgp-revocs.d/$REV.rev" > "$R/rev.rev"
gpg_in "$R/gpg-n" --import "$R/rev.rev" 2>/dev/null
sign_file "$R/gpg-n" "$ROB" "$IN/ptother-5.3.tar.xz" "$IN/ptother-5.3.tar.xz.sig" --digest-algo SHA1
export_keyring ptinst-n "$R/gpg-n" "$N1" "$EXP" "$REV" "$ROB"
before=$(tree_state)
out=$(client ptinst-n install-module ptother-5.1.tar.xz 2>&1)
refused_kept "an expired key" "$EXP had expired" "$out" ptother-5.1.tar.xz ptother-5.1.tar.xz.sig "$before"
out=$(client ptinst-n install-module ptother-5.2.tar.xz 2>&1)
refused_kept "a revoked key" "$REV is revoked" "$out" ptother-5.2.tar.xz ptother-5.2.tar.xz.sig "$before"
out=$(client ptinst-n install-module ptother-5.3.tar.xz 2>&1)
refused_kept "a SHA-1 signature" "uses the SHA-1 hash" "$out" ptother-5.3.tar.xz ptother-5.3.tar.xz.sig "$before"

# --- whatever happened, the tree is whole -------------------------------------
tree_consistent && ok "the tree is consistent (checksums of signatures too) and a reindex changes nothing" ||
	not_ok "tree inconsistent"
stop_daemon
[ "$failed" = 0 ]
