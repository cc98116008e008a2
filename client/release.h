/*
 * postern-client --release: the files of one release and what became of
 * each. release.c drives it; local_check.c runs the server's checks here.
 */
#ifndef POSTERN_CLIENT_RELEASE_H
#define POSTERN_CLIENT_RELEASE_H

#include "client.h"
#include "release_name.h"

enum release_state {
	FILE_PENDING,      /* no result from the server (yet) */
	FILE_INSTALLED,    /* installed, with our sha256 (dry run: would be) */
	FILE_REFUSED,      /* the server said no, or installed other bytes */
};

struct release_file {
	const char *path;             /* as given on the command line */
	const char *name;             /* its last component: the name on the server */
	struct release_name rn;
	char sha256[65];              /* of the local file, from the checks */
	enum release_state state;
	bool waiting;                 /* not sent: a file of its name waited on the server */
};

/* The server's name and content checks on f->path; fills name, rn, sha256.
 * Returns 0, or -errno with e saying what the server would say. */
int local_check(struct release_file *f, struct pst_err *e);

#endif
