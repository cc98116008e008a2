/*
 * DOAP files parsed the way postern-check decodes uploads: import-doap runs
 * as root (it writes the generated module file), but libxml2 never does.
 * Root opens each file (doap_sources.c); a forked child, as the
 * doap_parse_user with no other group, in the sandbox of common/sandbox.h
 * (no_new_privs, Landlock denying every path, seccomp: read the file, write
 * the answer, allocate, exit; no socket, no signal, no exec), parses it and
 * answers (doap_answer.h). Root decodes the answer as hostile input.
 */
#ifndef POSTERN_POLICY_DOAP_CONFINED_H
#define POSTERN_POLICY_DOAP_CONFINED_H

#include <stdbool.h>
#include <sys/types.h>

#include "doap.h"
#include "errmsg.h"

struct doap_parser {
	bool drop;          /* running as root: become uid/gid in the child */
	uid_t uid;
	gid_t gid;
};

/* The parser that runs as user (when we are root; never as root). -EINVAL
 * with e filled when user does not exist or is root. */
int doap_parser_init(struct doap_parser *p, const char *user, struct pst_err *e);

/*
 * The maintainers in the DOAP file open on fd (read from its start), parsed
 * by a confined child; name is used in messages. 0 with dm filled, or
 * -errno with e saying why the file cannot be used (its own refusal, or
 * that the parser was stopped). fd stays open.
 */
int doap_parse_confined(const struct doap_parser *p, int fd, const char *name,
			struct doap_maintainers *dm, struct pst_err *e);

#endif
