#!/bin/sh
# The module's dynamic symbol table defines exactly the two PAM entry points.
. "$(dirname "$0")/../common/tap.sh"
syms=$(nm -D --defined-only "$1" | awk '{ print $3 }' | sort | tr '\n' ' ')
if [ "$syms" = "pam_sm_authenticate pam_sm_setcred " ]; then
	ok "only pam_sm_authenticate and pam_sm_setcred are defined"
else
	not_ok "defined symbols: $syms"
fi
finish
