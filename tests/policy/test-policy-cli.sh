#!/bin/bash
# postern-policy explain, modules, check, doap-configured and --help against
# real users and a real Unix group (created in a throwaway /etc), and the
# policy_error audit record when the policy cannot be loaded.
#
# Usage: test-policy-cli.sh POSTERN_POLICY SYSLOG_CAPTURE PRIVATE_ETC WORK_BASE
set -u
pp="$1"; cap="$2"; pe="$3"; base="$4"
. "$(dirname "$0")/../common/tap.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (users, groups, root-owned config)"
if [ -z "${PTPOL_IN_PRIVATE_ETC:-}" ]; then
	exec "$pe" env PTPOL_IN_PRIVATE_ETC=1 "$0" "$@"
fi

w=$(mktemp -d "$base/ptpol-cli-XXXXXX")
trap 'rm -rf "$w"' EXIT
chmod 755 "$w"
. "$(dirname "$pe")/lib-accounts.sh"
acct_group ptpol-rt
acct_user ptpol-alice -M -s /usr/sbin/nologin -G ptpol-rt
acct_user ptpol-bob -M -s /usr/sbin/nologin
acct_user ptpol-carol -M -s /usr/sbin/nologin

cat > "$w/postern.yaml" <<EOC
release_team:
  group: ptpol-rt
  users: [ptpol-carol]
doap_modules: $w/doap-modules.yaml
ci:
  issuers:
    gitlab: {issuer: https://gitlab.gnome.org, audience: https://master.gnome.org, jwks: /etc/postern/ci/gitlab.jwks}
modules:
  gtk:
    maintainers: [matthiasc, otte]
    ci: [{issuer: gitlab, project: GNOME/gtk}]
  gnome-common:
    open: true
sections:
  binaries:
    files: ["*.zip", "*.flatpak"]
    uploaders: maintainers
  releng: {files: ["*.iso"], uploaders: {group: ptpol-rt}}
  teams: {files: ["*.txt"], uploaders: {group: ptpol-nosuch}}
EOC
cat > "$w/doap-modules.yaml" <<EOC
modules:
  gtk:
    source: gtk.doap
    maintainers: [ebassi]
  glib:
    source: glib.doap
    maintainers: [ptpol-bob, pwithnall]
EOC
chmod 644 "$w/postern.yaml" "$w/doap-modules.yaml"

# expect NAME STATUS TEXT -- COMMAND...: status and a line of output must match.
expect() {
	local name="$1" want_rc="$2" want="$3"; shift 4
	local out rc
	out=$("$@" 2>&1); rc=$?
	if [ "$rc" = "$want_rc" ] && grep -qxF -- "$want" <<<"$out"; then
		ok "$name"
	else
		not_ok "$name (status $rc, output: $out)"
	fi
}
C=(-C "$w/postern.yaml")

expect "release team by group" 0 \
	"allowed: ptpol-alice is in the release team (group ptpol-rt)" -- "$pp" "${C[@]}" explain ptpol-alice gtk
expect "release team by list" 0 \
	"allowed: ptpol-carol is in the release team (listed in postern.yaml)" -- "$pp" "${C[@]}" explain ptpol-carol gtk
expect "maintainer from DOAP" 0 \
	"allowed: ptpol-bob is a maintainer of glib (from glib.doap)" -- "$pp" explain "${C[@]}" ptpol-bob glib
expect "non-maintainer refused" 1 \
	"refused: ptpol-bob may not release gtk: maintainers are matthiasc, otte; release team: ptpol-carol, group ptpol-rt" \
	-- "$pp" "${C[@]}" explain ptpol-bob gtk
expect "explicit entry overrides DOAP" 1 \
	"refused: ebassi may not release gtk: maintainers are matthiasc, otte; release team: ptpol-carol, group ptpol-rt" \
	-- "$pp" "${C[@]}" explain ebassi gtk
expect "delete by non-maintainer refused" 1 \
	"refused: ptpol-bob may not delete releases of gtk: maintainers are matthiasc, otte; release team: ptpol-carol, group ptpol-rt" \
	-- "$pp" "${C[@]}" explain --delete ptpol-bob gtk
expect "a CI identity the module lists" 0 \
	"allowed: CI jobs of GNOME/gtk with tokens from issuer gitlab may release gtk (modules.gtk.ci), from a protected tag named after the version" \
	-- "$pp" "${C[@]}" explain ci:gitlab/GNOME/gtk gtk
expect "a CI identity the module does not list" 1 \
	"refused: GNOME/gtk (issuer gitlab) may not release glib: its CI identities are none" \
	-- "$pp" "${C[@]}" explain ci:gitlab/GNOME/gtk glib
expect "a CI identity of an undeclared issuer" 1 "refused: github is not under ci.issuers" \
	-- "$pp" "${C[@]}" explain ci:github/GNOME/gtk gtk
expect "CI jobs never delete" 1 \
	"refused: CI jobs only release; deleting is for the module's maintainers (delete-own)" \
	-- "$pp" "${C[@]}" explain --delete ci:gitlab/GNOME/gtk gtk
expect "a malformed CI identity" 1 \
	"refused: ci:gitlab is not a CI identity (write ci:ISSUER/PROJECT, e.g. ci:gitlab/GNOME/gtk)" \
	-- "$pp" "${C[@]}" explain ci:gitlab gtk
expect "open module" 0 \
	"allowed: gnome-common is open to every uploader (non-maintainer upload)" -- "$pp" "${C[@]}" explain ptpol-bob gnome-common
expect "unknown module refused" 1 \
	"refused: ptpol-bob may not release newmod: it is not a known module, and only the release team may create a new module (release team: ptpol-carol, group ptpol-rt)" \
	-- "$pp" "${C[@]}" explain ptpol-bob newmod
expect "unknown module for the release team" 0 \
	"allowed: ptpol-alice is in the release team (group ptpol-rt); newmod is a new module, which only the release team may create" \
	-- "$pp" "${C[@]}" explain ptpol-alice newmod
expect "options after the operands (GNU style)" 1 \
	"refused: ptpol-bob may not delete releases of gtk: maintainers are matthiasc, otte; release team: ptpol-carol, group ptpol-rt" \
	-- "$pp" explain ptpol-bob gtk --delete "${C[@]}"
expect "-- ends the options" 1 \
	"refused: '--delete' is not a valid user name" -- "$pp" "${C[@]}" explain -- --delete gtk
expect "modules lists what a user may release" 0 \
	"glib	ptpol-bob is a maintainer of glib (from glib.doap)" -- "$pp" "${C[@]}" modules ptpol-bob
out=$("$pp" "${C[@]}" modules ptpol-bob)
[ "$(wc -l <<<"$out")" = 2 ] && ! grep -q '^gtk' <<<"$out" && ok "modules lists nothing else" || not_ok "modules output: $out"

out=$("$pp" "${C[@]}" check 2>&1); rc=$?
if [ "$rc" = 0 ] &&
   grep -qxF "modules: 3 (1 with maintainers from DOAP, 2 from postern.yaml; 1 open)" <<<"$out" &&
   grep -qxF "open modules: gnome-common" <<<"$out" &&
   grep -qxF "maintainers: 4 distinct users" <<<"$out" &&
   grep -qxF "release team: ptpol-carol; group ptpol-rt" <<<"$out" &&
   grep -qxF "  gtk: maintainers from postern.yaml (matthiasc, otte) replace those of gtk.doap" <<<"$out" &&
   grep -qxF "warning: user matthiasc does not exist on this system (maintainer of gtk)" <<<"$out" &&
   ! grep -q "ptpol-bob does not exist" <<<"$out"; then
	ok "check summary"
else
	not_ok "check summary (status $rc): $out"
fi
# Sections: listed, and a group that does not exist is a warning, not an error.
missing=
for line in "sections: sources (built in), binaries, releng, teams; install-module does not upload into the others yet" \
	"section binaries: *.zip, *.flatpak; uploaders: maintainers of the module a file is named after" \
	"section releng: *.iso; uploaders: members of group ptpol-rt" \
	"warning: section teams: group ptpol-nosuch does not exist on this system (create it, or fix the name)"; do
	grep -qxF -- "$line" <<<"$out" || missing+="[$line] "
done
[ "$rc" = 0 ] && [ -z "$missing" ] && ! grep -q "group ptpol-rt does not exist" <<<"$out" &&
	ok "check lists the sections" || not_ok "check sections (status $rc, missing $missing): $out"

for cmd in check explain modules import-doap doap-configured; do
	out=$("$pp" "$cmd" --help); rc=$?
	[ "$rc" = 0 ] && grep -q "^usage: postern-policy \[-C FILE\] $cmd" <<<"$out" && ok "$cmd --help" ||
		not_ok "$cmd --help (status $rc)"
done
expect "unknown command" 1 "postern-policy: unknown command 'frobnicate'" -- "$pp" frobnicate
expect "no doap_sources" 1 "" -- "$pp" "${C[@]}" doap-configured

# A broken policy: nothing is decided, the error has its position, and one
# policy_error record is logged.
cp "$w/postern.yaml" "$w/good.yaml"
printf 'modules:\n  gtk:\n    maintainers: [matthiasc]\n    colour: blue\n' > "$w/postern.yaml"
log="$w/syslog"
out=$("$cap" "$log" -- "$pp" "${C[@]}" explain matthiasc gtk 2>&1); rc=$?
want="postern-policy: $w/postern.yaml:4:5: module gtk: unknown key 'colour'"
[ "$rc" = 1 ] && [ "$out" = "$want" ] && ok "broken policy refuses with position" ||
	not_ok "broken policy (status $rc): $out"
grep -q "postern-policy\[[0-9]*\]: event=policy_error user=- from=local port=- sid=[0-9a-f]* file=$w/postern.yaml error=\"$w/postern.yaml:4:5: module gtk: unknown key 'colour'\"" "$log" &&
	[ "$(grep -c event= "$log")" = 1 ] && ok "policy_error audit record" || not_ok "audit: $(cat "$log")"
expect "doap-configured on a broken policy" 255 "$want" -- "$pp" "${C[@]}" doap-configured

cp "$w/good.yaml" "$w/postern.yaml"
chmod 664 "$w/postern.yaml"
out=$("$pp" "${C[@]}" check 2>&1); rc=$?
[ "$rc" = 1 ] && grep -q "mode 0664 is too open" <<<"$out" && ok "group-writable config refused" ||
	not_ok "group-writable config (status $rc): $out"
chmod 644 "$w/postern.yaml"
chown ptpol-bob "$w/postern.yaml"
out=$("$pp" "${C[@]}" check 2>&1); rc=$?
[ "$rc" = 1 ] && grep -q "owned by uid $(id -u ptpol-bob), expected uid 0" <<<"$out" &&
	ok "config not owned by root refused" || not_ok "foreign owner (status $rc): $out"
finish
