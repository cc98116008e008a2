#!/bin/bash
# The policy in force is the policy on disk: postern-installd decides every
# request against postern.yaml and the generated DOAP module file as they
# are when the request arrives, without a restart. A maintainer removed from
# postern.yaml, or from the DOAP list by a real `postern-policy import-doap`,
# is refused on the next request; a policy broken on disk refuses everything
# with the loader's FILE:LINE:COL message and a policy_error record; fixed
# again, it works again. Every refusal leaves the upload and the tree alone.
#
# test-installd-policy.sh SYSLOG_CAPTURE PRIVATE_ETC INSTALLD DRIVER ABUSE WORKDIR CHECKER POSTERN_POLICY
set -u
. "$(dirname "$0")/lib-installd.sh"
enter_fixture "$@"
POLICY_TOOL="$8"

echo "1..21"

# A DOAP checkout for ptdoap (root's, as the import demands) naming ptinst-m.
doap_for() { # doap_for USERID: ptdoap.doap with that one maintainer
	cat > "$R/doap/ptdoap.doap" <<XML
<?xml version="1.0" encoding="utf-8"?>
<Project xmlns="http://usefulinc.com/ns/doap#" xmlns:foaf="http://xmlns.com/foaf/0.1/"
         xmlns:gnome="http://api.gnome.org/doap-extensions#">
  <name>ptdoap</name>
  <maintainer><foaf:Person><foaf:name>Test</foaf:name><gnome:userid>$1</gnome:userid></foaf:Person></maintainer>
</Project>
XML
}
install -d -m 0755 -o root -g root "$R/doap" "$R/doapgen"
doap_for ptinst-m
sed -i "s|^modules:$|doap_sources: [$R/doap]\ndoap_modules: $R/doapgen/doap-modules.yaml\nmodules:|" /etc/postern/postern.yaml
"$POLICY_TOOL" -C /etc/postern/postern.yaml import-doap >/dev/null 2>&1
[ -s "$R/doapgen/doap-modules.yaml" ] && ok "import-doap wrote the module list" || not_ok "no generated DOAP file"

# The client side (the shell's part) keeps the policy as it was at start, so
# that every decision below is the daemon's, as with a shell that loaded the
# policy a moment before the change, or a client of its own on the socket.
install -m 0644 -o root -g root /etc/postern/postern.yaml "$R/start.yaml"
client() { # client USER COMMAND ARGS...
	u="$1"; shift
	as "$u" "$DRIVER" "$R/start.yaml" "$@"
}
start_daemon
pid_at_start=$DAEMON
make_tarball ptinst-m ptmod-1.0.tar.xz
check "a maintainer from postern.yaml installs" client ptinst-m install-module ptmod-1.0.tar.xz
make_tarball ptinst-m ptdoap-1.0.tar.xz
check "a maintainer from the DOAP list installs" client ptinst-m install-module ptdoap-1.0.tar.xz

# --- removed from postern.yaml ------------------------------------------------
sed -i 's/^    maintainers: \[ptinst-m\]$/    maintainers: [ptinst-n]/' /etc/postern/postern.yaml
before=$(tree_state)
make_tarball ptinst-m ptmod-1.1.tar.xz
out=$(client ptinst-m install-module ptmod-1.1.tar.xz 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q 'ptinst-m may not release ptmod' &&
	ok "removed from postern.yaml: the next install is refused" || not_ok "still allowed after removal: $out"
[ -e "$R/incoming/ptinst-m/ptmod-1.1.tar.xz" ] && [ "$before" = "$(tree_state)" ] &&
	ok "the upload stays in incoming, the tree is unchanged" || not_ok "side effects of the refusal"
out=$(client ptinst-m delete-own ptmod-1.0.tar.xz 2>&1)
[ $? -ne 0 ] && [ -e "$R/pub/sources/ptmod/1.0/ptmod-1.0.tar.xz" ] &&
	ok "removed from postern.yaml: delete-own of the old release is refused" || not_ok "delete still allowed: $out"
make_tarball ptinst-n ptmod-1.2.tar.xz
check "the new maintainer is allowed at once" client ptinst-n install-module ptmod-1.2.tar.xz
[ "$DAEMON" = "$pid_at_start" ] && kill -0 "$DAEMON" && ok "the same daemon process, never restarted" || not_ok "daemon restarted or gone"

# --- removed from the DOAP list by a real import ----------------------------
doap_for ptinst-n
"$POLICY_TOOL" -C /etc/postern/postern.yaml import-doap >/dev/null 2>&1
[ $? = 2 ] && grep -q 'ptinst-n' "$R/doapgen/doap-modules.yaml" && ! grep -q 'ptinst-m' "$R/doapgen/doap-modules.yaml" &&
	ok "import-doap replaced the maintainer (exit 2: changes)" || not_ok "import: $(cat "$R/doapgen/doap-modules.yaml")"
before=$(tree_state)
make_tarball ptinst-m ptdoap-1.1.tar.xz
out=$(client ptinst-m install-module ptdoap-1.1.tar.xz 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -q 'ptinst-m may not release ptdoap' && [ -e "$R/incoming/ptinst-m/ptdoap-1.1.tar.xz" ] &&
	[ "$before" = "$(tree_state)" ] && ok "removed from the DOAP list: the next install is refused, nothing changed" ||
	not_ok "DOAP removal not in force: $out"
make_tarball ptinst-n ptdoap-1.2.tar.xz
check "the DOAP list's new maintainer is allowed at once" client ptinst-n install-module ptdoap-1.2.tar.xz

# --- a policy broken on disk refuses everything --------------------------------
cp /etc/postern/postern.yaml "$R/good.yaml"
printf 'modules:\n  ptmod: [unclosed\n' >> /etc/postern/postern.yaml
want=$("$POLICY_TOOL" -C /etc/postern/postern.yaml check 2>&1 | grep -o '/etc/postern/postern.yaml:[0-9]*:[0-9]*: [^(]*' | head -1)
[ -n "$want" ] && ok "the broken policy has a FILE:LINE:COL message: $want" || not_ok "postern-policy check says nothing"
before=$(tree_state)
make_tarball ptinst-n ptmod-1.3.tar.xz
out=$(client ptinst-n install-module ptmod-1.3.tar.xz 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -qF "the release policy cannot be loaded ($want" &&
	ok "broken policy: an install is refused with the loader's message" || not_ok "broken policy, install: $out"
[ -e "$R/incoming/ptinst-n/ptmod-1.3.tar.xz" ] && [ "$before" = "$(tree_state)" ] && ! grep -q 'file=ptmod-1.3' "$R/state/ledger" &&
	ok "broken policy: upload kept, tree and ledger unchanged" || not_ok "side effects under a broken policy"
out=$(client ptinst-n list ptmod 2>&1)
[ $? -ne 0 ] && printf '%s' "$out" | grep -qF "$want" && ok "broken policy: list is refused too" || not_ok "list under a broken policy: $out"
out=$(client ptinst-n delete-own ptmod-1.2.tar.xz 2>&1)
[ $? -ne 0 ] && [ -e "$R/pub/sources/ptmod/1.2/ptmod-1.2.tar.xz" ] && ok "broken policy: delete-own is refused" || not_ok "delete under a broken policy: $out"
audit_has policy_error "user=ptinst-n" "file=/etc/postern/postern.yaml" "error=\"$want" &&
	ok "audit: policy_error with the file and the message" || not_ok "no policy_error record"

# --- fixed again, it works again ----------------------------------------------
cp "$R/good.yaml" /etc/postern/postern.yaml
out=$(client ptinst-n install-module ptmod-1.3.tar.xz 2>&1)
[ $? = 0 ] && [ -e "$R/pub/sources/ptmod/1.3/ptmod-1.3.tar.xz" ] && ok "policy fixed: the same install now succeeds" || not_ok "after the fix: $out"
[ "$DAEMON" = "$pid_at_start" ] && kill -0 "$DAEMON" && ok "still the daemon started at the beginning" || not_ok "daemon restarted or gone"
check "the tree is consistent" tree_consistent

# --- a policy only root can read stops the start, as every request would fail ---
stop_daemon
chmod 0600 /etc/postern/postern.yaml
out=$(timeout 60 "$INSTALLD" -C /etc/postern/postern.yaml --user ptinst-d --socket-group ptinst-up \
	--socket "$R/run/installd.sock" --foreground 2>&1)
[ $? = 1 ] && printf '%s' "$out" | grep -q "policy, as the daemon's user.*Permission denied" &&
	ok "a policy the daemon's user cannot read: the start fails with the reason" || not_ok "unreadable policy: $out"
chmod 0644 /etc/postern/postern.yaml
trap - EXIT
stop_checker
stop_signer
[ "$failed" = 0 ]
