#!/bin/bash
# postern-shell reads the generated DOAP module list only for the commands
# that need module ownership (install-module, list, delete-own, help, and the
# help an interactive login gets); an rsync upload decides from paths alone.
# With a valid list both kinds work; with a broken one every command that
# needs it is refused as a broken postern.yaml refuses it (policy_error in
# the audit trail, nothing written), while an upload is still decided.
#
# Usage: test-lazy-doap.sh SYSLOG_CAPTURE PRIVATE_ETC POSTERN_SHELL
set -u
here=$(cd "$(dirname "$0")" && pwd)
# shellcheck source=tests/rshell/lib-shell.sh
. "$here/lib-shell.sh"

shell_test_start "$0" "$@"
PORT=21000
DOAP=/etc/postern/doap-modules.yaml
UPLOAD="rsync --server -vlogDtpre.iLsfxCIvu . hello-1.0.tar.xz"

shell_write_config "doap_modules: $DOAP
modules:
  gnome-common:
    open: true"
printf 'modules:\n  gtk:\n    source: gtk.doap\n    maintainers: [%s]\n' "$SHELL_USER" >"$DOAP"
chmod 0644 "$DOAP"

# run NAME WANT_STATUS WANT_STDERR_RE COMMAND: as the user, its own port;
# nothing may appear in incoming or anywhere else the user can write.
run() {
	local name=$1 want_status=$2 want_msg=$3 cmd=$4 out status before_fx before_in
	PORT=$((PORT + 1))
	before_fx=$(side_effects)
	before_in=$(incoming_state)
	out=$(as_user "SSH_CONNECTION=$SHELL_CONN_HOST $PORT 192.0.2.1 22" -- \
		"$SH" -c "$cmd" 2>&1 </dev/null)
	status=$?
	if [ "$status" = "$want_status" ] && grep -qE -- "$want_msg" <<<"$out" &&
	   [ "$(side_effects)" = "$before_fx" ] && [ "$(incoming_state)" = "$before_in" ]; then
		ok "$name"
	else
		not_ok "$name"
		echo "# status $status (want $want_status); output: $out"
	fi
}

# --- a valid generated list
run "valid list: help names the module the DOAP list gives the user" 0 \
	"You maintain: gtk" "help"
expect_record "$PORT" "event=command_allow .*name=help"
run "valid list: an upload is decided and handed to rrsync (no data: rsync exits 12)" 12 \
	"connection unexpectedly closed" "$UPLOAD"
expect_record "$PORT" "event=command_allow .*name=rsync"

# --- a broken generated list (a YAML syntax error)
printf 'modules:\n  gtk:\n    maintainers: [%s\n' "$SHELL_USER" >"$DOAP"
for cmd in "help" "list" "install-module hello-1.0.tar.xz" "delete-own hello-1.0.tar.xz"; do
	run "broken list: '$cmd' is refused as with a broken policy" 1 \
		"the release policy cannot be loaded \(.*doap-modules.yaml.*\); nothing is allowed" "$cmd"
	expect_record "$PORT" "event=policy_error .*doap-modules.yaml"
	expect_record "$PORT" "event=command_deny .*reason=\"the release policy cannot be loaded"
done
run "broken list: an upload is still decided from paths alone and handed to rrsync" 12 \
	"connection unexpectedly closed" "$UPLOAD"
expect_record "$PORT" "event=command_allow .*name=rsync"
run "broken list: a refused command keeps its own reason" 1 \
	"not an allowed command|not allowed" "bash -i"
expect_record "$PORT" "event=command_deny"

# --- a list that fails its file checks is as broken
printf 'modules:\n  gtk:\n    source: gtk.doap\n    maintainers: [%s]\n' "$SHELL_USER" >"$DOAP"
chmod 0666 "$DOAP"
run "group/other-writable list: help is refused" 1 "the release policy cannot be loaded" "help"
expect_record "$PORT" "event=policy_error .*too open"

shell_test_end
