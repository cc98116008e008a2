#!/bin/sh
# FAKE sshd, for test-check-sshd.sh only: it prints canned `sshd -T` output
# of OpenSSH 10 (a correct postern setup), because the OpenSSH on the test
# machine may be older than 9.8 and then prints no pamservicename line.
# Everything else the test checks against the real /usr/sbin/sshd.
#
# The pamservicename value is read from the file `pamservicename` next to
# this script (only shell builtins: check-sshd runs it with no PATH).
case " $* " in
*" -T "*) ;;
*) echo "fake-sshd-openssh10: only -T is faked" >&2; exit 255 ;;
esac
read -r service <"${0%/*}/pamservicename" || exit 255
for line in \
	"port 22" \
	"addressfamily any" \
	"usepam yes" \
	"pamservicename $service" \
	"pubkeyauthentication yes" \
	"pubkeyauthoptions verify-required" \
	"passwordauthentication no" \
	"kbdinteractiveauthentication yes" \
	"permituserenvironment no" \
	"permituserrc no" \
	"allowtcpforwarding no" \
	"allowagentforwarding no" \
	"allowstreamlocalforwarding no" \
	"disableforwarding yes" \
	"x11forwarding no" \
	"permittunnel no" \
	"permittty no" \
	"authenticationmethods publickey,keyboard-interactive" \
	"forcecommand none" \
	"persourcepenalties crash:90s authfail:5s noauth:1s grace-exceeded:10s max:10m min:15s max-sources4:65536 max-sources6:65536 overflow:permissive overflow6:permissive" \
	"persourcepenaltyexemptlist none"; do
	printf '%s\n' "$line"
done
