#!/bin/bash
# postern-shell runs nothing for a connection that pam_postern did not
# admit: it wants the login proof (common/login_proof.h) of the sshd
# process that ran the authentication, for this user and this connection,
# unexpired, in a directory only root can write. login-admit stands where
# sshd's monitor stands and writes the proof through pam_postern's own
# code; each case spoils it in one way and must be refused with the
# message, the audit record's proof= verdict, and nothing written.
#
# Usage: test-login-proof.sh SYSLOG_CAPTURE PRIVATE_ETC POSTERN_SHELL
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/rshell/lib-shell.sh
. "$here/lib-shell.sh"

shell_test_start "$0" "$@"
PORT=22000
NOT_ADMITTED="this login did not pass postern's second factor"

# proof_case NAME WANT_STATUS WANT_STDERR_RE PROOF [VAR=value...]: help as
# the user on a port of its own, login-admit spoiling the proof with the
# words in ADMIT_EXTRA; the audit record must say proof=PROOF.
proof_case() {
	local name=$1 want_status=$2 want_msg=$3 proof=$4 out status before_fx before_in before_logins
	shift 4
	PORT=$((PORT + 1))
	before_fx=$(side_effects)
	before_in=$(incoming_state)
	out=$(as_user "SSH_CONNECTION=$SHELL_CONN_HOST $PORT 192.0.2.1 22" "$@" -- \
		"$SH" -c help 2>&1 </dev/null)
	status=$?
	if [ "$status" = "$want_status" ] && grep -qE -- "$want_msg" <<<"$out" &&
	   [ "$(side_effects)" = "$before_fx" ] && [ "$(incoming_state)" = "$before_in" ]; then
		ok "$name"
	else
		not_ok "$name" "status $status (want $want_status); stderr: $out"
	fi
	# Without SSH_CONNECTION the records name no port: "port=-".
	local port=$PORT
	case " $* " in *" SSH_CONNECTION= "*) port=- ;; esac
	if [ "$proof" = valid ]; then
		expect_record "$port" "event=command_allow .*name=help"
	else
		expect_record "$port" "event=command_deny .*proof=$proof"
	fi
	ADMIT_EXTRA=()
}

proof_case "a proof for this user, connection and sshd process: help runs" 0 \
	"Allowed commands" valid
check "the proof is root's, mode 0644, in a root-owned 0711 directory" \
	[ "$(stat -c '%u %a' "$LOGINS")" = "0 711" ]
check "the proof names uid, connection, monitor, boot and expiry" \
	grep -qx "connection=$SHELL_CONN_HOST $PORT 192.0.2.1 22" "$LOGINS"/* 2>/dev/null

ADMIT_EXTRA=(--no-proof)
proof_case "no proof (sshd ran a PAM stack without pam_postern): refused, says what to fix" 1 \
	"$NOT_ADMITTED \(no login proof in .* for this connection's sshd process [0-9]+\); .*PAMServiceName" \
	missing

# Another connection's proof, still valid and with the same user and
# address, does not admit this one: it is bound to the sshd process.
install -d -m 0700 "$ROOT/hold"
mkfifo "$ROOT/hold/fifo"
"$LOGIN_ADMIT" --logins "$LOGINS" --uid "$SHELL_UID" --user "$SHELL_USER" \
	--connection "$SHELL_CONN_HOST $((PORT + 1)) 192.0.2.1 22" -- cat "$ROOT/hold/fifo" &
holder=$!
exec 9>"$ROOT/hold/fifo"
ADMIT_EXTRA=(--no-proof)
proof_case "a live proof of another sshd process, same user and connection: not taken" 1 \
	"$NOT_ADMITTED \(no login proof" missing
check "that other proof is still there (it was not what was checked)" \
	[ -f "$LOGINS/$holder" ]
exec 9>&-
wait "$holder"

ADMIT_EXTRA=(--stale-start)
proof_case "a proof of an earlier process with the same pid (start time differs): refused" 1 \
	"$NOT_ADMITTED \(the login proof is of an earlier sshd process" mismatch

ADMIT_EXTRA=(--boot-id 01234567-89ab-cdef-0123-456789abcdef)
proof_case "a proof from another boot: refused" 1 \
	"$NOT_ADMITTED \(the login proof is from another boot" mismatch

other_uid=$(acct_free_uid $((SHELL_UID + 1)))
ADMIT_EXTRA=(--uid "$other_uid")
proof_case "a proof for another uid: refused" 1 \
	"$NOT_ADMITTED \(the login proof is for uid $other_uid, not yours" mismatch

# login-admit's later --connection wins over the one as_user passes.
ADMIT_EXTRA=("--connection=$SHELL_CONN_HOST 1 192.0.2.1 22")
proof_case "a proof for another connection: refused" 1 \
	"$NOT_ADMITTED \(the login proof is for another connection" mismatch

ADMIT_EXTRA=(--lifetime 0)
proof_case "an expired proof: refused, log in again" 1 \
	"this login is older than pam_postern allows \(the login proof expired [0-9]+ s ago\); log in again" \
	expired

ADMIT_EXTRA=(--chown "$SHELL_UID")
proof_case "a proof the user owns: refused as unsafe" 1 \
	"$NOT_ADMITTED \(the login proof is not safe to trust: .*owned by uid $SHELL_UID" unsafe

ADMIT_EXTRA=(--chmod 0666)
proof_case "a proof anyone may write: refused as unsafe" 1 \
	"$NOT_ADMITTED \(the login proof is not safe to trust: .*mode 0666 is too open" unsafe

proof_case "no SSH_CONNECTION (not an ssh login): refused" 1 \
	"$NOT_ADMITTED \(SSH_CONNECTION is not set" error "SSH_CONNECTION="

# The user cannot forge one: the directory is root's, and a proof in a
# directory the user can write is not trusted.
user_cannot_write() {
	! setpriv --reuid "$SHELL_UID" --regid "$SHELL_GID" --init-groups \
		sh -c "echo forged >'$1'" 2>/dev/null && [ ! -e "$1" ]
}
check "the user cannot create a file in the proofs directory" user_cannot_write "$LOGINS/1"
install -d -m 0755 -o "$SHELL_USER" "$ROOT/userdir"
install -d -m 0711 -o root -g root "$ROOT/userdir/logins"
sed -i "s|^  logins: .*|  logins: $ROOT/userdir/logins|" /etc/postern/postern.yaml
proof_case "proofs below a directory the user owns: refused as unsafe" 1 \
	"$NOT_ADMITTED \(the login proofs directory is not safe to trust: .*untrusted directory" unsafe
shell_write_config

shell_test_end
