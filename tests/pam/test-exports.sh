#!/bin/sh
# The module's dynamic symbol table defines exactly the two PAM entry points.
echo "1..1"
syms=$(nm -D --defined-only "$1" | awk '{ print $3 }' | sort | tr '\n' ' ')
if [ "$syms" = "pam_sm_authenticate pam_sm_setcred " ]; then
	echo "ok 1 - only pam_sm_authenticate and pam_sm_setcred are defined"
else
	echo "not ok 1 - defined symbols: $syms"
	exit 1
fi
