/*
 * postern-policy import-doap: DOAP files in, the generated module file out,
 * every change of a module's maintainers announced.
 *
 * MUST keep a module's previous entry when its DOAP file cannot be read or
 * parsed (nothing is lost because a file is broken), write the output only
 * atomically, and refuse to write anything when a source path is missing
 * (a missing checkout must not look like every module losing its maintainers).
 * MUST NOT parse a DOAP file as root: libxml2 runs confined as parse_user
 * (doap_confined.h); root only opens the files and writes the result.
 */
#ifndef POSTERN_POLICY_DOAP_IMPORT_H
#define POSTERN_POLICY_DOAP_IMPORT_H

#include <stddef.h>

/* Exit statuses of import-doap (also in --help and docs/POLICY.md). */
#define IMPORT_NO_CHANGE 0
#define IMPORT_ERRORS 1
#define IMPORT_CHANGES 2

struct import_opts {
	const char *const *paths;       /* directories of <module>.doap, or files */
	size_t npaths;
	const char *parse_user;         /* doap_parse_user: libxml2 runs as this user */
	const char *output;             /* absolute path of the generated file */
	const char *previous;           /* absolute path, or NULL: no comparison */
	const char *const *hook;        /* hooks.doap_change argv, or NULL */
	const char *hook_user;          /* hooks.doap_change_user: it runs as this user */
	const char *mail_to;            /* passed to the hook, may be NULL */
	const char *mail_from;
};

/* Run the import; prints changes on stdout, problems on stderr. */
int doap_import_run(const struct import_opts *o);

#endif
