#!/bin/bash
# End to end, as root, against the real thing: OpenSSH's sshd on 127.0.0.1
# with pam_postern.so, postern-shell, rrsync and postern-installd, driven by
# OpenSSH's ssh (the code through SSH_ASKPASS) and by postern-client.
#
# Usage: e2e-test.sh BUILD_DIR     (TAP on stdout)
#
# Each case checks the outcome, the audit records it must leave, and that
# nothing else changed (tree and incoming as before unless the case is an
# upload or an install). The run's syslog capture is kept in
# BUILD_DIR/tests/e2e/e2e-audit.log for tests/audit to replay.
set -euo pipefail
E2E_BUILD=$(cd "${E2E_BUILD:-$1}" && pwd)
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# Up to eleven logins of one user inside one 30-second step: with
# pam_postern's window=10 the harness uses the codes of the next steps
# instead of waiting (each step is still accepted only once).
export E2E_TOTP_WINDOW=10
# shellcheck source=lib.sh
. "$here/lib.sh"
. "$here/../common/tap.sh"
# shellcheck source=assert.sh
. "$here/assert.sh"

if [ "${E2E_INSIDE:-}" != 1 ]; then
	e2e_test_ready
	e2e_reexec "$E2E_BUILD/tests/e2e/e2e-audit.log" "${BASH_SOURCE[0]}" "$E2E_BUILD"
fi

MAINT=pte2e-maint
OTHER=pte2e-other
REL=pte2e-rel
LOCKED=pte2e-lock
RELM=pte2e-relm
RELO=pte2e-relo
# Not a postern account: /bin/sh, key only; it stands for a hostile server.
PLAIN=pte2e-plain
T=
trap 'e2e_teardown || true' EXIT

e2e_setup
T=$E2E_ROOT/t
ASKPASS_LOG=$E2E_ROOT/client/askpass.log
install -d -m 0700 "$T"
for u in "$MAINT" "$OTHER" "$REL" "$LOCKED" "$RELM" "$RELO"; do e2e_add_uploader "$u"; done
e2e_write_policy "$REL" "hello:$MAINT" "greet:$RELM"
for u in "$MAINT" "$OTHER" "$REL" "$LOCKED" "$RELM" "$RELO"; do e2e_enroll "$u"; done
e2e_add_plain_user "$PLAIN"
e2e_start
touch "$T/started"
set +e

# --- TAP and assertions -------------------------------------------------------

# run CMD...: status in $rc, output in $T/out and $T/err.
run() {
	"$@" >"$T/out" 2>"$T/err"
	rc=$?
}

# The public tree, the uploads and the attic, as they are now.
snapshot() {
	find "$E2E_ROOT/pub" "$E2E_ROOT/incoming" "$E2E_ROOT/state/attic" -printf '%p %y %s\n' 2>/dev/null | sort
}

unchanged_since() {
	snapshot >"$T/snap.after"
	diff -u "$1" "$T/snap.after" >"$T/snap.diff" || { diag <"$T/snap.diff"; return 1; }
}

# case DESCRIPTION FUNCTION: one TAP test; the function sees MARK (log
# position), SNAP (a snapshot file) and ASKED (askpass questions so far).
case_() {
	local desc=$1 fn=$2
	MARK=$(e2e_log_mark)
	SNAP=$T/snap.$((n + 1))
	snapshot >"$SNAP"
	ASKED=$(asked)
	check "$desc" "$fn"
}

sha256() { sha256sum "$1" | cut -d' ' -f1; }

# make_tarball NAME-VERSION EXT: a real release tarball in $T.
make_tarball() {
	local nv=$1 ext=$2 flag
	case $ext in
	tar.xz) flag=-J ;;
	tar.gz) flag=-z ;;
	*) flag=-j ;;
	esac
	rm -rf "${T:?}/src" && mkdir -p "$T/src/$nv"
	printf 'This is %s.\n' "$nv" >"$T/src/$nv/README"
	printf '%s\n\n* First release.\n' "$nv" >"$T/src/$nv/NEWS"
	head -c 200000 /dev/urandom | base64 >"$T/src/$nv/data.txt"
	tar -C "$T/src" --owner=0 --group=0 $flag -cf "$T/$nv.$ext" "$nv"
}

# --- refusals at the door ------------------------------------------------------

key_only() {
	run e2e_ssh "$MAINT" -o PreferredAuthentications=publickey -- help
	want_rc 255 && want_err "Permission denied" &&
		[ "$(asked)" = "$ASKED" ] &&
		want_log "$MARK" "Partial publickey for $MAINT" &&
		want_no_log "$MARK" "event=login_ok" && want_no_log "$MARK" "event=command_allow" &&
		unchanged_since "$SNAP"
}
case_ "key alone is refused (sshd wants the code too)" key_only

code_only() {
	e2e_set_code "$(e2e_fresh_code "$MAINT")"
	run e2e_ssh "$MAINT" -o PubkeyAuthentication=no \
		-o PreferredAuthentications=keyboard-interactive -- help
	want_rc 255 && want_err "Permission denied" &&
		[ "$(asked)" = "$ASKED" ] || { fail_with "refused too late, or asked for the code"; return 1; }
	want_no_log "$MARK" "event=login_ok" && want_no_log "$MARK" "Accepted" &&
		unchanged_since "$SNAP"
}
case_ "a right code without the key is refused (no code prompt at all)" code_only

wrong_code() {
	e2e_set_code "$(e2e_wrong_code "$MAINT")"
	run e2e_ssh "$MAINT" -- help
	want_rc 255 && want_err "Permission denied" &&
		grep -q "Verification code" "$E2E_ROOT/client/askpass.log" &&
		want_log "$MARK" "event=login_fail" "user=$MAINT" "reason=bad_code" &&
		want_no_log "$MARK" "event=login_ok" && want_no_log "$MARK" "event=command_allow" &&
		unchanged_since "$SNAP"
}
case_ "key plus a wrong code is refused and logged as bad_code" wrong_code

right_code() {
	local sid_login sid_cmd
	e2e_set_code "$(e2e_fresh_code "$MAINT")"
	run e2e_ssh "$MAINT" -- help
	want_rc 0 && want_out "install-module" &&
		want_log "$MARK" "event=login_ok" "user=$MAINT" &&
		want_log "$MARK" "event=command_allow" "user=$MAINT" "name=help" &&
		want_log "$MARK" "event=session_end" "user=$MAINT" || return 1
	sid_login=$(e2e_log_since "$MARK" | grep -F "event=login_ok" | grep -o 'sid=[0-9a-f]*' | head -n 1)
	sid_cmd=$(e2e_log_since "$MARK" | grep -F "event=command_allow" | grep -o 'sid=[0-9a-f]*' | head -n 1)
	[ -n "$sid_login" ] && [ "$sid_login" = "$sid_cmd" ] ||
		{ fail_with "login and command records differ in sid ($sid_login, $sid_cmd)"; return 1; }
	unchanged_since "$SNAP"
}
case_ "key plus the right code: logged in, help runs, login and command share a sid" right_code

replayed_code() {
	e2e_set_code "$(e2e_last_code "$MAINT")"
	run e2e_ssh "$MAINT" -- help
	want_rc 255 && want_err "Permission denied" &&
		want_log "$MARK" "event=login_fail" "user=$MAINT" "reason=replay" &&
		want_no_log "$MARK" "event=login_ok" && unchanged_since "$SNAP"
}
case_ "the same code a second time is refused as a replay" replayed_code

# extra_sshd NAME SED-EXPRESSION...: a second sshd, started through the link
# $E2E_ROOT/sbin/NAME (the PAM service on OpenSSH before 9.8), with the
# main configuration changed by the sed expressions and its own port
# ($port2); sets $pid. The caller kills it.
extra_sshd() {
	local name=$1 cfg=$E2E_ROOT/ssh/sshd_config.$1 expr=()
	shift
	port2=$(e2e_free_port)
	for e in "$@"; do expr+=(-e "$e"); done
	sed -e "s/^ListenAddress .*/ListenAddress $E2E_HOST:$port2/" "${expr[@]}" \
		"$E2E_ROOT/ssh/sshd_config" >"$cfg"
	printf '[%s]:%s %s\n' "$E2E_HOST" "$port2" \
		"$(cut -d' ' -f1-2 "$E2E_ROOT/ssh/host_ed25519.pub")" >>"$E2E_ROOT/client/known_hosts"
	[ -e "$E2E_ROOT/sbin/$name" ] || ln -s "$E2E_SSHD" "$E2E_ROOT/sbin/$name"
	"$E2E_ROOT/sbin/$name" -D -f "$cfg" </dev/null &
	pid=$!
	E2E_PIDS+=("$pid")
	for _ in $(seq 100); do
		(exec 3<>"/dev/tcp/$E2E_HOST/$port2") 2>/dev/null && return 0
		sleep 0.1
	done
	fail_with "the sshd $name did not come up"
}

# Defence in depth: an sshd wrongly configured to skip the key step
# (keyboard-interactive alone) still gets no login, because pam_postern
# itself demands the key step, before it even asks for a code.
misconfigured_sshd() {
	local port2 pid
	extra_sshd "$E2E_PAM_SERVICE" \
		's/AuthenticationMethods publickey,keyboard-interactive:pam/AuthenticationMethods keyboard-interactive:pam/' ||
		return 1
	grep -q '^	AuthenticationMethods keyboard-interactive:pam$' "$E2E_ROOT/ssh/sshd_config.$E2E_PAM_SERVICE" ||
		{ fail_with "could not derive the misconfigured sshd_config"; return 1; }
	e2e_set_code "$(e2e_fresh_code "$MAINT")"
	E2E_PORT=$port2 run e2e_ssh "$MAINT" -o PubkeyAuthentication=no \
		-o PreferredAuthentications=keyboard-interactive -- help
	kill "$pid" 2>/dev/null
	want_rc 255 && [ "$(asked)" = "$ASKED" ] || { fail_with "a code was asked for"; return 1; }
	want_log "$MARK" "event=login_fail" "user=$MAINT" "reason=no_key_step" &&
		want_no_log "$MARK" "event=login_ok" && unchanged_since "$SNAP"
}
case_ "sshd misconfigured without the key step: pam_postern still refuses (no_key_step)" \
	misconfigured_sshd

# The deployment mistake OpenSSH 9.8 made easy: the maintainers' sshd runs a
# PAM service without pam_postern (the stock one, with pam_unix), and the
# maintainer has a Unix password. sshd lets key + password in; postern-shell
# finds no login proof and runs nothing, not even help, though the same
# user holds a valid proof on another live connection meanwhile.
stock_pam_service() {
	local port2 pid stock=postern-e2e-stock ctl=$T/proof-master opts
	printf 'auth required pam_unix.so\naccount required pam_unix.so\nsession required pam_unix.so\n' \
		>"/etc/pam.d/$stock"
	echo "$MAINT:e2e-unix-password" | chpasswd
	mapfile -t opts < <(e2e_ssh_opts "$MAINT")
	e2e_set_code "$(e2e_fresh_code "$MAINT")"
	SSH_ASKPASS="$E2E_ROOT/client/askpass" SSH_ASKPASS_REQUIRE=force \
		timeout 30 setsid -w ssh "${opts[@]}" -M -S "$ctl" -o ControlPersist=60 -N -f \
		"$MAINT@$E2E_HOST" </dev/null || { fail_with "the legitimate master did not start"; return 1; }
	extra_sshd "$stock" "s/^PAMServiceName .*/PAMServiceName $stock/" || return 1
	e2e_set_code e2e-unix-password
	E2E_PORT=$port2 run e2e_ssh "$MAINT" -- help
	kill "$pid" 2>/dev/null
	ssh -S "$ctl" -O exit "$MAINT@$E2E_HOST" 2>/dev/null
	usermod -p '!' "$MAINT"
	grep -qi "password" "$E2E_ROOT/client/askpass.log" ||
		{ fail_with "sshd did not ask for the Unix password (is the stock service in use?)"; return 1; }
	want_rc 1 && want_err "this login did not pass postern's second factor (no login proof" &&
		want_err "PAMServiceName" && ! grep -q "Allowed commands" "$T/out" &&
		want_log "$MARK" "event=command_deny" "user=$MAINT" "proof=missing" &&
		want_log "$MARK" "Accepted keyboard-interactive/pam for $MAINT" &&
		[ "$(e2e_log_since "$MARK" | grep -c "event=login_ok")" = 1 ] &&
		unchanged_since "$SNAP"
}
case_ "sshd running a PAM service without pam_postern: key + Unix password gets nothing (no proof)" \
	stock_pam_service

# pam_postern's default max_failures is 5: the fifth wrong code locks the
# account; then even the right code fails, and the client cannot tell the
# difference. The admin's unlock lets the right code in again.
lockout() {
	local i denied
	for i in 1 2 3 4 5; do
		e2e_set_code "$(e2e_wrong_code "$LOCKED")"
		run e2e_ssh "$LOCKED" -- help
		want_rc 255 || return 1
	done
	denied=$(cat "$T/err")
	want_log "$MARK" "event=lockout" "user=$LOCKED" || return 1
	MARK=$(e2e_log_mark)
	e2e_set_code "$(e2e_fresh_code "$LOCKED")"
	run e2e_ssh "$LOCKED" -- help
	want_rc 255 && [ "$(cat "$T/err")" = "$denied" ] ||
		{ fail_with "a locked account must look like a wrong code to the client"; return 1; }
	want_log "$MARK" "event=login_fail" "user=$LOCKED" "reason=locked" || return 1
	MARK=$(e2e_log_mark)
	run "$E2E_ROOT/bin/postern-totp" -C "$E2E_CONFIG" unlock "$LOCKED"
	want_rc 0 && want_log "$MARK" "event=totp_unlock" "user=$LOCKED" || return 1
	e2e_set_code "$(e2e_fresh_code "$LOCKED")"
	run e2e_ssh "$LOCKED" -- help
	want_rc 0 && want_log "$MARK" "event=login_ok" "user=$LOCKED" && unchanged_since "$SNAP"
}
case_ "five wrong codes lock the account (silently); postern-totp unlock lets the code in" lockout

interactive_login() {
	e2e_set_code "$(e2e_fresh_code "$OTHER")"
	run e2e_ssh "$OTHER" -T -- </dev/null
	want_fail && [ "$rc" != 255 ] || { fail_with "wanted the shell's own refusal"; return 1; }
	grep -qF "install-module" "$T/out" "$T/err" || { fail_with "no list of commands"; return 1; }
	want_log "$MARK" "event=login_ok" "user=$OTHER" &&
		want_log "$MARK" "event=command_deny" "user=$OTHER" "mode=login_shell" || return 1
	MARK=$(e2e_log_mark)
	e2e_set_code "$(e2e_fresh_code "$OTHER")"
	run e2e_ssh "$OTHER" -tt -- </dev/null
	want_fail && want_err "PTY allocation request failed" &&
		want_log "$MARK" "event=command_deny" "user=$OTHER" "mode=login_shell" &&
		want_no_log "$MARK" "event=command_allow" && unchanged_since "$SNAP"
}
case_ "an interactive login gets no shell (-T) and no tty (-tt)" interactive_login

local_forward() {
	local lport pid got opts
	lport=$(e2e_free_port)
	e2e_set_code "$(e2e_fresh_code "$OTHER")"
	mapfile -t opts < <(e2e_ssh_opts "$OTHER")
	SSH_ASKPASS="$E2E_ROOT/client/askpass" SSH_ASKPASS_REQUIRE=force \
		timeout 60 setsid -w ssh "${opts[@]}" -N -L "$lport:127.0.0.1:$E2E_PORT" "$OTHER@$E2E_HOST" \
		</dev/null >"$T/out" 2>"$T/err" &
	pid=$!
	for _ in $(seq 100); do
		(exec 3<>"/dev/tcp/127.0.0.1/$lport") 2>/dev/null && break
		sleep 0.1
	done
	got=$(timeout 5 bash -c "exec 3<>/dev/tcp/127.0.0.1/$lport; head -c 7 <&3" 2>/dev/null)
	kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
	[ "$got" != "SSH-2.0" ] || { fail_with "the forward reached sshd through the tunnel"; return 1; }
	want_log "$MARK" "event=login_ok" "user=$OTHER" &&
		want_log "$MARK" "refused local port forward" && unchanged_since "$SNAP"
}
case_ "-L forwarding is refused by sshd" local_forward

remote_forward() {
	e2e_set_code "$(e2e_fresh_code "$OTHER")"
	run e2e_ssh "$OTHER" -o ExitOnForwardFailure=yes -N -R "0:127.0.0.1:$E2E_PORT" </dev/null
	want_rc 255 && want_err "forwarding failed" &&
		want_log "$MARK" "event=login_ok" "user=$OTHER" &&
		want_no_log "$MARK" "event=command_allow" && unchanged_since "$SNAP"
}
case_ "-R forwarding is refused by sshd" remote_forward

sftp_subsystem() {
	e2e_set_code "$(e2e_fresh_code "$OTHER")"
	run e2e_ssh "$OTHER" -s -- sftp </dev/null
	want_rc 255 && want_err "subsystem request failed" &&
		want_log "$MARK" "subsystem request for sftp" &&
		want_no_log "$MARK" "event=command_allow" && unchanged_since "$SNAP"
}
case_ "ssh -s sftp is refused (no subsystem)" sftp_subsystem

scp_both_modes() {
	local opts
	mapfile -t opts < <(e2e_ssh_opts "$OTHER" | sed 's/^-p$/-P/')
	make_tarball hello-9.9 tar.xz
	snapshot >"$SNAP"
	e2e_set_code "$(e2e_fresh_code "$OTHER")"
	SSH_ASKPASS="$E2E_ROOT/client/askpass" SSH_ASKPASS_REQUIRE=force \
		run timeout 60 setsid -w scp "${opts[@]}" "$T/hello-9.9.tar.xz" "$OTHER@$E2E_HOST:"
	want_fail && want_log "$MARK" "subsystem request for sftp" || return 1
	MARK=$(e2e_log_mark)
	e2e_set_code "$(e2e_fresh_code "$OTHER")"
	SSH_ASKPASS="$E2E_ROOT/client/askpass" SSH_ASKPASS_REQUIRE=force \
		run timeout 60 setsid -w scp -O "${opts[@]}" "$T/hello-9.9.tar.xz" "$OTHER@$E2E_HOST:"
	want_fail && want_log "$MARK" "event=command_deny" "user=$OTHER" "scp" &&
		unchanged_since "$SNAP"
}
case_ "scp is refused, in SFTP mode and in legacy (-O) mode" scp_both_modes

# --- postern-client ----------------------------------------------------------------

client_unknown_host() {
	run e2e_client "$MAINT" --known-hosts "$T/kh-first" -- help </dev/null
	want_rc 255 && want_err "unknown host key" &&
		[ ! -s "$T/kh-first" ] && want_no_log "$MARK" "Accepted publickey" &&
		unchanged_since "$SNAP"
}
case_ "postern-client: an unknown host key without a terminal or --accept-new is refused" \
	client_unknown_host

client_changed_host() {
	ssh-keygen -q -t ed25519 -N '' -f "$T/impostor"
	printf '[%s]:%s %s\n' "$E2E_HOST" "$E2E_PORT" "$(cut -d' ' -f1-2 "$T/impostor.pub")" >"$T/kh-changed"
	run e2e_client "$MAINT" --known-hosts "$T/kh-changed" --accept-new -- help </dev/null
	want_rc 255 && want_err "HOST KEY CHANGED" && want_no_log "$MARK" "Accepted publickey" &&
		grep -qF "$(cut -d' ' -f2 "$T/impostor.pub")" "$T/kh-changed" && unchanged_since "$SNAP"
}
case_ "postern-client: a changed host key is refused even with --accept-new" client_changed_host

client_accept_new() {
	e2e_set_code "$(e2e_fresh_code "$MAINT")"
	run e2e_client "$MAINT" --known-hosts "$T/kh-new" --accept-new -- help </dev/null
	want_rc 0 && want_out "install-module" && want_err "added to known_hosts" &&
		grep -qF "$(cut -d' ' -f2 "$E2E_ROOT/ssh/host_ed25519.pub")" "$T/kh-new" &&
		want_log "$MARK" "event=login_ok" "user=$MAINT" && unchanged_since "$SNAP"
}
case_ "postern-client: --accept-new records the key; key plus code logs in" client_accept_new

# The default, interactive path, on a real pseudo-terminal: the first-use
# host key question (answered yes), then the code typed with echo off.
client_on_a_terminal() {
	local code
	e2e_private_pts || { fail_with "no pseudo-terminal available"; return 1; }
	code=$(e2e_fresh_code "$MAINT")
	run timeout 60 python3 - "$code" "$E2E_ROOT/bin/postern-client" -p "$E2E_PORT" \
		-i "$E2E_ROOT/client/$MAINT.key" --known-hosts "$T/kh-tty" \
		"$MAINT@$E2E_HOST" help <<'EOF'
import os, pty, sys, time
code = sys.argv[1].encode()
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[2], sys.argv[2:])
seen = b""
def expect(what):
    global seen
    end = time.time() + 30
    while what not in seen:
        if time.time() > end:
            sys.exit("timed out waiting for %r; saw %r" % (what, seen))
        try:
            seen += os.read(fd, 4096)
        except OSError:
            sys.exit("terminal closed; saw %r" % seen)
expect(b"(yes/no)? ")
os.write(fd, b"yes\n")
expect(b"Verification code: ")
mark = len(seen)
os.write(fd, code + b"\n")
while True:
    try:
        chunk = os.read(fd, 4096)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
_, status = os.waitpid(pid, 0)
sys.stdout.write(seen.decode(errors="replace"))
if code in seen[mark:]:
    sys.exit("the code was echoed")
sys.exit(os.waitstatus_to_exitcode(status))
EOF
	want_rc 0 && want_out "install-module" && want_out "SHA256:" &&
		grep -qF "$(cut -d' ' -f2 "$E2E_ROOT/ssh/host_ed25519.pub")" "$T/kh-tty" &&
		want_log "$MARK" "event=login_ok" "user=$MAINT" && unchanged_since "$SNAP"
}
case_ "postern-client on a terminal: asks about the new host key, then the code without echo" \
	client_on_a_terminal

client_wrong_code() {
	e2e_set_code "$(e2e_wrong_code "$MAINT")"
	run e2e_client "$MAINT" -- help </dev/null
	want_rc 255 && want_err "refused the code" &&
		want_log "$MARK" "event=login_fail" "user=$MAINT" "reason=bad_code" &&
		unchanged_since "$SNAP"
}
case_ "postern-client: a wrong code is refused" client_wrong_code

client_code_command() {
	local args
	mapfile -t args < <(e2e_oath_args "$MAINT")
	e2e_fresh_code "$MAINT" >/dev/null
	run e2e_client "$MAINT" --code-command \
		"oathtool ${args[*]} -N @$((E2E_STEP * $(e2e_period "$MAINT")))" -- help </dev/null
	want_rc 0 && want_out "install-module" && want_log "$MARK" "event=login_ok" "user=$MAINT"
}
case_ "postern-client: --code-command runs a program (no shell) for the code" client_code_command

client_status() {
	e2e_set_code "$(e2e_fresh_code "$MAINT")"
	run e2e_client "$MAINT" -- frobnicate --now </dev/null
	want_fail && [ "$rc" != 255 ] || { fail_with "wanted the shell's status, not ours"; return 1; }
	want_err "frobnicate" &&
		want_log "$MARK" "event=command_deny" "user=$MAINT" "frobnicate" && unchanged_since "$SNAP"
}
case_ "postern-client relays the refusal on stderr and the shell's exit status" client_status

client_unread_input() {
	head -c $((8 * 1024 * 1024)) /dev/zero >"$T/zeros"
	e2e_set_code "$(e2e_fresh_code "$MAINT")"
	run e2e_client "$MAINT" -- help <"$T/zeros"
	want_rc 0 && want_out "install-module" && unchanged_since "$SNAP"
}
case_ "postern-client: a command that does not read its input still returns its status" \
	client_unread_input

# --- one release, through postern-client -----------------------------------------

upload() {
	local f=$T/hello-1.0.0.tar.xz
	make_tarball hello-1.0.0 tar.xz
	snapshot >"$SNAP"
	e2e_set_code "$(e2e_fresh_code "$MAINT")"
	run timeout 120 rsync -e "$(e2e_client_command "$MAINT")" "$f" "$MAINT@$E2E_HOST:"
	want_rc 0 || return 1
	[ "$(sha256 "$E2E_ROOT/incoming/$MAINT/hello-1.0.0.tar.xz")" = "$(sha256 "$f")" ] ||
		{ fail_with "the upload in incoming differs from the file sent"; return 1; }
	want_log "$MARK" "event=command_allow" "user=$MAINT" "name=rsync" &&
		want_log "$MARK" "event=upload_done" "user=$MAINT" "status=ok" &&
		[ -z "$(find "$E2E_ROOT/pub" -name 'hello-1.0.0*')" ] || fail_with "upload reached the tree"
}
case_ "upload: rsync -e postern-client lands the tarball in incoming/<user>/" upload

install_release() {
	local dir=$E2E_ROOT/pub/sources/hello/1.0 sum
	sum=$(sha256 "$T/hello-1.0.0.tar.xz")
	e2e_set_code "$(e2e_fresh_code "$MAINT")"
	run e2e_client "$MAINT" -- install-module hello-1.0.0.tar.xz </dev/null
	want_rc 0 || return 1
	[ "$(sha256 "$dir/hello-1.0.0.tar.xz")" = "$sum" ] || { fail_with "tree copy differs"; return 1; }
	grep -q "^$sum  hello-1.0.0.tar.xz\$" "$dir/hello-1.0.0.sha256sum" ||
		{ fail_with "no sha256sum file"; return 1; }
	[ ! -e "$E2E_ROOT/incoming/$MAINT/hello-1.0.0.tar.xz" ] ||
		{ fail_with "upload left in incoming"; return 1; }
	[ "$(stat -c %U "$dir/hello-1.0.0.tar.xz")" = postern ] ||
		{ fail_with "tree file not postern's"; return 1; }
	want_log "$MARK" "event=install_ok" "user=$MAINT" "module=hello" "version=1.0.0" "sha256=$sum"
}
case_ "install-module: the release is in the tree, checksummed, owned by postern" install_release

list_releases() {
	e2e_set_code "$(e2e_fresh_code "$MAINT")"
	run e2e_client "$MAINT" -- list hello </dev/null
	want_rc 0 && want_out "1.0.0" &&
		want_log "$MARK" "event=command_allow" "user=$MAINT" "name=list" && unchanged_since "$SNAP"
}
case_ "list hello shows the release" list_releases

non_maintainer() {
	make_tarball hello-1.0.1 tar.xz
	snapshot >"$SNAP"
	e2e_set_code "$(e2e_fresh_code "$OTHER")"
	run timeout 120 rsync -e "$(e2e_ssh_command "$OTHER")" "$T/hello-1.0.1.tar.xz" "$OTHER@$E2E_HOST:"
	want_rc 0 || return 1
	snapshot >"$SNAP"
	MARK=$(e2e_log_mark)
	e2e_set_code "$(e2e_fresh_code "$OTHER")"
	run e2e_ssh "$OTHER" -- install-module hello-1.0.1.tar.xz </dev/null
	want_fail && want_err "refused" && want_err "$OTHER may not release hello" &&
		[ -f "$E2E_ROOT/incoming/$OTHER/hello-1.0.1.tar.xz" ] &&
		want_log "$MARK" "event=install_refused" "user=$OTHER" "module=hello" &&
		want_no_log "$MARK" "event=install_ok" && unchanged_since "$SNAP"
}
case_ "a non-maintainer's install-module is refused with the reason; the upload stays" \
	non_maintainer

delete_own() {
	e2e_set_code "$(e2e_fresh_code "$MAINT")"
	run e2e_client "$MAINT" -- delete-own hello-1.0.0.tar.xz </dev/null
	want_rc 0 || return 1
	[ ! -e "$E2E_ROOT/pub/sources/hello/1.0/hello-1.0.0.tar.xz" ] ||
		{ fail_with "still in the tree"; return 1; }
	[ -n "$(find "$E2E_ROOT/state/attic" -name hello-1.0.0.tar.xz)" ] ||
		{ fail_with "not in the attic"; return 1; }
	want_log "$MARK" "event=delete" "user=$MAINT" "kind=release"
}
case_ "delete-own moves the release to the attic" delete_own

control_master() {
	local opts ctl=$E2E_ROOT/client/cm-$REL sshcmd
	make_tarball world-2.0 tar.gz
	snapshot >"$SNAP"
	mapfile -t opts < <(e2e_ssh_opts "$REL")
	sshcmd="ssh -F /dev/null -S $ctl -o ControlMaster=no"
	e2e_set_code "$(e2e_fresh_code "$REL")"
	SSH_ASKPASS="$E2E_ROOT/client/askpass" SSH_ASKPASS_REQUIRE=force \
		timeout 30 setsid -w ssh "${opts[@]}" -M -S "$ctl" -o ControlPersist=60 -N -f \
		"$REL@$E2E_HOST" </dev/null || { fail_with "master did not start"; return 1; }
	run timeout 60 rsync -e "$sshcmd" "$T/world-2.0.tar.gz" "$REL@$E2E_HOST:" &&
		want_rc 0 &&
		run timeout 60 $sshcmd "$REL@$E2E_HOST" install-module world-2.0.tar.gz &&
		want_rc 0 &&
		run timeout 60 $sshcmd "$REL@$E2E_HOST" list world && want_out "2.0"
	local ok=$?
	ssh -S "$ctl" -O exit "$REL@$E2E_HOST" 2>/dev/null
	[ "$ok" = 0 ] && [ "$(asked)" = $((ASKED + 1)) ] || { fail_with "not one code asked"; return 1; }
	[ -f "$E2E_ROOT/pub/sources/world/2.0/world-2.0.tar.gz" ] || { fail_with "not installed"; return 1; }
	want_log "$MARK" "event=install_ok" "user=$REL" "module=world" "basis=release_team" &&
		[ "$(e2e_log_since "$MARK" | grep -c "event=login_ok")" = 1 ]
}
case_ "ControlMaster: one code covers upload, install and list (release team, new module)" \
	control_master

# --- postern-client --release: one login for the whole release ---------------------

# A code command that counts how often it is asked (once per code prompt)
# and prints the code in $T/relcode.
printf '#!/bin/sh\necho asked >>"%s"\ncat "%s"\n' "$T/prompts" "$T/relcode" >"$T/codecmd"
chmod 0700 "$T/codecmd"
: >"$T/prompts"
prompts() { wc -l <"$T/prompts"; }

# release_client USER [options] -- FILE...: postern-client --release, code from codecmd.
release_client() {
	local user=$1; shift
	local opts=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	e2e_set_code "$(e2e_fresh_code "$user")"
	cp "$E2E_ROOT/client/code" "$T/relcode"
	run e2e_client "$user" --code-command "$T/codecmd" "${opts[@]}" --release -- "$@" </dev/null
}

logins_since() {
	e2e_log_since "$1" | grep -F "event=login_ok" | grep -cF "user=$2"
}

# A signing key of RELM, made here, in her keyring on the server (as an
# admin would put it there): the signatures --release uploads are verified.
GPG_HOME=
relm_key() {
	[ -z "$GPG_HOME" ] || return 0
	GPG_HOME=$T/gnupg
	install -d -m 0700 "$GPG_HOME"
	relm_gpg --quick-gen-key "Release Maintainer <$RELM@example.org>" ed25519 sign never &&
		relm_gpg --export >"$E2E_ROOT/keyrings/$RELM.pgp" &&
		chmod 0644 "$E2E_ROOT/keyrings/$RELM.pgp"
}
# gpg on RELM's home; its agent is stopped after each use (no process of
# the run may be left over).
relm_gpg() {
	local rc=0
	GNUPGHOME=$GPG_HOME gpg --batch --yes --quiet --no-tty --pinentry-mode loopback --passphrase '' "$@" 2>/dev/null || rc=$?
	gpgconf --homedir "$GPG_HOME" --kill gpg-agent 2>/dev/null
	return $rc
}

release_one_login() {
	local f=$T/greet-1.0.0.tar.xz dir=$E2E_ROOT/pub/sources/greet/1.0 before
	make_tarball greet-1.0.0 tar.xz
	relm_key && relm_gpg --armor --detach-sign -o "$f.asc" "$f" ||
		{ fail_with "cannot make the signature"; return 1; }
	snapshot >"$SNAP"
	before=$(prompts)
	release_client "$RELM" -- "$f"
	want_rc 0 && want_out "released: greet-1.0.0.tar.xz" && want_out "installed as sources/greet/1.0/" &&
		want_out "signed by OpenPGP key" && want_out "1.0.0" || return 1
	[ "$(prompts)" = $((before + 1)) ] || { fail_with "asked $(($(prompts) - before)) codes, wanted 1"; return 1; }
	cmp -s "$f" "$dir/greet-1.0.0.tar.xz" || { fail_with "the tree copy differs"; return 1; }
	[ ! -e "$E2E_ROOT/incoming/$RELM/greet-1.0.0.tar.xz" ] || { fail_with "upload left in incoming"; return 1; }
	cmp -s "$f.asc" "$dir/greet-1.0.0.tar.xz.asc" ||
		{ fail_with "the signature next to the file was not uploaded and published"; return 1; }
	want_log "$MARK" "event=install_ok" "user=$RELM" "module=greet" "version=1.0.0" &&
		want_log "$MARK" "event=command_allow" "user=$RELM" "name=rsync" &&
		want_log "$MARK" "event=command_allow" "user=$RELM" "name=list" &&
		want_log "$MARK" "event=session_end" "user=$RELM" || return 1
	[ "$(logins_since "$MARK" "$RELM")" = 1 ] || { fail_with "not exactly one login"; return 1; }
	want_no_log "$MARK" "dry_run=yes" || { fail_with "a file that was sent was checked as waiting"; return 1; }
	[ -z "$(e2e_leftover_pids)" ] || { fail_with "a relay or rsync is left over"; return 1; }
}
case_ "--release: local checks, upload (+ .asc), install-module and list on one login, one code" \
	release_one_login

# Also the relay's big-file test: 50 MB through rsync over the channel.
release_second_big() {
	local nv=greet-1.1.0 f=$T/greet-1.1.0.tar.gz before
	rm -rf "${T:?}/src" && mkdir -p "$T/src/$nv"
	head -c $((50 * 1024 * 1024)) /dev/urandom >"$T/src/$nv/blob"
	tar -C "$T/src" --owner=0 --group=0 -cf - "$nv" | gzip -1 >"$f"
	rm -rf "${T:?}/src"
	gzip -dc "$f" | relm_gpg --armor --detach-sign -o "$T/greet-1.1.0.tar.sign" ||
		{ fail_with "cannot make the .tar.sign"; return 1; }
	snapshot >"$SNAP"
	before=$(prompts)
	release_client "$RELM" -q -- "$f"
	want_rc 0 && want_out "released: greet-1.1.0.tar.gz" || return 1
	! grep -qF "list greet" "$T/out" || { fail_with "--quiet printed the steps"; return 1; }
	[ "$(prompts)" = $((before + 1)) ] || { fail_with "not one code for the second release"; return 1; }
	cmp -s "$f" "$E2E_ROOT/pub/sources/greet/1.1/greet-1.1.0.tar.gz" ||
		{ fail_with "50 MB did not arrive byte for byte"; return 1; }
	cmp -s "$T/greet-1.1.0.tar.sign" "$E2E_ROOT/pub/sources/greet/1.1/greet-1.1.0.tar.sign" ||
		{ fail_with ".tar.sign not uploaded and published"; return 1; }
	[ "$(logins_since "$MARK" "$RELM")" = 1 ] &&
		want_log "$MARK" "event=install_ok" "user=$RELM" "version=1.1.0"
}
case_ "--release -q: a second release with a fresh code; 50 MB arrive byte for byte" release_second_big

# An older upload of the same name waits in incoming (here: a damaged one):
# rsync does not replace it, so --release must not install it as ours.
release_stale_waiting() {
	local f=$T/greet-1.2.0.tar.xz stale=$T/stale/greet-1.2.0.tar.xz
	make_tarball greet-1.2.0 tar.xz
	mkdir -p "$T/stale" && head -c 4096 /dev/urandom >"$stale"
	e2e_set_code "$(e2e_fresh_code "$RELM")"
	run timeout 120 rsync -e "$(e2e_client_command "$RELM")" "$stale" "$RELM@$E2E_HOST:"
	want_rc 0 || return 1
	snapshot >"$SNAP"
	MARK=$(e2e_log_mark)
	release_client "$RELM" -- "$f"
	want_rc 1 && want_err "greet-1.2.0.tar.xz: not sent: a file of that name already waits" &&
		want_err "not installed: greet-1.2.0.tar.xz" || return 1
	cmp -s "$stale" "$E2E_ROOT/incoming/$RELM/greet-1.2.0.tar.xz" ||
		{ fail_with "the waiting file changed"; return 1; }
	want_log "$MARK" "event=install_refused" "user=$RELM" "dry_run=yes" &&
		want_no_log "$MARK" "event=install_ok" && unchanged_since "$SNAP"
}
case_ "--release does not install an older upload of the same name waiting in incoming" \
	release_stale_waiting

release_not_maintainer() {
	local f=$T/greet-2.0.0.tar.xz
	make_tarball greet-2.0.0 tar.xz
	snapshot >"$SNAP"
	release_client "$RELO" -- "$f"
	want_rc 1 && want_err "$RELO may not release greet" && want_err "not installed: greet-2.0.0.tar.xz" ||
		return 1
	cmp -s "$f" "$E2E_ROOT/incoming/$RELO/greet-2.0.0.tar.xz" || { fail_with "the upload was not kept"; return 1; }
	[ -z "$(find "$E2E_ROOT/pub" -name 'greet-2.0.0*')" ] || { fail_with "reached the tree"; return 1; }
	want_log "$MARK" "event=install_refused" "user=$RELO" "module=greet" &&
		want_no_log "$MARK" "event=install_ok"
}
case_ "--release by a non-maintainer: exit 1 with the server's reason; the upload stays" \
	release_not_maintainer

release_dry_run_refused() {
	release_client "$RELO" --dry-run -- "$T/greet-2.0.0.tar.xz"
	want_rc 1 && want_err "$RELO may not release greet" &&
		want_log "$MARK" "event=install_refused" "user=$RELO" "dry_run=yes" &&
		want_no_log "$MARK" "event=install_ok" && unchanged_since "$SNAP"
}
case_ "--release --dry-run reaches the server's install-module --dry-run" release_dry_run_refused

release_wrong_code() {
	local f=$T/greet-3.0.0.tar.xz before
	make_tarball greet-3.0.0 tar.xz
	snapshot >"$SNAP"
	before=$(prompts)
	e2e_wrong_code "$RELM" >"$T/relcode"
	run e2e_client "$RELM" --code-command "$T/codecmd" --release -- "$f" </dev/null
	want_rc 3 && want_err "refused the code" && [ "$(prompts)" = $((before + 1)) ] &&
		want_log "$MARK" "event=login_fail" "user=$RELM" "reason=bad_code" &&
		want_no_log "$MARK" "event=command_allow" && unchanged_since "$SNAP"
}
case_ "--release with a wrong code: exit 3, nothing uploaded" release_wrong_code

release_hostile_local() {
	local f=$T/greet-4.0.0.tar.xz
	rm -rf "${T:?}/src" && mkdir -p "$T/src/greet-4.0.0"
	echo hi >"$T/src/greet-4.0.0/README"
	ln -s ../../../etc/passwd "$T/src/greet-4.0.0/escape"
	tar -C "$T/src" -cJf "$f" greet-4.0.0
	snapshot >"$SNAP"
	: >"$T/relcode"
	run strace -f -qq -e trace=connect -o "$T/strace" "$E2E_ROOT/bin/postern-client" \
		-p "$E2E_PORT" -i "$E2E_ROOT/client/$RELM.key" \
		--known-hosts "$E2E_ROOT/client/known_hosts" --code-command "$T/codecmd" \
		--release "$RELM@$E2E_HOST" "$f" </dev/null
	want_rc 2 && want_err "greet-4.0.0.tar.xz: refused: " && want_err "nothing was sent" || return 1
	! grep -q "AF_INET" "$T/strace" || { fail_with "a connection was opened"; diag <"$T/strace"; return 1; }
	want_no_log "$MARK" "Connection from" && unchanged_since "$SNAP"
}
case_ "--release refuses a hostile tarball here, with no connection at all (strace)" \
	release_hostile_local

# The relay ends when the remote side does, even with input that never ends.
relay_endless_input() {
	e2e_set_code "$(e2e_fresh_code "$RELM")"
	run timeout 60 "$E2E_ROOT/bin/postern-client" -p "$E2E_PORT" -i "$E2E_ROOT/client/$RELM.key" \
		--known-hosts "$E2E_ROOT/client/known_hosts" --code-file "$E2E_ROOT/client/code" \
		"$RELM@$E2E_HOST" help </dev/zero
	want_rc 0 && want_out "install-module" && unchanged_since "$SNAP"
}
case_ "postern-client ends when the command does, though its input never ends" relay_endless_input

# What a server writes to stderr reaches the maintainer's terminal only
# through the safe-text rule (ESC, C1 raw and as UTF-8, bidi: '?'); stdout,
# rsync's protocol in this mode, passes byte for byte.
relay_hostile_stderr() {
	run timeout 60 "$E2E_ROOT/bin/postern-client" -p "$E2E_PORT" -i "$E2E_ROOT/client/$PLAIN.key" \
		--known-hosts "$E2E_ROOT/client/known_hosts" --code-file "$E2E_ROOT/client/code" \
		"$PLAIN@$E2E_HOST" "printf 'a\\033[2Jb \\302\\2331m \\233x \\342\\200\\256cod\\n' >&2; printf 'raw\\033\\001\\n'" </dev/null
	want_rc 0 && want_err "a?[2Jb ??1m ?x ???cod" || return 1
	! LC_ALL=C grep -q $'\033\|\302\233\|\342\200\256' "$T/err" || { fail_with "a control reached stderr"; return 1; }
	[ "$(od -An -c "$T/out" | tr -d ' \n')" = 'raw033001\n' ] || { fail_with "stdout changed: $(od -c "$T/out")"; return 1; }
}
case_ "a server's stderr reaches the terminal only through the safe-text rule; stdout untouched" \
	relay_hostile_stderr

no_home_writes() {
	[ -z "$(find "$E2E_ROOT/home" -newer "$T/started")" ] ||
		{ find "$E2E_ROOT/home" -newer "$T/started" | diag; return 1; }
}
case_ "nothing was written in the users' home directories" no_home_writes

# What postern-audit must reconstruct from this run's trail: the two
# releases, and per user the logins, refusals and installs of the cases
# above (tests/audit/data/gen-trail.expected describes the format).
trail_check() {
	local checker=$here/../audit/check-e2e-trail.sh
	[ -x "$E2E_ROOT/bin/postern-audit" ] || { fail_with "postern-audit is not built"; return 1; }
	run env POSTERN_AUDIT="$E2E_ROOT/bin/postern-audit" "$checker" "$E2E_LOG" "$here/e2e-trail.expected"
	want_rc 0
}
case_ "postern-audit reconstructs the run from its audit trail (check-e2e-trail.sh)" trail_check

no_leftovers() {
	local left
	left=$(e2e_leftover_pids)
	[ -z "$left" ] || { ps -o pid,args -p "$(echo $left | tr ' ' ,)" | diag; return 1; }
}
case_ "no client or server process of the run is left over" no_leftovers

finish
