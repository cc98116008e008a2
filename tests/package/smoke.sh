# shellcheck shell=bash
# The smoke tests of scripts/test-package on the installed packages: the
# installed paths, PAM, the policy, DEPLOY.md's recipes as written, the shell
# and the daemon, the refusals without a syslog daemon. Sourced after
# tests/package/lib.sh, inside the private mount namespace; each failure
# dies with what was wrong.

check_installed_files() {
	local ma f
	ma=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
	for f in "/usr/lib/$ma/security/pam_postern.so" /usr/sbin/postern-totp \
		/usr/bin/postern-shell /usr/sbin/postern-installd /usr/sbin/postern-policy \
		/usr/bin/postern-audit /usr/bin/postern-client \
		/lib/systemd/system/postern-installd.socket \
		/lib/systemd/system/postern-installd.service \
		/lib/systemd/system/postern-import-doap.service \
		/lib/systemd/system/postern-import-doap.timer \
		/usr/lib/tmpfiles.d/postern-server.conf /usr/lib/tmpfiles.d/libpam-postern.conf \
		/usr/share/debianutils/shells.d/postern-shell \
		/usr/share/man/man8/pam_postern.8.gz /usr/share/man/man5/postern.yaml.5.gz \
		/usr/share/doc/postern-server/README.Debian.gz \
		/etc/postern/postern.yaml; do
		expect_file "$f"
	done
	dpkg-query -W -f='${Conffiles}\n' postern-server | grep -q ' /etc/postern/postern.yaml ' ||
		die "/etc/postern/postern.yaml is not a conffile"
	for f in /usr/share/pam-configs/*postern*; do
		[ ! -e "$f" ] || die "$f: a pam-auth-update profile would reach every PAM service"
	done
	grep -qx /usr/bin/postern-shell /etc/shells || die "postern-shell is not in /etc/shells"
	[ "$(getent passwd postern | cut -d: -f7)" = /usr/sbin/nologin ] ||
		die "user postern: missing, or it has a login shell"
	getent group uploaders >/dev/null || die "group uploaders missing"
	expect_mode /var/lib/postern "root:root 755"
	expect_mode /var/lib/postern/totp "root:root 700"
	expect_mode /var/lib/postern/ledger "postern:postern 640"
	expect_mode /var/lib/postern/attic "postern:postern 750"
	expect_mode /var/lib/postern/locks "postern:postern 700"
	expect_mode /srv/postern/pub "postern:postern 755"
	expect_mode /srv/postern/incoming "root:root 711"
	expect_mode /run/postern "postern:postern 755"
	expect_mode /etc/postern/keyrings "root:root 755"
	dpkg -L postern-server | grep -qx /etc/postern/ci ||
		die "/etc/postern/ci is not shipped by postern-server"
	dpkg -L postern-server | grep -qx /etc/postern/keyrings ||
		die "/etc/postern/keyrings is not shipped by postern-server"
	for f in sqv gpgv gpg; do
		dpkg-query -W -f='${Status}\n' "$f" | grep -qx 'install ok installed' ||
			die "$f (a Depends of postern-server: the signature verifiers and the armored keyrings' reader) is not installed"
	done
	SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no \
		/lib/systemd/system/postern-installd.socket /lib/systemd/system/postern-installd.service \
		/lib/systemd/system/postern-import-doap.timer /lib/systemd/system/postern-import-doap.service ||
		die "systemd-analyze verify found problems in the units"
	# The installd sandbox must stay at 1.0 or better on systemd's 0-10
	# exposure scale (it is 0.4; --threshold counts in tenths).
	systemd-analyze security --offline=true --threshold=10 \
		/lib/systemd/system/postern-installd.service >"$WORK/security.out" ||
		{ cat "$WORK/security.out"; die "postern-installd.service lost some of its hardening"; }
	echo "installed paths, owners and modes, units: ok ($(grep -o 'level for .*' "$WORK/security.out"))"
}

# The shipped configuration must pass as installed; the DOAP timer's service
# must skip itself on it (no doap_sources), the way systemd would run it.
# The fuller example passes once its DOAP sources are imported.
smoke_policy() {
	local unit=/lib/systemd/system/postern-import-doap.service
	local example=/usr/share/doc/postern-server/examples/postern.yaml
	local rc=0 condition
	postern-policy check >"$WORK/policy.out" 2>&1 ||
		{ cat "$WORK/policy.out"; die "postern-policy check fails on /etc/postern/postern.yaml"; }
	read -r -a condition <<<"$(unit_key "$unit" ExecCondition)"
	"${condition[@]}" || rc=$?
	[ "$rc" = 1 ] || die "postern-import-doap.service's ExecCondition= gave $rc, expected 1 (skip)"
	echo "postern-policy check on the shipped configuration: ok; DOAP import skipped: ok"

	mkdir -p /srv/git-doap
	cp "$PKGTEST/gnome-shell.doap" /srv/git-doap/gnome-shell.doap
	postern-policy -C "$example" import-doap >"$WORK/policy.out" 2>&1 ||
		{ cat "$WORK/policy.out"; die "postern-policy import-doap fails on the example configuration"; }
	postern-policy -C "$example" check >"$WORK/policy.out" 2>&1 ||
		{ cat "$WORK/policy.out"; die "postern-policy check fails on the shipped example"; }
	expect_mode /var/lib/postern/doap-modules.yaml "root:root 644"
	echo "postern-policy import-doap and check on the shipped example: ok"
}

# No syslog daemon, no journal: every change is refused and changes
# nothing; reads go on with one warning.
smoke_audit_refusals() {
	local out
	useradd -M -N -g uploaders -s /usr/bin/postern-shell ptpkg-nolog
	if out=$(nolog postern-totp enroll --no-verify ptpkg-nolog 2>&1); then
		die "enroll went on with no syslog daemon: $out"
	fi
	grep -q "refused, nothing changed: audit records cannot be delivered (/dev/log does not exist" <<<"$out" &&
		grep -q "start rsyslog or systemd-journald" <<<"$out" || die "enroll's refusal does not say what to do: $out"
	[ ! -e /var/lib/postern/totp/ptpkg-nolog ] && [ ! -e /srv/postern/incoming/ptpkg-nolog ] ||
		die "a refused enroll left a record or a directory"
	out=$(nolog postern-totp status ptpkg-nolog 2>&1) || true
	[ "$(grep -c 'warning: audit records cannot be delivered' <<<"$out")" = 1 ] ||
		die "status with no syslog daemon: not exactly one warning: $out"
	out=$(nolog postern-policy check 2>&1) || die "postern-policy check failed: $out"
	grep -q "audit records: NOT delivered" <<<"$out" || die "check does not say the records are lost: $out"
	[ ! -s "$WORK/nolog.log" ] || die "something was logged with no /dev/log"
	echo "no syslog daemon: enroll refused, nothing written; status and check go on and say so: ok"
}

smoke_pam() {
	local work=$1 uri secret code wrong key
	useradd -M -N -g uploaders -s /usr/bin/postern-shell ptpkg-maint
	useradd -M -N -g uploaders -s /usr/bin/postern-shell ptpkg-new
	ssh-keygen -q -t ed25519 -N '' -C ptpkg -f "$work/key"
	key="publickey $(cut -d' ' -f1,2 "$work/key.pub")"
	# The shipped example PAM service, as installed.
	cp /usr/share/doc/postern-server/examples/pam.d-postern-sshd /etc/pam.d/postern-pkgtest

	pam_login ptpkg-new 123456 "$key" &&
		die "PAM: an unenrolled user was let in"
	echo "PAM: unenrolled user denied: ok"

	uri=$(postern-totp enroll --no-verify --format uri ptpkg-maint) ||
		die "postern-totp enroll failed"
	secret=$(printf '%s\n' "$uri" | sed -n 's/.*[?&]secret=\([A-Z2-7]*\).*/\1/p')
	[ -n "$secret" ] || die "postern-totp enroll printed no secret: $uri"
	expect_mode /var/lib/postern/totp/ptpkg-maint "root:root 600"
	expect_mode /srv/postern/incoming/ptpkg-maint "ptpkg-maint:uploaders 700"
	code=$(oathtool --totp -b "$secret")
	wrong=$(printf '%06d' $(( (10#$code + 500000) % 1000000 )))
	pam_login ptpkg-maint "$wrong" "$key" &&
		die "PAM: a wrong code was accepted"
	pam_login ptpkg-maint "$code" "$key" ||
		die "PAM: the right code was refused"
	grep -qx "user=ptpkg-maint" /run/postern-logins/* 2>/dev/null ||
		die "PAM: the admitted login left no login proof in /run/postern-logins"
	expect_mode /run/postern-logins "root:root 711"
	expect_mode "$(grep -lx "user=ptpkg-maint" /run/postern-logins/* | head -n 1)" "root:root 644"
	pam_login ptpkg-maint "$code" "$key" &&
		die "PAM: a replayed code was accepted"
	echo "PAM: wrong code denied, right code accepted, replay denied: ok"
}

# DEPLOY.md step 5 as written, for a throwaway name: the same lines must be
# in README.Debian and postern-totp(8); the enrolment is answered with the
# code an app would show.
smoke_deploy_recipe() {
	local doc=/usr/share/doc/postern-server lines uri line enroll_pid
	lines=$(recipe add-maintainer "$doc/DEPLOY.md.gz")
	[ "$(wc -l <<<"$lines")" = 4 ] || die "DEPLOY.md: no 4-line add-maintainer recipe: $lines"
	zcat "$doc/README.Debian.gz" >"$WORK/README.Debian"
	lines_in "$lines" "$WORK/README.Debian" README.Debian
	LANG=C MANWIDTH=400 man -l /usr/share/man/man8/postern-totp.8.gz 2>/dev/null | col -b >"$WORK/totp.8.txt"
	lines_in "$lines" "$WORK/totp.8.txt" "postern-totp(8)"
	lines=${lines//alice/ptpkg-alice}
	mkdir "$WORK/recipe"
	ssh-keygen -q -t ed25519 -N '' -C ptpkg-alice -f "$WORK/recipe/ptpkg-alice"
	(cd "$WORK/recipe" && head -n 3 <<<"$lines" | bash -e) >"$WORK/recipe.log" 2>&1 ||
		{ cat "$WORK/recipe.log"; die "DEPLOY.md's account lines failed"; }
	coproc ENROLL { cd "$WORK/recipe" && bash -c "$(tail -n 1 <<<"$lines")" 2>&1; }
	# bash unsets ENROLL_PID once the coprocess is reaped: keep it.
	enroll_pid=$ENROLL_PID
	while read -r -t 20 line <&"${ENROLL[0]}"; do
		case $line in otpauth://*) uri=$line; break ;; esac
	done
	[ -n "${uri:-}" ] || die "DEPLOY.md's enroll line printed no otpauth URI"
	oathtool --totp -b "$(sed -n 's/.*[?&]secret=\([A-Z2-7]*\).*/\1/p' <<<"$uri")" >&"${ENROLL[1]}"
	wait "$enroll_pid" || die "DEPLOY.md's enroll line failed"
	[ "$(getent passwd ptpkg-alice | cut -d: -f7)" = /usr/bin/postern-shell ] || die "ptpkg-alice: not postern-shell"
	[ "$(id -gn ptpkg-alice)" = uploaders ] || die "ptpkg-alice: primary group is not uploaders"
	expect_mode /home/ptpkg-alice/.ssh/authorized_keys "ptpkg-alice:uploaders 600"
	expect_mode /var/lib/postern/totp/ptpkg-alice "root:root 600"
	grep -q '^key ' /var/lib/postern/totp/ptpkg-alice || die "DEPLOY.md's enroll did not bind the key"
	expect_mode /srv/postern/incoming/ptpkg-alice "ptpkg-alice:uploaders 700"
	logged "event=totp_enroll user=ptpkg-alice" || die "no totp_enroll record for ptpkg-alice"
	echo "DEPLOY.md's maintainer recipe, as written (same lines in README.Debian and postern-totp(8)): ok"
}

smoke_shell_and_daemon() {
	local out
	out=$(as_user ptpkg-maint /usr/bin/postern-shell -c help) ||
		die "postern-shell -c help failed: $out"
	printf '%s\n' "$out" | grep -q install-module || die "postern-shell help: no install-module in: $out"
	echo "postern-shell -c help as an uploader: ok"
	if out=$(as_user ptpkg-maint /usr/bin/postern-shell -c 'sh -c id' 2>&1); then
		die "postern-shell ran 'sh -c id': $out"
	fi
	echo "postern-shell refuses 'sh -c id': ok"

	# One real release through the daemon: ptpkg-maint maintains pkgtest.
	sed -i 's/^modules: {}$/modules:\n  pkgtest:\n    maintainers: [ptpkg-maint]/' /etc/postern/postern.yaml
	postern-policy explain ptpkg-maint pkgtest >/dev/null ||
		die "the test policy does not let ptpkg-maint release pkgtest"
	mkdir "$WORK/pkgtest-1.0"
	echo "pkgtest 1.0" >"$WORK/pkgtest-1.0/NEWS"
	tar -C "$WORK" -cJf "$WORK/pkgtest-1.0.tar.xz" pkgtest-1.0
	as_user ptpkg-maint sh -c 'cat >/srv/postern/incoming/ptpkg-maint/pkgtest-1.0.tar.xz' \
		<"$WORK/pkgtest-1.0.tar.xz"

	# No syslog daemon: DEPLOY.md's daemon refuses the install; the upload
	# stays in incoming and the tree stays empty.
	DEPLOY_DAEMON=$(recipe no-systemd /usr/share/doc/postern-server/DEPLOY.md.gz | tail -n 1)
	# shellcheck disable=SC2086 # the documented command line, split as the shell would
	nolog $DEPLOY_DAEMON >"$WORK/nolog-daemon.log" 2>&1 &
	DAEMON_PID=$!
	wait_for_socket /run/postern/installd.sock "$WORK/nolog-daemon.log"
	if out=$(as_user ptpkg-maint /usr/bin/postern-shell -c 'install-module pkgtest-1.0.tar.xz' 2>&1); then
		die "install-module went on with no syslog daemon: $out"
	fi
	grep -q "audit records cannot be delivered" <<<"$out" && grep -q "start rsyslog or systemd-journald" <<<"$out" ||
		die "install refusal does not say what to do: $out"
	[ -e /srv/postern/incoming/ptpkg-maint/pkgtest-1.0.tar.xz ] && [ ! -e /srv/postern/pub/sources/pkgtest ] ||
		die "a refused install moved the upload or changed the tree"
	stop_daemon
	rm -f /run/postern/installd.sock
	echo "no syslog daemon: the daemon refuses the install, the upload stays in incoming: ok"

	start_daemon_like_units
	out=$(as_user ptpkg-maint /usr/bin/postern-shell -c 'install-module pkgtest-1.0.tar.xz' 2>&1) || {
		cat "$WORK/installd.log"
		die "install-module through the daemon failed: $out"
	}
	check_daemon_user
	expect_mode /srv/postern/pub/sources/pkgtest/1.0/pkgtest-1.0.tar.xz "postern:postern 644"
	cmp -s "$WORK/pkgtest-1.0.tar.xz" /srv/postern/pub/sources/pkgtest/1.0/pkgtest-1.0.tar.xz ||
		die "the installed release differs from the upload"
	[ ! -e /srv/postern/incoming/ptpkg-maint/pkgtest-1.0.tar.xz ] ||
		die "the upload is still in incoming after a successful install"
	out=$(as_user ptpkg-maint /usr/bin/postern-shell -c 'list pkgtest' 2>&1) ||
		die "list pkgtest failed: $out"
	printf '%s\n' "$out" | grep -q 1.0 || die "list pkgtest does not show 1.0: $out"
	echo "postern-installd, socket-activated as postern in the unit's sandbox, with postern-check started as its units do, installs a release and lists it: ok"
	stop_daemon
	smoke_without_systemd
}

# DEPLOY.md's "Without systemd" as written: the runtime directories, the
# daemon as root under a supervisor (here: this script), the crontab line.
# DEPLOY.md's recipe for a socket activator without systemd, run as written;
# its socket must end up the daemon's alone. Sets ACTIVATOR to its pid.
start_recipe_activator() { # RECIPE SOCKET LOG
	local cmd
	cmd=$(recipe "$1" /usr/share/doc/postern-server/DEPLOY.md.gz)
	[ -n "$cmd" ] || die "DEPLOY.md: no $1 recipe"
	bash -c "$cmd" >"$3" 2>&1 &
	ACTIVATOR=$!
	wait_for_socket "$2" "$3"
	# The recipe chowns the socket after it appears.
	for _ in $(seq 100); do
		[ "$(stat -c '%U:%G %a' "$2")" = "postern:postern 600" ] && break
		sleep 0.05
	done
	expect_mode "$2" "postern:postern 600"
}

smoke_without_systemd() {
	local lines out cron rc
	lines=$(recipe no-systemd /usr/share/doc/postern-server/DEPLOY.md.gz)
	[ "$(wc -l <<<"$lines")" = 3 ] || die "DEPLOY.md: no 3-line no-systemd recipe: $lines"
	rm -rf /run/postern /run/sshd
	head -n 2 <<<"$lines" | bash -e || die "DEPLOY.md's runtime directories failed"
	expect_mode /run/postern "postern:postern 755"
	expect_mode /run/sshd "root:root 755"
	# The daemon reads the policy once, at start.
	sed -i 's/^    maintainers: \[ptpkg-maint\]$/    maintainers: [ptpkg-maint, ptpkg-alice]/' /etc/postern/postern.yaml
	start_recipe_activator checker-activator /run/postern/check.sock "$WORK/no-systemd-checker.log"
	CHECKER_PID=$ACTIVATOR
	start_recipe_activator signer-activator /run/postern/logsign.sock "$WORK/no-systemd-signer.log"
	SIGNER_PID=$ACTIVATOR
	bash -c "exec $(tail -n 1 <<<"$lines")" >"$WORK/no-systemd.log" 2>&1 &
	DAEMON_PID=$!
	wait_for_socket /run/postern/installd.sock "$WORK/no-systemd.log"
	expect_mode /run/postern/installd.sock "postern:uploaders 660"
	mkdir "$WORK/pkgtest-1.1"
	echo "pkgtest 1.1" >"$WORK/pkgtest-1.1/NEWS"
	tar -C "$WORK" -cJf "$WORK/pkgtest-1.1.tar.xz" pkgtest-1.1
	as_user ptpkg-alice sh -c 'cat >/srv/postern/incoming/ptpkg-alice/pkgtest-1.1.tar.xz' <"$WORK/pkgtest-1.1.tar.xz"
	out=$(as_user ptpkg-alice /usr/bin/postern-shell -c 'install-module pkgtest-1.1.tar.xz' 2>&1) || {
		cat "$WORK/no-systemd.log" "$WORK/no-systemd-checker.log"
		die "install-module through the daemon started without systemd failed: $out"
	}
	[ "$(ps -o user= -p "$DAEMON_PID" | tr -d ' ')" = postern ] ||
		die "the daemon started without systemd does not run as postern"
	cmp -s "$WORK/pkgtest-1.1.tar.xz" /srv/postern/pub/sources/pkgtest/1.1/pkgtest-1.1.tar.xz ||
		die "the release installed without systemd differs from the upload"
	logged "event=install_ok user=ptpkg-alice .*module=pkgtest version=1.1" || die "no install_ok record for 1.1"
	out=$(as_user ptpkg-new /usr/bin/postern-shell -c list 2>&1) || die "list as ptpkg-new failed: $out"
	grep -q "^  none: ask the release team" <<<"$out" || die "list for someone who may release nothing: $out"
	stop_daemon
	echo "DEPLOY.md without systemd: directories, the checker's and the signer's activators, the daemon as root dropping to postern, an install; list says none: ok"

	cron=$(recipe doap-cron /usr/share/doc/postern-server/DEPLOY.md.gz)
	cron=$(sed -E 's/^([^ ]+ +){5}root +//' <<<"$cron")
	rm -f /var/lib/postern/doap-modules.yaml
	out=$(bash -c "$cron" 2>&1) && die "DEPLOY.md's crontab line ran with no doap_sources: $out"
	[ -z "$out" ] && [ ! -e /var/lib/postern/doap-modules.yaml ] ||
		die "DEPLOY.md's crontab line, with no doap_sources, said something or wrote: $out"
	echo "doap_sources: [/srv/git-doap]" >>/etc/postern/postern.yaml
	rc=0
	out=$(bash -c "$cron" 2>&1) || rc=$?
	{ [ "$rc" = 0 ] || [ "$rc" = 2 ]; } && grep -q fmuellner /var/lib/postern/doap-modules.yaml ||
		die "DEPLOY.md's crontab line did not import (status $rc): $out"
	echo "DEPLOY.md's crontab line: skips itself without doap_sources, imports with them: ok"

	postern-audit --year "$(date +%Y)" --since today "$WORK/syslog.log" >"$WORK/audit.out" 2>&1 ||
		{ cat "$WORK/audit.out"; die "postern-audit --since today failed"; }
	grep -q "install_ok .*ptpkg-alice" "$WORK/audit.out" || die "postern-audit --since today: no install: $(cat "$WORK/audit.out")"
	echo "postern-audit --since today: ok"
}

# The release log's signer as installed: its own user, a key made once that
# only it can read, and a real request through a socket started as its units
# say, answered with a checkpoint signed by that key.
smoke_logsign() {
	local socket_unit=/lib/systemd/system/postern-logsign.socket
	local service_unit=/lib/systemd/system/postern-logsign@.service
	local listen out pid empty=47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=
	expect_file /usr/libexec/postern/postern-logsign
	expect_file "$service_unit"
	expect_mode /var/lib/postern-logsign "postern-logsign:postern-logsign 700"
	expect_mode /var/lib/postern-logsign/key "postern-logsign:postern-logsign 600"
	grep -Eq "^[A-Za-z0-9._-]+/log\+[0-9a-f]{8}\+A[A-Za-z0-9+/]{43}$" /var/lib/postern-logsign/vkey ||
		die "the log's vkey is not a signed-note key: $(cat /var/lib/postern-logsign/vkey)"
	cp /var/lib/postern-logsign/vkey "$WORK/logsign.vkey"
	setpriv --reuid=postern --regid=postern --clear-groups -- cat /var/lib/postern-logsign/key \
		>/dev/null 2>&1 && die "user postern can read the log's signing key"
	out=$(setpriv --reuid=postern-logsign --regid=postern-logsign --clear-groups -- \
		/usr/libexec/postern/postern-logsign --keygen other/log 2>&1) &&
		die "a second --keygen replaced the log's key: $out"
	grep -q "a signing key exists already" <<<"$out" || die "a second --keygen said: $out"

	listen=$(unit_key "$socket_unit" ListenSequentialPacket)
	rm -f "$listen"
	env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
		systemd-socket-activate --seqpacket --accept --inetd -l "$listen" \
		setpriv --reuid="$(unit_key "$service_unit" User)" --regid="$(unit_key "$service_unit" Group)" \
			--clear-groups --no-new-privs -- "$(unit_key "$service_unit" ExecStart)" \
		>"$WORK/logsign.log" 2>&1 &
	pid=$!
	wait_for_socket "$listen" "$WORK/logsign.log"
	chown "$(unit_key "$socket_unit" SocketUser):$(unit_key "$socket_unit" SocketGroup)" "$listen"
	chmod "$(unit_key "$socket_unit" SocketMode)" "$listen"
	out=$(setpriv --reuid=postern --regid=postern --clear-groups -- \
		env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin python3 - "$listen" "$empty" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
s.connect(sys.argv[1])
s.send(("postern-logsign 1\nold 0\nnew 0 %s\n" % sys.argv[2]).encode())
s.shutdown(socket.SHUT_WR)
print(s.recv(8192).decode(), end="")
PY
)
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	[ "$(head -n 1 <<<"$out")" = "ok $(cat /var/lib/postern-logsign/vkey)" ] ||
		die "the signer did not sign the empty log: $out $(cat "$WORK/logsign.log")"
	grep -q "^0$" <<<"$out" && grep -q "^$empty$" <<<"$out" && grep -q "^— " <<<"$out" ||
		die "the signer's checkpoint is not the empty log's: $out"
	expect_mode /var/lib/postern-logsign/signed "postern-logsign:postern-logsign 600"
	echo "postern-logsign: own user, key made once and unreadable by postern, a request through its socket signed: ok"
}

# The CI front-end as installed: its own user with no login, in uploaders
# only, its state private, its units valid and sandboxed but not enabled, and
# it will not serve as root or without a ci: section (the package ships none).
smoke_ci() {
	local unit=/lib/systemd/system/postern-ci.service out f
	local jwks=/lib/systemd/system/postern-ci-jwks.service timer=/lib/systemd/system/postern-ci-jwks.timer
	for f in /usr/sbin/postern-ci /usr/share/man/man8/postern-ci.8.gz "$unit" "$jwks" "$timer"; do
		expect_file "$f"
	done
	[ "$(getent passwd postern-ci | cut -d: -f7)" = /usr/sbin/nologin ] ||
		die "user postern-ci: missing, or it has a login shell"
	[ "$(id -nG postern-ci | tr ' ' '\n' | sort | tr '\n' ' ')" = "postern-ci uploaders " ] ||
		die "user postern-ci is in groups '$(id -nG postern-ci)', expected postern-ci and uploaders only"
	expect_mode /var/lib/postern-ci "postern-ci:postern-ci 700"
	expect_mode /var/lib/postern-ci/jti "postern-ci:postern-ci 700"
	expect_mode /var/lib/postern-ci/uploads "postern-ci:postern-ci 700"
	expect_mode /etc/postern/ci "root:root 755"
	for f in /etc/systemd/system/multi-user.target.wants/postern-ci.service \
		/etc/systemd/system/timers.target.wants/postern-ci-jwks.timer; do
		[ ! -e "$f" ] || die "$f: enabled by the package before the admin configured ci:"
	done
	SYSTEMD_LOG_LEVEL=notice systemd-analyze verify --man=no "$unit" "$jwks" "$timer" ||
		die "systemd-analyze verify found problems in the postern-ci units"
	# It listens on the network, so not as low as the daemon: 1.5 now.
	systemd-analyze security --offline=true --threshold=20 "$unit" >"$WORK/ci-security.out" ||
		{ cat "$WORK/ci-security.out"; die "postern-ci.service lost some of its hardening"; }
	postern-ci --help | grep -q "POST /v1/release" || die "postern-ci --help does not say what it serves"
	out=$(postern-ci 2>&1) && die "postern-ci served as root: $out"
	grep -q "refusing to serve as root" <<<"$out" || die "postern-ci as root said: $out"
	out=$(setpriv --reuid=postern-ci --regid=postern-ci --init-groups -- postern-ci 2>&1) &&
		die "postern-ci served without a ci: section: $out"
	grep -q "no ci.listen or no ci.issuers: nothing to serve" <<<"$out" ||
		die "postern-ci without a ci: section said: $out"
	echo "postern-ci: own user in uploaders only, private state, units valid and not enabled, refuses root and an empty ci: ok ($(grep -o 'level for .*' "$WORK/ci-security.out"))"
}
