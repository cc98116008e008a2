/*
 * postern-ci's side of postern-installd: one staged CI upload handed to the
 * daemon over its socket (fd passing, wire.h op WIRE_OP_CI_INSTALL), with
 * the job's verified identity. The daemon accepts that op only from
 * postern-ci's uid, decides with the policy as it is then (ci_rules.h and
 * the install rules), and runs the checker, ledger, log, hooks and mail as
 * for a maintainer's upload.
 */
#ifndef POSTERN_CI_INSTALLD_HANDOFF_H
#define POSTERN_CI_INSTALLD_HANDOFF_H

#include <stdbool.h>

#include "errmsg.h"
#include "oidc_claims.h"
#include "wire.h"

struct ci_handoff {
	const char *socket;            /* paths.socket of postern.yaml */
	const char *issuer;            /* the ci.issuers name the token was verified against */
	const struct oidc_claims *job; /* the verified claims */
	const char *from;              /* the HTTP client's address, for the audit record */
	bool dry_run;
};

struct ci_handoff_answer {
	bool installed;
	int http_status;                /* 200, or 403 / 409 / 422 / 500 / 503 as the daemon classed it */
	char text[WIRE_TEXT_MAX + 1];   /* the daemon's final message, as the shell shows it */
	char path[WIRE_TEXT_MAX + 1];   /* installed: sources/<module>/<dir>/<file>; else "" */
	char sha256[65];                /* installed: its SHA-256 (lower-case hex); else "" */
};

/*
 * Hand upload_fd (a regular file of this uid, open for reading, at offset
 * 0), named name, to the daemon, with sig_fd (or -1) as its signature of
 * form sig. 0 with *out filled (installed or refused), or -errno with e set
 * when the daemon could not be asked (not running: the caller answers 503).
 */
int ci_handoff_install(const struct ci_handoff *h, int upload_fd, const char *name, int sig_fd,
		       enum wire_signature sig, struct ci_handoff_answer *out, struct pst_err *e);

#endif
