#!/bin/bash
# Security keys as a factor of their own (docs/TOTP.md, "Security keys"):
# postern-totp enroll-key, revoke-key, require and status, and pam_postern.so
# under pam_wrapper admitting a login whose publickey step (SSH_AUTH_INFO_0)
# was an enrolled security key, without a prompt; every other key still
# needs a code, or is refused when a security key is required. Fingerprints
# are checked against ssh-keygen's.
# Args: MODULE HARNESS POSTERN_TOTP SYSLOG_CAPTURE PRIVATE_ETC PAM_WRAPPER_LIB SK_PUBKEY
set -u
here=$(cd "$(dirname "$0")" && pwd)
SK_PUBKEY=$7
. "$here/lib.sh"
pam_test_start PTSK_INSIDE "$@"
for u in ptsk1 ptsk2 ptsk3 ptsk4; do acct_user "$u" -M -N; done

KEY_A="publickey ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJArrxC6M9Gjp8UbSL8jRkz3OuKi+tjeXuK/l93STtDT"
S=$T/state/totp
mkdir -m 0755 "$T/state"
service ptsk "store=$S"
service ptsk-require "store=$S require=security-key"
printf 'auth [success=die ignore=ignore default=die] %s logins=%s store=%s nullok\nauth required pam_permit.so\n' \
	"$MODULE" "$T/logins" "$S" >"$T/svc/ptsk-nullok"
totp() { "$TOTP" -S "$S" "$@"; }
code_of() { oathtool --totp -b "$(secret_of "$S/$1")"; }
newkey sk1 ed25519 ptsk1@yubikey
newkey sk2 ecdsa ptsk2@solokey
newkey sk3 ed25519 other

# --- enroll-key refuses what is not a security key
out=$(totp enroll-key ptsk1 "${KEY_A#publickey }" 2>&1)
check "enroll-key: a plain ssh-ed25519 key is refused, saying why" \
	grep -q "is not a security key: only sk-ssh-ed25519@openssh.com" <<<"$out"
out=$(totp enroll-key ptsk1 "sk-ssh-ed25519@openssh.com AAAAnotakey" 2>&1)
check "enroll-key: a blob that is not that key is refused" \
	grep -q "not a valid sk-ssh-ed25519@openssh.com public key" <<<"$out"
out=$(totp enroll-key ptsk-nobody-$$ "$(cat "$T/sk1.pub")" 2>&1)
check "enroll-key: a user without an account is refused" grep -q "no such account" <<<"$out"
out=$(totp enroll-key --comment 'two words' ptsk1 "$(cat "$T/sk1.pub")" 2>&1)
check "enroll-key: a comment that is not one word is refused" grep -q "is not one word" <<<"$out"
check "nothing was written by the refusals" test ! -e "$S/.sk/ptsk1"

# --- enroll-key, status
"$CAPTURE" "$T/enroll.log" -- "$TOTP" -S "$S" enroll-key ptsk1 "$(cat "$T/sk1.pub")" >"$T/enroll.out"
check "enroll-key: the record is root 0600 in a root 0700 .sk" \
	test "$(stat -c %U:%G:%a "$S/.sk")/$(stat -c %U:%G:%a "$S/.sk/ptsk1")" = root:root:700/root:root:600
check "enroll-key: stored with ssh-keygen's fingerprint and the key's comment" \
	grep -q "^key sk-ssh-ed25519@openssh.com $(fpr sk1) [0-9]* 0 ptsk1@yubikey\$" "$S/.sk/ptsk1"
check "enroll-key: says sshd must demand verify-required" grep -q "PubkeyAuthOptions verify-required" "$T/enroll.out"
check "enroll-key: audited (sk_enroll)" \
	grep -q "event=sk_enroll user=ptsk1 .*admin=.* key=$(fpr sk1) type=sk-ssh-ed25519@openssh.com" "$T/enroll.log"
out=$(totp enroll-key ptsk1 "$(cat "$T/sk1.pub")" 2>&1)
check "enroll-key: the same key twice is refused" grep -q "is enrolled already" <<<"$out"
out=$(totp enroll-key ptsk3 "$(cat "$T/sk1.pub")" 2>&1)
check "enroll-key: a key another user has is refused, naming them" grep -q "is ptsk1's already" <<<"$out"
check "  and nothing was written for ptsk3" test ! -e "$S/.sk/ptsk3"
totp status ptsk1 >"$T/status1"
check "status: not TOTP-enrolled, one security key with its fingerprint and comment" \
	bash -c "grep -qx 'enrolled: no' '$T/status1' && grep -qx 'security keys: 1' '$T/status1' &&
		grep -q '^  sk-ssh-ed25519@openssh.com $(fpr sk1) ptsk1@yubikey enrolled 2.* last used never\$' '$T/status1'"

# --- logins with and without the security key
auth ptsk ptsk1 --no-answer "$(info sk1)"
check "the enrolled security key: PAM_SUCCESS without a prompt" test "$result/$prompted" = PAM_SUCCESS/0
check "login_ok method=security-key with its fingerprint" logged login_ok user=ptsk1 method=security-key "key=$(fpr sk1)"
check "its last use is recorded" grep -q "^key sk-ssh-ed25519@openssh.com $(fpr sk1) [0-9]* [1-9][0-9]* " "$S/.sk/ptsk1"
check "the login proof says method=security-key" grep -rqx "method=security-key" "$T/logins"
auth ptsk ptsk1 123456 "$KEY_A"
check "another key, no TOTP enrolment: refused without a prompt" test "$result/$prompted" = PAM_AUTH_ERR/0
check "  reason=security_key_required" logged login_fail reason=security_key_required
auth ptsk-nullok ptsk1 123456 "$KEY_A"
check "  and nullok does not let a user with a security key through" test "$result/$prompted" = PAM_AUTH_ERR/0
auth ptsk ptsk1 --no-answer "$(info sk3)"
check "a security key that is not enrolled: no factor" test "$result/$prompted" = PAM_AUTH_ERR/0

totp enroll --no-verify ptsk2 >/dev/null
totp enroll-key --comment laptop-key ptsk2 "$(cat "$T/sk2.pub")" >/dev/null
check "enroll-key --comment replaces the key's own comment" grep -q " laptop-key\$" "$S/.sk/ptsk2"
auth ptsk ptsk2 --no-answer "$(info sk2)"
check "an ECDSA security key with TOTP too: admitted without a prompt" test "$result/$prompted" = PAM_SUCCESS/0
auth ptsk ptsk2 "$(code_of ptsk2)" "$KEY_A"
check "the same user with a plain key: the code is asked for and works" test "$result/$prompted" = PAM_SUCCESS/1
auth ptsk ptsk2 --no-answer "$(info sk1)"
check "another user's security key: a prompt, no admission" test "$result/$prompted" = PAM_CONV_ERR/1
auth ptsk ptsk2 --no-answer "$KEY_A
$(info sk2)"
check "the security key among several publickey steps: admitted" test "$result/$prompted" = PAM_SUCCESS/0

# --- require
"$CAPTURE" "$T/require.log" -- "$TOTP" -S "$S" require ptsk2 security-key >/dev/null
check "require: audited (sk_require)" grep -q "event=sk_require user=ptsk2 .*require=security-key" "$T/require.log"
auth ptsk ptsk2 "$(code_of ptsk2)" "$KEY_A"
check "require security-key: the right code with a plain key is refused, no prompt" test "$result/$prompted" = PAM_AUTH_ERR/0
check "  reason=security_key_required" logged login_fail reason=security_key_required
auth ptsk ptsk2 --no-answer "$(info sk2)"
check "require security-key: the security key is admitted" test "$result" = PAM_SUCCESS
totp require ptsk2 any >/dev/null
auth ptsk ptsk2 "$(oathtool --totp -b "$(secret_of "$S/ptsk2")" -N "@$(( $(date +%s) + 30 ))")" "$KEY_A"
check "require any: a code is enough again" test "$result/$prompted" = PAM_SUCCESS/1
out=$(totp require ptsk2 sometimes 2>&1)
check "require: anything else is refused" grep -q "expected security-key" <<<"$out"
totp enroll --no-verify ptsk3 >/dev/null
auth ptsk-require ptsk3 "$(code_of ptsk3)" "$KEY_A"
check "module option require=security-key: a code alone is refused" test "$result/$prompted" = PAM_AUTH_ERR/0
auth ptsk-require ptsk1 --no-answer "$(info sk1)"
check "module option require=security-key: the security key is admitted" test "$result" = PAM_SUCCESS

# --- revoke-key
out=$(totp revoke-key ptsk1 SHA256:nosuchkeynosuchkeynosuchkeynosuchkeynosuchk 2>&1)
check "revoke-key: an unknown fingerprint is refused" grep -q "no security key SHA256:nosuch" <<<"$out"
"$CAPTURE" "$T/revoke.log" -- "$TOTP" -S "$S" revoke-key ptsk1 "$(fpr sk1)" >/dev/null
check "revoke-key: audited (sk_revoke) with where the old record is kept" \
	grep -q "event=sk_revoke user=ptsk1 .*key=$(fpr sk1) kept=.attic/ptsk1.sk-revoke-key." "$T/revoke.log"
check "revoke-key: the record before is in the attic" \
	bash -c "grep -q '$(fpr sk1)' '$S'/.attic/ptsk1.sk-revoke-key.*"
auth ptsk ptsk1 --no-answer "$(info sk1)"
check "a revoked security key admits no more" test "$result/$prompted" = PAM_AUTH_ERR/0

# --- fail closed on a record or directory it cannot trust
totp enroll --no-verify ptsk4 >/dev/null
printf 'version 1\nkey ssh-ed25519 %s 1 0 -\n' "$(fpr sk3)" >"$S/.sk/ptsk4"
chmod 0600 "$S/.sk/ptsk4"
auth ptsk ptsk4 "$(code_of ptsk4)" "$KEY_A"
check "an unreadable security-key record: refused before the prompt" test "$result/$prompted" = PAM_AUTHINFO_UNAVAIL/0
check "  reason=store_error naming the line" logged login_fail reason=store_error
grep -q 'detail=".*line 2: not a security key type' "$log" || echo "# $(grep event= "$log")"
mv "$S/.sk/ptsk4" "$T/ptsk4.bad"
chmod 0755 "$S/.sk"
auth ptsk ptsk4 "$(code_of ptsk4)" "$KEY_A"
check "a .sk directory others may read: refused (store_error)" test "$result/$prompted" = PAM_AUTHINFO_UNAVAIL/0
chmod 0700 "$S/.sk"
auth ptsk ptsk4 "$(code_of ptsk4)" "$KEY_A"
check "once fixed, the TOTP user logs in with a code" test "$result/$prompted" = PAM_SUCCESS/1
finish
