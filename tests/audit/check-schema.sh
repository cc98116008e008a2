#!/bin/bash
# check-schema.sh POSTERN_AUDIT AUDIT_MD
# The events postern-audit believes (audit/events.c) are exactly the rows of
# the event table in docs/AUDIT.md, and each program it accepts an event
# from is named in that row's "emitted by" cell (or the cell says "any"),
# and every session field common/audit.c writes (event, user, from, port,
# sid, and the client_* claims of postern-installd) has a row in its
# "Common fields" table.
set -u
audit=$1 doc=$2
. "$(dirname "$0")/../common/tap.sh"
doc_rows=$(sed -n 's/^| `\([a-z_]*\)` | \([^|]*\) |.*/\1	\2/p' "$doc" | sed -n '/^[a-z_]*	/p' | grep -v -E '^(event|user|from|port|sid)	' )
tool_rows=$("$audit" --list-events)
if [ "$(printf '%s\n' "$doc_rows" | cut -f1 | sort)" = "$(printf '%s\n' "$tool_rows" | cut -d' ' -f1 | sort)" ]; then
	ok "docs/AUDIT.md and postern-audit know the same events"
else
	not_ok "event lists differ"
	diff <(printf '%s\n' "$doc_rows" | cut -f1 | sort) <(printf '%s\n' "$tool_rows" | cut -d' ' -f1 | sort) | sed 's/^/# /'
fi
bad=""
while read -r event programs; do
	cell=$(printf '%s\n' "$doc_rows" | awk -F'\t' -v e="$event" '$1 == e { print $2 }')
	case $cell in *any*) continue ;; esac
	for p in $programs; do
		case $cell in *"$p"*) ;; *) bad="$bad $event:$p" ;; esac
	done
done <<<"$tool_rows"
if [ -z "$bad" ]; then
	ok "every accepted emitter is the one docs/AUDIT.md names"
else
	not_ok "emitters not in docs/AUDIT.md:$bad"
fi
src=$(dirname "$doc")/../common/audit.c
code_keys=$(sed -n 's/.*put_field(&o, "\([a-z_]*\)".*/\1/p' "$src" | sort -u)
doc_keys=$(sed -n '/^## Common fields/,/^## /p' "$doc" | sed -n 's/^| \(`[a-z_]*`\(, `[a-z_]*`\)*\) |.*/\1/p' | tr -d '`' | tr ',' '\n' | tr -d ' ' | sort -u)
missing=$(comm -23 <(printf '%s\n' "$code_keys") <(printf '%s\n' "$doc_keys") | tr '\n' ' ')
if [ -n "$code_keys" ] && [ -z "$missing" ]; then
	ok "every session field common/audit.c writes is in docs/AUDIT.md's Common fields"
else
	not_ok "session fields written but not documented: ${missing:-(none found in $src)}"
fi
finish
