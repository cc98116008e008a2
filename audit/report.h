/*
 * Everything postern-audit prints. Values are shown in their display form
 * (fields.h): escapes stay escaped, so no byte that reaches the terminal,
 * a JSON consumer or a spreadsheet can act as a control character; CSV
 * cells that a spreadsheet would run as a formula are defused with a
 * leading quote.
 */
#ifndef POSTERN_AUDIT_REPORT_H
#define POSTERN_AUDIT_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "query.h"

enum out_format {
	OUT_TABLE,
	OUT_JSON,
	OUT_CSV,
};

/*
 * The records of set, in its order. With sessions set (`session ID`), a
 * login_ok after the first starts a new part: the same client address and
 * port reused for a later connection in the same boot.
 */
void report_records(FILE *out, enum out_format fmt, const struct record_set *set,
		    bool sessions);

/* Per user: logins ok/failed, denied commands, installs, NMUs, refusals,
 * lockouts, sshd's refusals, signed and unsigned installs. */
int report_summary(FILE *out, enum out_format fmt, const struct record_set *set);

/* Per signing key (signer "-": unsigned): releases, their users and modules. */
int report_signers(FILE *out, enum out_format fmt, const struct record_set *set);

/* "FILE:LINE: suspicious, not counted: WHY: <escaped start of the line>" */
void report_suspicious(FILE *err, const char *prog, const char *file, unsigned long line,
		       const char *why, const char *text, size_t len);

/* A CSV cell per RFC 4180, formula characters defused. */
void csv_cell(FILE *out, const char *value, bool last);


#endif
