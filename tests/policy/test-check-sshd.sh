#!/bin/bash
# postern-policy check-sshd against the real /usr/sbin/sshd -T: a correct
# config passes, and configs or PAM services each wrong in exactly one way
# get exactly their message. Only what this machine's OpenSSH cannot print
# (pamservicename, OpenSSH >= 9.8) comes from fake-sshd-openssh10.sh.
#
# Runs in a private /etc (throwaway users) and, in private-etc's mount
# namespace, a private /run (sshd -T insists on /run/sshd); host keys,
# configs and PAM files live there too, and all of it vanishes at the end.
#
# Usage: test-check-sshd.sh POSTERN_POLICY PRIVATE_ETC POSTERN_SHELL_EXE FAKE_SSHD
set -u
pp="$1"; pe="$2"; shell="$3"; fake="$4"
. "$(dirname "$0")/../common/tap.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (sshd -T reads host keys; users in a private /etc)"
[ -x /usr/sbin/sshd ] || skip_all "no /usr/sbin/sshd (openssh-server)"
command -v ssh-keygen >/dev/null || skip_all "no ssh-keygen"
if [ -z "${PTSSHD_INSIDE:-}" ]; then
	exec "$pe" env PTSSHD_INSIDE=1 bash "$0" "$@"
fi
mount -t tmpfs -o mode=0755 ptsshd-run /run || { echo "Bail out! cannot mount a private /run"; exit 1; }
install -d -m 0755 /run/sshd
w=$(mktemp -d /run/ptsshd-XXXXXX)
chmod 755 "$w"
. "$(dirname "$pe")/lib-accounts.sh"
# useradd warns that the build's postern-shell is not installed: expected.
acct_user ptsshd-maint -M -s "$shell" 2>/dev/null
acct_user ptsshd-sh -M -s /bin/sh

ssh-keygen -q -t ed25519 -N '' -C '' -f "$w/hostkey"
mkdir "$w/pam"
printf 'auth required pam_postern.so\naccount required pam_permit.so\n' >"$w/pam/postern-sshd"
# Run as postern-sshd: before OpenSSH 9.8 the PAM service is the program's name.
ln -s /usr/sbin/sshd "$w/postern-sshd"
# From OpenSSH 9.8 on it is PAMServiceName (default sshd), a keyword older
# releases refuse: every config names the service when this sshd has it.
printf 'HostKey %s\nPAMServiceName postern-sshd\n' "$w/hostkey" >"$w/probe"
if /usr/sbin/sshd -T -f "$w/probe" -C user=root,host=localhost,addr=127.0.0.1 >/dev/null 2>&1; then
	service_line="PAMServiceName postern-sshd"
	service_said="PAM service: postern-sshd (PAMServiceName)"
else
	service_line="# no PAMServiceName before OpenSSH 9.8"
	service_said="PAM service: postern-sshd (the name sshd runs as, before OpenSSH 9.8)"
fi

# config NAME [LINE...]: the correct config with LINEs first (sshd takes the
# first value it reads for a keyword, so a LINE overrides the one below).
config() {
	local name=$1; shift
	{
		printf '%s\n' "$@"
		cat <<EOC
HostKey $w/hostkey
$service_line
UsePAM yes
PasswordAuthentication no
KbdInteractiveAuthentication yes
PermitUserEnvironment no
AuthenticationMethods publickey,keyboard-interactive
DisableForwarding yes
PermitTunnel no
PubkeyAuthOptions verify-required
EOC
	} >"$w/$name"
}
config good "ForceCommand $shell"
config password "PasswordAuthentication yes" "ForceCommand $shell"
config methods "AuthenticationMethods publickey" "ForceCommand $shell"
config sftp "Subsystem sftp /usr/lib/openssh/sftp-server" "ForceCommand $shell"
config userenv "PermitUserEnvironment yes" "ForceCommand $shell"
config other-command "ForceCommand /bin/sh"
config no-command
config forwarding "DisableForwarding no" "ForceCommand $shell"
config no-verify "PubkeyAuthOptions none" "ForceCommand $shell"
config touch-verify "PubkeyAuthOptions touch-required verify-required" "ForceCommand $shell"
# The stock service: sshd under its own name, or PAMServiceName sshd.
if [ "${service_line%% *}" = PAMServiceName ]; then
	config stock-service "PAMServiceName sshd" "ForceCommand $shell"
	stock_fix="in $w/stock-service: PAMServiceName postern-sshd"
else
	config stock-service "ForceCommand $shell"
	stock_fix="run sshd through a link named postern-sshd"
fi
# What check-sshd must leave as it is (the pam-* and fake dirs come later).
snapshot() { find "$w" -mindepth 1 ! -path "$w/pam-*" ! -path "$w/fake*" ! -name example -printf '%p %s %T@ %m\n' | sort; }
before=$(snapshot)

# expect NAME STATUS TEXT -- ARGS...: check-sshd's status and one whole line of its output.
expect() {
	local name="$1" want_rc="$2" want="$3"; shift 4
	local out rc
	out=$("$pp" check-sshd "$@" 2>&1); rc=$?
	if [ "$rc" = "$want_rc" ] && grep -qxF -- "$want" <<<"$out"; then
		ok "$name"
	else
		not_ok "$name" "status $rc (want $want_rc), wanted line: $want
output:
$out"
	fi
}
# run CONFIG [ARGS...]: the usual arguments for the real sshd through its postern-sshd link.
S=(--sshd "$w/postern-sshd" --pam-dir "$w/pam" --user ptsshd-maint)

expect "correct config: no problems" 0 "0 problems, 0 warnings" -- "${S[@]}" --config "$w/good"
expect "the PAM service: the program name before OpenSSH 9.8, PAMServiceName after" 0 \
	"$service_said" -- "${S[@]}" --config "$w/good"
expect "password authentication on" 1 \
	"problem: PasswordAuthentication is yes, not no: sshd would take a Unix password" -- \
	"${S[@]}" --config "$w/password"
expect "password authentication: the fixing line" 1 \
	"  fix: in $w/password: PasswordAuthentication no" -- "${S[@]}" --config "$w/password"
expect "AuthenticationMethods publickey alone" 1 \
	"problem: AuthenticationMethods is publickey, not publickey,keyboard-interactive: a login must need the key and then the code, both, every time" -- \
	"${S[@]}" --config "$w/methods"
expect "Subsystem sftp" 1 \
	"problem: Subsystem sftp /usr/lib/openssh/sftp-server is set: a subsystem (sftp) runs without postern-shell" -- \
	"${S[@]}" --config "$w/sftp"
expect "Subsystem sftp: the fixing line" 1 \
	"  fix: in $w/sftp: delete the line 'Subsystem sftp /usr/lib/openssh/sftp-server' (no Subsystem line at all)" -- \
	"${S[@]}" --config "$w/sftp"
expect "PermitUserEnvironment yes" 1 \
	"problem: PermitUserEnvironment is yes, not no: ~/.ssh/environment or environment= key options could steer postern-shell" -- \
	"${S[@]}" --config "$w/userenv"
expect "ForceCommand of another program" 1 \
	"problem: ForceCommand is '/bin/sh', not $shell: a login must run postern-shell and nothing else" -- \
	"${S[@]}" --config "$w/other-command"
expect "no ForceCommand, user shell /bin/sh" 1 \
	"problem: ForceCommand is none and the login shell of ptsshd-sh is /bin/sh, not $shell: the login runs any command" -- \
	--sshd "$w/postern-sshd" --pam-dir "$w/pam" --user ptsshd-sh --config "$w/no-command"
expect "no ForceCommand, user shell /bin/sh: the fixing line" 1 \
	"  fix: in $w/no-command: ForceCommand $shell (or: usermod -s $shell ptsshd-sh)" -- \
	--sshd "$w/postern-sshd" --pam-dir "$w/pam" --user ptsshd-sh --config "$w/no-command"
expect "no ForceCommand, user shell postern-shell: no problems" 0 "0 problems, 0 warnings" -- \
	"${S[@]}" --config "$w/no-command"
expect "forwarding on is a warning" 0 \
	"warning: AllowTcpForwarding is yes, not no: a maintainer could reach this host's network through it" -- \
	"${S[@]}" --config "$w/forwarding"
expect "no PubkeyAuthOptions verify-required is a warning (security keys need it)" 0 \
	"warning: PubkeyAuthOptions is none, not verify-required: an enrolled security key (postern-totp enroll-key) admits without a code, and only sshd sees whether the device verified its owner's PIN or fingerprint (or put verify-required before each security key in authorized_keys)" -- \
	"${S[@]}" --config "$w/no-verify"
expect "PubkeyAuthOptions touch-required verify-required: no warning" 0 "0 problems, 0 warnings" -- \
	"${S[@]}" --config "$w/touch-verify"
expect "options after --config, before the others" 1 "1 problem, 0 warnings" -- \
	--config "$w/password" "${S[@]}"

# The shipped examples pass together: sshd_config.postern (its Match Group
# for a group of ours, our host key; PAMServiceName only where sshd knows
# it) and pam.d-postern-sshd with the common-* files it includes.
ex="$(dirname "$0")/../../examples"
acct_group ptsshd-up
usermod -a -G ptsshd-up ptsshd-maint
mkdir "$w/pam-example"
cp "$ex/pam.d-postern-sshd" "$w/pam-example/postern-sshd"
cp /etc/pam.d/common-account /etc/pam.d/common-session-noninteractive "$w/pam-example/"
sed -e "s|^HostKey .*|HostKey $w/hostkey|" -e 's/uploaders/ptsshd-up/' \
	"$ex/sshd_config.postern" >"$w/example"
/usr/sbin/sshd -t -f "$w/example" 2>/dev/null || sed -i '/^PAMServiceName /d' "$w/example"
expect "the examples pass" 0 "0 problems, 0 warnings" -- \
	"${S[@]}" --pam-dir "$w/pam-example" --config "$w/example"

# The PAM service, each wrong in one way, in a PAM dir of its own.
pam_case() {
	local dir="$w/pam-$1"; shift
	mkdir "$dir"
	while [ $# -gt 0 ]; do printf "$2" >"$dir/$1"; shift 2; done
	chmod -R go-w "$dir"
}
pam_case none postern-sshd '@include ptsshd-common\n' ptsshd-common 'auth required pam_unix.so\n'
expect "PAM service without pam_postern" 1 \
	"problem: the auth stack of PAM service postern-sshd ($w/pam-none/postern-sshd and what it includes) has no pam_postern.so: a login needs no code" -- \
	"${S[@]}" --pam-dir "$w/pam-none" --config "$w/good"
pam_case sufficient postern-sshd 'auth sufficient pam_postern.so\n'
expect "pam_postern sufficient" 1 \
	"problem: $w/pam-sufficient/postern-sshd:1: 'auth sufficient pam_postern.so': a wrong or missing code does not fail the login" -- \
	"${S[@]}" --pam-dir "$w/pam-sufficient" --config "$w/good"
expect "pam_postern sufficient: the fixing line" 1 \
	"  fix: in $w/pam-sufficient/postern-sshd, line 1: auth required pam_postern.so" -- \
	"${S[@]}" --pam-dir "$w/pam-sufficient" --config "$w/good"
pam_case chain postern-sshd '# the code\n@include ptsshd-a\naccount required pam_permit.so\n' \
	ptsshd-a 'auth substack ptsshd-b\n' ptsshd-b 'auth [default=die] pam_permit.so\nauth requisite /lib/security/pam_postern.so\n'
expect "an @include and substack chain that runs pam_postern: no problems" 0 \
	"0 problems, 0 warnings" -- "${S[@]}" --pam-dir "$w/pam-chain" --config "$w/good"
pam_case bypass postern-sshd 'auth sufficient pam_unix.so\nauth required pam_postern.so\n'
expect "a sufficient module before pam_postern" 1 \
	"problem: $w/pam-bypass/postern-sshd:1: 'auth sufficient pam_unix.so' comes before pam_postern.so: its success ends the auth stack and skips the code" -- \
	"${S[@]}" --pam-dir "$w/pam-bypass" --config "$w/good"
pam_case outside postern-sshd 'auth include ../pam/postern-sshd\n'
expect "an include outside the PAM dir is not followed" 1 \
	"problem: $w/pam-outside/postern-sshd:1: 'include ../pam/postern-sshd' names a file outside $w/pam-outside; it was not read, so pam_postern.so in it cannot be confirmed" -- \
	"${S[@]}" --pam-dir "$w/pam-outside" --config "$w/good"
pam_case loop postern-sshd '@include postern-sshd\n'
expect "an include loop stops" 1 \
	"problem: $w/pam-loop/postern-sshd:1: includes nest deeper than 8 levels; postern-sshd was not read" -- \
	"${S[@]}" --pam-dir "$w/pam-loop" --config "$w/good"
expect "no service file: PAM would run other" 1 \
	"problem: $w/pam-none/sshd does not exist: PAM runs $w/pam-none/other for service sshd instead" -- \
	--sshd /usr/sbin/sshd --pam-dir "$w/pam-none" --user ptsshd-maint --config "$w/stock-service"
expect "the stock service sshd: the fixing line for this OpenSSH" 1 \
	"  or: $stock_fix (and $w/pam/postern-sshd from examples/pam.d-postern-sshd)" -- \
	--sshd /usr/sbin/sshd --pam-dir "$w/pam" --user ptsshd-maint --config "$w/stock-service"

# OpenSSH >= 9.8 (FAKE: canned output): the service is PAMServiceName, not the program name.
mkdir "$w/fake"
install -m 0755 "$fake" "$w/fake/sshd"
echo postern-sshd >"$w/fake/pamservicename"
expect "OpenSSH 10 (fake): PAMServiceName postern-sshd" 0 \
	"PAM service: postern-sshd (PAMServiceName)" -- \
	--sshd "$w/fake/sshd" --pam-dir "$w/pam" --user ptsshd-maint
expect "OpenSSH 10 (fake): PAMServiceName postern-sshd, no problems" 0 \
	"0 problems, 0 warnings" -- --sshd "$w/fake/sshd" --pam-dir "$w/pam" --user ptsshd-maint
echo sshd >"$w/fake/pamservicename"
expect "OpenSSH 10 (fake): the default PAMServiceName sshd" 1 \
	"  or: in /etc/ssh/sshd_config: PAMServiceName postern-sshd (and $w/pam/postern-sshd from examples/pam.d-postern-sshd)" -- \
	--sshd "$w/fake/sshd" --pam-dir "$w/pam" --user ptsshd-maint

# sshd that cannot run: exit 2 and why.
expect "a config that does not exist" 2 \
	"postern-policy: check-sshd: $w/postern-sshd -T failed (exit status 1): $w/nonexistent: No such file or directory; correct what sshd says, then check again" -- \
	"${S[@]}" --config "$w/nonexistent"
rmdir /run/sshd
expect "no /run/sshd" 2 \
	"postern-policy: check-sshd: $w/postern-sshd -T failed (exit status 255): Missing privilege separation directory: /run/sshd; create it (install -d -m 0755 /run/sshd; the sshd unit's RuntimeDirectory=sshd does it at boot) and check again" -- \
	"${S[@]}" --config "$w/good"
install -d -m 0755 /run/sshd
expect "no sshd program" 2 \
	"postern-policy: check-sshd: cannot execute $w/nosshd (give --sshd the path of OpenSSH's sshd)" -- \
	--sshd "$w/nosshd" --user ptsshd-maint
expect "no --user" 2 \
	"postern-policy: check-sshd: --user USER is required: the maintainer whose login to check (sshd's Match blocks depend on it)" -- \
	--sshd "$w/postern-sshd"
expect "an operand" 2 "postern-policy: check-sshd: takes no operands" -- "${S[@]}" extra
expect "--help" 0 \
	"usage: postern-policy [-C FILE] check-sshd [--sshd PATH] [--config FILE] [--pam-dir DIR] --user USER [--addr ADDR] [--host HOST]" -- \
	--help
expect "-- ends the options" 2 "postern-policy: check-sshd: takes no operands" -- \
	"${S[@]}" -- --config "$w/good"

if [ "$(snapshot)" = "$before" ] && [ -z "$(find "$w/pam-"* "$w/fake" -newer "$w/fake/pamservicename" ! -name pamservicename)" ]; then
	ok "check-sshd wrote nothing"
else
	not_ok "check-sshd wrote nothing" "$(diff <(echo "$before") <(snapshot))"
fi
rm -rf "$w"
finish
