#!/bin/bash
# postern-policy import-doap: first import, changes (added, removed, new and
# vanished module) printed, logged and handed to the hook with an environment
# built from scratch and as an unprivileged user (hooks.doap_change_user,
# here nobody; never root), an unchanged run, a malformed file that keeps its
# module's previous entry, a missing source that writes nothing.
#
# Usage: test-policy-import.sh POSTERN_POLICY SYSLOG_CAPTURE DOAP_DIR WORK_BASE
set -u
pp="$1"; cap="$2"; doap="$3"; base="$4"
. "$(dirname "$0")/../common/tap.sh"
[ "$(id -u)" = 0 ] || skip_all "needs root (root-owned generated file, private /dev/log)"
w=$(mktemp -d "$base/ptpol-import-XXXXXX")
trap 'rm -rf "$w"' EXIT
chmod 755 "$w"
mkdir -m 755 "$w/src" "$w/state"
# The hook runs as nobody: it may write only here.
mkdir -m 1777 "$w/hooklog"
for m in gtk pango gdm zenity; do cp "$doap/$m.doap" "$w/src/"; done
cat > "$w/hook" <<EOH
#!/bin/sh
{ echo "args=\$*"; echo "uid=\$(id -u) groups=\$(id -G)"; env | sort; } > "$w/hooklog/\$POSTERN_MODULE"
EOH
chmod 755 "$w/hook"
cat > "$w/postern.yaml" <<EOC
doap_sources: [$w/src]
doap_modules: $w/state/doap-modules.yaml
hooks:
  doap_change: [$w/hook, --from-test]
mail:
  to: release@example.org
EOC
chmod 644 "$w/postern.yaml"
out_file="$w/state/doap-modules.yaml"

# This file's checks are shell expressions with a diagnostic:
# check DESCRIPTION EXPRESSION DIAGNOSTIC (tap.sh's check takes a command).
check() { if eval "$2"; then ok "$1"; else not_ok "$1" "$3"; fi; }
run() {    # run LOG: import with records captured into LOG; sets out, rc
	rm -f "$1"
	out=$(PTPOL_LEAK=secret "$cap" "$1" -- "$pp" -C "$w/postern.yaml" import-doap 2>&1); rc=$?
}

run "$w/log1"
check "first import succeeds without comparing" '[ "$rc" = 0 ] && grep -qxF "4 modules written to $out_file, 0 changed (no previous file to compare with)" <<<"$out"' "$rc $out"
check "generated file is root-owned 0644" '[ "$(stat -c %U:%a "$out_file")" = root:644 ]' "$(stat -c %U:%a "$out_file")"
check "generated file lists the maintainers" 'grep -qF "maintainers: [\"matthiasc\", \"ebassi\", \"baedert\", \"otte\", \"carlosg\"]" "$out_file"' "$(cat "$out_file")"
check "no hook and no record on the first import" '[ -z "$(ls "$w/hooklog")" ] && ! grep -q doap_change "$w/log1"' "$(ls "$w/hooklog")"
"$pp" -C "$w/postern.yaml" explain otte gtk >/dev/null; rc=$?
check "the policy reads the generated file" '[ "$rc" = 0 ]' "$rc"

# Changes: one maintainer swapped in gtk, zenity gone, gedit new.
sed -i 's|<gnome:userid>carlosg</gnome:userid>|<gnome:userid>ptpol-new</gnome:userid>|' "$w/src/gtk.doap"
rm "$w/src/zenity.doap"
cp "$doap/gedit.doap" "$w/src/"
run "$w/log2"
check "changes give status 2" '[ "$rc" = 2 ]' "$rc $out"
check "gtk change printed" 'grep -qxF "gtk: maintainers added: ptpol-new; removed: carlosg" <<<"$out"' "$out"
check "vanished module printed" 'grep -qxF "zenity: maintainers added: none; removed: larathbone,lmedinas" <<<"$out"' "$out"
check "new module printed" 'grep -qxF "gedit: maintainers added: swilmet; removed: none" <<<"$out"' "$out"
check "one change line per changed module" '[ "$(grep -c "maintainers added" <<<"$out")" = 3 ]' "$out"
check "one doap_change record per change" '[ "$(grep -c "event=doap_change" "$w/log2")" = 3 ]' "$(cat "$w/log2")"
check "gtk record fields" 'grep -q "postern-policy\[[0-9]*\]: event=doap_change user=- from=local port=- sid=[0-9a-f]* module=gtk added=ptpol-new removed=carlosg$" "$w/log2"' "$(cat "$w/log2")"
check "zenity record fields" 'grep -q "event=doap_change .* module=zenity added=- removed=larathbone,lmedinas$" "$w/log2"' "$(cat "$w/log2")"
check "hook ran once per change" '[ "$(ls "$w/hooklog" | tr "\n" " ")" = "gedit gtk zenity " ]' "$(ls "$w/hooklog")"
h="$w/hooklog/gtk"
check "hook got its argv" 'grep -qxF "args=--from-test" "$h"' "$(cat "$h")"
check "hook got the details" 'grep -qxF POSTERN_MODULE=gtk "$h" && grep -qxF POSTERN_ADDED=ptpol-new "$h" && grep -qxF POSTERN_REMOVED=carlosg "$h" && grep -qxF POSTERN_MAINTAINERS=matthiasc,ebassi,baedert,otte,ptpol-new "$h" && grep -qxF POSTERN_EVENT=doap_change "$h" && grep -qxF POSTERN_MAIL_TO=release@example.org "$h"' "$(cat "$h")"
check "hook ran as nobody with nobody's group alone, not as root" 'grep -qxF "uid=$(id -u nobody) groups=$(id -g nobody)" "$h"' "$(cat "$h")"
check "hook environment built from scratch" '! grep -q PTPOL_LEAK "$h" && grep -qxF PATH=/usr/sbin:/usr/bin:/sbin:/bin "$h"' "$(cat "$h")"
check "zenity is gone from the generated file" '! grep -q zenity "$out_file"' "$(cat "$out_file")"

# Nothing changed.
rm -f "$w/hooklog/"*
cp "$out_file" "$w/before"
run "$w/log3"
check "no change gives status 0" '[ "$rc" = 0 ] && grep -qxF "4 modules written to $out_file, 0 changed" <<<"$out"' "$rc $out"
check "no change: no record, no hook, same file" '! grep -q doap_change "$w/log3" && [ -z "$(ls "$w/hooklog")" ] && cmp -s "$w/before" "$out_file"' "$(cat "$w/log3")"

# A malformed file: reported, skipped, its module keeps its entry.
head -c 400 "$doap/pango.doap" > "$w/src/pango.doap"
run "$w/log4"
check "malformed file gives status 1" '[ "$rc" = 1 ]' "$rc $out"
check "malformed file reported with position" 'grep -q "^postern-policy: import-doap: pango.doap:[0-9]*:[0-9]*: " <<<"$out"' "$out"
check "malformed file keeps the previous entry" 'grep -qxF "pango: pango.doap could not be used; keeping the previous maintainers" <<<"$out" && cmp -s "$w/before" "$out_file"' "$out"
check "malformed file is not a change" '! grep -q doap_change "$w/log4" && [ -z "$(ls "$w/hooklog")" ]' "$(cat "$w/log4")"

# An entity declaration is refused like any malformed file.
printf '<!DOCTYPE Project [<!ENTITY x SYSTEM "file:///etc/passwd">]>\n<Project xmlns="http://usefulinc.com/ns/doap#"/>\n' > "$w/src/evil.doap"
run "$w/log5"
check "entity declaration refused" '[ "$rc" = 1 ] && grep -qF "evil.doap:1:" <<<"$out" && grep -qF "a DOCTYPE is not allowed in a DOAP file" <<<"$out" && ! grep -q evil "$out_file"' "$out"
rm "$w/src/evil.doap"

# A missing source path writes nothing, rather than drop every module.
out=$("$cap" "$w/log6" -- "$pp" -C "$w/postern.yaml" import-doap "$w/nonexistent" 2>&1); rc=$?
check "missing source writes nothing" '[ "$rc" = 1 ] && grep -q "nothing written" <<<"$out" && cmp -s "$w/before" "$out_file"' "$rc $out"

# Explicit --output/--previous and a single file operand.
cp "$doap/gtk.doap" "$w/gtk.doap"
out=$(cd "$w" && "$cap" "$w/log7" -- "$pp" -C "$w/postern.yaml" import-doap --output "$w/state/other.yaml" --previous "$out_file" gtk.doap 2>&1); rc=$?
check "single file with --output and --previous" '[ "$rc" = 2 ] && grep -qxF "gdm: maintainers added: none; removed: halfline,mccann" <<<"$out" && grep -q "\"gtk\"" "$w/state/other.yaml" && ! grep -q gdm "$w/state/other.yaml"' "$rc $out"

# Audit records that cannot be delivered: import-doap changes the module
# list and runs the doap_change hook, so it is refused and changes nothing;
# audit.on_failure: continue lets it go on, with one warning.
sed -i 's|<gnome:userid>ptpol-new</gnome:userid>|<gnome:userid>ptpol-newer</gnome:userid>|' "$w/src/gtk.doap"
cp "$out_file" "$w/before"
rm -f "$w/hooklog/"*
for mode in absent refusing; do
	out=$("$cap" --log=$mode "$w/log-$mode" -- "$pp" -C "$w/postern.yaml" import-doap 2>&1); rc=$?
	check "no syslog daemon ($mode /dev/log): import-doap refused, says what to do" '[ "$rc" = 1 ] && grep -qF "import-doap: refused, nothing changed: audit records cannot be delivered (/dev/log " <<<"$out" && grep -qF "start rsyslog or systemd-journald" <<<"$out"' "$rc $out"
	check "no syslog daemon ($mode): module list unchanged, no hook run" 'cmp -s "$w/before" "$out_file" && [ -z "$(ls "$w/hooklog")" ] && [ ! -s "$w/log-$mode" ]' "$(ls "$w/hooklog")"
done
"$pp" -C "$w/postern.yaml" check >"$w/check.out" 2>&1
check "check says the records are not delivered and changes refused" 'grep -qF "audit records: NOT delivered: /dev/log does not exist" "$w/check.out" && grep -qF "changes are refused (audit.on_failure: refuse)" "$w/check.out"' "$(cat "$w/check.out")"
printf 'audit:\n  on_failure: continue\n' >>"$w/postern.yaml"
out=$("$cap" --log=absent "$w/log-cont" -- "$pp" -C "$w/postern.yaml" import-doap 2>&1); rc=$?
check "audit.on_failure: continue: import-doap goes on with one warning" '[ "$(grep -c "warning: audit records cannot be delivered" <<<"$out")" = 1 ] && grep -q ptpol-newer "$out_file" && [ -e "$w/hooklog/gtk" ]' "$rc $out"
"$cap" "$w/log-check" -- "$pp" -C "$w/postern.yaml" check >"$w/check.out" 2>&1
check "check says where the records go" 'grep -qF "audit records: delivered to a syslog daemon through /dev/log" "$w/check.out"' "$(cat "$w/check.out")"
sed -i 's|^  doap_change: .*|&\n  doap_change_user: root|' "$w/postern.yaml"
out=$("$pp" -C "$w/postern.yaml" check 2>&1); rc=$?
check "hooks.doap_change_user: root is refused by the policy" '[ "$rc" != 0 ] && grep -qF "hooks.doap_change_user: '"'"'root'"'"' is not a user name to run as" <<<"$out"' "$rc $out"
finish
