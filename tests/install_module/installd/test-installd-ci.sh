#!/bin/bash
# A CI job's release through the real handoff (ci/installd_handoff.c, the
# code postern-ci runs once a token has verified) to the real daemon and
# checker. The daemon takes a ci-install only from postern-ci's user,
# decides it with the CI rules on the policy as it is then (the project
# bound to the module, a protected tag that is the version), runs the
# checker, the ledger and the release log as for a maintainer, records the
# uploader as ci:<issuer>/<project> with the job, and classes each refusal
# with the HTTP status postern-ci answers. Every refusal leaves the tree
# as it was.
#
# test-installd-ci.sh SYSLOG_CAPTURE PRIVATE_ETC INSTALLD DRIVER ABUSE WORKDIR CHECKER CI_DRIVER
set -u
. "$(dirname "$0")/lib-installd.sh"
enter_fixture "$@"
CI_DRIVER="$8"

echo "1..16"

sed -i "s|^  ptmod:\$|  ptmod:\n    ci: [{issuer: gitlab, project: GNOME/ptmod}]|" /etc/postern/postern.yaml
cat >> /etc/postern/postern.yaml <<YAML
ci:
  issuers:
    gitlab: {issuer: https://gitlab.ptinst.test, audience: https://ptinst.test, jwks: $R/gitlab.jwks}
YAML
install -d -m 0700 -o ptinst-ci -g ptinst-ci "$R/ci"
start_daemon
SHA=0123456789abcdef0123456789abcdef01234567

# ci_tarball FILE [TOPDIR]: a release tarball in the CI front-end's staging directory.
ci_tarball() {
	make_tarball ptinst-m "$1" "${2:-}"
	mv "$R/incoming/ptinst-m/$1" "$R/ci/$1"
	chown ptinst-ci:ptinst-ci "$R/ci/$1"
}

# handoff FILE PROJECT REF REF_TYPE PROTECTED [dry-run]: as postern-ci; sets out and rc.
handoff() {
	out=$(as ptinst-ci "$CI_DRIVER" "$R/run/installd.sock" "$R/ci/$1" gitlab "$2" "$3" "$4" "$5" \
		4711 815 "$SHA" ebassi ${6:+"$6"} 2>&1)
	rc=$?
}

ci_tarball ptmod-1.0.tar.xz
handoff ptmod-1.0.tar.xz GNOME/ptmod 1.0 tag yes dry-run
[ "$rc" = 0 ] && grep -q "^200 installed sources/ptmod/1.0/ptmod-1.0.tar.xz [0-9a-f]\{64\}$" <<<"$out" &&
	[ ! -e "$R/pub/sources/ptmod" ] && ok "a dry run passes every check and changes nothing" ||
	not_ok "dry run (status $rc): $out"

handoff ptmod-1.0.tar.xz GNOME/ptmod 1.0 tag yes
sum=$(sha256sum < "$R/ci/ptmod-1.0.tar.xz" | cut -d' ' -f1)
[ "$rc" = 0 ] && [ "$out" = "200 installed sources/ptmod/1.0/ptmod-1.0.tar.xz $sum" ] &&
	cmp -s "$R/ci/ptmod-1.0.tar.xz" "$R/pub/sources/ptmod/1.0/ptmod-1.0.tar.xz" &&
	ok "a protected tag of a bound project is installed, path and SHA-256 answered" ||
	not_ok "install (status $rc): $out"
grep -q "op=install user=ptinst-ci module=ptmod version=1.0 .* basis=ci .* ci=ci:gitlab/GNOME/ptmod ci_pipeline=4711 ci_job=815 ci_sha=$SHA ci_user=ebassi$" "$R/state/ledger" &&
	ok "the ledger names the CI identity and the job" || not_ok "ledger: $(cat "$R/state/ledger")"
audit_has install_ok "uploader=ci:gitlab/GNOME/ptmod" "ci_pipeline=4711" "ci_job=815" "ci_sha=$SHA" \
	"ci_user=ebassi" "basis=ci" "user=ptinst-ci" &&
	ok "install_ok records the uploader and the job" || not_ok "no install_ok record of the CI job"
grep -rqF "uploader ci:gitlab/GNOME/ptmod" "$R/pub/log" &&
	ok "the release log's entry names ci:gitlab/GNOME/ptmod as the uploader" ||
	not_ok "the release log does not name the CI uploader"
tree_consistent && ok "the tree and the log agree after a CI release" || not_ok "tree inconsistent"

before=$(tree_state)
refused() { # refused LABEL STATUS TEXT: the last handoff was refused so, the tree unchanged
	if [ "$rc" = 1 ] && [ "${out%%:*}" = "$2 refused" ] && grep -qF -- "$3" <<<"$out" &&
	   [ "$(tree_state)" = "$before" ]; then
		ok "$1"
	else
		not_ok "$1 (status $rc): $out"
	fi
}
handoff ptmod-1.0.tar.xz GNOME/ptmod 1.0 tag yes
refused "the same version again: 409" 409 "already released"
ci_tarball ptmod-1.1.tar.xz
handoff ptmod-1.1.tar.xz GNOME/other 1.1 tag yes
refused "a project the module does not bind: 403" 403 "project GNOME/other (issuer gitlab) may not release ptmod"
handoff ptmod-1.1.tar.xz GNOME/ptmod main branch yes
refused "a branch pipeline: 403" 403 "releases come from tag pipelines; this job ran for branch main"
handoff ptmod-1.1.tar.xz GNOME/ptmod 1.1 tag no
refused "an unprotected tag: 403" 403 "tag 1.1 is not protected"
handoff ptmod-1.1.tar.xz GNOME/ptmod 1.2 tag yes
refused "a tag that is not the version: 403" 403 "the tag 1.2 is not the release's version 1.1"
ci_tarball ptother-1.0.tar.xz
handoff ptother-1.0.tar.xz GNOME/ptmod 1.0 tag yes
refused "a module that binds no CI identity: 403" 403 "may not release ptother"
ci_tarball ptmod-1.3.tar.xz ../escape
handoff ptmod-1.3.tar.xz GNOME/ptmod 1.3 tag yes
refused "a tarball the checker refuses: 422" 422 "is not inside ptmod-1.3/"

# Only postern-ci's user may claim a CI job: a maintainer with socket access may not.
cp "$R/ci/ptmod-1.1.tar.xz" "$R/incoming/ptinst-m/ptmod-1.1.tar.xz"
chown ptinst-m:ptinst-m "$R/incoming/ptinst-m/ptmod-1.1.tar.xz"
out=$(as ptinst-m "$CI_DRIVER" "$R/run/installd.sock" "$R/incoming/ptinst-m/ptmod-1.1.tar.xz" gitlab \
	GNOME/ptmod 1.1 tag yes 4711 815 "$SHA" ebassi 2>&1)
rc=$?
[ "$rc" = 1 ] && grep -qF "a CI release is taken only from postern-ci" <<<"$out" &&
	[ "$(tree_state)" = "$before" ] && audit_has request_invalid "taken only from postern-ci" &&
	ok "a maintainer's ci-install is refused as invalid" || not_ok "maintainer's ci-install (status $rc): $out"

# A v-prefixed tag is the version too.
handoff ptmod-1.1.tar.xz GNOME/ptmod v1.1 tag yes
[ "$rc" = 0 ] && [ -f "$R/pub/sources/ptmod/1.1/ptmod-1.1.tar.xz" ] &&
	ok "tag v1.1 releases version 1.1" || not_ok "v1.1 (status $rc): $out"
# The policy as it is now: unbound, the next release is refused without a restart.
sed -i '/ci: \[{issuer: gitlab, project: GNOME\/ptmod}\]/d' /etc/postern/postern.yaml
ci_tarball ptmod-1.4.tar.xz
before=$(tree_state)
handoff ptmod-1.4.tar.xz GNOME/ptmod 1.4 tag yes
refused "unbound in postern.yaml, the next CI release is refused at once" 403 "does not list it"
