#!/bin/bash
# Invites end to end, as root: the real sshd of tests/e2e/lib.sh (PAM
# service postern-sshd with pam_postern.so, postern-shell, rrsync,
# postern-installd), OpenSSH's ssh with the code typed through the
# askpass, `postern-totp invite` / `revoke-invite` / `status`, and for the
# security-key case the test-only FIDO middleware of tests/sk.
#
# What is checked (docs/TOTP.md, "Invites"; pam_module/pam_invite.c): the
# invite code is printed once and stored only as a yescrypt hash; a wrong
# code is refused and counted, max_failures of them lock the invite; the
# right one admits once, to a session that may only run `enroll` (the QR
# code and otpauth URI of a new secret) and `help` — list, install-module
# and an rsync upload are refused in it, on every session of that
# connection; the same code never admits again; a new invite replaces an
# admitted one, its pending secret kept in the attic; a code from the new
# secret (oathtool on the URI the shell showed) completes the enrolment,
# shows 10 recovery codes that work, and leaves a user whose key and code
# run commands; the `ssh HOST enroll` that postern-totp and the shell tell
# the maintainer to type works on a terminal; an expired or revoked invite
# admits nothing; a user with a factor gets no invite; `invite
# --all-uploaders` and `status --all` cover the group's people (not the
# nologin account postern-ci); the security key an invite login used
# becomes the factor at the next login, with no prompt; with
# require=security-key a plain key gets no invite login. Each case also
# checks what must not happen: no login_ok or invite_login, no question
# put, no record made or moved. A command other than enroll in the invite
# session is refused, and the secret is shown with the refusal.
#
# Usage: test-invite.sh BUILD_DIR SK_PROVIDER     (TAP on stdout)
# The run's syslog capture is kept in BUILD_DIR/tests/e2e/e2e-invite-audit.log.
set -euo pipefail
E2E_BUILD=$(cd "${E2E_BUILD:-$1}" && pwd)
SK_LIB=$(realpath -m -- "${2:?usage: test-invite.sh BUILD_DIR SK_PROVIDER}")
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Several code logins of one user in one 30-second step: the harness uses
# the codes of the next steps instead of waiting (see e2e-test.sh).
export E2E_TOTP_WINDOW=10
# shellcheck source=lib.sh
. "$here/lib.sh"
# shellcheck source=../common/tap.sh
. "$here/../common/tap.sh"
# shellcheck source=assert.sh
. "$here/assert.sh"

if [ "${E2E_INSIDE:-}" != 1 ]; then
	e2e_test_ready --sk-lib "$SK_LIB" ssh ssh-keygen oathtool rsync setsid timeout
	e2e_reexec "$E2E_BUILD/tests/e2e/e2e-invite-audit.log" "${BASH_SOURCE[0]}" "$E2E_BUILD" "$SK_LIB"
fi

# NEW goes the whole way with the app; MUX's one invite connection tries
# every command; EXP's invite expires, REV's is revoked, LCK's locks; HAS
# is enrolled by the admin as before; SK enrols with a security key; REQ
# meets require=security-key. All are in uploaders, as is the system account
# postern-ci (lib.sh, as postinst makes it).
NEW=pte2einv-new
MUX=pte2einv-mux
EXP=pte2einv-exp
REV=pte2einv-rev
HAS=pte2einv-has
SK=pte2einv-sk
REQ=pte2einv-req
LCK=pte2einv-lck
USERS=("$NEW" "$MUX" "$EXP" "$REV" "$HAS" "$SK" "$REQ" "$LCK")
CODE_RE='[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}-[a-z2-7]{4}'
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
S=$E2E_ROOT/state/totp
# pam_postern's default logins= (the policy names no paths.logins): in
# this run's private /run.
LOGINS=/run/postern-logins
e2e_sshd_match_add "PubkeyAuthOptions verify-required"
for u in "${USERS[@]}"; do e2e_add_uploader "$u"; done
e2e_write_policy - "hello:$NEW"
e2e_enroll "$HAS"
e2e_start
set +e

# --- TAP and assertions (the shared ones are in assert.sh) -----------------------

# run CMD...: status in $rc, output in $T/out and $T/err; no terminal input.
run() {
	"$@" </dev/null >"$T/out" 2>"$T/err"
	rc=$?
}

# The store (every record, by content) and the incoming tree, as they are now.
snapshot() {
	(cd "$S" && find . -type f -exec sha256sum {} + | sort -k2)
	find "$E2E_ROOT/incoming" -printf '%p %y %s\n' | sort
}

unchanged_since() {
	snapshot >"$T/snap.after"
	diff -u "$1" "$T/snap.after" >"$T/snap.diff" || { diag <"$T/snap.diff"; return 1; }
}

# case_ DESCRIPTION FUNCTION: one TAP test; the function sees MARK (log
# position), ASKED (askpass questions so far) and SNAP (a snapshot file).
case_() {
	local desc=$1 fn=$2
	MARK=$(e2e_log_mark)
	ASKED=$(asked)
	SNAP=$T/snap.$((n + 1))
	snapshot >"$SNAP"
	check "$desc" "$fn"
}

totp() { "$E2E_ROOT/bin/postern-totp" -C "$E2E_CONFIG" "$@"; }

# invite USER [OPTIONS...]: postern-totp invite; the code it printed in $K/USER.invite.
invite() {
	local user=$1; shift
	run totp invite "$@" "$user"
	grep -oE "$CODE_RE" "$T/out" | head -n 1 >"$K/$user.invite"
	[ "$rc" = 0 ] && [ -s "$K/$user.invite" ] || fail_with "postern-totp invite $user printed no code"
}

invite_code() { cat "$K/$1.invite"; }

# in_store TEXT: TEXT is in some file of the store (attic included).
in_store() { grep -rqF -- "$1" "$S"; }

# The handoffs USER owns in the logins directory.
handoffs_of() { find "$LOGINS" -maxdepth 1 -name '*.enrol' -user "$1" 2>/dev/null; }

# shown_uri USER: the otpauth URI of $T/out (what `enroll` printed), kept
# in $K/USER.uri for the code helpers of lib.sh.
shown_uri() {
	grep -E '^otpauth://totp/' "$T/out" | head -n 1 >"$K/$1.uri"
	[ -s "$K/$1.uri" ] || fail_with "no otpauth URI shown"
}

fpr() { ssh-keygen -lf "$K/$1.pub" | cut -d' ' -f2; }

# sk_login MODE USER KEY [COMMAND...]: ssh as USER offering only the client
# key $K/KEY through the middleware (touched, user verified). MODE noask:
# no askpass, no terminal, so a question ssh has to put gets no answer.
# MODE code: questions go to the askpass (answer: e2e_set_code).
sk_login() {
	local mode=$1 user=$2 key=$3 opts i
	shift 3
	mapfile -t opts < <(e2e_ssh_opts "$user")
	for i in "${!opts[@]}"; do
		[ "${opts[$i]}" != -i ] || opts[i + 1]=$K/$key
	done
	opts+=(-o SecurityKeyProvider="$SK_LIB")
	if [ "$mode" = noask ]; then
		run env -u SSH_ASKPASS -u SSH_ASKPASS_REQUIRE POSTERN_SK_TEST_FLAGS=0x05 \
			timeout 60 setsid -w ssh "${opts[@]}" "$user@$E2E_HOST" "$@"
	else
		run env SSH_ASKPASS="$K/askpass" SSH_ASKPASS_REQUIRE=force POSTERN_SK_TEST_FLAGS=0x05 \
			timeout 60 setsid -w ssh "${opts[@]}" "$user@$E2E_HOST" "$@"
	fi
}

make_sk() {
	run ssh-keygen -q -t ed25519-sk -w "$SK_LIB" -O verify-required -N '' -C "$1@e2e" -f "$K/$1"
	[ "$rc" = 0 ] && [ -s "$K/$1.pub" ] || fail_with "ssh-keygen -t ed25519-sk -w $SK_LIB failed"
}

# on_a_terminal CMD...: CMD on a pseudo-terminal of its own, as a maintainer
# types it (ssh then asks sshd for a terminal when told to with -t); what
# it printed (stdout and stderr, CR LF as LF) in $T/out.
on_a_terminal() {
	e2e_private_pts || { fail_with "no pseudo-terminal available"; return 1; }
	run timeout 60 /usr/bin/python3 -c '
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execvp(sys.argv[1], sys.argv[1:])
out = b""
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace").replace("\r\n", "\n"))
sys.exit(os.waitstatus_to_exitcode(status))' "$@"
}

# follow_hint USER HINT: the command line HINT ("ssh [OPTIONS] HOST
# enroll", as postern-totp or the shell printed it) typed at a terminal,
# HOST being USER's, with the harness's options and the askpass.
follow_hint() {
	local user=$1 words opts w cmd=()
	read -ra words <<<"$2"
	[ "${words[0]}" = ssh ] || { fail_with "the hint is not an ssh command: $2"; return 1; }
	mapfile -t opts < <(e2e_ssh_opts "$user")
	for w in "${words[@]:1}"; do
		[ "$w" = HOST ] && w=$user@$E2E_HOST
		cmd+=("$w")
	done
	on_a_terminal env SSH_ASKPASS="$K/askpass" SSH_ASKPASS_REQUIRE=force ssh "${opts[@]}" "${cmd[@]}"
}

# --- 1. issuing ---------------------------------------------------------------------

issued() {
	local code
	invite "$NEW" || return 1
	code=$(invite_code "$NEW")
	grep -qE "^$NEW: invite code $code \(shown only now\), valid until 20" "$T/out" ||
		{ fail_with "not the invite line"; return 1; }
	# What the maintainer is told to type, tried at a terminal in case 3.
	grep -o '(ssh [^)]*)' "$T/out" | tr -d '()' >"$K/hint"
	[ "$(cat "$K/hint")" = "ssh HOST enroll" ] || { fail_with "the hint is not 'ssh HOST enroll'"; return 1; }
	[ "$(stat -c %U:%G:%a "$S/.invite/$NEW")" = root:root:600 ] &&
		grep -q '^hash \$y\$' "$S/.invite/$NEW" ||
		{ fail_with "the record is not root's 0600 with a yescrypt hash: $(stat -c %U:%G:%a "$S/.invite/$NEW")"; return 1; }
	! in_store "$code" || { fail_with "the invite code itself is in the store"; return 1; }
	want_log "$MARK" "event=invite_issue" "user=$NEW" "replaced=no" || return 1
	! grep -qF -- "$code" "$E2E_LOG" || { fail_with "the invite code is in the syslog"; return 1; }
	run totp status "$NEW"
	want_rc 0 && want_out "enrolled: no" && want_out "invite: pending (expires 20"
}
case_ "1. invite $NEW: the code is printed once, the store holds only its \$y\$ hash (not the code), audited invite_issue; status: invite pending" \
	issued

# --- 2. a wrong invite code ----------------------------------------------------------

wrong_code() {
	e2e_set_code aaaa-bbbb-cccc-dddd
	[ "$(invite_code "$NEW")" != aaaa-bbbb-cccc-dddd ] || return 1
	run e2e_ssh "$NEW" -- enroll
	want_rc 255 && code_asked &&
		want_log "$MARK" "event=login_fail" "user=$NEW" "reason=bad_code" &&
		want_no_log "$MARK" "event=invite_login" && want_no_log "$MARK" "event=command_allow" || return 1
	grep -qx 'failures 1' "$S/.invite/$NEW" || { fail_with "the failure is not in the invite record"; return 1; }
	[ ! -e "$S/.pending/$NEW" ] && [ -z "$(handoffs_of "$NEW")" ] || { fail_with "a pending secret or a handoff was made"; return 1; }
	run totp status "$NEW"
	want_rc 0 && want_out "invite: pending" && want_out "wrong invite codes: 1"
}
case_ "2. a wrong invite code: refused after the prompt (login_fail reason=bad_code), counted (status: wrong invite codes: 1), nothing made" \
	wrong_code

# --- 3. the invite login ------------------------------------------------------------

invite_login() {
	local f secret
	e2e_set_code "$(invite_code "$NEW")"
	follow_hint "$NEW" "$(cat "$K/hint")"
	want_rc 0 && code_asked && want_out "Welcome, $NEW" &&
		want_out "otpauth://totp/postern:$NEW?secret=" && shown_uri "$NEW" || return 1
	# The QR code: UTF-8 half blocks, a square of lines as wide as each other.
	[ "$(grep -c '█' "$T/out")" -ge 10 ] || { fail_with "no QR code drawn"; return 1; }
	want_log "$MARK" "event=invite_login" "user=$NEW" "key=$(ssh-keygen -lf "$K/$NEW.key.pub" | cut -d' ' -f2)" &&
		want_log "$MARK" "event=command_allow" "user=$NEW" "name=enroll" &&
		want_no_log "$MARK" "event=login_ok" && want_no_log "$MARK" "event=login_fail" || return 1
	grep -qx 'failures 0' "$S/.invite/$NEW" && grep -q '^admitted [1-9]' "$S/.invite/$NEW" ||
		{ fail_with "the invite is not marked admitted with its failures cleared"; return 1; }
	[ "$(stat -c %U:%a "$S/.pending/$NEW")" = root:600 ] && [ ! -e "$S/$NEW" ] ||
		{ fail_with "no root 0600 pending secret, or a TOTP record already"; return 1; }
	# The handoff stays until the next admitted login sweeps its sshd process away.
	f=$(handoffs_of "$NEW")
	[ -n "$f" ] && [ "$(wc -l <<<"$f")" = 1 ] && [ "$(stat -c %U:%a "$f")" = "$NEW:400" ] ||
		{ fail_with "not one handoff of $NEW's, mode 0400: '$f'"; return 1; }
	grep -qx "uri $(cat "$K/$NEW.uri")" "$f" || { fail_with "the handoff does not hold the URI shown"; return 1; }
	secret=$(e2e_uri_param "$NEW" secret)
	grep -q "^secret $secret" "$S/.pending/$NEW" || { fail_with "the URI's secret is not the pending one"; return 1; }
	grep -rqx "method=invite" "$LOGINS" || { fail_with "no login proof says method=invite"; return 1; }
	grep -A1 '^To finish' "$T/out" | sed -n 's/^  \(ssh .*\)$/\1/p' >"$K/hint"
	[ "$(cat "$K/hint")" = "ssh HOST enroll" ] || fail_with "the hint to finish is not 'ssh HOST enroll'"
}
case_ "3. the invite code, at 'ssh HOST enroll' typed on a terminal as postern-totp said: the QR code and otpauth URI of a new pending secret (root 0600), invite_login, proof method=invite, a handoff $NEW's mode 0400" \
	invite_login

invite_once() {
	e2e_set_code "$(invite_code "$NEW")"
	run e2e_ssh "$NEW" -- enroll
	want_rc 255 && code_asked &&
		want_log "$MARK" "event=login_fail" "user=$NEW" &&
		want_no_log "$MARK" "event=invite_login" && want_no_log "$MARK" "event=login_ok" &&
		want_no_log "$MARK" "event=command_allow" || return 1
	[ -e "$S/.invite/$NEW" ] && [ -e "$S/.pending/$NEW" ] && [ ! -e "$S/$NEW" ] ||
		{ fail_with "the invite or the pending secret moved, or a record was made"; return 1; }
	[ -z "$(ls "$S/.attic" 2>/dev/null)" ] || { fail_with "something went to the attic: $(ls "$S/.attic")"; return 1; }
	run totp status "$NEW"
	want_out "invite: admitted" && want_out "enrolment not completed yet"
}
case_ "3. the invite admits once: the same code again is refused (login_fail), no second invite_login; status: admitted, enrolment not completed" \
	invite_once

# One connection admitted by MUX's invite, several sessions on it (ssh
# connection multiplexing): each is the same login, so each is restricted.
MUXSOCK=$K/mux.ctl
mux_ssh() {
	timeout 60 setsid -w ssh -F /dev/null -o ControlMaster=no -o ControlPath="$MUXSOCK" \
		-o LogLevel=ERROR "$MUX@$E2E_HOST" "$@"
}

mux_open() {
	local opts
	invite "$MUX" || return 1
	MARK=$(e2e_log_mark)
	e2e_set_code "$(invite_code "$MUX")"
	mapfile -t opts < <(e2e_ssh_opts "$MUX")
	run env SSH_ASKPASS="$K/askpass" SSH_ASKPASS_REQUIRE=force timeout 60 setsid -w \
		ssh "${opts[@]}" -o ControlMaster=yes -o ControlPath="$MUXSOCK" -o ControlPersist=no \
		-f -N "$MUX@$E2E_HOST"
	want_rc 0 && want_log "$MARK" "event=invite_login" "user=$MUX" || return 1
	run timeout 10 ssh -F /dev/null -o ControlPath="$MUXSOCK" -O check "$MUX@$E2E_HOST"
	want_rc 0
}
case_ "3. $MUX's invite code admits one connection (a multiplexing master, ssh -M)" mux_open ||
	{ echo "Bail out! no invite connection to try the commands on"; exit 1; }

refused_in_invite_session() {
	local what=$1
	want_fail && want_err "this login used an invite, so it may only enrol" &&
		want_err "ask an administrator for a new invite" && want_err "otpauth://totp/" &&
		want_log "$MARK" "event=command_deny" "user=$MUX" &&
		want_no_log "$MARK" "event=command_allow" || return 1
	! e2e_log_since "$MARK" | grep -qF "pam_postern" || { fail_with "$what: a second login"; return 1; }
	unchanged_since "$SNAP"
}

mux_list() {
	run mux_ssh list
	refused_in_invite_session list
}
case_ "3. on it, list is refused with the invite message (command_deny), nothing changed" mux_list

mux_install() {
	run mux_ssh install-module hello-1.0.0.tar.xz
	refused_in_invite_session install-module
}
case_ "3. on it, install-module is refused with the invite message" mux_install

mux_rsync() {
	local f=$T/hello-1.0.0.tar.xz
	head -c 4096 /dev/urandom >"$f"
	run timeout 60 rsync -e "ssh -F /dev/null -o ControlMaster=no -o ControlPath=$MUXSOCK -o LogLevel=ERROR" \
		"$f" "$MUX@$E2E_HOST:"
	refused_in_invite_session rsync || return 1
	[ -z "$(ls -A "$E2E_ROOT/incoming/$MUX")" ] || fail_with "a file in incoming/$MUX"
}
case_ "3. on it, an rsync upload is refused with the invite message; nothing in incoming" mux_rsync

mux_help() {
	run mux_ssh help
	want_rc 0 && want_out "enroll" && want_out "install-module" &&
		want_log "$MARK" "event=command_allow" "user=$MUX" "name=help"
}
case_ "3. on it, help runs (it names enroll)" mux_help

mux_enroll() {
	run mux_ssh enroll
	want_rc 0 && want_out "otpauth://totp/postern:$MUX?secret=" &&
		want_log "$MARK" "event=command_allow" "user=$MUX" "name=enroll" || return 1
	cp "$T/out" "$T/mux.enroll"
	# A plain `ssh HOST`, no command: the shell enrols too, showing the same.
	run mux_ssh
	want_rc 0 && want_out "otpauth://totp/postern:$MUX?secret=" &&
		[ "$(grep '^otpauth:' "$T/out")" = "$(grep '^otpauth:' "$T/mux.enroll")" ] ||
		{ fail_with "the no-command session does not show the same URI"; return 1; }
	[ "$(e2e_log_since "$MARK" | grep -c "event=command_allow.*user=$MUX.*name=enroll")" = 2 ]
}
case_ "3. on it, enroll shows the URI, and a session with no command (ssh HOST) enrols too" mux_enroll

mux_close() {
	run timeout 10 ssh -F /dev/null -o ControlPath="$MUXSOCK" -O exit "$MUX@$E2E_HOST"
	want_rc 0 || return 1
	for _ in $(seq 50); do
		[ -S "$MUXSOCK" ] || return 0
		sleep 0.1
	done
	fail_with "the master's socket is still there"
}
case_ "3. the multiplexing master ends (ssh -O exit)" mux_close

# A new invite for MUX, whose invite login happened: the earlier invite and
# the secret that login made both go to the attic, and the new code admits.
mux_reinvite() {
	invite "$MUX" || return 1
	want_out "the earlier invite no longer works" &&
		want_log "$MARK" "event=invite_issue" "user=$MUX" "replaced=yes" || return 1
	ls "$S/.attic/$MUX".invite-replaced.* "$S/.attic/$MUX".pending-replaced.* >/dev/null &&
		[ ! -e "$S/.pending/$MUX" ] && ! grep -q '^admitted [1-9]' "$S/.invite/$MUX" ||
		{ fail_with "not: earlier invite and pending secret in the attic, a fresh invite"; return 1; }
	MARK=$(e2e_log_mark)
	e2e_set_code "$(invite_code "$MUX")"
	run e2e_ssh "$MUX" -- enroll
	want_rc 0 && want_out "otpauth://totp/postern:$MUX?secret=" &&
		want_log "$MARK" "event=invite_login" "user=$MUX" || return 1
	[ "$(grep '^otpauth:' "$T/out")" != "$(grep '^otpauth:' "$T/mux.enroll")" ] ||
		fail_with "the new invite login shows the old secret"
}
case_ "3. a new invite replaces the admitted one (replaced=yes): the earlier invite and its pending secret go to the attic; the new code admits, with a new secret" \
	mux_reinvite

# --- 4. completing the enrolment with the app ----------------------------------------

completed() {
	local codes
	e2e_set_code "$(e2e_fresh_code "$NEW")"
	follow_hint "$NEW" "$(cat "$K/hint")"
	want_rc 0 && code_asked && want_out "Enrolment complete" || return 1
	codes=$(grep -oE "^  $CODE_RE\$" "$T/out" | tr -d ' ')
	[ "$(wc -l <<<"$codes")" = 10 ] && [ "$(sort -u <<<"$codes" | wc -l)" = 10 ] ||
		{ fail_with "not 10 different recovery codes"; return 1; }
	printf '%s\n' "$codes" >"$K/$NEW.recovery"
	want_log "$MARK" "event=invite_enrolled" "user=$NEW" "factor=totp" &&
		want_log "$MARK" "event=login_ok" "user=$NEW" "method=totp" &&
		want_log "$MARK" "event=command_allow" "user=$NEW" "name=enroll" || return 1
	[ "$(stat -c %U:%G:%a "$S/$NEW")" = root:root:600 ] &&
		[ "$(grep -c '^recovery \$y\$' "$S/$NEW")" = 10 ] &&
		grep -q "^secret $(e2e_uri_param "$NEW" secret)" "$S/$NEW" ||
		{ fail_with "no root 0600 record with the URI's secret and 10 recovery hashes"; return 1; }
	[ ! -e "$S/.invite/$NEW" ] && [ ! -e "$S/.pending/$NEW" ] &&
		ls "$S/.attic/$NEW".invite-used.* "$S/.attic/$NEW".pending-used.* >/dev/null ||
		{ fail_with "the invite and the pending secret are not (only) in the attic: $(ls "$S/.attic")"; return 1; }
	while read -r c; do
		! in_store "$c" || { fail_with "a recovery code itself is in the store"; return 1; }
	done <"$K/$NEW.recovery"
	run totp status "$NEW"
	want_rc 0 && want_out "enrolled: yes" && want_out "recovery codes left: 10" && want_out "invite: none"
}
case_ "4. a code from the URI's secret (oathtool), at the 'ssh HOST enroll' the session said, completes it: enroll shows 10 recovery codes; invite_enrolled factor=totp, login_ok method=totp; record made, invite and pending secret in the attic; status: enrolled, invite: none" \
	completed

enrolled_list() {
	e2e_set_code "$(e2e_fresh_code "$NEW")"
	run e2e_ssh "$NEW" -- list
	want_rc 0 && code_asked && want_out "hello" &&
		want_log "$MARK" "event=login_ok" "user=$NEW" "method=totp" &&
		want_log "$MARK" "event=command_allow" "user=$NEW" "name=list" &&
		want_no_log "$MARK" "event=invite_" || return 1
	e2e_set_code "$(e2e_fresh_code "$NEW")"
	run e2e_ssh "$NEW" -- enroll
	want_rc 0 && want_out "You are enrolled: this login passed the second factor (totp)"
}
case_ "4. afterwards key + code run list as for anyone (no invite_* record); enroll just says enrolled" \
	enrolled_list

recovery_works() {
	e2e_set_code "$(head -n 1 "$K/$NEW.recovery")"
	run e2e_ssh "$NEW" -- help
	want_rc 0 && want_log "$MARK" "event=login_ok" "user=$NEW" "method=recovery" || return 1
	run totp status "$NEW"
	want_out "recovery codes left: 9"
}
case_ "4. a recovery code shown by that enroll logs in once (method=recovery, 9 left)" recovery_works

# The upload directory: `postern-totp invite` makes <incoming>/<user>, as
# `enroll` does, so the first upload after an enrolment by invite lands.
enrolled_upload() {
	local f=$T/hello-1.0.0.tar.xz
	head -c 4096 /dev/urandom >"$f"
	e2e_set_code "$(e2e_fresh_code "$NEW")"
	run timeout 60 rsync -e "$(e2e_ssh_command "$NEW")" "$f" "$NEW@$E2E_HOST:"
	want_rc 0 && [ -f "$E2E_ROOT/incoming/$NEW/hello-1.0.0.tar.xz" ] ||
		fail_with "the upload did not land in incoming/$NEW"
}
case_ "4. and an rsync upload lands in incoming/$NEW" enrolled_upload

# --- 5. expired --------------------------------------------------------------------

expired() {
	local rec=$S/.invite/$EXP
	invite "$EXP" --expires 1m || return 1
	grep -q "valid until" "$T/out" && grep -q '^expires ' "$rec" || return 1
	# Root edits the record in place (same file, owner and mode): expired a minute ago.
	sed "s/^expires .*/expires $(($(date +%s) - 60))/" "$rec" >"$T/rec" && cat "$T/rec" >"$rec"
	[ "$(stat -c %U:%G:%a "$rec")" = root:root:600 ] || return 1
	snapshot >"$SNAP"
	MARK=$(e2e_log_mark)
	e2e_set_code "$(invite_code "$EXP")"
	run e2e_ssh "$EXP" -- enroll
	want_rc 255 && no_code_asked &&
		want_log "$MARK" "event=login_fail" "user=$EXP" "reason=invite_expired" &&
		want_no_log "$MARK" "event=invite_login" && want_no_log "$MARK" "event=command_allow" &&
		unchanged_since "$SNAP" || return 1
	run totp status "$EXP"
	want_out "invite: expired"
}
case_ "5. an invite (--expires 1m) past its expiry: refused before any prompt (reason=invite_expired), nothing changed; status: expired" \
	expired

# --- 6. revoked ---------------------------------------------------------------------

revoked() {
	invite "$REV" || return 1
	MARK=$(e2e_log_mark)
	run totp revoke-invite "$REV"
	want_rc 0 && want_out "invite revoked" &&
		want_log "$MARK" "event=invite_revoke" "user=$REV" "kept=.attic/$REV.invite-revoked." || return 1
	[ ! -e "$S/.invite/$REV" ] && ls "$S/.attic/$REV".invite-revoked.* >/dev/null ||
		{ fail_with "the invite is not in the attic"; return 1; }
	snapshot >"$SNAP"
	MARK=$(e2e_log_mark)
	ASKED=$(asked)
	e2e_set_code "$(invite_code "$REV")"
	run e2e_ssh "$REV" -- enroll
	want_rc 255 && no_code_asked &&
		want_log "$MARK" "event=login_fail" "user=$REV" "reason=not_enrolled" &&
		want_no_log "$MARK" "event=invite_login" && unchanged_since "$SNAP" || return 1
	run totp status "$REV"
	want_out "invite: none"
}
case_ "6. revoke-invite (audited, the invite in the attic): its code admits nothing (reason=not_enrolled, no prompt); status: invite none" \
	revoked

# --- wrong codes lock the invite ------------------------------------------------------

locked() {
	local i
	invite "$LCK" || return 1
	e2e_set_code aaaa-bbbb-cccc-dddd
	for i in 1 2 3 4 5; do
		MARK=$(e2e_log_mark)
		run e2e_ssh "$LCK" -- enroll
		want_rc 255 && want_log "$MARK" "event=login_fail" "user=$LCK" "reason=bad_code" || return 1
	done
	grep -qx 'failures 5' "$S/.invite/$LCK" || { fail_with "not 5 failures in the record"; return 1; }
	snapshot >"$SNAP"
	MARK=$(e2e_log_mark)
	ASKED=$(asked)
	e2e_set_code "$(invite_code "$LCK")"
	run e2e_ssh "$LCK" -- enroll
	want_rc 255 && no_code_asked &&
		want_log "$MARK" "event=login_fail" "user=$LCK" "reason=invite_locked" &&
		want_no_log "$MARK" "event=invite_login" && unchanged_since "$SNAP" || return 1
	run totp status "$LCK"
	want_out "wrong invite codes: 5"
}
case_ "after max_failures (5) wrong invite codes the right one is refused before any prompt (reason=invite_locked), nothing changed" \
	locked

# --- 7. a user who has a factor -----------------------------------------------------

has_factor() {
	local u
	for u in "$HAS" "$NEW"; do
		run totp invite "$u"
		want_rc 1 && want_err "invite: $u: has a second factor already" || return 1
		! grep -qE "$CODE_RE" "$T/out" && [ ! -e "$S/.invite/$u" ] ||
			{ fail_with "an invite was made for $u"; return 1; }
	done
	want_no_log "$MARK" "event=invite_issue" && unchanged_since "$SNAP"
}
case_ "7. invite for a user enrolled by the admin, or by invite, is refused with a clear message; no invite, no invite_issue" \
	has_factor

# --- 9. the security key of the invite login becomes the factor ----------------------

sk_invite_login() {
	make_sk sk_key || return 1
	cut -d' ' -f1,2 "$K/sk_key.pub" >>"$E2E_ROOT/home/$SK/.ssh/authorized_keys"
	invite "$SK" || return 1
	MARK=$(e2e_log_mark)
	ASKED=$(asked)
	e2e_set_code "$(invite_code "$SK")"
	sk_login code "$SK" sk_key enroll
	want_rc 0 && code_asked && want_out "otpauth://totp/postern:$SK?secret=" &&
		want_out "You logged in with the security key $(fpr sk_key) (sk-ssh-ed25519@openssh.com)" &&
		want_log "$MARK" "event=invite_login" "user=$SK" "key=$(fpr sk_key)" || return 1
	grep -qx "key sk-ssh-ed25519@openssh.com $(fpr sk_key)" "$S/.invite/$SK" ||
		fail_with "the invite record does not name the key"
}
case_ "9. an invite login with an ed25519-sk key (the invite code typed): enroll shows the URI and the note about that key; the invite record names it" \
	sk_invite_login

sk_completed() {
	sk_login noask "$SK" sk_key enroll
	want_rc 0 && no_code_asked && want_out "You are enrolled: this login passed the second factor (security-key)" &&
		want_log "$MARK" "event=invite_enrolled" "user=$SK" "factor=security-key" "key=$(fpr sk_key)" &&
		want_log "$MARK" "event=login_ok" "user=$SK" "method=security-key" "key=$(fpr sk_key)" &&
		want_no_log "$MARK" "event=login_fail" || return 1
	[ ! -e "$S/.invite/$SK" ] && [ ! -e "$S/.pending/$SK" ] && [ ! -e "$S/$SK" ] &&
		ls "$S/.attic/$SK".invite-used.* "$S/.attic/$SK".pending-used.* >/dev/null ||
		{ fail_with "not: invite and pending secret in the attic, no TOTP record"; return 1; }
	run totp status "$SK"
	want_rc 0 && want_out "enrolled: no" && want_out "security keys: 1" && want_out "$(fpr sk_key)" &&
		want_out "invite: none"
}
case_ "9. the next login with that key, no askpass: no prompt, invite_enrolled factor=security-key, login_ok method=security-key; status lists the key" \
	sk_completed

sk_after() {
	sk_login noask "$SK" sk_key help
	want_rc 0 && no_code_asked && want_out "install-module" &&
		want_log "$MARK" "event=login_ok" "user=$SK" "method=security-key" &&
		want_log "$MARK" "event=command_allow" "user=$SK" "name=help" &&
		want_no_log "$MARK" "event=invite_"
}
case_ "9. and from then on that key alone logs in (no invite_* record)" sk_after

# --- 10. require=security-key ----------------------------------------------------------

PAM_FILE=/etc/pam.d/$E2E_PAM_SERVICE
require_sk() {
	cp "$PAM_FILE" "$T/pam.saved"
	sed -i "s|^\(auth .*pam_postern.so .*\)\$|\1 require=security-key|" "$PAM_FILE"
	grep -q "pam_postern.so .*require=security-key\$" "$PAM_FILE" || return 1
	invite "$REQ" || return 1
	snapshot >"$SNAP"
	MARK=$(e2e_log_mark)
	ASKED=$(asked)
	e2e_set_code "$(invite_code "$REQ")"
	run e2e_ssh "$REQ" -- enroll
	want_rc 255 && no_code_asked &&
		want_log "$MARK" "event=login_fail" "user=$REQ" "reason=security_key_required" &&
		want_no_log "$MARK" "event=invite_login" && unchanged_since "$SNAP"
}
case_ "10. with the module option require=security-key, an invite login with a plain key is refused before any prompt (security_key_required)" \
	require_sk

require_sk_key() {
	make_sk req_key || return 1
	cut -d' ' -f1,2 "$K/req_key.pub" >>"$E2E_ROOT/home/$REQ/.ssh/authorized_keys"
	e2e_set_code "$(invite_code "$REQ")"
	sk_login code "$REQ" req_key enroll
	want_rc 0 && code_asked && want_out "You logged in with the security key $(fpr req_key)" &&
		want_log "$MARK" "event=invite_login" "user=$REQ" "key=$(fpr req_key)"
}
case_ "10. under require=security-key an invite login with a security key is admitted" require_sk_key

require_restored() {
	cp "$T/pam.saved" "$PAM_FILE" && ! grep -q "require=security-key" "$PAM_FILE"
}
case_ "10. the PAM service without require=security-key again" require_restored

# --- 8. the whole group ---------------------------------------------------------------

# Who should get one now: members of uploaders with no factor and no open
# invite, in passwd order. EXP's is expired, REV's revoked; NEW and HAS have
# codes, SK a key; MUX's and REQ's are admitted; LCK's is locked, which
# only the module knows (max_failures is its option): open to postern-totp.
# postern-ci is a system account that logs in nowhere (nologin): no member
# to invite or count.
all_uploaders() {
	local u want=()
	for u in $(getent passwd | cut -d: -f1); do
		case $u in "$EXP" | "$REV") want+=("$u") ;; esac
	done
	run totp invite --all-uploaders --expires 2d
	want_rc 0 || return 1
	[ "$(cut -f1 "$T/out" | paste -sd' ')" = "${want[*]}" ] ||
		{ fail_with "not one line for each of: ${want[*]}"; return 1; }
	for u in "${want[@]}"; do
		grep -qE "^$u	$CODE_RE	20[0-9-]+T[0-9:]+Z\$" "$T/out" ||
			{ fail_with "no USER<TAB>CODE<TAB>EXPIRES line for $u"; return 1; }
		grep -q '^hash \$y\$' "$S/.invite/$u" && ! in_store "$(grep "^$u	" "$T/out" | cut -f2)" ||
			{ fail_with "$u's new invite is not hashed only"; return 1; }
	done
	grep -q "2 invites issued; 6 members of uploaders skipped" "$T/err" ||
		{ fail_with "not the summary"; return 1; }
	[ "$(e2e_log_since "$MARK" | grep -c "event=invite_issue")" = 2 ] &&
		want_log "$MARK" "event=invite_issue" "user=$EXP" && want_log "$MARK" "event=invite_issue" "user=$REV"
}
case_ "8. invite --all-uploaders: USER<TAB>CODE<TAB>EXPIRES for each member without a factor or open invite (expired and revoked ones), codes hashed; a summary" \
	all_uploaders

status_all() {
	run totp status --all
	want_rc 0 || return 1
	grep -qE "^USER +TOTP +SK-KEYS +INVITE\$" "$T/out" &&
		grep -qE "^$NEW +yes +0 +-\$" "$T/out" && grep -qE "^$HAS +yes +0 +-\$" "$T/out" &&
		grep -qE "^$SK +no +1 +-\$" "$T/out" && grep -qE "^$MUX +no +0 +admitted\$" "$T/out" &&
		grep -qE "^$REQ +no +0 +admitted\$" "$T/out" && grep -qE "^$EXP +no +0 +pending\$" "$T/out" &&
		grep -qE "^$REV +no +0 +pending\$" "$T/out" && grep -qE "^$LCK +no +0 +pending\$" "$T/out" &&
		! grep -q "^postern-ci " "$T/out" &&
		grep -q "^8 members of uploaders, 5 without a second factor\$" "$T/out" ||
		fail_with "not the table wanted"
}
case_ "8. status --all: a row per member with TOTP, security keys and invite state, and the count without a factor" \
	status_all

no_leftovers() {
	local left
	left=$(e2e_leftover_pids)
	[ -z "$left" ] || { ps -o pid,args -p "$(paste -sd, <<<"$left")" | diag; return 1; }
}
case_ "no client or server process of the run is left over" no_leftovers

finish
