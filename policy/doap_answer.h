/*
 * The DOAP parser's answer, from the confined child that ran libxml2 to
 * the root process that writes the module list (doap_confined.h). The
 * child may be compromised by the file it parsed, so the parent decodes
 * the answer as hostile bytes: strictly, within caps, nothing trusted.
 *
 *   'E' message                       the file was refused: why (no NUL)
 *   'M' { field field }*              the maintainers: userid, name
 *   field:  '-'                       none
 *         | '=' text '\0'             text (no NUL inside, by construction)
 */
#ifndef POSTERN_POLICY_DOAP_ANSWER_H
#define POSTERN_POLICY_DOAP_ANSWER_H

#include <stddef.h>

#include "doap.h"
#include "errmsg.h"

/* More than any answer a DOAP_FILE_MAX file can give (texts come from it). */
#define DOAP_ANSWER_MAX (2 * DOAP_FILE_MAX + 4 * DOAP_MAINTAINERS_MAX + 1)

/* The answer for a parse that gave rc (0: dm holds the maintainers; else
 * e's message): in *out (malloc'ed, *len bytes). -ENOMEM on failure. */
int doap_answer_encode(int rc, const struct doap_maintainers *dm, const struct pst_err *e,
		       char **out, size_t *len);

/*
 * Read an answer: 0 with dm filled (free with doap_maintainers_free), or
 * -EINVAL with e holding either the child's refusal (its message made safe
 * to print) or why the answer itself is malformed.
 */
int doap_answer_decode(const char *buf, size_t len, const char *name,
		       struct doap_maintainers *dm, struct pst_err *e);

#endif
