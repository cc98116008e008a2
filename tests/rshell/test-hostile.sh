#!/bin/bash
# postern-shell against hostile command lines, invocation forms and
# environments, run as a real unprivileged user with the real policy file.
# Every case asserts the exit status and the message, that the canary in
# its payload did not run, that nothing appeared anywhere the user can
# write (incoming included), and afterwards that the audit trail holds the
# decision and the session end.
#
# Usage: test-hostile.sh SYSLOG_CAPTURE PRIVATE_ETC POSTERN_SHELL CANARY_PRELOAD CORPUS
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/rshell/lib-shell.sh
. "$here/lib-shell.sh"

shell_test_start "$0" "$@"
PRELOAD_SRC=$3
CORPUS=$4
PORT=20000

# run_case NAME WANT_STATUS WANT_MESSAGE [VAR=value...] -- ARGV...
# The command runs with SSH_CONNECTION naming a port of its own.
run_case() {
	local name=$1 want_status=$2 want_msg=$3; shift 3
	local before_fx before_in out status
	PORT=$((PORT + 1))
	before_fx=$(side_effects)
	before_in=$(incoming_state)
	out=$(as_user "SSH_CONNECTION=$SHELL_CONN_HOST $PORT 192.0.2.1 22" "$@" 2>&1 >/dev/null)
	status=$?
	LAST_OUT=$out
	if [ "$status" = "$want_status" ] && grep -qE -- "$want_msg" <<<"$out" &&
	   [ "$(side_effects)" = "$before_fx" ] && [ "$(incoming_state)" = "$before_in" ]; then
		ok "$name"
	else
		not_ok "$name"
		echo "# status $status (want $want_status); stderr: $out"
		echo "# want message: $want_msg"
		diff <(echo "$before_fx") <(side_effects) | sed 's/^/# side effect: /'
		diff <(echo "$before_in") <(incoming_state) | sed 's/^/# incoming: /'
	fi
}

# --- the corpus ------------------------------------------------------------
big=$(head -c 9000 /dev/zero | tr '\0' a)
words=$(for i in $(seq 300); do printf 'w '; done)
ncase=0
while IFS=$'\t' read -r status msg cmd; do
	case "$status" in ''|\#*) continue ;; esac
	ncase=$((ncase + 1))
	canary="$CANARY/hit-$ncase"
	cmd=${cmd//@C@/$canary}
	cmd=${cmd//@BIG@/$big}
	cmd=${cmd//@WORDS@/$words}
	printf -v cmd '%b' "$cmd"
	run_case "corpus $ncase: $(printf '%q' "${cmd:0:60}")" "$status" "$msg" -- "$SH" -c "$cmd"
	expect_record "$PORT" "event=command_deny user=$SHELL_USER from=$SHELL_CONN_HOST .* mode=login_shell reason="
	expect_record "$PORT" "event=session_end .* status=1$"
done <"$CORPUS"
check "the corpus has at least 60 hostile commands ($ncase)" [ "$ncase" -ge 60 ]

# --- invocation forms -----------------------------------------------------
C="$CANARY/hit-argv"
run_case "argv: -c without a command" 1 "unexpected arguments" -- "$SH" -c
run_case "argv: -c with two arguments" 1 "unexpected arguments" -- "$SH" -c help "touch $C"
run_case "argv: --login" 1 "unexpected arguments" -- "$SH" --login
run_case "argv: -i" 1 "unexpected arguments" -- "$SH" -i
run_case "argv: -s with stdin" 1 "unexpected arguments" -- "$SH" -s
run_case "argv: -lc help" 1 "unexpected arguments" -- "$SH" -lc help
expect_record "$PORT" "event=command_deny .* reason=\"unexpected arguments"

run_case "interactive login (argv[0] -postern-shell): refused, SSH_ORIGINAL_COMMAND ignored" 1 \
	"no command given: this account has no interactive shell" \
	"SSH_ORIGINAL_COMMAND=help" -- bash -c 'exec -a -postern-shell "$0"' "$SH"
check "interactive login: the allowed commands are listed" \
	grep -q "install-module \[--dry-run\] \[--force\] FILE" <<<"$LAST_OUT"
expect_record "$PORT" "event=command_deny .* command=- mode=login_shell reason=\"no command given"

PORT=$((PORT + 1))
out=$(as_user "SSH_CONNECTION=$SHELL_CONN_HOST $PORT 192.0.2.1 22" \
	"SSH_ORIGINAL_COMMAND=rsync --server --sender -vlogDtpre.iLsfxCIvu . /etc/passwd" \
	-- "$SH" -c help 2>&1)
check "login shell: -c is the command, SSH_ORIGINAL_COMMAND is ignored" \
	grep -q "Allowed commands" <<<"$out"
check "help: names the incoming directory and the modules the user maintains" \
	grep -qzE "Uploads go to $INCOMING/$SHELL_USER/.*You maintain: gtk\." <<<"$out"
expect_record "$PORT" "event=command_allow .* command=help name=help mode=login_shell"
expect_record "$PORT" "event=session_end .* name=help status=0"

PORT=$((PORT + 1))
out=$(as_user "SSH_CONNECTION=$SHELL_CONN_HOST $PORT 192.0.2.1 22" "SSH_ORIGINAL_COMMAND=help" \
	-- "$SH" 2>&1)
check "ForceCommand: SSH_ORIGINAL_COMMAND is the command" grep -q "Allowed commands" <<<"$out"
expect_record "$PORT" "event=command_allow .* command=help name=help mode=forced"

run_case "ForceCommand: a hostile SSH_ORIGINAL_COMMAND is refused" 1 "unquoted ';'" \
	"SSH_ORIGINAL_COMMAND=help; touch $C" -- "$SH"
expect_record "$PORT" "event=command_deny .* mode=forced reason=\"refused: unquoted ';'"
run_case "ForceCommand without a command: allowed commands listed" 1 "no command given" -- "$SH"

# What sshd really runs for ForceCommand: the account's shell, here dash,
# with -c naming postern-shell. dash forks the command, so dash stands
# between postern-shell and sshd's session process.
PORT=$((PORT + 1))
usermod -s /bin/sh "$SHELL_USER"
out=$(as_user "SSH_CONNECTION=$SHELL_CONN_HOST $PORT 192.0.2.1 22" "SSH_ORIGINAL_COMMAND=help" \
	-- /bin/sh -c "$SH" 2>&1)
check "ForceCommand through /bin/sh -c: SSH_ORIGINAL_COMMAND is the command" \
	grep -q "Allowed commands" <<<"$out"
expect_record "$PORT" "event=command_allow .* command=help name=help mode=forced"
# The login shell may stand in between, nothing else: an account whose
# shell is postern-shell gets no such allowance.
usermod -s "$SH" "$SHELL_USER"
run_case "ForceCommand through /bin/sh -c for an account whose shell is postern-shell: no proof found" \
	1 "this login did not pass postern's second factor \(no login proof" \
	"SSH_ORIGINAL_COMMAND=help" -- /bin/sh -c "$SH"
expect_record "$PORT" "event=command_deny .* proof=missing"
run_case "postern-shell as login shell and as ForceCommand: refused (a path)" 1 \
	"not an allowed command \(commands are named without a path" \
	"SSH_ORIGINAL_COMMAND=help" -- "$SH" -c "$SH"

# --- the environment ------------------------------------------------------
shell_env_canaries
printf '#!/bin/sh\ntouch %s/hit-path\n' "$CANARY" >"$ROOT/evilbin/help"
chmod 0755 "$ROOT/evilbin/help"
install -d -m 0755 "$ROOT/preload" && install -d -m 0777 "$ROOT/preload/hits"
install -m 0755 "$PRELOAD_SRC" "$ROOT/preload/canary.so"

for v in "BASH_ENV=$ROOT/evil.sh" "ENV=$ROOT/evil.sh" "IFS=/" "PATH=$ROOT/evilbin" \
	 "PYTHONPATH=$ROOT/evilpy" "PYTHONSTARTUP=$ROOT/evil.sh" "SHELLOPTS=xtrace" \
	 "LANG=../../../$ROOT/x"; do
	PORT=$((PORT + 1))
	before_fx=$(side_effects)
	out=$(as_user "SSH_CONNECTION=$SHELL_CONN_HOST $PORT 192.0.2.1 22" "$v" -- "$SH" -c help 2>&1)
	status=$?
	if [ "$status" = 0 ] && grep -q "Allowed commands" <<<"$out" &&
	   [ "$(side_effects)" = "$before_fx" ]; then
		ok "environment ${v%%=*}: ignored, help still works, nothing it names ran"
	else
		not_ok "environment ${v%%=*}: status $status: $out"
	fi
	expect_record "$PORT" "event=command_allow .* name=help"
done

for v in "LD_PRELOAD=$ROOT/preload/canary.so" "LD_LIBRARY_PATH=$ROOT/evilpy" \
	 "LD_AUDIT=$ROOT/preload/canary.so" "GCONV_PATH=$ROOT/evilpy" "LOCPATH=$ROOT/evilpy"; do
	run_case "environment ${v%%=*}: refused, naming it" 1 \
		"the environment contains ${v%%=*}, which the dynamic loader" "$v" -- \
		"$SH" -c "rsync --server -vlogDtpre.iLsfxCIvu . ."
	expect_record "$PORT" "event=command_deny .* reason=\"the environment contains ${v%%=*}"
done
check "LD_PRELOAD: the canary library was loaded into postern-shell (so the test means something)" \
	[ -e "$ROOT/preload/hits/postern-shell" ]
check "LD_PRELOAD: no program started by postern-shell loaded it" \
	[ "$(find "$ROOT/preload/hits" -mindepth 1 ! -name postern-shell | wc -l)" = 0 ]

# --- root, policy ---------------------------------------------------------
PORT=$((PORT + 1))
out=$(env -i "SSH_CONNECTION=$SHELL_CONN_HOST $PORT 192.0.2.1 22" "$SH" -c help 2>&1)
status=$?
if [ "$status" = 1 ] && grep -q "root may not log in through postern-shell" <<<"$out"; then
	ok "root is refused"
else
	not_ok "root is refused: status $status: $out"
fi
expect_record "$PORT" "event=command_deny user=root .* reason=\"root may not log in"

echo 'paths: [this is: not valid' >/etc/postern/postern.yaml
run_case "broken policy: everything refused, help included" 1 \
	"the release policy cannot be loaded \(/etc/postern/postern.yaml:[0-9]+:[0-9]+: .*\); nothing is allowed" \
	-- "$SH" -c help
expect_record "$PORT" "event=policy_error .* file=/etc/postern/postern.yaml error="
expect_record "$PORT" "event=command_deny .* reason=\"the release policy cannot be loaded"
shell_write_config
chmod 0666 /etc/postern/postern.yaml
run_case "group/other-writable policy: refused" 1 "the release policy cannot be loaded" -- "$SH" -c help
rm -f /etc/postern/postern.yaml
run_case "missing policy: refused" 1 "the release policy cannot be loaded" -- "$SH" -c list
shell_write_config

shell_test_end
