#!/bin/bash
# Security keys end to end, as root: the real sshd of tests/e2e/lib.sh
# (PAM service postern-sshd with pam_postern.so, postern-shell) with
# `PubkeyAuthOptions verify-required` for the uploaders, OpenSSH's ssh and
# ssh-keygen with the test-only FIDO middleware of tests/sk
# (libpostern-sk-test.so, SecurityKeyProvider; POSTERN_SK_TEST_FLAGS says
# what the "device" signs: 0x05 touched and user verified, 0x01 touched
# only), and keys enrolled with `postern-totp enroll-key`.
#
# What is checked: an enrolled ed25519-sk or ecdsa-sk key logs in with no
# code prompt at all (no askpass, no terminal) and postern-shell runs, with
# login_ok method=security-key and the key's fingerprint in the trail and
# the last use in `postern-totp status`; a signature without user
# verification is refused by sshd, a code cannot rescue it; a security key
# is a factor only for the user it is enrolled for (another user's key in
# one's authorized_keys, or one's own plain key, still needs the code); a
# plain key of a user who has both still needs the code; a revoked key no
# longer admits. Each case also checks what must not happen: no login_ok,
# no code question, the security-key records untouched.
#
# Usage: test-sk-login.sh BUILD_DIR SK_PROVIDER     (TAP on stdout)
# The run's syslog capture is kept in BUILD_DIR/tests/e2e/e2e-sk-audit.log.
set -euo pipefail
E2E_BUILD=$(cd "${E2E_BUILD:-$1}" && pwd)
SK_LIB=$(realpath -m -- "${2:?usage: test-sk-login.sh BUILD_DIR SK_PROVIDER}")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# A few code logins of one user in one 30-second step: the harness uses the
# codes of the next steps instead of waiting (see e2e-test.sh).
export E2E_TOTP_WINDOW=10
# shellcheck source=lib.sh
. "$here/lib.sh"
# shellcheck source=../common/tap.sh
. "$here/../common/tap.sh"
# shellcheck source=assert.sh
. "$here/assert.sh"

if [ "${E2E_INSIDE:-}" != 1 ]; then
	e2e_test_ready --sk-lib "$SK_LIB" ssh ssh-keygen oathtool setsid timeout
	e2e_reexec "$E2E_BUILD/tests/e2e/e2e-sk-audit.log" "${BASH_SOURCE[0]}" "$E2E_BUILD" "$SK_LIB"
fi

# MAINT has a code and two security keys (ed25519-sk, ecdsa-sk), all three
# of its keys in authorized_keys. OTHER has a code and a security key of its
# own, and MAINT's ed25519-sk public key in its authorized_keys beside its
# plain key: sshd lets OTHER in with it, pam_postern must not.
MAINT=pte2esk-maint
OTHER=pte2esk-other
# Whatever the caller had set would change what the middleware signs or
# which key ssh offers.
unset POSTERN_SK_TEST_FLAGS POSTERN_SK_TEST_COUNTER POSTERN_SK_TEST_COUNTER_FILE \
	SSH_SK_PROVIDER SSH_SK_HELPER SSH_AUTH_SOCK DISPLAY
T=
trap 'e2e_teardown || true' EXIT

e2e_setup
T=$E2E_ROOT/t
install -d -m 0700 "$T"
K=$E2E_ROOT/client
ASKPASS_LOG=$K/askpass.log
SKDIR=$E2E_ROOT/state/totp/.sk
e2e_sshd_match_add "PubkeyAuthOptions verify-required"
for u in "$MAINT" "$OTHER"; do e2e_add_uploader "$u"; done
e2e_write_policy - "hello:$MAINT"
for u in "$MAINT" "$OTHER"; do e2e_enroll "$u"; done
set +e

# --- TAP and assertions (the shared ones are in assert.sh) -----------------------

# run CMD...: status in $rc, output in $T/out and $T/err; no terminal input.
run() {
	"$@" </dev/null >"$T/out" 2>"$T/err"
	rc=$?
}

# The security-key records as they are now (content of each).
sk_snapshot() {
	[ ! -d "$SKDIR" ] || (cd "$SKDIR" && sha256sum -- *)
}

sk_unchanged() {
	sk_snapshot >"$T/sk.after"
	diff -u "$SK_SNAP" "$T/sk.after" >"$T/sk.diff" || { diag <"$T/sk.diff"; return 1; }
}

# case_ DESCRIPTION FUNCTION: one TAP test; the function sees MARK (log
# position), ASKED (askpass questions so far) and SK_SNAP (the records).
case_() {
	local desc=$1 fn=$2
	MARK=$(e2e_log_mark)
	ASKED=$(asked)
	SK_SNAP=$T/sk.$((n + 1))
	sk_snapshot >"$SK_SNAP"
	check "$desc" "$fn"
}

# login MODE USER KEY FLAGS [COMMAND...]: ssh as USER offering only the
# client key $K/KEY, the middleware signing FLAGS for a security key.
# MODE noask: no askpass and no terminal, so a question ssh has to put
# gets an empty answer, which is no code. Not BatchMode: with it ssh never tries
# keyboard-interactive, which sshd demands after the key whatever PAM
# will ask (nothing, for a security key). MODE code: questions go to the
# askpass, which logs them and answers with the code of e2e_set_code.
login() {
	local mode=$1 user=$2 key=$3 flags=$4 opts i
	shift 4
	mapfile -t opts < <(e2e_ssh_opts "$user")
	# e2e_ssh_opts names USER's own plain key after -i.
	for i in "${!opts[@]}"; do
		[ "${opts[$i]}" != -i ] || opts[i + 1]=$K/$key
	done
	opts+=(-o SecurityKeyProvider="$SK_LIB")
	if [ "$mode" = noask ]; then
		run env -u SSH_ASKPASS -u SSH_ASKPASS_REQUIRE POSTERN_SK_TEST_FLAGS="$flags" \
			timeout 60 setsid -w ssh "${opts[@]}" "$user@$E2E_HOST" "$@"
	else
		run env SSH_ASKPASS="$K/askpass" SSH_ASKPASS_REQUIRE=force POSTERN_SK_TEST_FLAGS="$flags" \
			timeout 60 setsid -w ssh "${opts[@]}" "$user@$E2E_HOST" "$@"
	fi
}

fpr() { ssh-keygen -lf "$K/$1.pub" | cut -d' ' -f2; }

# last_used USER FPR: the "last used" of that key in postern-totp status.
last_used() {
	"$E2E_ROOT/bin/postern-totp" -C "$E2E_CONFIG" status "$1" |
		awk -v f="$2" '$2 == f && $(NF - 2) == "last" { print $NF }'
}

# --- the keys ---------------------------------------------------------------------

# make_sk NAME TYPE: a verify-required security key made through the
# middleware, as a maintainer makes one on a real device (but not
# resident: the middleware keeps none).
make_sk() {
	run ssh-keygen -q -t "$2" -w "$SK_LIB" -O verify-required -N '' -C "$1@e2e" -f "$K/$1"
	[ "$rc" = 0 ] && [ -s "$K/$1.pub" ] || fail_with "ssh-keygen -t $2 -w $SK_LIB failed"
}

# enroll_sk USER NAME: postern-totp enroll-key USER "$(cat NAME.pub)".
enroll_sk() {
	run "$E2E_ROOT/bin/postern-totp" -C "$E2E_CONFIG" enroll-key --comment "$2" "$1" "$(cat "$K/$2.pub")"
	want_rc 0
}

keys_made() {
	make_sk maint_ed ed25519-sk && make_sk maint_ec ecdsa-sk && make_sk other_ed ed25519-sk &&
		[ "$(cut -d' ' -f1 "$K/maint_ed.pub")" = sk-ssh-ed25519@openssh.com ] &&
		[ "$(cut -d' ' -f1 "$K/maint_ec.pub")" = sk-ecdsa-sha2-nistp256@openssh.com ] ||
		{ fail_with "not the key types wanted"; return 1; }
	cut -d' ' -f1,2 "$K/maint_ed.pub" "$K/maint_ec.pub" >>"$E2E_ROOT/home/$MAINT/.ssh/authorized_keys"
	cut -d' ' -f1,2 "$K/maint_ed.pub" >>"$E2E_ROOT/home/$OTHER/.ssh/authorized_keys"
	enroll_sk "$MAINT" maint_ed && enroll_sk "$MAINT" maint_ec && enroll_sk "$OTHER" other_ed &&
		want_log "$MARK" "event=sk_enroll" "user=$MAINT" "$(fpr maint_ed)" &&
		want_log "$MARK" "event=sk_enroll" "user=$MAINT" "$(fpr maint_ec)" &&
		want_log "$MARK" "event=sk_enroll" "user=$OTHER" "$(fpr other_ed)" || return 1
	run "$E2E_ROOT/bin/postern-totp" -C "$E2E_CONFIG" status "$MAINT"
	want_rc 0 && want_out "security keys: 2" &&
		[ "$(last_used "$MAINT" "$(fpr maint_ed)")/$(last_used "$MAINT" "$(fpr maint_ec)")" = never/never ] ||
		fail_with "status does not list both keys as never used"
}
case_ "ed25519-sk and ecdsa-sk keys made through the middleware (verify-required), enrolled with postern-totp enroll-key" \
	keys_made || { echo "Bail out! no security keys to log in with"; exit 1; }

uploaders_verify_required() {
	"$E2E_ROOT/sbin/$E2E_PAM_SERVICE" -T -f "$E2E_ROOT/ssh/sshd_config" \
		-C "user=$MAINT,host=localhost,addr=$E2E_HOST" >"$T/out" 2>"$T/err" &&
		grep -qx "pubkeyauthoptions verify-required" "$T/out" &&
		grep -qx "authenticationmethods publickey,keyboard-interactive:pam" "$T/out" ||
		fail_with "sshd -T for $MAINT: not verify-required and publickey,keyboard-interactive:pam"
}
case_ "sshd demands user verification of the uploaders' security keys (sshd -T: PubkeyAuthOptions verify-required)" \
	uploaders_verify_required

e2e_start

# --- the security key as the second factor ------------------------------------------

sk_admitted() {
	local f sid_login sid_cmd
	f=$(fpr maint_ed)
	T0=$(date +%s)
	login noask "$MAINT" maint_ed 0x05 help
	want_rc 0 && want_out "install-module" &&
		want_log "$MARK" "Partial publickey for $MAINT" "$f" &&
		want_log "$MARK" "Accepted keyboard-interactive/pam for $MAINT" &&
		want_log "$MARK" "event=login_ok" "user=$MAINT" "method=security-key" "key=$f" &&
		want_log "$MARK" "event=command_allow" "user=$MAINT" "name=help" || return 1
	sid_login=$(e2e_log_since "$MARK" | grep -F "event=login_ok" | grep -o 'sid=[0-9a-f]*' | head -n 1)
	sid_cmd=$(e2e_log_since "$MARK" | grep -F "event=command_allow" | grep -o 'sid=[0-9a-f]*' | head -n 1)
	[ -n "$sid_login" ] && [ "$sid_login" = "$sid_cmd" ] ||
		{ fail_with "login and command records differ in sid ($sid_login, $sid_cmd)"; return 1; }
	[ "$(e2e_log_since "$MARK" | grep -c "event=login_ok")" = 1 ] &&
		want_no_log "$MARK" "event=login_fail"
}
case_ "(a) enrolled ed25519-sk (verify-required), no askpass, no terminal: in with no code, help runs, login_ok method=security-key with its fingerprint" \
	sk_admitted

last_use_recorded() {
	local when t now
	when=$(last_used "$MAINT" "$(fpr maint_ed)")
	t=$(date -u -d "$when" +%s 2>/dev/null) || { fail_with "last used is '$when', not a time"; return 1; }
	now=$(date +%s)
	[ "$t" -ge "$T0" ] && [ "$t" -le "$now" ] ||
		{ fail_with "last used $when ($t) is not between the login ($T0) and now ($now)"; return 1; }
	[ "$(last_used "$MAINT" "$(fpr maint_ec)")" = never ] ||
		fail_with "the ecdsa-sk key, not used, has a last use"
}
case_ "(f) postern-totp status shows that login as the key's last use; the other key still never used" \
	last_use_recorded

# With the logging askpass, which ssh also uses for its "touch the key"
# notice: that notice is all it shows, no question (the middleware takes no
# PIN, so ssh asks for none; the code is never asked for).
sk_ecdsa_admitted() {
	local f
	f=$(fpr maint_ec)
	login code "$MAINT" maint_ec 0x05 help
	want_rc 0 && want_out "install-module" &&
		want_log "$MARK" "event=login_ok" "user=$MAINT" "method=security-key" "key=$f" || return 1
	[ "$(asked_since)" = "Confirm user presence for key ECDSA-SK $f" ] ||
		{ fail_with "the askpass saw more than the touch notice: $(asked_since)"; return 1; }
	[ "$(last_used "$MAINT" "$f")" != never ] || fail_with "no last use recorded for the ecdsa-sk key"
}
case_ "enrolled ecdsa-sk: the askpass shows only the touch notice, no question; in by login_ok method=security-key, last use recorded" \
	sk_ecdsa_admitted

# --- what must not get in -----------------------------------------------------------

# The device touched but did not verify the user: sshd refuses the
# signature (verify-required), so the key step fails and PAM never runs; a
# right code on offer changes nothing.
no_user_verification() {
	e2e_set_code "$(e2e_fresh_code "$MAINT")"
	login code "$MAINT" maint_ed 0x01 help
	want_rc 255 &&
		want_log "$MARK" "$(fpr maint_ed)" "user verification requirement not met" &&
		want_no_log "$MARK" "Partial publickey for $MAINT" &&
		want_no_log "$MARK" "pam_postern" && want_no_log "$MARK" "event=command_allow" &&
		no_code_asked && sk_unchanged
}
case_ "(b) POSTERN_SK_TEST_FLAGS=0x01 (touch, no user verification): sshd refuses, even with a code on offer; pam_postern not reached, records unchanged" \
	no_user_verification

# needs_code USER KEY: sshd accepts the key, then pam_postern asks for a
# code and refuses the empty answer (bad_input: the prompt was put); no
# security-key record was touched.
needs_code() {
	local f
	f=$(fpr "$2")
	login noask "$1" "$2" 0x05 help
	want_rc 255 &&
		want_log "$MARK" "Partial publickey for $1" "$f" &&
		want_log "$MARK" "event=login_fail" "user=$1" "reason=bad_input" "key=$f" &&
		want_no_log "$MARK" "event=login_ok" && want_no_log "$MARK" "event=command_allow" &&
		sk_unchanged
}

# code_login USER KEY: with the code through the askpass: asked, then in by method=totp.
code_login() {
	local f
	f=$(fpr "$2")
	e2e_set_code "$(e2e_fresh_code "$1")"
	login code "$1" "$2" 0x05 help
	want_rc 0 && want_out "install-module" && code_asked &&
		want_log "$MARK" "event=login_ok" "user=$1" "method=totp" "key=$f" &&
		want_no_log "$MARK" "method=security-key" && sk_unchanged
}

other_plain() { needs_code "$OTHER" "$OTHER.key"; }
case_ "(c) $OTHER's own plain key ($MAINT's and $OTHER's security keys enrolled), no askpass: the key step passes, pam_postern wants a code" \
	other_plain

other_plain_code() { code_login "$OTHER" "$OTHER.key"; }
case_ "(c) $OTHER's own plain key with the code: asked for it, in by method=totp" other_plain_code

foreign_sk() { needs_code "$OTHER" maint_ed; }
case_ "(c) $MAINT's enrolled ed25519-sk, in $OTHER's authorized_keys, used by $OTHER: sshd accepts it, pam_postern wants a code; no record touched" \
	foreign_sk

foreign_sk_code() { code_login "$OTHER" maint_ed; }
case_ "(c) the same key with $OTHER's code: asked for it, in by method=totp, $MAINT's last use not bumped" \
	foreign_sk_code

maint_plain() { needs_code "$MAINT" "$MAINT.key"; }
case_ "(d) $MAINT's plain ed25519 key (a user with a code and security keys), no askpass: pam_postern wants a code" \
	maint_plain

maint_plain_code() { code_login "$MAINT" "$MAINT.key"; }
case_ "(d) $MAINT's plain key with the code: asked for it, in by method=totp" maint_plain_code

revoked() {
	local f
	f=$(fpr maint_ed)
	run "$E2E_ROOT/bin/postern-totp" -C "$E2E_CONFIG" revoke-key "$MAINT" "$f"
	want_rc 0 && want_log "$MARK" "event=sk_revoke" "user=$MAINT" "key=$f" || return 1
	run "$E2E_ROOT/bin/postern-totp" -C "$E2E_CONFIG" status "$MAINT"
	want_rc 0 && want_out "security keys: 1" && want_out "$(fpr maint_ec)" &&
		! grep -qF -- "$f" "$T/out" || { fail_with "status still lists the revoked key"; return 1; }
	ls "$E2E_ROOT/state/totp/.attic/$MAINT".sk*revoke-key.* >/dev/null 2>&1 ||
		{ fail_with "no copy of the record before the revocation in the attic"; return 1; }
	MARK=$(e2e_log_mark)
	sk_snapshot >"$SK_SNAP"
	needs_code "$MAINT" maint_ed
}
case_ "(e) postern-totp revoke-key (the record before it in the attic): the ed25519-sk key alone no longer admits, pam_postern wants a code" \
	revoked

revoked_code() { code_login "$MAINT" maint_ed; }
case_ "(e) the revoked key is a plain key now: with the code, in by method=totp" revoked_code

no_leftovers() {
	local left
	left=$(e2e_leftover_pids)
	[ -z "$left" ] || { ps -o pid,args -p "$(paste -sd, <<<"$left")" | diag; return 1; }
}
case_ "no client or server process of the run is left over" no_leftovers

finish
