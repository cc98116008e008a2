#!/bin/bash
# Invites (docs/TOTP.md, "Invites"): postern-totp invite, revoke-invite and
# status, and pam_postern.so under pam_wrapper on every branch of the invite
# login (pam_module/pam_invite.c): the code admits once, to an enrol-only
# session with a new pending secret; wrong codes count and lock; an expired
# or revoked invite admits nothing; the first login with a code from the new
# secret (checked with oathtool), or with the security key the invite login
# used, completes the enrolment; require=security-key accepts only a key; a
# record it cannot trust denies before any prompt.
# Args: MODULE HARNESS POSTERN_TOTP SYSLOG_CAPTURE PRIVATE_ETC PAM_WRAPPER_LIB SK_PUBKEY
set -u
here=$(cd "$(dirname "$0")" && pwd)
SK_PUBKEY=$7
. "$here/lib.sh"
pam_test_start PTINV_INSIDE "$@"
acct_group ptinvgrp
for u in ptinv1 ptinv2 ptinv3 ptinv4 ptinv5 ptinv6; do acct_user "$u" -M -N -g ptinvgrp; done
for u in ptinv7 ptinv8; do acct_user "$u" -M -N; done

KEY_A="publickey ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIJArrxC6M9Gjp8UbSL8jRkz3OuKi+tjeXuK/l93STtDT"
CODE_RE='[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}'
S=$T/state/totp
mkdir -m 0755 "$T/state"
service ptinv "store=$S"
service ptinv-require "store=$S require=security-key"
totp() { "$TOTP" -S "$S" "$@"; }
# invite USER [OPTIONS]: the code it printed, in $code.
invite() {
	"$CAPTURE" "$T/invite.log" -- "$TOTP" -S "$S" invite "$@" >"$T/invite.out" 2>&1
	code=$(grep -oE "$CODE_RE" "$T/invite.out" | head -n 1)
}
handoff() { cat "$T"/logins/*.enrol 2>/dev/null; }
clear_logins() { rm -rf "$T/logins"; }
secret_from_handoff() { handoff | sed -n 's/^uri .*secret=\([A-Z2-7]*\)&.*/\1/p'; }
newkey sk4 ed25519 ptinv4@key
newkey sk5 ecdsa ptinv5@key
newkey sk7 ed25519 ptinv7@key

# --- issuing
invite ptinv1
check "invite: prints a one-time code and when it expires" \
	grep -qE "^ptinv1: invite code $CODE_RE \(shown only now\), valid until 20" "$T/invite.out"
check "invite: the record is root 0600 in a root 0700 .invite" \
	test "$(stat -c %U:%G:%a "$S/.invite")/$(stat -c %U:%G:%a "$S/.invite/ptinv1")" = root:root:700/root:root:600
check "invite: the record holds a yescrypt hash" grep -q '^hash \$y\$' "$S/.invite/ptinv1"
check "invite: the code itself is nowhere in the store" bash -c "! grep -rqF '$code' '$S'"
check "invite: audited (invite_issue, replaced=no)" \
	grep -q "event=invite_issue user=ptinv1 .*expires=20.* replaced=no" "$T/invite.log"
totp status ptinv1 >"$T/status"
check "status: not enrolled, an invite pending" \
	bash -c "grep -qx 'enrolled: no' '$T/status' && grep -q '^invite: pending (expires 20' '$T/status'"
out=$(totp invite --expires 91d ptinv1 2>&1)
check "invite --expires beyond 90 days is refused, saying the limit" grep -q "at most 90d" <<<"$out"
out=$(totp invite --group ptinvgrp ptinv1 2>&1)
check "invite --group without --all-uploaders is refused" grep -q "goes with --all-uploaders" <<<"$out"
out=$(totp invite ptinv-nobody-$$ 2>&1)
check "invite: a user without an account is refused" grep -q "no such account" <<<"$out"

# --- the invite login
auth ptinv ptinv1 aaaa-bbbb-cccc-dddd "$KEY_A"
check "a wrong invite code: refused after the prompt" test "$result/$prompted" = PAM_AUTH_ERR/1
check "  reason=bad_code, failures counted in the record" \
	bash -c "grep -q 'reason=bad_code' '$log' && grep -qx 'failures 1' '$S/.invite/ptinv1'"
auth ptinv ptinv1 123456 "$KEY_A"
check "a six-digit code: refused (bad_input)" test "$result/$prompted" = PAM_AUTH_ERR/1
auth ptinv ptinv1 "$code" "$KEY_A"
check "the invite code: PAM_SUCCESS" test "$result/$prompted" = PAM_SUCCESS/1
check "  audited (invite_login)" logged invite_login user=ptinv1
check "  the login proof says method=invite" grep -rqx "method=invite" "$T/logins"
check "  a pending secret, root 0600 in .pending; no TOTP record yet" \
	bash -c "test \"\$(stat -c %U:%a '$S/.pending/ptinv1')\" = root:600 && test ! -e '$S/ptinv1'"
check "  the handoff is ptinv1's, mode 0400, with the otpauth URI" \
	bash -c "f=\$(ls '$T'/logins/*.enrol) && test \"\$(stat -c %U:%a \"\$f\")\" = ptinv1:400 &&
		grep -q '^uri otpauth://totp/postern:ptinv1?secret=' \"\$f\""
check "  the handoff's secret is the pending record's" \
	test "$(secret_from_handoff)" = "$(secret_of "$S/.pending/ptinv1" | tr -d =)"
check "  the invite is marked admitted, failures cleared" \
	bash -c "grep -q '^admitted [1-9]' '$S/.invite/ptinv1' && grep -qx 'failures 0' '$S/.invite/ptinv1'"
secret=$(secret_from_handoff)
clear_logins
auth ptinv ptinv1 "$code" "$KEY_A"
check "the invite admits once: the same code again is refused" test "$result/$prompted" = PAM_AUTH_ERR/1
check "  and leaves no handoff" test -z "$(handoff)"
totp status ptinv1 >"$T/status"
check "status: invite admitted, enrolment not completed" grep -q "^invite: admitted .*enrolment not completed" "$T/status"

# --- completing with a code from the new secret
auth ptinv ptinv1 "$(oathtool --totp -b "$secret")" "$KEY_A"
check "a code from the new secret: PAM_SUCCESS" test "$result/$prompted" = PAM_SUCCESS/1
check "  audited (invite_enrolled factor=totp, then login_ok method=totp)" \
	bash -c "grep -q 'event=invite_enrolled user=ptinv1 .*factor=totp' '$log' &&
		grep -q 'event=login_ok user=ptinv1 .*method=totp' '$log'"
check "  the user's record now exists with 10 recovery codes" \
	test "$(grep -c '^recovery ' "$S/ptinv1")" = 10
check "  invite and pending secret went to the attic, none left in place" \
	bash -c "ls '$S'/.attic/ptinv1.invite-used.* '$S'/.attic/ptinv1.pending-used.* >/dev/null &&
		test ! -e '$S/.invite/ptinv1' && test ! -e '$S/.pending/ptinv1'"
check "  the handoff holds the 10 recovery codes" test "$(handoff | grep -cE "^recovery $CODE_RE\$")" = 10
recovery=$(handoff | sed -n '1s/^recovery //p')
clear_logins
auth ptinv ptinv1 "$recovery" "$KEY_A"
check "one of those recovery codes logs in (method=recovery)" \
	bash -c "test '$result' = PAM_SUCCESS && grep -q 'method=recovery' '$log'"
auth ptinv ptinv1 "$(oathtool --totp -b "$secret" -N "@$(( $(date +%s) + 30 ))")" "$KEY_A"
check "and codes from the app go on working" test "$result/$prompted" = PAM_SUCCESS/1
out=$(totp invite ptinv1 2>&1)
check "invite for a user with a factor is refused, saying why" grep -q "has a second factor already" <<<"$out"

# --- expired, locked, revoked, replaced
invite ptinv2 --expires 1m
sed -i 's/^expires .*/expires 1000/' "$S/.invite/ptinv2"
auth ptinv ptinv2 "$code" "$KEY_A"
check "an expired invite: refused before the prompt (invite_expired)" \
	bash -c "test '$result/$prompted' = PAM_AUTH_ERR/0 && grep -q 'reason=invite_expired' '$log'"
totp status ptinv2 >"$T/status"
check "status: invite expired" grep -q "^invite: expired" "$T/status"
invite ptinv3
first=$code
for i in 1 2 3 4 5; do auth ptinv ptinv3 aaaa-bbbb-cccc-dddd "$KEY_A"; done
auth ptinv ptinv3 "$first" "$KEY_A"
check "after max_failures wrong codes the right one is refused (invite_locked)" \
	bash -c "test '$result/$prompted' = PAM_AUTH_ERR/0 && grep -q 'reason=invite_locked' '$log'"
invite ptinv3
check "a new invite replaces the old one (replaced=yes), kept in the attic" \
	bash -c "grep -q 'replaced=yes' '$T/invite.log' && ls '$S'/.attic/ptinv3.invite-replaced.* >/dev/null"
auth ptinv ptinv3 "$first" "$KEY_A"
check "  the old code no longer works" test "$result" = PAM_AUTH_ERR
"$CAPTURE" "$T/revoke.log" -- "$TOTP" -S "$S" revoke-invite ptinv3 >/dev/null
check "revoke-invite: audited with where the invite is kept" \
	grep -q "event=invite_revoke user=ptinv3 .*kept=.attic/ptinv3.invite-revoked." "$T/revoke.log"
auth ptinv ptinv3 "$code" "$KEY_A"
check "  the revoked invite admits nothing (not_enrolled)" \
	bash -c "test '$result' = PAM_AUTH_ERR && grep -q 'reason=not_enrolled' '$log'"
out=$(totp revoke-invite ptinv3 2>&1)
check "revoke-invite with no invite says so" grep -q "has no invite" <<<"$out"

# --- the security key the invite login used becomes the factor
invite ptinv4
clear_logins
auth ptinv ptinv4 "$code" "$KEY_A
$(info sk4)"
check "invite login with a security key among the keys: admitted" test "$result" = PAM_SUCCESS
check "  the handoff names the security key" grep -q "^key sk-ssh-ed25519@openssh.com $(fpr sk4)\$" <(handoff)
check "  and so does the invite record" grep -q "^key sk-ssh-ed25519@openssh.com $(fpr sk4)\$" "$S/.invite/ptinv4"
auth ptinv ptinv4 --no-answer "$(info sk4)"
check "the next login with that key completes the enrolment, no prompt" test "$result/$prompted" = PAM_SUCCESS/0
check "  audited (invite_enrolled factor=security-key, login_ok method=security-key)" \
	bash -c "grep -q 'event=invite_enrolled user=ptinv4 .*factor=security-key' '$log' &&
		grep -q 'event=login_ok user=ptinv4 .*method=security-key' '$log'"
check "  the key is the user's security key now, no TOTP record" \
	bash -c "grep -q '^key sk-ssh-ed25519@openssh.com $(fpr sk4) .* invite\$' '$S/.sk/ptinv4' && test ! -e '$S/ptinv4'"
auth ptinv ptinv4 --no-answer "$(info sk4)"
check "  and logs in on its own afterwards" test "$result/$prompted" = PAM_SUCCESS/0

# --- a record emptied by revoke-key, and another user's key
totp enroll-key ptinv7 "$(cat "$T/sk7.pub")" >/dev/null
totp revoke-key ptinv7 "$(fpr sk7)" >/dev/null
invite ptinv7
auth ptinv ptinv7 "$code" "$(info sk7)"
check "a user whose last key was revoked can be invited" test "$result" = PAM_SUCCESS
auth ptinv ptinv7 --no-answer "$(info sk7)"
check "  and the key goes into the emptied record" \
	bash -c "test '$result/$prompted' = PAM_SUCCESS/0 && grep -q '^key sk-ssh-ed25519@openssh.com $(fpr sk7) ' '$S/.sk/ptinv7'"
invite ptinv8
auth ptinv ptinv8 "$code" "$(info sk4)"
auth ptinv ptinv8 --no-answer "$(info sk4)"
check "another user's enrolled security key does not become this user's (security_key_taken)" \
	bash -c "test '$result' = PAM_AUTH_ERR && grep -q 'reason=security_key_taken' '$log' && test ! -e '$S/.sk/ptinv8'"

# --- require=security-key
invite ptinv5
auth ptinv-require ptinv5 "$code" "$KEY_A"
check "require=security-key: an invite login with a plain key is refused, no prompt" \
	bash -c "test '$result/$prompted' = PAM_AUTH_ERR/0 && grep -q 'reason=security_key_required' '$log'"
auth ptinv-require ptinv5 "$code" "$(info sk5)"
check "require=security-key: with a security key the invite admits" test "$result" = PAM_SUCCESS
auth ptinv-require ptinv5 "$(oathtool --totp -b "$(secret_from_handoff)")" "$KEY_A"
check "  completing with a code is refused (security_key_required)" \
	bash -c "test '$result' = PAM_AUTH_ERR && grep -q 'reason=security_key_required' '$log'"
auth ptinv-require ptinv5 --no-answer "$(info sk5)"
check "  completing with the key works" test "$result/$prompted" = PAM_SUCCESS/0

# --- an admin's enrolment by hand supersedes an open invite
acct_user ptinv9 -M -N
invite ptinv9
"$CAPTURE" "$T/hand.log" -- "$TOTP" -S "$S" enroll --no-verify ptinv9 >/dev/null 2>"$T/hand.err"
check "enroll by hand moves the user's open invite to the attic, saying so" \
	bash -c "test ! -e '$S/.invite/ptinv9' && ls '$S'/.attic/ptinv9.invite-superseded.* >/dev/null &&
		grep -q 'the open invite no longer works' '$T/hand.err' && grep -q 'event=invite_revoke user=ptinv9' '$T/hand.log'"

# --- rollout: every member of a group, and the overview
"$CAPTURE" "$T/all.log" -- "$TOTP" -S "$S" invite --all-uploaders --group ptinvgrp >"$T/all.out" 2>"$T/all.err"
check "invite --all-uploaders: USER CODE EXPIRES for each member without a factor or an open invite (expired and revoked ones get a new one)" \
	bash -c "test \"\$(cut -f1 '$T/all.out' | tr '\n' ' ')\" = 'ptinv2 ptinv3 ptinv6 ' && grep -qE '^ptinv6	$CODE_RE	20' '$T/all.out'"
check "  with a summary on stderr" grep -q "3 invites issued; 3 members of ptinvgrp skipped" "$T/all.err"
check "  audited, one invite_issue each" test "$(grep -c 'event=invite_issue' "$T/all.log")" = 3
totp status --all --group ptinvgrp >"$T/all.status"
check "status --all: a row per member with factors and invite" \
	bash -c "grep -qE '^ptinv1 +yes +0 +-' '$T/all.status' && grep -qE '^ptinv4 +no +1 +-' '$T/all.status' &&
		grep -qE '^ptinv2 +no +0 +pending' '$T/all.status' && grep -qE '^ptinv6 +no +0 +pending' '$T/all.status' &&
		grep -q '^6 members of ptinvgrp, 3 without a second factor' '$T/all.status'"
out=$(totp status --all --group ptinv-nogroup-$$ 2>&1)
check "status --all with a group that does not exist says so" grep -q "no group 'ptinv-nogroup-" <<<"$out"

# --- fail closed
invite ptinv6
printf 'version 1\ncreated 1\n' >"$S/.invite/ptinv6"
auth ptinv ptinv6 "$code" "$KEY_A"
check "an unreadable invite record: refused before the prompt (store_error)" \
	bash -c "test '$result/$prompted' = PAM_AUTHINFO_UNAVAIL/0 && grep -q 'reason=store_error' '$log'"
invite ptinv6
chmod 0755 "$S/.invite"
auth ptinv ptinv6 "$code" "$KEY_A"
check "a .invite directory others may read: refused (store_error)" test "$result/$prompted" = PAM_AUTHINFO_UNAVAIL/0
chmod 0700 "$S/.invite"
finish
