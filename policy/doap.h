/*
 * Maintainers from a DOAP file (RDF/XML "Description of a Project").
 *
 * The file comes from a git repository anyone with commit access can change,
 * so it is hostile input: parsed by libxml2 with the network off, no entity
 * substitution, no DTD loading, and refused outright when it has a DOCTYPE,
 * the only place entities (XXE, "billion laughs") or an external DTD can be
 * declared. Only doap:maintainer entries count, never authors or anything
 * in comments.
 */
#ifndef POSTERN_POLICY_DOAP_H
#define POSTERN_POLICY_DOAP_H

#include <stddef.h>

#include "errmsg.h"

#define DOAP_FILE_MAX (1024 * 1024)
#define DOAP_MAINTAINERS_MAX 200

struct doap_person {
	char *userid;       /* gnome:userid, else the preferred foaf:accountName; NULL: none */
	char *name;         /* foaf:name, or NULL */
};

struct doap_maintainers {
	struct doap_person *v;   /* in document order */
	size_t n;
};

/*
 * Parse len bytes of buf; name is used in messages ("FILE:LINE:COL: what").
 * On success out holds every foaf:Person under a doap:maintainer.
 */
int doap_parse(const char *buf, size_t len, const char *name,
	       struct doap_maintainers *out, struct pst_err *e);

void doap_maintainers_free(struct doap_maintainers *m);

#endif
